"""Bots by name, for ``arena bot NAME``.

A *factory* makes a bot: ``factory(seed=None, **options) -> bot`` where a bot has
``choose(request) -> action`` (see :mod:`clients.runner`). Built-in bots are named here as
``"module:attribute"`` strings and imported on first use, so this module does not depend on
``bots/`` at import time. Any ``"module:attribute"`` string works as a name too, for bots
that live outside the registry.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

BotFactory = Callable[..., Any]

_BUILTIN: dict[str, str] = {
    "random": "bots.random_bot:RandomBot",
    # Battle Line: Deep Barca, the probabilistic agent of the seed paper (bots/battleline).
    "deep-barca": "bots.battleline.deep_barca:DeepBarca",
    # Chexers search agents of the seed report (bots/chexers; Chexers only).
    "greedy": "bots.chexers.agents:GreedyBot",
    "maxn": "bots.chexers.agents:MaxnBot",
    "random-maxn": "bots.chexers.agents:RandomMaxnBot",
    "paranoid": "bots.chexers.agents:ParanoidBot",
    "offensive": "bots.chexers.agents:OffensiveBot",
    "mp-mix": "bots.chexers.agents:MPMixBot",
}
_FACTORIES: dict[str, BotFactory] = {}
_BY_GAME: dict[str, dict[str, str]] = {
    # Game -> name -> bot: where a name means a different bot for that game. "greedy" is the
    # Chexers agent unless the game is Battle Line, whose greedy baseline lives in bots/.
    "battleline": {"greedy": "bots.battleline.greedy:GreedyBot"},
}


class UnknownBot(KeyError):
    """No bot of that name (the protocol's ``not_found``)."""


def register(name: str, factory: BotFactory, *, replace: bool = False) -> BotFactory:
    """Register ``factory`` under ``name``; refuses to replace another one silently."""
    if name in _FACTORIES and not replace and _FACTORIES[name] is not factory:
        raise ValueError(f"a bot named {name!r} is already registered")
    _FACTORIES[name] = factory
    return factory


def unregister(name: str) -> None:
    _FACTORIES.pop(name, None)


def _load(target: str) -> BotFactory:
    module_name, _, attribute = target.partition(":")
    if not attribute:
        raise UnknownBot(target)
    module = importlib.import_module(module_name)
    try:
        factory: BotFactory = getattr(module, attribute)
    except AttributeError:
        raise UnknownBot(target) from None
    return factory


def get(name: str, game: str | None = None) -> BotFactory:
    """The factory registered as ``name`` (built-ins are imported on first use), or the
    ``"module:attribute"`` it names. With ``game``, a bot that name means for that game
    only (Battle Line's ``greedy``) comes first. Raises :class:`UnknownBot`."""
    if game is not None and name in _BY_GAME.get(game, {}):
        return _load(_BY_GAME[game][name])
    if name not in _FACTORIES:
        if name in _BUILTIN:
            register(name, _load(_BUILTIN[name]))
        elif ":" in name:
            try:
                return _load(name)
            except ImportError:
                raise UnknownBot(name) from None
        else:
            raise UnknownBot(name)
    return _FACTORIES[name]


def create(name: str, *, game: str | None = None, **kwargs: Any) -> Any:
    """A new bot: ``get(name, game)(**kwargs)``."""
    return get(name, game)(**kwargs)


def names() -> list[str]:
    """Every registered or built-in bot name, sorted."""
    return sorted(set(_BUILTIN) | set(_FACTORIES))
