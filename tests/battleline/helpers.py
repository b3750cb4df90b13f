"""Helpers for the Battle Line tests: positions written in the game's notation."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from engine.battleline import GAME
from engine.core import CHANCE, Event, State, canonical_json


def position(flags: Mapping[int, str] | None = None, hands: str = "-/-", discards: str = "-/-",
             tops: str = "-/-", known: str = "-/-", turn: str = "0:play",
             options: Mapping[str, Any] | None = None) -> State:
    """A state from notation fields; flags not named are empty (``-|-``)."""
    flags = flags or {}
    text = " ".join(["/".join(flags.get(n, "-|-") for n in range(1, 10)),
                     hands, discards, tops, known, turn])
    return GAME.from_notation(text, options)


def play(card: str, flag: int) -> dict[str, Any]:
    return {"type": "play", "card": card, "flag": flag}


def claim(flag: int) -> dict[str, Any]:
    return {"type": "claim", "flag": flag}


def act(state: State, action: Any) -> tuple[State, list[Event]]:
    """Apply the seat to act's action through the checked path."""
    seat = state["seat"]
    t = GAME.apply(state, {seat: action})
    return t.state, t.events


def chance(state: State, card: str) -> State:
    return GAME.apply(state, {CHANCE: card}).state


def flag_text(state: State, flag: int) -> str:
    """The notation of one flag of ``state``."""
    return GAME.to_notation(state).split(" ")[0].split("/")[flag - 1]


def frozen(state: State) -> str:
    return canonical_json(json.loads(json.dumps(state)))
