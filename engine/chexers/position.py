"""The fast core: a mutable Chexers position for move generation and search.

Search agents use this class directly; :class:`engine.chexers.game.Chexers` (the JSON
contract) is built on it. Contract::

    pos = Position.start()                # or from_cxn(text), from_state(state), from_view(view)
    for act in pos.legal_actions():       # canonical order (rules §4); [PASS_ACT] if blocked
        pos.apply(act)                    # unchecked: act must come from legal_actions()
        if pos.result is not None: ...    # (winner or -1, reason) once the game is over
        pos.undo()                        # exact inverse of the last apply, history included

Representation (why it is fast): hexes are indices 0-36 in canonical order (see
:mod:`~engine.chexers.geometry`); ``cells`` maps each index to its colour or ``-1`` (plus a
38th always-occupied "wall" cell, so jumps off the board need no bounds test); ``bb[c]`` is a
37-bit set of colour ``c``'s pieces (iterating its bits yields the pieces in canonical order,
and the three sets are the repetition key); actions are preallocated immutable :class:`Act`
tuples, so generating them allocates nothing but the list.

The repetition history (``history``: key → count) holds the game's positions *and* those on
the current search path: :meth:`apply` counts the new position, :meth:`undo` uncounts it.
So :attr:`result` is exactly the rules' verdict (§5) for the path searched, with draws
checked before wins and a fourth occurrence of a key being a draw.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final, NamedTuple

from engine.chexers import notation
from engine.chexers.geometry import (
    COLOUR_LETTERS,
    COLOUR_NAMES,
    EXIT_MASK,
    HEXES,
    INDEX,
    NEIGHBOURS,
    NUM_HEXES,
)
from engine.core import BadNotation, IllegalAction, Outcome
from engine.perft import perft as count_sequences

EMPTY: Final = -1
WALL: Final = NUM_HEXES
"""Index of the extra cell that stands for "off the board" (always occupied)."""

EXIT: Final = 0
MOVE: Final = 1
JUMP: Final = 2
PASS: Final = 3
KIND_NAMES: Final = ("EXIT", "MOVE", "JUMP", "PASS")

MAX_TURNS: Final = notation.MAX_TURNS
REPETITIONS: Final = 4
"""The occurrence of a key that draws the game."""
EXITS_TO_WIN: Final = 4

DRAW: Final = -1
"""``result[0]`` of a drawn game."""

Result = tuple[int, str]
"""``(winner, reason)``: winner 0-2 with reason ``"exits"``, or ``(DRAW, "repetition" |
"turn_limit")``."""

_BITS_PER_COLOUR: Final = 37
_TO_MOVE_SHIFT: Final = 3 * _BITS_PER_COLOUR
_BOARD_MASK: Final = (1 << NUM_HEXES) - 1
_BIT: Final = tuple(1 << i for i in range(NUM_HEXES + 1))
_TO_MOVE_BITS: Final = (0, 1 << _TO_MOVE_SHIFT, 2 << _TO_MOVE_SHIFT)

_REPETITION: Final[Result] = (DRAW, "repetition")
_TURN_LIMIT: Final[Result] = (DRAW, "turn_limit")
_WINS: Final[tuple[Result, ...]] = ((0, "exits"), (1, "exits"), (2, "exits"))


#: Rule ids of :class:`~engine.core.IllegalAction` for Chexers, with their messages.
RULES: Final[dict[str, str]] = {
    "game_over": "the game is over",
    "no_piece": "there is no piece on the 'from' hex",
    "not_your_piece": "the piece on the 'from' hex is not yours",
    "not_adjacent": "a MOVE goes to one of the six neighbouring hexes",
    "not_a_jump": "a JUMP lands two hexes away in a straight line",
    "target_occupied": "a MOVE needs an empty destination",
    "jump_over_empty": "a JUMP needs a piece (any colour) on the hex jumped over",
    "landing_occupied": "a JUMP needs an empty landing hex",
    "not_an_exit_hex": "a piece exits only from one of its colour's exit hexes",
    "pass_not_allowed": "PASS is allowed only when no MOVE, JUMP or EXIT is possible",
}


def _illegal(rule: str) -> IllegalAction:
    return IllegalAction(RULES[rule], rule=rule)


class Act(NamedTuple):
    """One action in the fast core. Instances are shared and immutable; compare with ``is``
    or ``==``. ``frm``/``to``/``mid`` are hex indices (``-1`` when not applicable: ``to`` of
    EXIT, ``mid`` of MOVE/EXIT, all of PASS). ``order`` sorts actions canonically (§4): hex
    index of ``frm`` × 8, plus 0 for EXIT or 1 + step index for MOVE/JUMP; PASS is -1."""

    kind: int
    frm: int
    to: int
    mid: int
    order: int

    def to_json(self) -> dict[str, Any]:
        """The JSON action (§7.1), freshly built."""
        kind = self.kind
        if kind == PASS:
            return {"type": "PASS"}
        q, r = HEXES[self.frm]
        if kind == EXIT:
            return {"type": "EXIT", "from": [q, r]}
        q2, r2 = HEXES[self.to]
        return {"type": KIND_NAMES[kind], "from": [q, r], "to": [q2, r2]}

    def __str__(self) -> str:
        return notation.action_text(self.to_json())


PASS_ACT: Final = Act(PASS, -1, -1, -1, -1)
EXIT_ACTS: Final = tuple(Act(EXIT, i, -1, -1, 8 * i) for i in range(NUM_HEXES))
MOVE_ACTS: Final[dict[tuple[int, int], Act]] = {}
JUMP_ACTS: Final[dict[tuple[int, int], Act]] = {}


def _generator_table() -> tuple[tuple[tuple[int, Act, int, Act], ...], ...]:
    """Per hex: ``(neighbour, its MOVE, landing hex or WALL, the JUMP)`` in step order."""
    table = []
    for i in range(NUM_HEXES):
        row = []
        for step, nb, far in NEIGHBOURS[i]:
            move = MOVE_ACTS[(i, nb)] = Act(MOVE, i, nb, -1, 8 * i + 1 + step)
            if far >= 0:
                jump = JUMP_ACTS[(i, far)] = Act(JUMP, i, far, nb, 8 * i + 1 + step)
            else:  # never generated: the wall is never empty
                far, jump = WALL, PASS_ACT
            row.append((nb, move, far, jump))
        table.append(tuple(row))
    return tuple(table)


_GEN: Final = _generator_table()


def act_from_json(action: Mapping[str, Any]) -> Act | None:
    """The :class:`Act` for a *well-formed* JSON action (see
    :func:`~engine.chexers.notation.parse_action`), or ``None`` when no such action exists on
    any board (a MOVE to a non-neighbour, a JUMP that is not two steps in a line). Says
    nothing about legality in a position: use :meth:`Position.is_legal`."""
    kind = action["type"]
    if kind == "PASS":
        return PASS_ACT
    frm = notation.hex_index(action["from"])
    if kind == "EXIT":
        return EXIT_ACTS[frm]
    table = MOVE_ACTS if kind == "MOVE" else JUMP_ACTS
    return table.get((frm, notation.hex_index(action["to"])))


def judge(turn: int, count: int, mover_exits: int, mover: int) -> Result | None:
    """The rules' verdict (§5) right after ``mover``'s action: ``turn`` is ``T`` after the
    increment, ``count`` the new position's key count (this occurrence included). Draws are
    checked first (a draw beats a win on the same turn); repetition is reported over the turn
    limit when both fire, as the referee does."""
    if count >= REPETITIONS:
        return _REPETITION
    if turn >= MAX_TURNS:
        return _TURN_LIMIT
    if mover_exits >= EXITS_TO_WIN:
        return _WINS[mover]
    return None


# ---- repetition keys ---------------------------------------------------------------------------


def key_of(bb: Sequence[int], turn: int) -> int:
    """The repetition key (§5.1) as one integer: the three piece sets and ``T mod 3``."""
    return bb[0] | bb[1] << 37 | bb[2] << 74 | _TO_MOVE_BITS[turn % 3]


def key_text(key: int) -> str:
    """Canonical text of a key: the CXN board and the letter to move, e.g.
    ``"gggg/5/6/r5b/r4b/r3b/r2b r"``. Used in JSON states (one spelling per key)."""
    cells = [EMPTY] * NUM_HEXES
    for colour in range(3):
        for i in _indices((key >> (colour * _BITS_PER_COLOUR)) & _BOARD_MASK):
            cells[i] = colour
    return f"{notation.board_text(cells)} {COLOUR_LETTERS[key >> _TO_MOVE_SHIFT]}"


def key_from_text(text: str) -> int:
    """Inverse of :func:`key_text`; raises :class:`BadNotation`."""
    board, sep, letter = text.partition(" ")
    if not sep or letter not in ("r", "g", "b"):
        raise BadNotation(f"a history key is '<board> <to-move>', got {text!r}")
    bb = [0, 0, 0]
    for i, c in enumerate(notation.parse_board(board)):
        if c >= 0:
            bb[c] |= _BIT[i]
    return key_of(bb, "rgb".index(letter))


def key_pieces(key: int) -> int:
    """Number of pieces on the board in the position a key describes."""
    return (key & ((1 << _TO_MOVE_SHIFT) - 1)).bit_count()


def _indices(bits: int) -> Iterator[int]:
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


# ---- the position ------------------------------------------------------------------------------


class Position:
    """A mutable position with its repetition history; see the module docstring.

    Public attributes (read them, change them only through :meth:`apply`/:meth:`undo`):
    ``cells`` (hex index → colour or -1; index 37 is the wall), ``bb`` (per colour the set of
    its hexes as bits), ``exits`` (per colour), ``turn`` (``T``, turns completed),
    ``history`` (key → count, including the search path), ``result`` (``None`` while the game
    goes on, else ``(winner or DRAW, reason)``).
    """

    __slots__ = ("cells", "bb", "exits", "turn", "history", "result", "_stack")

    def __init__(self, cells: Sequence[int], exits: Sequence[int], turn: int,
                 history: Mapping[int, int] | None = None,
                 result: Result | None = None) -> None:
        """``cells`` has 37 entries (colour or -1). ``history`` defaults to a fresh one,
        ``{key: 1}`` (§7.2). No validation: use :meth:`from_cxn` for untrusted input."""
        self.cells: list[int] = list(cells[:NUM_HEXES]) + [WALL]
        self.bb: list[int] = [0, 0, 0]
        for i in range(NUM_HEXES):
            c = self.cells[i]
            if c >= 0:
                self.bb[c] |= _BIT[i]
        self.exits: list[int] = list(exits)
        self.turn: int = turn
        self.history: dict[int, int] = (dict(history) if history is not None
                                        else {key_of(self.bb, turn): 1})
        self.result: Result | None = result
        self._stack: list[tuple[Act, int, int]] = []

    # ---- construction and conversion ---------------------------------------------------------

    @classmethod
    def start(cls) -> Position:
        return cls.from_cxn(notation.START_CXN)

    @classmethod
    def from_cxn(cls, text: str) -> Position:
        """A position from CXN with a fresh history; raises :class:`BadNotation`."""
        cells, exits, turn = notation.parse_cxn(text)
        return cls(cells, exits, turn)

    def to_cxn(self) -> str:
        return notation.to_cxn(self.cells, self.exits, self.turn)

    @classmethod
    def from_state(cls, state: Mapping[str, Any], *, with_history: bool = True) -> Position:
        """The position of a JSON state of :class:`~engine.chexers.game.Chexers` (trusted:
        made by the engine). ``with_history=False`` skips decoding the history (the new
        position then has an empty one; only for callers that keep the history themselves)."""
        cells = [EMPTY] * (NUM_HEXES + 1)
        cells[WALL] = WALL
        bb = [0, 0, 0]
        pieces = state["pieces"]
        for colour, letter in enumerate(COLOUR_LETTERS):
            bits = 0
            for q, r in pieces[letter]:
                i = INDEX[(q, r)]
                cells[i] = colour
                bits |= _BIT[i]
            bb[colour] = bits
        outcome = state.get("outcome")
        result: Result | None = None
        if outcome is not None:
            ranks = outcome["ranks"]
            result = ((DRAW, outcome["reason"]) if all(r == 0 for r in ranks)
                      else (ranks.index(0), outcome["reason"]))
        # Built field by field: this runs on every call of the JSON game.
        pos = cls.__new__(cls)
        pos.cells = cells
        pos.bb = bb
        exits = state["exits"]
        pos.exits = [exits["r"], exits["g"], exits["b"]]
        pos.turn = state["turns"]
        pos.history = ({key_from_text(k): n for k, n in state["history"].items()}
                       if with_history else {})
        pos.result = result
        pos._stack = []
        return pos

    @classmethod
    def from_notation(cls, text: str) -> Position:
        """A position from the game notation: plain CXN (fresh history) or CXN plus a history
        field (see :func:`~engine.chexers.notation.parse_game_notation`), which can also
        describe a finished game. Raises :class:`BadNotation`."""
        cells, exits, turn, history = notation.parse_game_notation(text)
        if history is None:
            return cls(cells, exits, turn)
        pos = cls(cells, exits, turn, {key_from_text(k): n for k, n in history.items()})
        mover = (turn - 1) % 3
        pos.result = judge(turn, pos.count(), exits[mover] if turn else 0, mover)
        return pos

    def to_notation(self) -> str:
        """The game notation: plain CXN when the history is fresh and the game goes on, else
        CXN plus the history field. ``from_notation(p.to_notation())`` plays on exactly like
        ``p``."""
        return game_notation(self.to_cxn(), self.history_json(), self.result is not None)

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> Position:
        """The exact position (history and result included) from a seat's view of the JSON
        game."""
        return cls.from_notation(
            game_notation(view["cxn"], view["history"], view["to_move"] is None))

    def to_state(self) -> dict[str, Any]:
        """The JSON state of :class:`~engine.chexers.game.Chexers` for this position (the
        history as :meth:`history_json`). ``Position.from_state(p.to_state())`` plays on
        exactly like ``p``."""
        return make_state(self, self.history_json(), self.result)

    def pieces_json(self) -> dict[str, list[list[int]]]:
        """``{"r": [[q, r], …], "g": …, "b": …}`` in canonical hex order."""
        out = {}
        for c, letter in enumerate(COLOUR_LETTERS):
            bits = self.bb[c]
            hexes = []
            while bits:
                low = bits & -bits
                bits ^= low
                q, r = HEXES[low.bit_length() - 1]
                hexes.append([q, r])
            out[letter] = hexes
        return out

    def history_json(self) -> dict[str, int]:
        """The history as ``{key text: count}``, keeping only keys that can still occur:
        positions with as many pieces on the board as now (pieces never return after an
        exit, so older keys can never repeat; dropping them changes no result)."""
        pieces = sum(b.bit_count() for b in self.bb)
        return {key_text(k): n for k, n in self.history.items() if key_pieces(k) == pieces}

    def copy(self) -> Position:
        """An independent copy (undo stack not included). Costs O(history)."""
        return Position(self.cells, self.exits, self.turn, self.history, self.result)

    # ---- queries ------------------------------------------------------------------------------

    @property
    def to_move(self) -> int:
        """Colour (= seat) whose turn it is: ``T mod 3``."""
        return self.turn % 3

    @property
    def is_terminal(self) -> bool:
        return self.result is not None

    def key(self) -> int:
        """The current repetition key (§5.1) as an integer."""
        bb = self.bb
        return bb[0] | bb[1] << 37 | bb[2] << 74 | _TO_MOVE_BITS[self.turn % 3]

    def count(self) -> int:
        """How often the current key has occurred (game history plus search path)."""
        return self.history.get(self.key(), 0)

    def pieces(self, colour: int) -> list[int]:
        """Hex indices of ``colour``'s pieces in canonical order."""
        return list(_indices(self.bb[colour]))

    def num_pieces(self, colour: int) -> int:
        return self.bb[colour].bit_count()

    def legal_actions(self) -> list[Act]:
        """Legal actions of the player to move in canonical order (§4); ``[PASS_ACT]`` when it
        has no other. Meaningless once :attr:`result` is set (callers check it first)."""
        cells = self.cells
        p = self.turn % 3
        bits = self.bb[p]
        exits = EXIT_MASK[p]
        out: list[Act] = []
        append = out.append
        while bits:
            low = bits & -bits
            bits ^= low
            i = low.bit_length() - 1
            if exits & low:
                append(EXIT_ACTS[i])
            for nb, move, far, jump in _GEN[i]:
                if cells[nb] < 0:
                    append(move)
                elif cells[far] < 0:
                    append(jump)
        return out or [PASS_ACT]

    def has_action(self) -> bool:
        """Whether the player to move has anything but PASS."""
        cells = self.cells
        p = self.turn % 3
        bits = self.bb[p]
        if bits & EXIT_MASK[p]:
            return True
        while bits:
            low = bits & -bits
            bits ^= low
            for nb, _move, far, _jump in _GEN[low.bit_length() - 1]:
                if cells[nb] < 0 or cells[far] < 0:
                    return True
        return False

    def is_legal(self, act: Act) -> bool:
        """Whether ``act`` is in :meth:`legal_actions` (without generating them)."""
        return self.illegal_reason(act) is None

    def illegal_reason(self, act: Act) -> str | None:
        """``None`` if ``act`` is legal now, else the rule it breaks (the JSON game's
        :class:`~engine.core.IllegalAction` rule ids)."""
        if self.result is not None:
            return "game_over"
        p = self.turn % 3
        kind = act.kind
        if kind == PASS:
            return "pass_not_allowed" if self.has_action() else None
        owner = self.cells[act.frm]
        if owner < 0:
            return "no_piece"
        if owner != p:
            return "not_your_piece"
        if kind == EXIT:
            return None if EXIT_MASK[p] & _BIT[act.frm] else "not_an_exit_hex"
        if kind == MOVE:
            return "target_occupied" if self.cells[act.to] >= 0 else None
        if self.cells[act.mid] < 0:
            return "jump_over_empty"
        return "landing_occupied" if self.cells[act.to] >= 0 else None

    # ---- transitions -------------------------------------------------------------------------

    def apply(self, act: Act) -> None:
        """Play ``act`` (unchecked: it must come from :meth:`legal_actions` of this
        non-terminal position), count the new key and set :attr:`result`."""
        kind, frm, to, mid, _ = act
        cells = self.cells
        bb = self.bb
        p = self.turn % 3
        converted = -1
        if kind == MOVE:
            cells[frm] = EMPTY
            cells[to] = p
            bb[p] ^= _BIT[frm] | _BIT[to]
        elif kind == JUMP:
            cells[frm] = EMPTY
            cells[to] = p
            bb[p] ^= _BIT[frm] | _BIT[to]
            owner = cells[mid]
            if owner != p:
                cells[mid] = p
                bb[owner] ^= _BIT[mid]
                bb[p] ^= _BIT[mid]
                converted = owner
        elif kind == EXIT:
            cells[frm] = EMPTY
            bb[p] ^= _BIT[frm]
            self.exits[p] += 1
        turn = self.turn = self.turn + 1
        key = bb[0] | bb[1] << 37 | bb[2] << 74 | _TO_MOVE_BITS[turn % 3]
        history = self.history
        count = history.get(key, 0) + 1
        history[key] = count
        # judge() inlined: this is the hottest path of every search.
        if count >= REPETITIONS:
            self.result = _REPETITION
        elif turn >= MAX_TURNS:
            self.result = _TURN_LIMIT
        elif kind == EXIT and self.exits[p] >= EXITS_TO_WIN:
            self.result = _WINS[p]
        self._stack.append((act, converted, key))

    def undo(self) -> None:
        """Take back the last :meth:`apply` exactly (board, exits, ``T``, history, result)."""
        act, converted, key = self._stack.pop()
        history = self.history
        count = history[key] - 1
        if count:
            history[key] = count
        else:
            del history[key]
        turn = self.turn = self.turn - 1
        p = turn % 3
        kind, frm, to, mid, _ = act
        cells = self.cells
        bb = self.bb
        if kind == MOVE or kind == JUMP:
            cells[to] = EMPTY
            cells[frm] = p
            bb[p] ^= _BIT[frm] | _BIT[to]
            if converted >= 0:
                cells[mid] = converted
                bb[converted] ^= _BIT[mid]
                bb[p] ^= _BIT[mid]
        elif kind == EXIT:
            cells[frm] = p
            bb[p] ^= _BIT[frm]
            self.exits[p] -= 1
        self.result = None

    def last_converted(self) -> int:
        """Colour converted by the last applied JUMP (``-1``: none or not a jump)."""
        return self._stack[-1][1] if self._stack else -1

    def check(self, raw: Any) -> Act:
        """The legal :class:`Act` for a raw JSON action of the player to move. Raises
        :class:`~engine.core.MalformedAction` (shape, §7.1) or
        :class:`~engine.core.IllegalAction` whose ``rule`` is one of :data:`RULES`. Checks
        the piece first, then the geometry, then the board; never changes the position."""
        action = notation.parse_action(raw)
        kind = action["type"]
        if self.result is not None:
            raise _illegal("game_over")
        if kind == "PASS":
            act = PASS_ACT
        else:
            frm = notation.hex_index(action["from"])
            owner = self.cells[frm]
            if owner < 0:
                raise _illegal("no_piece")
            if owner != self.turn % 3:
                raise _illegal("not_your_piece")
            found = act_from_json(action)
            if found is None:
                raise _illegal("not_adjacent" if kind == "MOVE" else "not_a_jump")
            act = found
        reason = self.illegal_reason(act)
        if reason is not None:
            raise _illegal(reason)
        return act

    def __repr__(self) -> str:
        return f"Position.from_cxn({self.to_cxn()!r})"

    def describe(self) -> str:
        """A one-line summary for logs."""
        state = "over" if self.result else f"{COLOUR_NAMES[self.to_move]} to move"
        return f"{self.to_cxn()} ({state}, key count {self.count()})"


