"""Pure game rules behind one contract (see :mod:`engine.core`). Standard library only, but
for NumPy in Boundary, the one game whose rules are a numeric field."""

from engine.core import (
    CHANCE,
    Action,
    BadNotation,
    BadOptions,
    Decision,
    EngineError,
    Event,
    Game,
    GameInfo,
    IllegalAction,
    MalformedAction,
    NotToAct,
    Outcome,
    State,
    Transition,
)
from engine.registry import get, names, register

__all__ = [
    "CHANCE", "Action", "BadNotation", "BadOptions", "Decision", "EngineError", "Event", "Game",
    "GameInfo", "IllegalAction", "MalformedAction", "NotToAct", "Outcome", "State", "Transition",
    "get", "names", "register",
]
