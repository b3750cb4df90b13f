"""The evaluation features of rules §12.2 written literally, one side at a time, from
:meth:`Position.moves` and :meth:`Position.reach`: the oracle the fast, two-sides-at-once
:func:`bots.barca.evaluation.side_features` is checked against. (This was the product's
implementation before the fast one; it moved here when that replaced it.)"""

from __future__ import annotations

from bots.barca.evaluation import _CENTRE_MASK, HOLE_DIST_TABLE
from engine.barca.geometry import HOLE_MASK, HOLES, N8, NUM_SQUARES
from engine.barca.position import Position

_BIT = tuple(1 << i for i in range(NUM_SQUARES))


def reference_features(pos: Position, side: int) -> list[int]:
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


