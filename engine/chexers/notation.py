"""Text and JSON forms of Chexers positions and actions (rules §7).

* CXN, the position notation: ``<board> <to-move> <exits> <T>``, e.g. the start
  ``gggg/5/6/r5b/r4b/r3b/r2b r 0,0,0 0``. One spelling per position.
* The JSON action protocol: ``{"type":"MOVE","from":[q,r],"to":[q,r]}``, ``JUMP`` alike,
  ``{"type":"EXIT","from":[q,r]}``, ``{"type":"PASS"}``.
* The log text form (``MOVE -3,3 -2,3``) and the referee's tuples
  (``("MOVE", ((-3, 3), (-2, 3)))``).

Boards here are lists of cells indexed by hex index (:mod:`engine.chexers.geometry`), each cell
a colour 0-2 or ``-1`` (empty); extra trailing cells (the move generator's wall) are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from engine.chexers.geometry import COLOUR_LETTERS, HEXES, INDEX, NUM_HEXES, ROWS, on_board
from engine.core import BadNotation, MalformedAction

MAX_TURNS: Final = 768
"""The game is drawn once ``T`` reaches this (rules §5)."""
PIECE_BUDGET: Final = 12
"""Pieces on the board plus exits may not exceed this in a custom start (rules §7.2)."""
START_CXN: Final = "gggg/5/6/r5b/r4b/r3b/r2b r 0,0,0 0"

ACTION_TYPES: Final = ("MOVE", "JUMP", "EXIT", "PASS")
_TURN_RE: Final = re.compile(r"0|[1-9][0-9]{0,2}")
_CELL: Final = {"r": 0, "g": 1, "b": 2}


# ---- positions ---------------------------------------------------------------------------------


_SYMBOL: Final = {-1: ".", 0: "r", 1: "g", 2: "b"}
_ROW_SPANS: Final = tuple(
    (sum(len(row) for row in ROWS[:k]), sum(len(row) for row in ROWS[:k + 1]))
    for k in range(len(ROWS)))
_ROW_ORDER: Final = tuple(i for row in ROWS for i in row)
_ROW_CACHE: dict[str, str] = {}
"""Row with one symbol per hex ('.' empty) → its CXN spelling. Bounded: at most 4**7 rows
of each length, far fewer in practice. It makes :func:`board_text` a few dict lookups."""


def _spell_row(symbols: str) -> str:
    out = []
    run = 0
    for ch in symbols:
        if ch == ".":
            run += 1
            continue
        if run:
            out.append(str(run))
            run = 0
        out.append(ch)
    if run:
        out.append(str(run))
    spelled = "".join(out)
    _ROW_CACHE[symbols] = spelled
    return spelled


def board_text(cells: Sequence[int]) -> str:
    """The board field of CXN: seven rows top (``r = -3``) to bottom joined by ``/``."""
    symbol = _SYMBOL
    flat = "".join([symbol[cells[i]] for i in _ROW_ORDER])
    cache = _ROW_CACHE
    rows = []
    for a, b in _ROW_SPANS:
        row = flat[a:b]
        spelled = cache.get(row)
        rows.append(spelled if spelled is not None else _spell_row(row))
    return "/".join(rows)


def parse_board(text: str) -> list[int]:
    """Cells (length 37) of a CXN board field; raises :class:`BadNotation`."""
    rows = text.split("/")
    if len(rows) != len(ROWS):
        raise BadNotation(f"a board has {len(ROWS)} rows separated by '/', got {len(rows)}")
    cells = [-1] * NUM_HEXES
    for k, (row_text, row) in enumerate(zip(rows, ROWS, strict=True)):
        pos = 0
        after_digit = False
        for ch in row_text:
            if ch in "1234567":
                if after_digit:
                    raise BadNotation(f"row {k + 1}: two digits in a row ({row_text!r})")
                pos += int(ch)
                after_digit = True
            elif ch in _CELL:
                if pos < len(row):
                    cells[row[pos]] = _CELL[ch]
                pos += 1
                after_digit = False
            else:
                raise BadNotation(f"row {k + 1}: unexpected character {ch!r}")
            if pos > len(row):
                break
        if pos != len(row):
            raise BadNotation(
                f"row {k + 1} ({row_text!r}) must cover exactly {len(row)} hexes")
    return cells


def to_cxn(cells: Sequence[int], exits: Sequence[int], turn: int,
           board: str | None = None) -> str:
    """A position in CXN (``to-move`` is derived from ``turn``; ``board`` may pass the
    already computed :func:`board_text`)."""
    if board is None:
        board = board_text(cells)
    return f"{board} {COLOUR_LETTERS[turn % 3]} {exits[0]},{exits[1]},{exits[2]} {turn}"


def parse_cxn(text: str) -> tuple[list[int], list[int], int]:
    """``(cells, exits, turn)`` of a CXN string. Checks every rule of §7.2: the single
    canonical spelling, row totals, ``to-move = "rgb"[T mod 3]``, exits 0-3, ``0 <= T <= 767``
    and pieces on the board plus exits at most 12. Raises :class:`BadNotation`."""
    fields = _fields(text)
    if len(fields) != 4:
        raise BadNotation("CXN has four fields separated by single spaces: "
                          "<board> <to-move> <exits> <T>")
    return _parse_position(fields, max_turn=MAX_TURNS - 1, mover=None)


def parse_game_notation(text: str
                        ) -> tuple[list[int], list[int], int, dict[str, int] | None]:
    """``(cells, exits, turn, history)`` of the game notation: plain CXN (history ``None``:
    a fresh one) or CXN with a fifth field, the repetition history (our extension, so that
    any state, finished ones included, has a notation)::

        <board> <to-move> <exits> <T> <board>,<to-move>=<count>;<board>,<to-move>=<count>…

    The history lists every key that can still occur (same number of pieces on the board as
    now) with its count, in order of first occurrence; it must contain the current key. With
    a history, ``T`` may be 768 and the last mover (``"rgb"[(T-1) mod 3]``) may have 4 exits:
    the game is then over. The fifth field is required exactly when the plain CXN would lose
    something (a history other than ``{current: 1}`` or a finished game), so each state has
    one spelling. Raises :class:`BadNotation`."""
    fields = _fields(text)
    if len(fields) == 4:
        cells, exits, turn = _parse_position(fields, max_turn=MAX_TURNS - 1, mover=None)
        return cells, exits, turn, None
    if len(fields) != 5:
        raise BadNotation("the notation is CXN (four fields separated by single spaces) "
                          "optionally followed by a history field")
    turn_hint = fields[3]
    mover = (int(turn_hint) - 1) % 3 if turn_hint.isdigit() and int(turn_hint) > 0 else None
    cells, exits, turn = _parse_position(fields[:4], max_turn=MAX_TURNS, mover=mover)
    history = parse_history(fields[4])
    current = f"{board_text(cells)} {COLOUR_LETTERS[turn % 3]}"
    if current not in history:
        raise BadNotation("the history must contain the current position")
    pieces = sum(1 for c in cells if c >= 0)
    for key, count in history.items():
        if sum(1 for ch in key[:-2] if ch in _CELL) != pieces:
            raise BadNotation(f"history key {key!r} has another number of pieces than the "
                              f"board: it can never occur again, leave it out")
        if count >= REPETITIONS and key != current:
            raise BadNotation(f"history key {key!r} occurred {count} times: the game would "
                              f"have ended there")
    over = (turn >= MAX_TURNS or history[current] >= REPETITIONS
            or (mover is not None and exits[mover] > 3))
    if not over and history == {current: 1}:
        raise BadNotation("a fresh history is written as plain CXN (four fields)")
    return cells, exits, turn, history


REPETITIONS: Final = 4


def history_field(history: dict[str, int]) -> str:
    """The fifth field of :func:`parse_game_notation` for a history ``{key text: count}``."""
    return ";".join(f"{key.replace(' ', ',')}={count}" for key, count in history.items())


def parse_history(text: str) -> dict[str, int]:
    """``{key text: count}`` of a history field; raises :class:`BadNotation`."""
    history: dict[str, int] = {}
    for entry in text.split(";"):
        key, eq, count = entry.partition("=")
        board, comma, letter = key.partition(",")
        if not eq or not comma or letter not in _CELL or count not in ("1", "2", "3", "4"):
            raise BadNotation(f"a history entry is <board>,<to-move>=<count 1-4>, "
                              f"got {entry!r}")
        parse_board(board)
        key_text = f"{board} {letter}"
        if key_text in history:
            raise BadNotation(f"history key {key!r} is listed twice")
        history[key_text] = int(count)
    return history


def _fields(text: str) -> list[str]:
    if not isinstance(text, str):
        raise BadNotation("a position must be a string")
    return text.split(" ")


def _parse_position(fields: Sequence[str], *, max_turn: int, mover: int | None
                    ) -> tuple[list[int], list[int], int]:
    """The four CXN fields; ``mover`` (the seat that made the last turn) may have 4 exits."""
    board, to_move, exits_text, turn_text = fields
    cells = parse_board(board)
    if _TURN_RE.fullmatch(turn_text) is None:
        raise BadNotation(f"T must be a decimal number without sign or leading zero, "
                          f"got {turn_text!r}")
    turn = int(turn_text)
    if turn > max_turn:
        raise BadNotation(f"T must be at most {max_turn}, got {turn}")
    if to_move not in _CELL:
        raise BadNotation(f"to-move must be r, g or b, got {to_move!r}")
    if to_move != COLOUR_LETTERS[turn % 3]:
        raise BadNotation(f"with T = {turn} the player to move is "
                          f"{COLOUR_LETTERS[turn % 3]!r}, not {to_move!r}")
    parts = exits_text.split(",")
    if len(parts) != 3 or any(p not in ("0", "1", "2", "3", "4") for p in parts):
        raise BadNotation(f"exits must be three counts 0-3 like 0,1,0, got {exits_text!r}")
    exits = [int(p) for p in parts]
    for seat, e in enumerate(exits):
        if e > 3 and seat != mover:
            raise BadNotation("exits must be 0-3 (4 only for the winner of a finished game "
                              "written with its history)")
    total = sum(1 for c in cells if c >= 0) + sum(exits)
    if total > PIECE_BUDGET:
        raise BadNotation(f"pieces on the board plus exits must be at most {PIECE_BUDGET}, "
                          f"got {total}")
    return cells, exits, turn


# ---- actions -----------------------------------------------------------------------------------


def _hex(raw: Any, field: str) -> list[int]:
    if (not isinstance(raw, list) or len(raw) != 2
            or any(type(v) is not int for v in raw)):  # bool and float are not int here
        raise MalformedAction(f"{field!r} must be a hex [q, r] of two integers", field=field)
    if not on_board(raw[0], raw[1]):
        raise MalformedAction(f"{field!r} {raw} is not on the board", field=field)
    return [raw[0], raw[1]]


def parse_action(raw: Any) -> dict[str, Any]:
    """Strict shape check of a JSON action (§7.1); returns a fresh canonical copy or raises
    :class:`MalformedAction`: exact upper-case ``type``, integer coordinates (not floats,
    not booleans), hexes on the board, no missing or extra keys."""
    if not isinstance(raw, dict):
        raise MalformedAction(f"an action must be a JSON object, got {type(raw).__name__}")
    kind = raw.get("type")
    if kind not in ACTION_TYPES or not isinstance(kind, str):
        raise MalformedAction(f"'type' must be one of {', '.join(ACTION_TYPES)}, got {kind!r}",
                              field="type")
    wanted = {"PASS": ("type",), "EXIT": ("type", "from")}.get(kind, ("type", "from", "to"))
    for key in raw:
        if key not in wanted:
            raise MalformedAction(f"unknown field {key!r} in a {kind} action", field=str(key))
    for key in wanted:
        if key not in raw:
            raise MalformedAction(f"missing field {key!r} in a {kind} action", field=key)
    out: dict[str, Any] = {"type": kind}
    if kind != "PASS":
        out["from"] = _hex(raw["from"], "from")
    if kind in ("MOVE", "JUMP"):
        out["to"] = _hex(raw["to"], "to")
    return out


def action_text(action: dict[str, Any]) -> str:
    """Log text form: ``MOVE -3,3 -2,3``, ``JUMP 0,0 2,0``, ``EXIT 3,-1``, ``PASS``."""
    parts = [action["type"]]
    for key in ("from", "to"):
        if key in action:
            q, r = action[key]
            parts.append(f"{q},{r}")
    return " ".join(parts)


def to_referee_tuple(action: dict[str, Any]) -> tuple[str, Any]:
    """The referee's tuple for a (well-formed) JSON action, e.g. ``("EXIT", (3, -1))``."""
    action = parse_action(action)
    kind = action["type"]
    if kind == "PASS":
        return ("PASS", None)
    a = (action["from"][0], action["from"][1])
    if kind == "EXIT":
        return ("EXIT", a)
    return (kind, (a, (action["to"][0], action["to"][1])))


