"""The games this server offers, as the engine registry says, but robust to one broken
game: a game whose module fails to load is left out (and logged) rather than taking the
lobby's game list down with it."""

from __future__ import annotations

import structlog

from engine import registry
from engine.core import Game

log = structlog.get_logger("arena.games")


def available_games() -> list[Game]:
    try:
        return registry.all_games()
    except Exception:  # a built-in game mid-construction or broken
        log.exception("game_registry_failed")
    games = []
    # Fall back to one lookup per known name; registry.names() itself failed above.
    for name in sorted(set(registry._BUILTIN) | set(registry._GAMES)):
        try:
            games.append(registry.get(name))
        except Exception:
            continue
    return games


def available_names() -> list[str]:
    return [game.info.name for game in available_games()]
