"""Boundary's position notation (BDN): one line that a match, a test or a bug report can
start from.

::

    turn=3 score=12,30 | 0:485,579+5:386,384 1:661,508<650,500 | 7:490,375 | 0:28,304=2 1:59,735=4>1

Four ``|``-separated fields, and a fifth once the game is over:

1. ``turn=T score=A,B``, any option that differs from its default (``pieces=3``) and, after
   the first turn, the plans revealed last turn: ``plans=0:713,744;1:572,203/4:150,502``
   (seat 0's moves ``/`` seat 1's, ``-`` for an empty plan);
2. team 0's blobs, separated by spaces, each its pieces joined by ``+``: ``id:x,y``, with
   ``<px,py`` appended when the piece started the previous turn elsewhere (what the inertia
   of the rule book's bots reads); captured pieces are absent;
3. team 1's blobs, the same way;
4. the treasures ``id:x,y=value``, with ``>team`` appended for one already taken;
5. ``result=treasures|elimination|turn_limit``.

A position before the random start is ``setup`` followed by the option tokens. The notation
leaves out when (turn and tick) each capture happened, which no view shows; everything the
rules and the views read is there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.boundary.params import DEFAULT_OPTIONS, check_options
from engine.core import BadNotation

_PIECE = re.compile(r"^(\d+):(\d+),(\d+)(?:<(\d+),(\d+))?$")
_TREASURE = re.compile(r"^(\d+):(\d+),(\d+)=(\d+)(?:>([01]))?$")


def _option_tokens(options: Mapping[str, Any]) -> list[str]:
    return [f"{k}={options[k]}" for k in DEFAULT_OPTIONS if options[k] != DEFAULT_OPTIONS[k]]


def _plans_token(plans: list[Mapping[str, list[int]]]) -> str:
    sides = [";".join(f"{p}:{x},{y}" for p, (x, y) in moves.items()) or "-" for moves in plans]
    return "plans=" + "/".join(sides)


def _parse_plans(text: str) -> list[dict[str, list[int]]]:
    sides = text.split("/")
    if len(sides) != 2:
        raise BadNotation("plans= has two sides separated by '/'")
    out: list[dict[str, list[int]]] = []
    for side in sides:
        moves: dict[str, list[int]] = {}
        if side != "-":
            for move in side.split(";"):
                m = re.match(r"^(\d+):(\d+),(\d+)$", move)
                if m is None:
                    raise BadNotation(f"bad planned move {move!r} (id:x,y)")
                moves[m[1]] = [int(m[2]), int(m[3])]
        out.append(moves)
    return out


def to_notation(state: Mapping[str, Any]) -> str:
    options = state["options"]
    if state["layout"] is None:
        return " ".join(["setup", *_option_tokens(options)])
    pieces, prev = state["pieces"], state["prev"]
    tokens = [f"turn={state['turn']}", f"score={state['scores'][0]},{state['scores'][1]}",
              *_option_tokens(options)]
    if state["last"] is not None:
        tokens.append(_plans_token(state["last"]["plans"]))
    head = " ".join(tokens)
    teams: list[list[str]] = [[], []]
    count = options["pieces"]
    for blob in state["blobs"]:
        parts = []
        for p in blob:
            x, y = pieces[p]
            text = f"{p}:{x},{y}"
            if prev[p] is not None and prev[p] != pieces[p]:
                text += f"<{prev[p][0]},{prev[p][1]}"
            parts.append(text)
        teams[0 if blob[0] < count else 1].append("+".join(parts))
    treasures = []
    for t, (x, y, value) in enumerate(state["treasures"]):
        taken = state["taken"][t]
        treasures.append(f"{t}:{x},{y}={value}" + ("" if taken is None else f">{taken[0]}"))
    fields = [head, " ".join(teams[0]), " ".join(teams[1]), " ".join(treasures)]
    if state["result"] is not None:
        fields.append(f"result={state['result']}")
    return " | ".join(fields)


def _options(tokens: list[str], base: Mapping[str, Any] | None) -> dict[str, Any]:
    options = dict(DEFAULT_OPTIONS)
    if base:
        options.update(base)
    for token in tokens:
        key, eq, value = token.partition("=")
        if not eq or key not in DEFAULT_OPTIONS or not value.isdigit():
            raise BadNotation(f"bad option token {token!r}")
        options[key] = int(value)
    try:
        check_options(options)
    except Exception as exc:
        raise BadNotation(str(exc)) from None
    return options


def from_notation(text: str, base_options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The state a BDN line describes (raises :class:`BadNotation`). The parts a notation
    leaves out start empty: no capture times, no last turn."""
    text = text.strip()
    if text.split(" ")[0] == "setup":
        options = _options(text.split()[1:], base_options)
        return empty_state(options)
    fields = [f.strip() for f in text.split("|")]
    if len(fields) not in (4, 5):
        raise BadNotation("BDN has 4 fields separated by '|' (5 once the game is over)")
    head = fields[0].split()
    if len(head) < 2 or not head[0].startswith("turn=") or not head[1].startswith("score="):
        raise BadNotation("BDN starts with turn=T score=A,B")
    try:
        turn = int(head[0][5:])
        scores = [int(v) for v in head[1][6:].split(",")]
    except ValueError:
        raise BadNotation("turn and score must be integers") from None
    if len(scores) != 2 or turn < 0 or min(scores) < 0:
        raise BadNotation("score is two non-negative integers A,B")
    plans = [t for t in head[2:] if t.startswith("plans=")]
    options = _options([t for t in head[2:] if not t.startswith("plans=")], base_options)
    count = options["pieces"]
    pieces: list[list[int] | None] = [None] * (2 * count)
    prev: list[list[int] | None] = [None] * (2 * count)
    blobs: list[list[int]] = []
    for team, field in ((0, fields[1]), (1, fields[2])):
        for blob_text in field.split():
            members = []
            for token in blob_text.split("+"):
                m = _PIECE.match(token)
                if m is None:
                    raise BadNotation(f"bad piece {token!r} (id:x,y or id:x,y<px,py)")
                p, x, y = int(m[1]), int(m[2]), int(m[3])
                if not (0 <= p < 2 * count) or (p < count) != (team == 0):
                    raise BadNotation(f"piece {p} does not belong to team {team}")
                if pieces[p] is not None:
                    raise BadNotation(f"piece {p} appears twice")
                if not (0 <= x < 800 and 0 <= y < 800):
                    raise BadNotation(f"piece {p} is off the field")
                pieces[p] = [x, y]
                prev[p] = [int(m[4]), int(m[5])] if m[4] is not None else [x, y]
                members.append(p)
            blobs.append(sorted(members))
    treasures: list[list[int]] = []
    taken: list[list[int] | None] = []
    for index, token in enumerate(fields[3].split()):
        m = _TREASURE.match(token)
        if m is None or int(m[1]) != index:
            raise BadNotation(f"bad treasure {token!r} (ids in order: id:x,y=value[>team])")
        treasures.append([int(m[2]), int(m[3]), int(m[4])])
        taken.append(None if m[5] is None else [int(m[5]), -1, -1])
    result = None
    if len(fields) == 5:
        key, _, value = fields[4].partition("=")
        if key != "result" or value not in ("treasures", "elimination", "turn_limit"):
            raise BadNotation("the fifth field is result=treasures|elimination|turn_limit")
        result = value
    state = empty_state(options)
    last = None
    if plans:
        if turn < 1:
            raise BadNotation("plans= names the last turn's plans: there is none at turn 0")
        last = {"turn": turn - 1, "plans": _parse_plans(plans[-1][len("plans="):])}
    state.update(layout=-1, turn=turn, scores=scores, pieces=pieces, prev=prev,
                 blobs=sorted(blobs), treasures=treasures, taken=taken, result=result,
                 last=last)
    return state


def empty_state(options: Mapping[str, Any]) -> dict[str, Any]:
    """The state before the random start."""
    count = options["pieces"]
    return {"num_seats": 2, "options": dict(options), "layout": None, "turn": 0,
            "scores": [0, 0], "pieces": [None] * (2 * count), "prev": [None] * (2 * count),
            "blobs": [], "treasures": [], "taken": [], "lost": [None] * (2 * count),
            "last": None, "result": None}
