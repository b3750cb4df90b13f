"""Boundary's bots as policies (``choose(request) -> action``): the six basic strategies
and the adaptive agent. Each keeps its memory per match (its request's ``match_id`` and
seat), so one bot object can play several matches at once; a match's memory is dropped when
the match ends (``on_match_end``) and the oldest is dropped beyond :data:`MAX_MATCHES`.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bots.boundary.adaptive import AdaptivePlayer, Settings
from bots.boundary.strategies import CLASSES, NAMES, Strategy
from bots.boundary.table import load_settings
from bots.boundary.world import World, plan_action
from engine.rng import Rng

MAX_MATCHES = 256


class _PerMatch:
    """Memory per (match, seat), bounded."""

    games = ("boundary",)

    def __init__(self) -> None:
        self._memory: OrderedDict[tuple[str, int], list[Any]] = OrderedDict()

    def memory(self, request: Mapping[str, Any], make: Any) -> Any:
        """This match's memory for the request's seat. A turn earlier than the last one seen
        means a new match under the same id (benchmarks reuse ids): it starts afresh."""
        key = (str(request.get("match_id")), int(request["seat"]))
        turn = int(request["view"]["turn"])
        found = self._memory.get(key)
        if found is None or turn < found[0]:
            found = [turn, make(int(request["seat"]))]
            self._memory[key] = found
            while len(self._memory) > MAX_MATCHES:
                self._memory.popitem(last=False)
        found[0] = turn
        return found[1]

    def on_match_end(self, message: Mapping[str, Any]) -> None:
        for key in [k for k in self._memory if k[0] == str(message.get("match_id"))]:
            del self._memory[key]


class StrategyBot(_PerMatch):
    """One basic strategy (``GT``, ``BT``, ``GC``, ``HC``, ``DT``, ``DC``) for every turn."""

    def __init__(self, strategy: str = "GT", seed: int | None = None) -> None:
        super().__init__()
        if strategy not in CLASSES:
            raise ValueError(f"unknown Boundary strategy {strategy!r} (one of {', '.join(NAMES)})")
        self.strategy = strategy

    def choose(self, request: Mapping[str, Any]) -> dict[str, Any]:
        strategy: Strategy = self.memory(request, lambda seat: CLASSES[self.strategy]())
        world = World.from_view(request["view"], int(request["seat"]))
        return plan_action(world, strategy.plan(world))


def _strategy_bot(name: str) -> type[StrategyBot]:
    class Bot(StrategyBot):
        def __init__(self, seed: int | None = None) -> None:
            super().__init__(name, seed)
    Bot.__name__ = Bot.__qualname__ = f"{CLASSES[name].__name__}Bot"
    return Bot


GreedyTreasureBot = _strategy_bot("GT")
BestTreasureBot = _strategy_bot("BT")
GreedyCaptureBot = _strategy_bot("GC")
HybridCaptureBot = _strategy_bot("HC")
DefensiveTreasureBot = _strategy_bot("DT")
DefensiveCaptureBot = _strategy_bot("DC")


CLOCK_SHARE = 0.1
"""Of the time a request leaves (its ``deadline_ms``), what the lookahead may spend."""


class AdaptiveBot(_PerMatch):
    """The adaptive agent (rules §11.3). ``table``: ``"tuned"`` (the shipped table of
    ``arena tune boundary``), ``"thesis"`` (§11.3 exactly), a path to a table file, or a
    :class:`Settings`. On a clock the lookahead stops after ``clock_share`` of the time the
    request leaves (and after ``time_budget_s`` if given); untimed it always completes, so
    the same games give the same plans."""

    def __init__(self, table: str | Path | Settings = "tuned", seed: int | None = None,
                 clock_share: float = CLOCK_SHARE, time_budget_s: float | None = None) -> None:
        super().__init__()
        if not 0 < clock_share <= 1:
            raise ValueError("clock_share must be in (0, 1]")
        if time_budget_s is not None and time_budget_s <= 0:
            raise ValueError("time_budget_s must be positive")
        self.settings = table if isinstance(table, Settings) else load_settings(table)
        self.seed = 0 if seed is None else seed
        self.clock_share = clock_share
        self.time_budget_s = time_budget_s

    def budget_s(self, request: Mapping[str, Any]) -> float | None:
        """Seconds the lookahead may spend on this request (``None``: no limit)."""
        limits = [] if self.time_budget_s is None else [self.time_budget_s]
        left = request.get("deadline_ms")
        if isinstance(left, int | float):
            limits.append(self.clock_share * left / 1000)
        return min(limits) if limits else None

    def choose(self, request: Mapping[str, Any]) -> dict[str, Any]:
        began = time.perf_counter()
        seat = int(request["seat"])
        player: AdaptivePlayer = self.memory(request, lambda s: AdaptivePlayer(
            s, self.settings, Rng(self.seed).fork(f"{request.get('match_id')}/{s}")))
        world = World.from_view(request["view"], seat)
        budget = self.budget_s(request)
        deadline = None if budget is None else began + budget
        return plan_action(world, player.plan(request["view"], deadline))
