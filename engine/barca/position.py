"""The fast core: a mutable Barca position for move generation and search.

Search agents use this class directly; :class:`engine.barca.game.Barca` (the JSON contract)
is built on it. Contract::

    pos = Position.start()              # or from_bpn(text), from_state(state)
    for move in pos.legal_moves():      # canonical order (§10); [PASS] when no move (L3)
        pos.apply(move)                 # unchecked: move must come from legal_moves()
        if pos.result is not None: ...  # (winner or DRAW, reason) once the game is over
        pos.undo()                      # exact inverse of the last apply, history included

Representation (why it is fast): squares are indices 0-99 (:mod:`~engine.barca.geometry`);
``cells`` maps each square to a piece code ``3*side + type`` or ``-1``; ``bb[code]`` is the
bit set of that code's squares (two pieces at most); a move is the integer
``100*from + to``, so sorting moves sorts them canonically (§10), and :data:`PASS` is ``-1``.
The repetition key is one integer, updated by two XORs per move: bit ``100*code + square``
per piece plus a side-to-move bit.

The repetition ``history`` (key → count) holds the game's positions *and* those on the
current search path: :meth:`apply` counts the new position, :meth:`undo` uncounts it, so
:attr:`result` is the rules' verdict (§7.4) for the path searched. Claims (§7.2) are the
player's choice, not an automatic result: :meth:`count`, :meth:`count_after` tell when one
is available.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Self

from engine.barca import notation
from engine.barca.geometry import (
    EMPTY,
    HOLE_MASK,
    HOLES_TO_WIN,
    LINES,
    N8,
    NUM_SQUARES,
    RAYS,
    SQUARE_NAMES,
    moves_along,
)
from engine.core import IllegalAction
from engine.perft import perft as count_sequences

PASS: Final = -1
"""The pass "move" of the fast core."""
DRAW: Final = -1
"""``result[0]`` of a drawn game."""
PLY_CAP: Final = notation.PLY_CAP
REPETITIONS_TO_CLAIM: Final = notation.REPETITIONS_TO_CLAIM
REPETITIONS_TO_DRAW: Final = notation.REPETITIONS_TO_DRAW

Result = tuple[int, str]
"""``(winner, "holes")`` or ``(DRAW, "claim" | "fivefold" | "ply_cap")``."""

CALM: Final = "calm"
FORCED: Final = "forced"
TRAPPED: Final = "trapped"

_KEY_BIT: Final = tuple(1 << k for k in range(6 * NUM_SQUARES + 1))
_SIDE_BIT: Final = 1 << (6 * NUM_SQUARES)
_BIT: Final = tuple(1 << i for i in range(NUM_SQUARES))
_FIVEFOLD: Final[Result] = (DRAW, "fivefold")
_PLY_CAP: Final[Result] = (DRAW, "ply_cap")
_WINS: Final[tuple[Result, Result]] = ((0, "holes"), (1, "holes"))

#: Rule ids of :class:`~engine.core.IllegalAction` for Barca, with their messages.
RULES: Final[dict[str, str]] = {
    "game_over": "the game is over",
    "no_piece": "there is no animal on the 'from' square (§6)",
    "not_your_piece": "the animal on the 'from' square belongs to the opponent (§6)",
    "not_a_line": "the animal does not move that way: mice move orthogonally, lions "
                  "diagonally, elephants both, one or more squares (§3)",
    "path_blocked": "an animal slides only over vacant squares to a vacant square (§3)",
    "forced_priority": "an animal of yours is scared and can escape: only such a forced "
                       "animal may move (§5 rule L1)",
    "forced_into_danger": "a forced animal must move to a square where it is not scared "
                          "(§5 rule L1)",
    "calm_into_danger": "a calm animal may not move next to an opposing animal it fears "
                        "(§5 rule L2)",
    "pass_not_allowed": "pass only when no move is legal (§5 rule L3)",
    "no_repetition": "a draw may be claimed only when the position has occurred 3 times "
                     "(§7.2)",
}


def illegal(rule: str, **details: Any) -> IllegalAction:
    """The :class:`~engine.core.IllegalAction` for one of :data:`RULES`."""
    return IllegalAction(RULES[rule], rule=rule, **details)


def key_of(cells: Sequence[int], side: int) -> int:
    """The repetition key (§7.2) of a placement and side to move, as one integer."""
    bb = [0] * 6
    for i, c in enumerate(cells):
        if c >= 0:
            bb[c] |= _BIT[i]
    return _key_of_bb(bb, side)


def _key_of_bb(bb: Sequence[int], side: int) -> int:
    return (bb[0] | bb[1] << 100 | bb[2] << 200 | bb[3] << 300 | bb[4] << 400 | bb[5] << 500
            | (_SIDE_BIT if side else 0))


def key_from_text(text: str) -> int:
    """The integer key of a key text ``"<placement> <w|b>"``."""
    placement, _, letter = text.partition(" ")
    return key_of(notation.parse_placement(placement), "wb".index(letter))


def danger_sets(bb: Sequence[int], side: int) -> tuple[int, int, int]:
    """Per type of ``side``'s pieces, the bit set of squares next to an opposing animal that
    type fears (§4 ``danger``)."""
    o = 3 - 3 * side  # first code of the opponent's pieces
    out = []
    for t in (0, 1, 2):
        bits = bb[o + (t + 1) % 3]
        d = 0
        while bits:
            low = bits & -bits
            bits ^= low
            d |= N8[low.bit_length() - 1]
        out.append(d)
    return out[0], out[1], out[2]


class Position:
    """A mutable position with its repetition history; see the module docstring.

    Public attributes (read them, change them only through :meth:`apply`/:meth:`undo`):
    ``cells``, ``bb``, ``side`` (0 white, 1 black: to move), ``ply``, ``key``, ``history``
    (key → count, search path included), ``result`` (``None`` or ``(winner|DRAW, reason)``).
    """

    __slots__ = ("cells", "bb", "side", "ply", "key", "history", "result", "_stack")

    def __init__(self, cells: Sequence[int], side: int, ply: int,
                 history: Mapping[int, int] | None = None,
                 result: Result | None = None) -> None:
        """No validation (use :meth:`from_bpn` for outside input). ``history`` defaults to a
        fresh one, ``{key: 1}`` (§9.1)."""
        self.cells: list[int] = list(cells)
        self.bb: list[int] = [0] * 6
        for i, c in enumerate(self.cells):
            if c >= 0:
                self.bb[c] |= _BIT[i]
        self.side = side
        self.ply = ply
        self.key = _key_of_bb(self.bb, side)
        self.history: dict[int, int] = (dict(history) if history is not None
                                        else {self.key: 1})
        self.result: Result | None = result
        self._stack: list[tuple[int, int]] = []

    # ---- construction and conversion ---------------------------------------------------------

    @classmethod
    def start(cls) -> Self:
        return cls.from_bpn(notation.START_BPN)

    @classmethod
    def from_bpn(cls, text: str) -> Self:
        """A position from BPN with a fresh history; raises :class:`BadNotation`."""
        cells, side, ply = notation.parse_bpn(text)
        return cls(cells, side, ply)

    @classmethod
    def from_state(cls, state: Mapping[str, Any], *, with_history: bool = True) -> Self:
        """The position of a JSON state of :class:`~engine.barca.game.Barca` (trusted).
        ``with_history=False`` leaves the history empty (for callers that keep their own)."""
        placement, letter, ply = state["bpn"].split(" ")
        pos = cls(notation.parse_placement(placement), "wb".index(letter), int(ply), {})
        if with_history:
            pos.history = {key_from_text(k): n for k, n in state["history"].items()}
        outcome = state.get("outcome")
        if outcome is not None:
            ranks = outcome["ranks"]
            pos.result = ((DRAW, outcome["reason"]) if ranks[0] == ranks[1]
                          else (ranks.index(0), outcome["reason"]))
        return pos

    def to_bpn(self) -> str:
        return notation.to_bpn(self.cells, self.side, self.ply)

    def placement(self) -> str:
        return notation.placement_text(self.cells)

    def copy(self) -> Position:
        """An independent copy (undo stack not included)."""
        return Position(self.cells, self.side, self.ply, self.history, self.result)

    # ---- queries -------------------------------------------------------------------------------

    def count(self) -> int:
        """Occurrences of the current position (game history plus search path)."""
        return self.history.get(self.key, 0)

    def count_after(self, move: int) -> int:
        """The count the position after ``move`` (legal, not yet played) would have."""
        key = self.key ^ _SIDE_BIT
        if move != PASS:
            frm, to = divmod(move, 100)
            c = self.cells[frm]
            key ^= _KEY_BIT[NUM_SQUARES * c + frm] ^ _KEY_BIT[NUM_SQUARES * c + to]
        return self.history.get(key, 0) + 1

    def can_claim(self) -> bool:
        """Whether the side to move may claim a draw now (§7.2)."""
        return self.result is None and self.history.get(self.key, 0) >= REPETITIONS_TO_CLAIM

    def danger(self, side: int) -> tuple[int, int, int]:
        """Per type (mouse, lion, elephant) of ``side``'s animals, the bit set of ``danger``."""
        return danger_sets(self.bb, side)

    def reach(self, square: int) -> list[int]:
        """Vacant squares the animal on ``square`` can slide to, ignoring fear (§3)."""
        cells = self.cells
        out = []
        for ray in RAYS[cells[square] % 3][square]:
            for s in ray:
                if cells[s] >= 0:
                    break
                out.append(s)
        return out

    def piece_status(self, square: int) -> str:
        """``"calm"``, ``"forced"`` or ``"trapped"`` for the animal on ``square`` (§4), as if
        its side were to move."""
        c = self.cells[square]
        return self._status(danger_sets(self.bb, c // 3)[c % 3], square)

    def _status(self, danger: int, square: int) -> str:
        if not danger >> square & 1:
            return CALM
        return FORCED if any(not danger >> s & 1 for s in self.reach(square)) else TRAPPED

    def statuses(self, side: int) -> dict[int, str]:
        """``square → status`` for every animal of ``side``, squares ascending."""
        danger = danger_sets(self.bb, side)
        out = {}
        for i, c in enumerate(self.cells):
            if c >= 0 and c // 3 == side:
                out[i] = self._status(danger[c % 3], i)
        return out

    def legal_moves(self, side: int | None = None) -> list[int]:
        """Legal moves (§5) of the side to move (or of ``side``, as if it were to move), in
        canonical order; ``[PASS]`` when there is none (L3). Meaningless once
        :attr:`result` is set (callers check it first)."""
        out = self.moves(self.side if side is None else side)
        return out or [PASS]

    def moves(self, side: int) -> list[int]:
        """The L1/L2 move set of ``side`` (as if it were to move), sorted; may be empty."""
        cells = self.cells
        bb = self.bb
        o = 3 - 3 * side
        forced: list[int] = []
        normal: list[int] = []
        for t in (0, 1, 2):
            bits = bb[3 * side + t]
            if not bits:
                continue
            fb = bb[o + (t + 1) % 3]
            d = 0
            while fb:
                low = fb & -fb
                fb ^= low
                d |= N8[low.bit_length() - 1]
            rays = RAYS[t]
            while bits:
                low = bits & -bits
                bits ^= low
                x = low.bit_length() - 1
                base = 100 * x
                reach = []
                for ray in rays[x]:
                    for s in ray:
                        if cells[s] >= 0:
                            break
                        reach.append(s)
                if d >> x & 1:
                    safe = [base + s for s in reach if not d >> s & 1]
                    if safe:
                        forced += safe
                    elif not forced:
                        normal += [base + s for s in reach]
                elif not forced:
                    if d:
                        normal += [base + s for s in reach if not d >> s & 1]
                    else:
                        normal += [base + s for s in reach]
        out = forced or normal
        out.sort()
        return out

    def has_move(self) -> bool:
        return bool(self.moves(self.side))

    def holes(self, side: int) -> int:
        """Number of watering holes occupied by ``side``."""
        bb = self.bb
        b = 3 * side
        return ((bb[b] | bb[b + 1] | bb[b + 2]) & HOLE_MASK).bit_count()

    # ---- transitions ---------------------------------------------------------------------------

    def apply(self, move: int) -> None:
        """Play ``move`` (unchecked: from :meth:`legal_moves` of this non-terminal position),
        count the new position and set :attr:`result` (§7.4: win, fivefold, ply cap)."""
        side = self.side
        key = self.key ^ _SIDE_BIT
        won = False
        if move != PASS:
            frm, to = divmod(move, 100)
            cells = self.cells
            c = cells[frm]
            cells[frm] = EMPTY
            cells[to] = c
            self.bb[c] ^= _BIT[frm] | _BIT[to]
            key ^= _KEY_BIT[NUM_SQUARES * c + frm] ^ _KEY_BIT[NUM_SQUARES * c + to]
            if HOLE_MASK >> to & 1:
                bb = self.bb
                b = 3 * side
                won = ((bb[b] | bb[b + 1] | bb[b + 2]) & HOLE_MASK).bit_count() >= HOLES_TO_WIN
        self._stack.append((move, self.key))
        self.key = key
        self.side = side ^ 1
        ply = self.ply = self.ply + 1
        history = self.history
        count = history.get(key, 0) + 1
        history[key] = count
        if won:
            self.result = _WINS[side]
        elif count >= REPETITIONS_TO_DRAW:
            self.result = _FIVEFOLD
        elif ply >= PLY_CAP:
            self.result = _PLY_CAP

    def undo(self) -> None:
        """Take back the last :meth:`apply` exactly (board, side, ply, history, result)."""
        move, old_key = self._stack.pop()
        history = self.history
        key = self.key
        count = history[key] - 1
        if count:
            history[key] = count
        else:
            del history[key]
        self.key = old_key
        self.side ^= 1
        self.ply -= 1
        self.result = None
        if move != PASS:
            frm, to = divmod(move, 100)
            cells = self.cells
            c = cells[to]
            cells[to] = EMPTY
            cells[frm] = c
            self.bb[c] ^= _BIT[frm] | _BIT[to]

    # ---- validation ----------------------------------------------------------------------------

    def move_error(self, frm: int, to: int) -> IllegalAction | None:
        """``None`` if ``frm → to`` is a legal move now, else the error naming the rule it
        breaks (:data:`RULES`): the piece, then the geometry and path, then fear (§5)."""
        if self.result is not None:
            return illegal("game_over")
        cells = self.cells
        c = cells[frm]
        where = {"from": SQUARE_NAMES[frm], "to": SQUARE_NAMES[to]}
        if c < 0:
            return illegal("no_piece", **where)
        if c // 3 != self.side:
            return illegal("not_your_piece", **where)
        line = LINES.get((frm, to))
        if line is None or not moves_along(c % 3, line[0]):
            return illegal("not_a_line", **where)
        if cells[to] >= 0 or any(cells[s] >= 0 for s in line[1]):
            return illegal("path_blocked", **where)
        move = 100 * frm + to
        if move in self.moves(self.side):
            return None
        side = self.side
        status = self.piece_status(frm)
        forced = [SQUARE_NAMES[i] for i, s in self.statuses(side).items() if s == FORCED]
        if forced and status != FORCED:
            return illegal("forced_priority", forced=forced, **where)
        if status == FORCED:
            return illegal("forced_into_danger", **where)
        return illegal("calm_into_danger", **where)

    def __repr__(self) -> str:
        return f"Position.from_bpn({self.to_bpn()!r})"


def perft(pos: Position, depth: int) -> int:
    """Number of move/pass sequences of length ``depth`` from ``pos`` (claims not counted; a
    finished position has none). Bulk-counts the last ply. Leaves ``pos`` as it was."""
    return count_sequences(pos, depth, Position.legal_moves)