def _ref_hex(raw: Any) -> list[int]:
    if not isinstance(raw, tuple):
        raise MalformedAction("the referee's hexes are tuples (q, r), not lists")
    return _hex(list(raw), "hex")


def from_referee_tuple(raw: Any) -> dict[str, Any]:
    """The JSON action for a referee tuple. As strict as the referee's ``==`` test on shapes
    (lists instead of tuples are rejected) and stricter on values: coordinates must be
    integers, not floats. Raises :class:`MalformedAction`."""
    if not isinstance(raw, tuple) or len(raw) != 2 or raw[0] not in ACTION_TYPES:
        raise MalformedAction("a referee action is a pair (type, argument) as a tuple")
    kind, arg = raw
    if kind == "PASS":
        if arg is not None:
            raise MalformedAction("PASS takes None")
        return {"type": "PASS"}
    if kind == "EXIT":
        return {"type": "EXIT", "from": _ref_hex(arg)}
    if not isinstance(arg, tuple) or len(arg) != 2:
        raise MalformedAction(f"{kind} takes a tuple of two hexes")
    return {"type": kind, "from": _ref_hex(arg[0]), "to": _ref_hex(arg[1])}


def hex_index(h: Sequence[int]) -> int:
    """Index of an on-board hex ``[q, r]``."""
    return INDEX[(h[0], h[1])]


def hex_json(i: int) -> list[int]:
    """``[q, r]`` of hex index ``i`` (a fresh list)."""
    q, r = HEXES[i]
    return [q, r]
