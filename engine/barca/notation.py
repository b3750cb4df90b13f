"""Text and JSON forms of Barca positions and actions (rules §9).

* BPN, the position notation: ``<placement> <side> <ply>``, e.g. the start
  ``4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 w 0``. Output uses the shortest form.
* The game notation: BPN, optionally followed by the repetition history and ``claim`` (our
  extension, so that every state, finished or not, has a notation; see
  :func:`parse_game_notation`).
* Actions as JSON (``{"type":"move","from":"e2","to":"e5"}``, with ``"claim":true``,
  ``{"type":"claim"}``, ``{"type":"pass"}``) and as text (``e2-e5``, ``e2-e5 claim``,
  ``claim``, ``pass``).

Boards here are lists of 100 cells indexed by square (:mod:`engine.barca.geometry`), each a
piece code ``3*side + type`` or ``-1``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from engine.barca.geometry import (
    EMPTY,
    HOLE_MASK,
    HOLES_TO_WIN,
    NUM_SQUARES,
    PIECE_LETTERS,
    SIDE_LETTERS,
    SIZE,
    SQUARE_INDEX,
)
from engine.core import BadNotation, MalformedAction

PLY_CAP: Final = 300
"""The game is drawn when the ply counter reaches this (§7.3)."""
REPETITIONS_TO_CLAIM: Final = 3
REPETITIONS_TO_DRAW: Final = 5
START_BPN: Final = "4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 w 0"

_PLY_RE: Final = re.compile(r"0|[1-9][0-9]*")
_RUN_RE: Final = re.compile(r"[0-9]+|[A-Za-z]|.")
_CODE: Final = {letter: code for code, letter in enumerate(PIECE_LETTERS)}

# ---- positions ---------------------------------------------------------------------------------


_SYMBOLS: Final = {EMPTY: ".", **{code: letter for code, letter in enumerate(PIECE_LETTERS)}}
_RANK_CACHE: dict[str, str] = {}
"""Rank as one symbol per square ('.' empty) → its BPN spelling (cleared when it grows past
:data:`_PLACEMENT_CACHE_SIZE`); makes :func:`placement_text` a few lookups."""
_PLACEMENT_CACHE: dict[str, tuple[int, ...]] = {}
_PLACEMENT_CACHE_SIZE: Final = 1 << 14


def _spell_rank(symbols: str) -> str:
    if len(_RANK_CACHE) >= _PLACEMENT_CACHE_SIZE:
        _RANK_CACHE.clear()
    spelled = re.sub(r"\.+", lambda m: str(len(m.group())), symbols)
    _RANK_CACHE[symbols] = spelled
    return spelled


def placement_text(cells: Sequence[int]) -> str:
    """The placement field of BPN: ranks 10 down to 1, files a→j, empty runs merged."""
    symbols = _SYMBOLS
    flat = "".join([symbols[c] for c in cells])
    cache = _RANK_CACHE
    ranks = []
    for start in range(NUM_SQUARES - SIZE, -1, -SIZE):
        rank = flat[start:start + SIZE]
        spelled = cache.get(rank)
        ranks.append(spelled if spelled is not None else _spell_rank(rank))
    return "/".join(ranks)


def parse_placement(text: str) -> list[int]:
    """Cells of a placement field (shape only: ten ranks of ten squares); raises
    :class:`BadNotation`. Every placement it accepts is in the shortest form (a maximal digit
    run is one number 1-10), so it is the only spelling of its cells."""
    cells = _PLACEMENT_CACHE.get(text)
    if cells is None:
        cells = tuple(_parse_placement(text))
        if len(_PLACEMENT_CACHE) >= _PLACEMENT_CACHE_SIZE:
            _PLACEMENT_CACHE.clear()
        _PLACEMENT_CACHE[text] = cells
    return list(cells)


def _parse_placement(text: str) -> list[int]:
    ranks = text.split("/")
    if len(ranks) != SIZE:
        raise BadNotation(f"a placement has {SIZE} ranks separated by '/', got {len(ranks)}")
    cells = [EMPTY] * NUM_SQUARES
    for k, rank_text in enumerate(ranks):
        rank = SIZE - 1 - k
        f = 0
        for token in _RUN_RE.findall(rank_text):
            if token.isdigit():
                if token.startswith("0") or not 1 <= int(token) <= SIZE:
                    raise BadNotation(f"rank {rank + 1}: {token!r} is not a number of empty "
                                      f"squares 1-10 without a leading zero")
                f += int(token)
            elif token in _CODE:
                if f < SIZE:
                    cells[SIZE * rank + f] = _CODE[token]
                f += 1
            else:
                raise BadNotation(f"rank {rank + 1}: unexpected character {token!r}")
            if f > SIZE:
                break
        if f != SIZE:
            raise BadNotation(f"rank {rank + 1} ({rank_text!r}) must cover exactly {SIZE} "
                              f"squares")
    return cells


def check_sanity(cells: Sequence[int]) -> None:
    """The custom-position rules of §8 on the pieces: each side 1-6 pieces, at most 2 of each
    type, neither side on 3 or more holes. Raises :class:`BadNotation`."""
    counts = [0] * len(PIECE_LETTERS)
    holes = [0, 0]
    for i, c in enumerate(cells):
        if c >= 0:
            counts[c] += 1
            if HOLE_MASK >> i & 1:
                holes[c // 3] += 1
    for code, n in enumerate(counts):
        if n > 2:
            raise BadNotation(f"at most 2 pieces of a kind per side, got {n} "
                              f"{PIECE_LETTERS[code]!r}")
    for side in (0, 1):
        total = sum(counts[3 * side:3 * side + 3])
        if not 1 <= total <= 6:
            raise BadNotation(f"each side has 1-6 pieces, {'white' if side == 0 else 'black'} "
                              f"has {total}")
        if holes[side] >= HOLES_TO_WIN:
            raise BadNotation(f"{'white' if side == 0 else 'black'} already occupies "
                              f"{holes[side]} watering holes")


def to_bpn(cells: Sequence[int], side: int, ply: int, placement: str | None = None) -> str:
    """A position in BPN (``placement`` may pass the already computed
    :func:`placement_text`)."""
    if placement is None:
        placement = placement_text(cells)
    return f"{placement} {SIDE_LETTERS[side]} {ply}"


def _parse_fields(fields: Sequence[str], max_ply: int) -> tuple[list[int], int, int]:
    if len(fields) not in (2, 3):
        raise BadNotation("BPN is '<placement> <side> <ply>' separated by single spaces "
                          "(the ply may be left out)")
    cells = parse_placement(fields[0])
    if fields[1] not in ("w", "b"):
        raise BadNotation(f"side must be 'w' or 'b', got {fields[1]!r}")
    side = "wb".index(fields[1])
    ply = 0
    if len(fields) == 3:
        if _PLY_RE.fullmatch(fields[2]) is None:
            raise BadNotation(f"ply must be a decimal number without sign or leading zero, "
                              f"got {fields[2]!r}")
        ply = int(fields[2])
    if ply > max_ply:
        raise BadNotation(f"ply must be below {PLY_CAP}, got {ply}")
    return cells, side, ply


def parse_bpn(text: str) -> tuple[list[int], int, int]:
    """``(cells, side, ply)`` of a BPN string, checked against every rule of §8 and §9.1.
    Raises :class:`BadNotation`."""
    if not isinstance(text, str):
        raise BadNotation("a position must be a string")
    cells, side, ply = _parse_fields(text.split(" "), PLY_CAP - 1)
    check_sanity(cells)
    return cells, side, ply


def key_text(placement: str, side: int) -> str:
    """The repetition key of a position as text: ``"<placement> <side letter>"``."""
    return f"{placement} {SIDE_LETTERS[side]}"


def parse_game_notation(text: str
                        ) -> tuple[list[int], int, int, dict[str, int] | None, bool]:
    """``(cells, side, ply, history, claimed)`` of the game notation::

        <placement> <side> <ply> [<history>] [claim]

    Plain BPN (history ``None``: a fresh one, ``{current: 1}``) describes a game that goes
    on. The history field lists every position that has occurred with its count, in order of
    first occurrence: ``<placement>,<side>=<count>;…``; it must contain the current position.
    ``claim`` marks a game ended by a claimed draw. With a history field the game may be over
    (ply 300, a count of 5, the last mover on 3 holes, or a claim); the field is written
    exactly when plain BPN would lose something, so every state has one spelling. Raises
    :class:`BadNotation`."""
    if not isinstance(text, str):
        raise BadNotation("a position must be a string")
    fields = text.split(" ")
    claimed = fields[-1] == "claim"
    if claimed:
        fields = fields[:-1]
    if len(fields) <= 3 and not claimed:
        cells, side, ply = parse_bpn(text)
        return cells, side, ply, None, False
    if len(fields) != 4:
        raise BadNotation("the notation is BPN optionally followed by a history field "
                          "and 'claim'")
    cells, side, ply = _parse_fields(fields[:3], PLY_CAP)
    _check_pieces(cells)
    history = parse_history(fields[3], cells)
    current = key_text(placement_text(cells), side)
    count = history.get(current)
    if count is None:
        raise BadNotation("the history must contain the current position")
    for key, n in history.items():
        if n >= REPETITIONS_TO_DRAW and key != current:
            raise BadNotation(f"history key {key!r} occurred {n} times: the game would have "
                              f"ended there")
    if claimed and count < REPETITIONS_TO_CLAIM:
        raise BadNotation("a claimed draw needs the current position to have occurred at "
                          "least 3 times")
    mover_holes = sum(1 for i, c in enumerate(cells)
                      if c >= 0 and c // 3 != side and HOLE_MASK >> i & 1)
    over = (claimed or count >= REPETITIONS_TO_DRAW or ply >= PLY_CAP
            or mover_holes >= HOLES_TO_WIN)
    if not over and history == {current: 1}:
        raise BadNotation("a fresh history is written as plain BPN")
    return cells, side, ply, history, claimed


def _check_pieces(cells: Sequence[int]) -> None:
    """§8 minus the holes rule (a finished game may have a winner on 3 holes)."""
    counts = [0] * len(PIECE_LETTERS)
    for c in cells:
        if c >= 0:
            counts[c] += 1
    if max(counts) > 2 or not all(1 <= sum(counts[3 * s:3 * s + 3]) <= 6 for s in (0, 1)):
        raise BadNotation("each side has 1-6 pieces, at most 2 of each type")


def history_field(history: dict[str, int]) -> str:
    """The history field of :func:`parse_game_notation` for ``{key text: count}``."""
    return ";".join(f"{key.replace(' ', ',')}={n}" for key, n in history.items())


def parse_history(text: str, cells: Sequence[int]) -> dict[str, int]:
    """``{key text: count}`` of a history field whose positions all hold the same pieces as
    ``cells`` (pieces are never captured). Raises :class:`BadNotation`."""
    pieces = sorted(c for c in cells if c >= 0)
    history: dict[str, int] = {}
    for entry in text.split(";"):
        key, eq, count = entry.partition("=")
        placement, comma, letter = key.partition(",")
        if not eq or not comma or letter not in ("w", "b") or count not in "12345" or \
                len(count) != 1:
            raise BadNotation(f"a history entry is <placement>,<side>=<count 1-5>, "
                              f"got {entry!r}")
        other = parse_placement(placement)
        if sorted(c for c in other if c >= 0) != pieces:
            raise BadNotation(f"history placement {placement!r} has other pieces than the "
                              f"board")
        key_str = f"{placement} {letter}"
        if key_str in history:
            raise BadNotation(f"history position {key!r} is listed twice")
        history[key_str] = int(count)
    return history


def game_notation(bpn: str, history: dict[str, int], claimed: bool, over: bool) -> str:
    """The game notation of a position given its BPN and history (see
    :func:`parse_game_notation`)."""
    placement, side = bpn.split(" ")[:2]
    if not over and len(history) == 1 and history.get(f"{placement} {side}") == 1:
        return bpn
    out = f"{bpn} {history_field(history)}"
    return f"{out} claim" if claimed else out


# ---- actions -----------------------------------------------------------------------------------

ACTION_TYPES: Final = ("move", "claim", "pass")


def _square(raw: Any, field: str) -> str:
    if not isinstance(raw, str):
        raise MalformedAction(f"{field!r} must be a square name like 'e2'", field=field)
    name = raw.lower()
    if name not in SQUARE_INDEX:
        raise MalformedAction(f"{field!r}: {raw!r} is not a square a1-j10", field=field)
    return name


def parse_action(raw: Any) -> dict[str, Any]:
    """Shape check of a JSON action (§9.2); returns a fresh canonical copy (squares lowercased,
    ``"claim"`` present only when true) or raises :class:`MalformedAction`: unknown type, a
    missing or extra key, a square that is not ``a1``-``j10``, a non-boolean claim."""
    if not isinstance(raw, dict):
        raise MalformedAction(f"an action must be a JSON object, got {type(raw).__name__}")
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        raise MalformedAction(f"'type' must be one of {', '.join(ACTION_TYPES)}, got {kind!r}",
                              field="type")
    required = ("type", "from", "to") if kind == "move" else ("type",)
    optional = ("claim",) if kind == "move" else ()
    for key in raw:
        if key not in required and key not in optional:
            raise MalformedAction(f"unknown field {key!r} in a {kind} action", field=str(key))
    for key in required:
        if key not in raw:
            raise MalformedAction(f"missing field {key!r} in a {kind} action", field=key)
    if kind != "move":
        return {"type": kind}
    out: dict[str, Any] = {"type": "move", "from": _square(raw["from"], "from"),
                           "to": _square(raw["to"], "to")}
    if "claim" in raw:
        if not isinstance(raw["claim"], bool):
            raise MalformedAction("'claim' must be true or false", field="claim")
        if raw["claim"]:
            out["claim"] = True
    return out


def action_text(action: dict[str, Any]) -> str:
    """Text form (§9.2): ``e2-e5``, ``e2-e5 claim``, ``claim``, ``pass``."""
    if action["type"] != "move":
        return str(action["type"])
    text = f"{action['from']}-{action['to']}"
    return f"{text} claim" if action.get("claim") else text


def parse_action_text(text: str) -> dict[str, Any]:
    """The JSON action for its text form (case-insensitive); raises :class:`MalformedAction`."""
    if not isinstance(text, str):
        raise MalformedAction("an action text must be a string")
    words = text.strip().lower().split()
    if words in (["claim"], ["pass"]):
        return {"type": words[0]}
    if len(words) in (1, 2) and (len(words) == 1 or words[1] == "claim"):
        frm, dash, to = words[0].partition("-")
        if dash:
            action: dict[str, Any] = {"type": "move", "from": frm, "to": to}
            if len(words) == 2:
                action["claim"] = True
            return parse_action(action)
    raise MalformedAction(f"an action is '<from>-<to>', '<from>-<to> claim', 'claim' or "
                          f"'pass', got {text!r}")
