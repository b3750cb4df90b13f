"""Small helpers shared by the Barca tests: positions and actions in the rules' notation."""

from __future__ import annotations

from typing import Any

from engine.barca import GAME, parse_action_text
from engine.core import State

START = "4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 w 0"


def state(bpn: str) -> State:
    return GAME.from_notation(bpn)


def seat(s: State) -> int:
    return "wb".index(s["bpn"].split(" ")[1])


def legal(s: State | str) -> list[str]:
    """The legal actions of the side to move as text, in canonical order."""
    if isinstance(s, str):
        s = state(s)
    return [GAME.action_text(a) for a in GAME.legal_actions(s, seat(s))]


def moves(s: State | str) -> set[str]:
    """The legal moves (no claims, no pass) as a set of ``from-to`` texts."""
    return {a for a in legal(s) if "-" in a and not a.endswith("claim")}


def act(text: str) -> dict[str, Any]:
    return parse_action_text(text)


def play(s: State, *texts: str) -> State:
    for text in texts:
        s = GAME.apply(s, {seat(s): act(text)}).state
    return s


def bpn(s: State) -> str:
    return str(s["bpn"])
