"""Bots by name, for ``arena bot NAME`` and the house bots of ``arena run``.

A *factory* makes a bot: ``factory(seed=None, **options) -> bot`` where a bot has
``choose(request) -> action`` (the policy contract of :mod:`clients.runner`). The built-in
bots are named in :data:`_BUILTIN` by plain functions that import their module on first use
(a command that names one bot does not pay for loading every model). The ``arena`` program
(``tools/``, the composition root) imports this registry; ``clients/`` does not: the bot
runner drives whatever policy it is handed.

A ``"module:attribute"`` string works as a name too, for bots that live outside the registry
(``arena bot mypackage.mybot:MyBot``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

BotFactory = Callable[..., Any]


def _random() -> BotFactory:
    from bots.random_bot import RandomBot
    return RandomBot


def _deep_barca() -> BotFactory:
    # Battle Line: Deep Barca, the probabilistic agent of the seed paper (bots/battleline).
    from bots.battleline.deep_barca import DeepBarca
    return DeepBarca


def _ismcts() -> BotFactory:
    # Battle Line: information-set MCTS over Deep Barca's model (bots/battleline/ismcts.py).
    from bots.battleline.ismcts import IsmctsBot
    return IsmctsBot


def _battleline_greedy() -> BotFactory:
    from bots.battleline.greedy import GreedyBot
    return GreedyBot


def _barca() -> BotFactory:
    # Barca: the seed's evaluation-vector agent (bots/barca).
    from bots.barca.agents import BarcaBot
    return BarcaBot


def _barca_greedy() -> BotFactory:
    from bots.barca.agents import GreedyBarcaBot
    return GreedyBarcaBot


def _boundary(name: str) -> Callable[[], BotFactory]:
    """Boundary's bots (bots/boundary): the thesis's six strategies and adaptive agent."""
    def load() -> BotFactory:
        from bots.boundary import agents
        factory: BotFactory = getattr(agents, name)
        return factory
    return load


def _chexers(name: str) -> Callable[[], BotFactory]:
    """The Chexers search agents of the seed report (bots/chexers; Chexers only)."""
    def load() -> BotFactory:
        from bots.chexers import agents
        factory: BotFactory = getattr(agents, name)
        return factory
    return load


def _chexers_brs() -> BotFactory:
    # Chexers: Best-Reply Search with a race evaluation (bots/chexers/brs.py).
    from bots.chexers.brs import BrsBot
    return BrsBot


_BUILTIN: dict[str, Callable[[], BotFactory]] = {
    "random": _random,
    "deep-barca": _deep_barca,
    "ismcts": _ismcts,
    "barca": _barca,
    "greedy": _chexers("GreedyBot"),
    "maxn": _chexers("MaxnBot"),
    "random-maxn": _chexers("RandomMaxnBot"),
    "paranoid": _chexers("ParanoidBot"),
    "offensive": _chexers("OffensiveBot"),
    "mp-mix": _chexers("MPMixBot"),
    "brs": _chexers_brs,
    "greedy-treasure": _boundary("GreedyTreasureBot"),
    "best-treasure": _boundary("BestTreasureBot"),
    "greedy-capture": _boundary("GreedyCaptureBot"),
    "hybrid-capture": _boundary("HybridCaptureBot"),
    "defensive-treasure": _boundary("DefensiveTreasureBot"),
    "defensive-capture": _boundary("DefensiveCaptureBot"),
    "adaptive": _boundary("AdaptiveBot"),
}
_FACTORIES: dict[str, BotFactory] = {}
_BY_GAME: dict[str, dict[str, Callable[[], BotFactory]]] = {
    # Game -> name -> bot: where a name means a different bot for that game. "greedy" is the
    # Chexers agent unless the game is Battle Line, Barca or Boundary, whose greedy
    # baselines live in bots/battleline, bots/barca and bots/boundary (Greedy Treasure).
    "battleline": {"greedy": _battleline_greedy},
    "barca": {"greedy": _barca_greedy},
    "boundary": {"greedy": _boundary("GreedyTreasureBot")},
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


def _load_external(target: str) -> BotFactory:
    """The factory a ``"module:attribute"`` name points at (a bot outside the registry)."""
    module_name, _, attribute = target.partition(":")
    if not attribute:
        raise UnknownBot(target)
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise UnknownBot(target) from None
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
        return _BY_GAME[game][name]()
    if name not in _FACTORIES:
        if name in _BUILTIN:
            register(name, _BUILTIN[name]())
        elif ":" in name:
            return _load_external(name)
        else:
            raise UnknownBot(name)
    return _FACTORIES[name]


def create(name: str, *, game: str | None = None, **kwargs: Any) -> Any:
    """A new bot: ``get(name, game)(**kwargs)``."""
    return get(name, game)(**kwargs)


def names() -> list[str]:
    """Every registered or built-in bot name, sorted."""
    return sorted(set(_BUILTIN) | set(_FACTORIES))
