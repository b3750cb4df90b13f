"""Small helpers shared by the Chexers tests: action builders in the rules' notation."""

from __future__ import annotations

from typing import Any

from engine.chexers import GAME
from engine.core import State

START = "gggg/5/6/r5b/r4b/r3b/r2b r 0,0,0 0"


def mv(a: tuple[int, int], b: tuple[int, int]) -> dict[str, Any]:
    return {"type": "MOVE", "from": list(a), "to": list(b)}


def jp(a: tuple[int, int], b: tuple[int, int]) -> dict[str, Any]:
    return {"type": "JUMP", "from": list(a), "to": list(b)}


def ex(a: tuple[int, int]) -> dict[str, Any]:
    return {"type": "EXIT", "from": list(a)}


PASS = {"type": "PASS"}


def state(cxn: str) -> State:
    return GAME.from_notation(cxn)


def legal(cxn: str) -> list[dict[str, Any]]:
    s = state(cxn)
    return GAME.legal_actions(s, s["turns"] % 3)


def play(s: State, action: dict[str, Any]) -> State:
    return GAME.apply(s, {s["turns"] % 3: action}).state


def as_set(actions: list[dict[str, Any]]) -> set[str]:
    return {GAME.action_text(a) for a in actions}


def cxn(s: State) -> str:
    """The plain CXN of a state's position (the view's ``cxn``; no history field)."""
    return str(GAME.view(s, None)["cxn"])
