"""The seed's evaluation vector (rules §12.2): 15 integer features per side, integer weights.

For a position ``s`` and a side ``X``, :func:`features` returns ``h(s, X)``, the raw
per-side counts of the table in §12.2 (``LM(s, X)`` is the §5 move set computed as if ``X``
were to move: :meth:`Position.moves`). The agent scores ``s`` for ``X`` by
``E_w(s, X) = Σ_k w_k · (h_k(s, X) − h_k(s, Ẋ))`` (:func:`evaluate`), so
``E_w(s, Ẋ) = −E_w(s, X)``. Pure functions of the position; nothing is cached.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.barca.geometry import HOLE_MASK, HOLES, N8, NUM_SQUARES, RAYS, SIZE
from engine.barca.position import Position

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

_CENTRE_MASK: Final = sum(1 << (SIZE * r + f) for r in range(3, 7) for f in range(3, 7))
"""Files d-g, ranks 4-7."""


def validate_weights(weights: Sequence[int]) -> tuple[int, ...]:
    """``weights`` as a tuple of 15 integers; :class:`ValueError` otherwise."""
    out = tuple(weights)
    if len(out) != len(FEATURES) or not all(
            isinstance(w, int) and not isinstance(w, bool) for w in out):
        raise ValueError(f"weights must be {len(FEATURES)} integers, not {weights!r}")
    return out


def features(pos: Position, side: int) -> list[int]:
    """``h(s, side)``: the 15 raw features of §12.2, in :data:`FEATURES` order."""
    cells = pos.cells
    danger = pos.danger(side)
    moves = pos.moves(side)
    pieces = [(i, cells[i] % 3) for i in range(NUM_SQUARES)
              if cells[i] >= 0 and cells[i] // 3 == side]
    holes = sum(1 for i, _ in pieces if HOLE_MASK >> i & 1)

    reach_holes = 0  # bit set of vacant holes reachable by a piece not on a hole
    threatened = 0  # bit set of opposing pieces a move would scare
    o = 3 - 3 * side
    # For each of our types, the squares next to an opposing piece that fears it.
    scare_zone = []
    for t in range(3):
        bits = pos.bb[o + (t + 2) % 3]  # opposing type u with feared(u) = t
        zone = 0
        while bits:
            low = bits & -bits
            bits ^= low
            zone |= N8[low.bit_length() - 1]
        scare_zone.append(zone)
    for move in moves:
        frm, to = divmod(move, 100)
        t = cells[frm] % 3
        if HOLE_MASK >> to & 1 and not HOLE_MASK >> frm & 1:
            reach_holes |= 1 << to
        if scare_zone[t] >> to & 1:
            victims = pos.bb[o + (t + 2) % 3] & N8[to]
            threatened |= victims

    holders_safe = holders_scared = scared = trapped = blocked = dist = 0
    for i, t in pieces:
        reach = pos.reach(i)
        if not reach:
            blocked += 1
        dist += HOLE_DIST_TABLE[t][i]
        if danger[t] >> i & 1:
            scared += 1
            if all(danger[t] >> s & 1 for s in reach):
                trapped += 1
            if HOLE_MASK >> i & 1:
                holders_scared += 1
        elif HOLE_MASK >> i & 1:
            holders_safe += 1

    own = 0
    for i, _ in pieces:
        own |= 1 << i
    guard = sum(1 for h in HOLES if cells[h] < 0 and N8[h] & own)
    reach_count = reach_holes.bit_count()
    return [
        int(holes >= 1),
        int(holes >= 2),
        int(holes == 2 and reach_count > 0),
        reach_count,
        holders_safe,
        holders_scared,
        scared,
        trapped,
        threatened.bit_count(),
        len(moves),
        dist,
        guard,
        (own & _CENTRE_MASK).bit_count(),
        blocked,
        int(pos.side == side),
    ]


def feature_vector(pos: Position, side: int) -> list[int]:
    """``φ(s, side) = h(s, side) − h(s, opponent)``."""
    mine, theirs = features(pos, side), features(pos, side ^ 1)
    return [a - b for a, b in zip(mine, theirs, strict=True)]


def evaluate(pos: Position, side: int, weights: Sequence[int] = DEFAULT_WEIGHTS) -> int:
    """``E_w(s, side) = Σ_k w_k · φ_k(s, side)``."""
    return sum(w * f for w, f in zip(weights, feature_vector(pos, side), strict=True))
