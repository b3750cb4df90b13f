"""Chexers — three-player Chexers (COMP30024, University of Melbourne, 2019).

Rules: ``shared/rules/chexers.md`` (v1), which fixes every result to be the official referee's
(version 1.1). Checked here against the referee's figures in that file (perft, cases C1-C15)
and against an independent plain model of the rules; a run against the referee itself (C16)
is not part of this repository.

=================  ============================================================================
Seats              3: seat 0 ``red``, 1 ``green``, 2 ``blue``; they move in that order, always
                   (a seat with no pieces, or all blocked, still gets its turn and PASSes).
Board              37 hexes ``(q, r)`` with ``q, r, -q-r`` in ``[-3, 3]``; ``q`` grows to
                   the right, ``r`` downwards. 4 pieces each. Red starts on ``(-3, 0..3)`` and
                   exits from ``(3, -3..0)``; Green starts on the top row ``r = -3`` and exits
                   from the bottom row; Blue starts on ``(3,0) (2,1) (1,2) (0,3)`` and exits
                   from ``(-3,0) (-2,-1) (-1,-2) (0,-3)``.
Actions            ``{"type":"MOVE","from":[q,r],"to":[q,r]}`` to an empty neighbour;
                   ``{"type":"JUMP","from":[q,r],"to":[q,r]}`` over any occupied neighbour to
                   the empty hex beyond (a piece of another colour jumped over is converted
                   to the jumper's colour); ``{"type":"EXIT","from":[q,r]}`` from an own exit
                   hex; ``{"type":"PASS"}`` only when nothing else is possible. Strict shape:
                   upper-case type, integer coordinates, hexes on the board, no other keys
                   (else ``MalformedAction``). Legal lists are in the canonical order: pieces
                   by ``q`` then ``r``; per piece EXIT, then steps ``(-1,0) (0,-1) (1,-1)
                   (1,0) (0,1) (-1,1)``. ``action_key`` = ``(from q, from r, 0 | 1 + step)``.
Illegal actions    ``IllegalAction.rule``: ``no_piece``, ``not_your_piece``, ``not_adjacent``,
                   ``not_a_jump``, ``target_occupied``, ``jump_over_empty``,
                   ``landing_occupied``, ``not_an_exit_hex``, ``pass_not_allowed``,
                   ``game_over``; another seat's turn: ``NotToAct``.
Views              Perfect information; every seat and spectators see the same: ``cxn``,
                   ``pieces`` and ``exits`` by colour name, ``turn`` (``T``), ``to_move`` /
                   ``to_move_seat`` (``None`` when over), ``repetitions`` (occurrences of the
                   current position) and ``history`` (repetition key text → count).
Events             One per action: ``{"type":"action","seat":s,"turn":T,"action":{...},
                   "exited":bool}`` plus ``"converted":[q,r]`` and ``"converted_from":seat``
                   when a jump converted a piece.
Outcome            Checked after each action, in the referee's order: ``T >= 768`` → draw
                   ``turn_limit``; the position's 4th occurrence (key = occupied hexes with
                   colours + ``T mod 3``; the start counts once) → draw ``repetition``
                   (reported over ``turn_limit`` if both); otherwise 4 exits → win, reason
                   ``exits``. A draw beats a win made on the same turn. Scores: exits per seat.
Notation (CXN)     ``<board> <to-move> <exits> <T>``, e.g. the start
                   ``gggg/5/6/r5b/r4b/r3b/r2b r 0,0,0 0``: rows ``r = -3..3`` joined by ``/``,
                   ``q`` ascending, ``r``/``g``/``b`` or a digit 1-7 for a run of empty hexes;
                   to-move = ``"rgb"[T mod 3]``; exits 0-3 each; ``0 <= T <= 767``. A game
                   started from CXN has a fresh history. ``to_notation`` writes plain CXN
                   while the history is fresh and the game goes on; otherwise it appends a
                   fifth field, the history ``<board>,<to-move>=<count>;…`` (our extension;
                   then ``T`` may be 768 and the last mover may have 4 exits), so every state
                   reads back exactly. Action text: ``MOVE -3,3 -2,3``, ``JUMP 0,0 2,0``,
                   ``EXIT 3,-1``, ``PASS``; ``to_referee_tuple``/``from_referee_tuple``
                   convert to and from the referee's ``("MOVE", ((q, r), (q, r)))``.
State              JSON: ``num_seats``, ``pieces`` ``{"r":[[q,r],…],"g":…,"b":…}``, ``exits``
                   ``{"r":0,"g":0,"b":0}``, ``turns``, ``history`` (key text → count since the
                   last exit; older keys can never recur), ``outcome``.
=================  ============================================================================

Fast API for search (no JSON on the hot path), :mod:`engine.chexers.position`:

* :class:`Position` — build with ``start()``, ``from_cxn(text)``, ``from_notation(text)``,
  ``from_state(state)`` (``GAME.position(state)``) or ``from_view(view)``; export with
  ``to_cxn()``, ``to_notation()``, ``to_state()``. Play with ``legal_actions()`` (canonical
  order), ``apply(act)`` / ``undo()`` (unchecked, exact inverse, the history counts the search
  path), ``copy()``; read ``result`` (``None`` or ``(winner | DRAW, reason)``), ``to_move``,
  ``turn``, ``exits``, ``cells`` (hex index → colour or -1), ``bb`` (per-colour bit sets),
  ``pieces(c)``, ``num_pieces(c)``, ``key()``, ``count()``, ``has_action()``,
  ``last_converted()``; validate outside input with ``check(json_action)``.
* :class:`Act` — shared immutable actions ``(kind, frm, to, mid, order)`` with kinds
  ``EXIT``/``MOVE``/``JUMP``/``PASS``; ``to_json()``; ``str(act)`` is the action text.
* :func:`perft`, and the tables ``HEXES``/``INDEX`` (hex index ↔ ``(q, r)``) and
  ``DIST_TO_EXIT[colour][hex]`` (for evaluations).
"""

from engine.chexers.game import Chexers
from engine.chexers.geometry import COLOUR_NAMES, DIST_TO_EXIT, HEXES, INDEX
from engine.chexers.notation import (
    START_CXN,
    action_text,
    from_referee_tuple,
    parse_action,
    to_referee_tuple,
)
from engine.chexers.position import (
    DRAW,
    EXIT,
    JUMP,
    MOVE,
    PASS,
    PASS_ACT,
    RULES,
    Act,
    Position,
    perft,
)

GAME = Chexers()

__all__ = [
    "COLOUR_NAMES", "DIST_TO_EXIT", "DRAW", "EXIT", "GAME", "HEXES", "INDEX", "JUMP", "MOVE",
    "PASS", "PASS_ACT", "RULES", "START_CXN", "Act", "Chexers", "Position", "action_text",
    "from_referee_tuple", "parse_action", "perft", "to_referee_tuple",
]
