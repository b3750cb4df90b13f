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


def features(pos: Position, side: int) -> list[int]:
    """``h(s, side)``: the 15 raw features of §12.2, in :data:`FEATURES` order."""
    cells = pos.cells
    bb = pos.bb
    danger = pos.danger(side)
    moves = pos.moves(side)
    pieces = []
    own = 0
    for t in range(3):
        bits = bb[3 * side + t]
        own |= bits
        while bits:
            low = bits & -bits
            bits ^= low
            pieces.append((low.bit_length() - 1, t))
    holes = (own & HOLE_MASK).bit_count()

    # Destinations of the legal moves, per moving type, and those of pieces not on a hole.
    dests = [0, 0, 0]
    off_hole_dests = 0
    for move in moves:
        frm = move // 100
        bit = _BIT[move - 100 * frm]
        dests[cells[frm] % 3] |= bit
        if not HOLE_MASK >> frm & 1:
            off_hole_dests |= bit
    reach_count = (off_hole_dests & HOLE_MASK).bit_count()
    # An opposing piece of type u is threatened when a move of the type it fears, feared(u),
    # ends next to it.
    o = 3 - 3 * side
    threatened = 0
    for u in range(3):
        bits = bb[o + u]
        reaching = dests[(u + 1) % 3]
        while bits:
            low = bits & -bits
            bits ^= low
            if N8[low.bit_length() - 1] & reaching:
                threatened += 1

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

    guard = sum(1 for h in HOLES if cells[h] < 0 and N8[h] & own)
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
