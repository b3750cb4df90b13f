"""Boundary — plan in secret, move at once: influence, surround and capture on a field.

Rules: ``shared/rules/boundary.md`` (v0.1, from R. Brown's 2013 thesis). Checked here against
every test case of its §14 (``tests/boundary``).

=================  ============================================================================
Seats              2: seat 0 ``blue`` (pieces 0–6), seat 1 ``red`` (pieces 7–13). Both plan
                   every turn at once (a simultaneous decision).
Field              800 × 800 pixels, integer positions, ``y`` downward; influence is coloured
                   per 2 × 2-pixel cell (400 × 400 cells). The border is the only wall.
Start              One chance outcome: a layout number ``0..65535``; its pieces and 15
                   treasures (values 1–7) are drawn from SplitMix64 with distance floors
                   (§4.2). Every piece starts alone.
Actions            A plan: ``{"turn": 3, "moves": {"0": [500, 560], "5": [520, 590]}}`` —
                   some of the seat's living pieces, each with a target pixel within
                   ``M(n) = 40·n`` px of it (``n``: its blob's size at the start of the turn);
                   pieces not named stay. The seat's ``action_space`` (:mod:`engine.spaces`)
                   describes exactly that: the turn as a constant and, per living piece, the
                   disc it may reach, clipped to the field. ``{"turn": t, "moves": {}}`` (stay)
                   is always legal and is what a missed deadline plays (``timeout: default``).
Malformed          Not an object, missing/extra field, ``turn`` not an integer, a key that is
                   not a piece id ``0``–``13``, a target that is not two integers.
Illegal actions    ``IllegalAction.rule``: ``stale_turn`` (the plan names another turn),
                   ``no_such_piece`` (an id beyond this match's pieces), ``not_your_piece``,
                   ``piece_captured``, ``off_field``, ``out_of_reach``; the first problem in
                   piece order is reported. Not acting now: ``NotToAct``.
Resolution         All pieces walk at once, one king step per tick along the rounded straight
                   line (``N = ⌈distance⌉`` ticks); after every tick: one influence snapshot,
                   every piece then every treasure checked against it, captures applied
                   together (+30 for a piece, +value for a treasure), blobs regrouped (merge
                   at ``20·(n+1)`` px, split beyond ``20·(n+2)``), the end checked.
Views              Perfect information, the same for every seat and spectators: ``phase``,
                   ``turn``, ``scores``, ``options``, ``field``, ``pieces`` (id, team, x, y,
                   blob, ``prev``: where it started the previous turn), ``blobs`` (members,
                   ``move_radius``, ``influence_radius``), ``treasures``, ``taken`` (with
                   ``by``), ``captured``, ``last`` (the previous turn's number and both
                   revealed ``plans``), ``result`` and
                   ``territory`` (every cell's colour, run-length text: ``a``/``b``/``n`` for
                   blue/red/neutral then a count, row by row). Hidden: only the plan a seat
                   has committed this turn, which the driver holds until both are in.
Events             ``setup`` {layout}; per turn one ``resolution``: ``turn``, ``ticks``, both
                   ``plans`` (revealed), ``walks`` ([piece, x0, y0, x1, y1] per moving piece),
                   ``events`` (each with its ``tick``: ``piece_captured`` {piece, by,
                   points}, ``treasure_captured`` {treasure, by, points}, ``split`` {team,
                   blob, into}, ``merge`` {team, blobs, into}), ``scores``, ``result``.
Outcome            The game ends after the tick in which the last treasure is taken (reason
                   ``treasures``) or a side loses its last piece (``elimination``), or after
                   turn 100 (``turn_limit``). The higher score wins; equal scores draw.
Options            ``pieces`` (1–7), ``treasures`` (1–15), ``max_value`` (1–15),
                   ``capture_points`` (0–100), ``influence_radius`` R1 (10–29),
                   ``move_radius`` M1 (10–80), ``turn_limit`` (1–100); defaults are the rule
                   book's (7, 15, 7, 30, 20, 40, 100).
Notation (BDN)     ``turn=3 score=12,30 | 0:485,579+5:386,384 1:661,508 | 7:490,375 |
                   0:28,304=2 1:59,735=4>1`` — see :mod:`engine.boundary.notation`.
State              JSON: ``options``, ``layout`` (``None`` before the start, ``-1`` for a
                   position read from BDN), ``turn``, ``scores``, ``pieces``/``prev`` ([x, y]
                   or ``None`` by id), ``blobs``, ``treasures`` ([x, y, value]), ``taken``
                   ([team, turn, tick] or ``None``), ``lost`` ([turn, tick] or ``None``),
                   ``last`` ({turn, plans} or ``None``), ``result``.
=================  ============================================================================

Arithmetic is integer-only and exact (the tables of :mod:`engine.boundary.tables` are checked
against the rule book's SHA-256s); NumPy colours the cells the capture checks read (this is
the one game allowed NumPy). Fast API for bots and benchmarks: :class:`Board` (``resolve``,
``surround_count``, ``regroup``), :func:`board_of` / :func:`state_of`, :func:`layout`.
"""

from engine.boundary.board import Board, position_at, steps_to
from engine.boundary.game import Boundary, board_of, state_of, territory
from engine.boundary.params import Params
from engine.boundary.setup import LAYOUTS, layout

GAME = Boundary()

__all__ = ["GAME", "LAYOUTS", "Board", "Boundary", "Params", "board_of", "layout",
           "position_at", "state_of", "steps_to", "territory"]
