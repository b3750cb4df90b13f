"""The seed's evaluation vector (rules §12.2): 15 integer features per side, integer weights.

For a position ``s`` and a side ``X``, :func:`features` returns ``h(s, X)``, the raw
per-side counts of the table in §12.2 (``LM(s, X)`` is the §5 move set computed as if ``X``
were to move: :meth:`Position.moves`). The agent scores ``s`` for ``X`` by
``E_w(s, X) = Σ_k w_k · (h_k(s, X) − h_k(s, Ẋ))`` (:func:`evaluate`), so
``E_w(s, Ẋ) = −E_w(s, X)``.

Fast path: every reach is a bit set found with one mask operation per ray
(:func:`reach_mask`), both sides are computed in one pass, and :func:`evaluate` keeps each
position's feature difference (weights apply afterwards). The literal one-side-at-a-time
reading of the table is the oracle in ``tests/bots/barca/reference_features.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.barca.geometry import HOLE_MASK, HOLES, N8, NUM_SQUARES, RAYS, SIZE
from engine.barca.position import Position, danger_sets

FEATURES: Final = (
    "HOLE_1", "HOLE_2", "WIN_NEXT", "HOLE_REACH", "HOLDERS_SAFE", "HOLDERS_SCARED", "SCARED",
    "TRAPPED", "SCARE_THREATS", "MOBILITY", "HOLE_DIST", "HOLE_GUARD", "CENTRE", "BLOCKED",
    "TEMPO",
)
"""Feature names in the order of §12.2 (k = 1 … 15)."""

DEFAULT_WEIGHTS: Final[tuple[int, ...]] = (
    100, 250, 400, 30, 60, -40, -30, -20, 15, 1, -10, 20, 5, -5, 10)
"""The starting weights of §12.2 (before tuning)."""

WEIGHT_LIMIT: Final = 1000
"""Weights are clamped to ``[-WEIGHT_LIMIT, WEIGHT_LIMIT]`` during tuning (§12.2)."""


def _hole_dist(piece_type: int, square: int) -> int:
    """``dist(p)`` of HOLE_DIST: 0 on a hole, 1 if a hole lies on one of its lines (blockers
    ignored), else 2."""
    if HOLE_MASK >> square & 1:
        return 0
    on_line = any(HOLE_MASK >> s & 1 for ray in RAYS[piece_type][square] for s in ray)
    return 1 if on_line else 2


#: ``HOLE_DIST_TABLE[type][square]``: the per-piece term of HOLE_DIST (computed once).
HOLE_DIST_TABLE: Final = tuple(
    tuple(_hole_dist(t, i) for i in range(NUM_SQUARES)) for t in range(3))

_BIT: Final = tuple(1 << i for i in range(NUM_SQUARES))
_CENTRE_MASK: Final = sum(1 << (SIZE * r + f) for r in range(3, 7) for f in range(3, 7))
"""Files d-g, ranks 4-7."""


def validate_weights(weights: Sequence[int]) -> tuple[int, ...]:
    """``weights`` as a tuple of 15 integers; :class:`ValueError` otherwise."""
    out = tuple(weights)
    if len(out) != len(FEATURES) or not all(
            isinstance(w, int) and not isinstance(w, bool) for w in out):
        raise ValueError(f"weights must be {len(FEATURES)} integers, not {weights!r}")
    return out


def _ray_table() -> tuple[tuple[tuple[tuple[int, bool], ...], ...], ...]:
    """``RAY_MASKS[type][square]``: each ray of :data:`RAYS` as ``(bit set, outward)``;
    ``outward`` when its squares ascend, so its nearest blocker is its lowest occupied bit
    (else its highest)."""
    return tuple(
        tuple(tuple((sum(1 << s for s in ray), ray[0] > i) for ray in RAYS[t][i])
              for i in range(NUM_SQUARES))
        for t in range(3))


RAY_MASKS: Final = _ray_table()


def reach_mask(piece_type: int, square: int, occupied: int) -> int:
    """The bit set of vacant squares a ``piece_type`` on ``square`` slides to (§3) on the
    board ``occupied``: per ray, the squares before its nearest occupied one."""
    out = 0
    for mask, outward in RAY_MASKS[piece_type][square]:
        blockers = mask & occupied
        if not blockers:
            out |= mask
        elif outward:
            out |= mask & ((blockers & -blockers) - 1)
        else:
            out |= mask & -(1 << blockers.bit_length())
    return out


def _side(bb: Sequence[int], occupied: int, side: int, to_move: int) -> list[int]:
    """``h(s, side)`` from the bit boards (§12.2), every move as a destination bit set."""
    own_code = 3 * side
    o = 3 - own_code
    forced: list[tuple[int, int, int]] = []   # (square, type, destinations)
    normal: list[tuple[int, int, int]] = []
    own = bb[own_code] | bb[own_code + 1] | bb[own_code + 2]
    holders_safe = holders_scared = scared = trapped = blocked = dist = 0
    dangers = danger_sets(bb, side)
    for t in (0, 1, 2):
        bits = bb[own_code + t]
        if not bits:
            continue
        danger = dangers[t]
        dist_row = HOLE_DIST_TABLE[t]
        while bits:
            low = bits & -bits
            bits ^= low
            x = low.bit_length() - 1
            reach = reach_mask(t, x, occupied)
            if not reach:
                blocked += 1
            dist += dist_row[x]
            on_hole = low & HOLE_MASK
            if low & danger:
                scared += 1
                if on_hole:
                    holders_scared += 1
                safe = reach & ~danger
                if safe:
                    forced.append((x, t, safe))
                else:
                    trapped += 1
                    normal.append((x, t, reach))
            else:
                if on_hole:
                    holders_safe += 1
                normal.append((x, t, reach & ~danger))
    holes = (own & HOLE_MASK).bit_count()
    mobility = 0
    dests = [0, 0, 0]
    off_hole_dests = 0
    for x, t, to in forced or normal:
        mobility += to.bit_count()
        dests[t] |= to
        if not HOLE_MASK >> x & 1:
            off_hole_dests |= to
    reach_count = (off_hole_dests & HOLE_MASK).bit_count()
    # An opposing piece of type u is threatened when a move of the type it fears, feared(u),
    # ends next to it.
    threatened = 0
    for u in (0, 1, 2):
        bits = bb[o + u]
        reaching = dests[(u + 1) % 3]
        while bits:
            low = bits & -bits
            bits ^= low
            if N8[low.bit_length() - 1] & reaching:
                threatened += 1
    vacant_holes = HOLE_MASK & ~occupied
    guard = sum(1 for h in HOLES if vacant_holes >> h & 1 and N8[h] & own)
    return [
        int(holes >= 1),
        int(holes >= 2),
        int(holes == 2 and reach_count > 0),
        reach_count,
        holders_safe,
        holders_scared,
        scared,
        trapped,
        threatened,
        mobility,
        dist,
        guard,
        (own & _CENTRE_MASK).bit_count(),
        blocked,
        int(to_move == side),
    ]


def side_features(pos: Position) -> tuple[list[int], list[int]]:
    """``(h(s, white), h(s, black))``: the 15 raw features of §12.2 for both sides."""
    bb = pos.bb
    occupied = bb[0] | bb[1] | bb[2] | bb[3] | bb[4] | bb[5]
    return _side(bb, occupied, 0, pos.side), _side(bb, occupied, 1, pos.side)


def features(pos: Position, side: int) -> list[int]:
    """``h(s, side)``: the 15 raw features of §12.2, in :data:`FEATURES` order."""
    return side_features(pos)[side]


def feature_vector(pos: Position, side: int) -> list[int]:
    """``φ(s, side) = h(s, side) − h(s, opponent)``."""
    white, black = side_features(pos)
    mine, theirs = (white, black) if side == 0 else (black, white)
    return [a - b for a, b in zip(mine, theirs, strict=True)]


_PHI_CACHE: dict[int, tuple[int, ...]] = {}
"""White's ``φ`` by position key (placement and side to move): features do not depend on
the weights, so every search of a process shares it (two agents of a tuning match, the
next move's search, the next iteration's games)."""
PHI_CACHE_LIMIT: Final = 200_000
"""Entries kept before the cache starts afresh (about 60 MB at most: a house bot process
keeps it for its whole life)."""


def evaluate(pos: Position, side: int, weights: Sequence[int] = DEFAULT_WEIGHTS) -> int:
    """``E_w(s, side) = Σ_k w_k · φ_k(s, side)``."""
    phi = _PHI_CACHE.get(pos.key)
    if phi is None:
        if len(_PHI_CACHE) >= PHI_CACHE_LIMIT:
            _PHI_CACHE.clear()
        white, black = side_features(pos)
        phi = _PHI_CACHE[pos.key] = tuple(a - b for a, b in zip(white, black, strict=True))
    value = sum(w * f for w, f in zip(weights, phi, strict=True))
    return value if side == 0 else -value