def game_notation(cxn: str, history: Mapping[str, int], over: bool) -> str:
    """The game notation of a position given its CXN and its (pruned) history as text."""
    board, to_move = cxn.split(" ", 2)[:2]
    if not over and len(history) == 1 and history.get(f"{board} {to_move}") == 1:
        return cxn
    return f"{cxn} {notation.history_field(dict(history))}"


def outcome_json(result: Result, exits: Sequence[int]) -> dict[str, Any]:
    """The :class:`~engine.core.Outcome` (as JSON) of a result; scores are the exits."""
    winner, reason = result
    scores = list(exits)
    outcome = (Outcome.draw(3, reason, scores) if winner == DRAW
               else Outcome.win(winner, 3, reason, scores))
    return outcome.to_json()


def make_state(pos: Position, history: dict[str, int], result: Result | None
               ) -> dict[str, Any]:
    """The JSON state: ``num_seats``, ``pieces`` (per colour letter, ``[q, r]`` in canonical
    order), ``exits`` (per letter), ``turns`` (``T``), ``history`` (key text → count, see
    :meth:`Position.history_json`) and ``outcome`` (``None`` or an Outcome's JSON)."""
    exits = pos.exits
    return {
        "num_seats": 3,
        "pieces": pos.pieces_json(),
        "exits": {"r": exits[0], "g": exits[1], "b": exits[2]},
        "turns": pos.turn,
        "history": history,
        "outcome": None if result is None else outcome_json(result, exits),
    }


def perft(pos: Position, depth: int) -> int:
    """Number of action sequences of length ``depth`` from ``pos`` (a terminal position has
    none). Bulk-counts the last ply. Leaves ``pos`` as it was."""
    return count_sequences(pos, depth, Position.legal_actions)
