"""Barca — mice, lions and elephants race for the watering holes.

Rules: ``shared/rules/barca.md`` (v1). Checked here against its test cases B1-B20 and B25 and
its perft counts (38 / 1,404 / 66,286 / 3,046,014).

=================  ============================================================================
Seats              2: seat 0 ``white`` (moves first), seat 1 ``black``.
Board              10 × 10, squares ``a1``…``j10`` (files a-j, ranks 1-10 from White's side);
                   watering holes d4, g4, d7, g7. Each side has 2 elephants (slide like a
                   queen), 2 lions (bishop) and 2 mice (rook); no jumping, no captures. A mouse
                   fears an enemy lion, a lion an enemy elephant, an elephant an enemy mouse:
                   an animal next to one it fears is *scared*; *forced* if it can reach a
                   square where it is not scared, else *trapped*.
Actions            ``{"type":"move","from":"e2","to":"e5"}``, the same with ``"claim":true``
                   (the position after it has occurred 3 times: the move is played and the game
                   is drawn), ``{"type":"claim"}`` (the current position has occurred 3
                   times), ``{"type":"pass"}`` (only when no move is legal). Legal moves: if an
                   animal is forced, only forced animals move, to safe squares (L1); otherwise
                   calm animals to safe squares and trapped ones anywhere they reach (L2).
                   Squares are lower-cased on input; unknown types, missing or extra keys and
                   non-squares are ``MalformedAction``. Canonical order: moves by (from, to)
                   square index ``10*(rank-1)+file``, each claiming twin right after its move,
                   then ``pass``, then ``claim``.
Illegal actions    ``IllegalAction.rule``: ``no_piece``, ``not_your_piece`` (moving an
                   opponent's animal), ``not_a_line``, ``path_blocked``, ``forced_priority``
                   (ignoring a forced animal), ``forced_into_danger``, ``calm_into_danger``
                   (a calm animal into danger), ``pass_not_allowed``, ``no_repetition``
                   (claiming with no threefold repetition), ``game_over``; another seat's
                   turn: ``NotToAct``.
Views              Perfect information; every seat and spectators see the same: ``bpn``,
                   ``pieces`` (side → type → squares), ``holes``, ``to_move`` /
                   ``to_move_seat`` (``None`` when over), ``ply``, ``repetitions``,
                   ``claim_available``, ``status`` (square → calm/forced/trapped for the side
                   to move), ``scared`` (squares, both sides) and ``history``.
Events             One per action: ``{"type":"action","seat":s,"ply":p,"action":{...},
                   "text":"e2-e5"}``, plus ``"result"`` (a reason below) when it ends the game.
Outcome            Checked after a move or pass, in this order (§7.4): the mover holds 3 of the
                   4 holes → win, reason ``holes``; a claim attached → draw ``claim``; the
                   position's 5th occurrence → draw ``fivefold``; ply 300 → draw ``ply_cap``.
                   A bare claim → draw ``claim``. A missed deadline loses (``timeout``).
Notation (BPN)     ``<placement> <side> <ply>``, e.g. the start
                   ``4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 w 0``: ranks 10 down to 1 joined
                   by ``/``, ``E L M`` white, ``e l m`` black, 1-10 for empty runs; the ply may
                   be left out on input. A game started from BPN has a fresh history. The game
                   notation appends the history ``<placement>,<side>=<count>;…`` when it is not
                   fresh or the game is over, and ``claim`` after a claimed draw (our
                   extension), so every state reads back exactly. Action text: ``e2-e5``,
                   ``e2-e5 claim``, ``claim``, ``pass``.
State              JSON: ``num_seats``, ``bpn``, ``history`` (key text ``"<placement> <w|b>"``
                   → count), ``outcome``.
=================  ============================================================================

Fast API for search (no JSON on the hot path), :mod:`engine.barca.position`:

* :class:`Position` — build with ``start()``, ``from_bpn(text)`` or ``from_state(state)``
  (``GAME.position(state)``, history included); export with ``to_bpn()``. Play with
  ``legal_moves()`` (ints ``100*from + to`` in canonical order, ``[PASS]`` when blocked),
  ``apply(move)`` / ``undo()`` (unchecked, exact inverse; the history counts the search path),
  ``copy()``; read ``result`` (``None`` or ``(winner | DRAW, reason)``; claims are the caller's),
  ``side``, ``ply``, ``cells``, ``bb``, ``key``, ``count()``, ``count_after(move)``,
  ``can_claim()``, ``danger(side)``, ``reach(square)``, ``piece_status(square)``,
  ``statuses(side)``, ``moves(side)`` (as if ``side`` were to move), ``holes(side)``; validate
  a move with ``move_error(frm, to)``.
* :func:`perft`, and the tables of :mod:`engine.barca.geometry` (``N8``, ``RAYS``, ``HOLES``,
  ``SQUARE_NAMES``/``SQUARE_INDEX``).

Incremental move updates (rules §12.6), :mod:`engine.barca.incremental`:

* :class:`~engine.barca.incremental.IncrementalPosition` — a ``Position`` (same calls, same
  answers in the same order) that keeps per animal its visible rays and blockers, ``valid``
  destinations and status, per piece code bit-sliced danger counters, and per side the forced
  animals; ``apply`` repairs only the rays through the from/to squares and the animals whose
  danger changed, ``undo`` restores from a per-move change log. For an evaluation it answers
  ``legal_masks(side)`` (per legal mover: square, type, destination bit set, L1 applied),
  ``reach_mask``, ``valid_mask``, ``status_code``, ``forced_mask``, ``danger_count`` without
  generating moves; :func:`~engine.barca.incremental.move_features` gives MOBILITY,
  SCARE_THREATS and HOLE_REACH (§12.2) from those masks. B25
  (``tests/barca/test_incremental.py``) proves it equal to from-scratch generation.
  ``arena bench engine --game barca`` times both cores (perft(4), random playouts, playouts
  reading both sides' moves and statuses) and quotes the ratio. In CPython, move generation
  alone (perft, playouts) is a little slower incremental than scratch — the scratch bitboard
  generator is already cheap and the repair costs about as much — while reading both sides'
  move sets and statuses at every position, as an evaluation does, is faster.
"""

from engine.barca.game import Barca, move_json
from engine.barca.geometry import (
    BLACK,
    ELEPHANT,
    HOLES,
    LION,
    MOUSE,
    SIDE_NAMES,
    SQUARE_INDEX,
    SQUARE_NAMES,
    WHITE,
)
from engine.barca.notation import (
    PLY_CAP,
    START_BPN,
    action_text,
    parse_action,
    parse_action_text,
)
from engine.barca.position import DRAW, PASS, RULES, Position, perft

GAME = Barca()

__all__ = [
    "BLACK", "DRAW", "ELEPHANT", "GAME", "HOLES", "LION", "MOUSE", "PASS", "PLY_CAP", "RULES",
    "SIDE_NAMES", "SQUARE_INDEX", "SQUARE_NAMES", "START_BPN", "WHITE", "Barca", "Position",
    "action_text", "move_json", "parse_action", "parse_action_text", "perft",
]
