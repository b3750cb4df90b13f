"""Games by name. Built-in games are imported lazily on first use; tests may register more."""

from __future__ import annotations

import importlib

from engine.core import Game

# name -> module that defines ``GAME`` (imported on first lookup)
_BUILTIN: dict[str, str] = {
    "barca": "engine.barca",
    "battleline": "engine.battleline",
    "boundary": "engine.boundary",
    "chexers": "engine.chexers",
}
_GAMES: dict[str, Game] = {}


class UnknownGame(KeyError):
    code = "unknown_game"


def register(game: Game, *, replace: bool = False) -> Game:
    name = game.info.name
    if name in _GAMES and not replace and _GAMES[name] is not game:
        raise ValueError(f"a game named {name!r} is already registered")
    _GAMES[name] = game
    return game


def unregister(name: str) -> None:
    _GAMES.pop(name, None)


def get(name: str) -> Game:
    """The game registered as ``name``; raises :class:`UnknownGame`."""
    if name not in _GAMES and name in _BUILTIN:
        module = importlib.import_module(_BUILTIN[name])
        register(module.GAME)
    try:
        return _GAMES[name]
    except KeyError:
        raise UnknownGame(name) from None


def names() -> list[str]:
    """Every available game name, sorted (built-ins whether or not imported yet)."""
    available = []
    for name in sorted(set(_BUILTIN) | set(_GAMES)):
        try:
            get(name)
        except ImportError:
            continue  # a built-in still under construction
        available.append(name)
    return available


def all_games() -> list[Game]:
    return [get(n) for n in names()]
