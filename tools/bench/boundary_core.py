"""Boundary's engine timed (``arena bench engine --game boundary``).

* whole games between basic strategies through the engine contract — the JSON state, each
  seat's view (territory map included), the bots' plans, checked ``apply`` — as the server
  and ``arena bench strength`` play them, in games/s; the details give seconds per game and
  the ticks and turns those games resolve per second;
* the same pairings on the fast core alone (:class:`engine.boundary.Board`: plans from the
  strategies, ``resolve``), in ticks/s, with turns/s in the details;
* whole games of the adaptive agent (its two-turn lookahead simulates every candidate plan
  on the fast core) against Defensive Capture, in games/s;
* the full 400 × 400 territory map of a view, in maps/s.

The pairings rotate over GC–DT, DC–GT, HC–BT, GT–BT, GC–DC and DT–HC; each run replays the
same starts (layout numbers), so runs do identical work — except the adaptive agent's, where
one game outlasts a run's window: its runs go on to new starts (seats alternating), so the
median is over as many different games as runs.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from bots.boundary.agents import AdaptiveBot, StrategyBot
from bots.boundary.strategies import make
from bots.boundary.world import World
from engine import registry
from engine.boundary import Board, board_of, territory
from engine.core import CHANCE, State
from engine.match import request_fields
from tools.bench.measure import Operation, Workload

PAIRINGS = (("GC", "DT"), ("DC", "GT"), ("HC", "BT"), ("GT", "BT"), ("GC", "DC"), ("DT", "HC"))
SAMPLE = 12
"""Games played once up front for the details (seconds per game, ticks, turns)."""


def start(layout: int) -> State:
    game = registry.get("boundary")
    return game.apply(game.initial_state(2, game.normalize_options(None)),
                      {CHANCE: layout}).state


def contract_game(layout: int, bots: tuple[Any, Any]) -> tuple[int, int]:
    """One whole game through the engine contract; returns (turns, ticks)."""
    game = registry.get("boundary")
    state = start(layout)
    turns = ticks = 0
    while game.decision(state).seats:
        joint = {}
        for seat in (0, 1):
            request = {"type": "request", "match_id": f"bench-{layout}", "request_id": "0",
                       "seat": seat, "view": game.view(state, seat),
                       **request_fields(game, state, seat)}
            joint[seat] = bots[seat].choose(request)
        transition = game.apply(state, joint)
        state = transition.state
        turns += 1
        ticks += transition.events[0].data["ticks"]
    return turns, ticks


def core_game(layout: int, names: tuple[str, str]) -> tuple[int, int]:
    """One whole game on the fast core, the strategies planning from the board; (turns,
    ticks)."""
    board: Board = board_of(start(layout))
    strategies = [make(names[0]), make(names[1])]
    turns = ticks = 0
    while not board.over:
        plans: dict[int, tuple[int, int]] = {}
        for team in (0, 1):
            plans.update(strategies[team].plan(World.from_board(board, team)))
        played, _ = board.resolve(plans)
        turns += 1
        ticks += played
    return turns, ticks


def _pairing(k: int) -> tuple[str, str]:
    return PAIRINGS[k % len(PAIRINGS)]


def workloads(sample_games: int = SAMPLE) -> list[Workload]:
    """The workloads; ``sample_games`` are played first for the details."""
    sample = []
    for k in range(sample_games):
        a, b = _pairing(k)
        began = time.perf_counter()
        turns, ticks = contract_game(k, (StrategyBot(a), StrategyBot(b)))
        sample.append((time.perf_counter() - began, turns, ticks))
    seconds = [s for s, _, _ in sample]
    all_turns = sum(t for _, t, _ in sample)
    all_ticks = sum(t for _, _, t in sample)
    total = sum(seconds)
    contract_details = {
        "seconds per game (median of the sample)": round(statistics.median(seconds), 3),
        "seconds per game (max)": round(max(seconds), 3),
        "turns per game": round(all_turns / sample_games, 1),
        "ticks per turn": round(all_ticks / max(all_turns, 1), 1),
        "turns/s": round(all_turns / total, 1), "ticks/s": round(all_ticks / total),
        "sample": f"{sample_games} games, pairings "
                  f"{', '.join('–'.join(p) for p in PAIRINGS)}"}

    def contract() -> Operation:
        counter = iter(range(1 << 62))

        def one() -> int:
            k = next(counter)
            a, b = _pairing(k)
            contract_game(k % 1000, (StrategyBot(a), StrategyBot(b)))
            return 1
        return one

    core_turns = core_ticks = 0
    for k in range(max(1, sample_games // 2)):
        turns, ticks = core_game(k, _pairing(k))
        core_turns += turns
        core_ticks += ticks
    core_details = {"ticks per turn": round(core_ticks / max(core_turns, 1), 1)}

    def core() -> Operation:
        counter = iter(range(1 << 62))

        def one() -> int:
            k = next(counter)
            return core_game(k % 1000, _pairing(k))[1]
        return one

    adaptive_counter = iter(range(1 << 62))

    def adaptive() -> Operation:
        # Shared by the runs: one of these games outlasts a run's window, so each run goes
        # on to new starts and the median is over different games, not one game replayed.
        counter = adaptive_counter

        def one() -> int:
            k = next(counter)
            bots = (AdaptiveBot(), StrategyBot("DC"))
            contract_game(k % 1000, bots if k % 2 == 0 else (bots[1], bots[0]))
            return 1
        return one

    views = [start(k) for k in range(8)]

    def maps() -> Operation:
        counter = iter(range(1 << 62))

        def one() -> int:
            _fresh_territory(views[next(counter) % len(views)])
            return 1
        return one

    return [
        Workload("boundary: basic-strategy games, engine contract (views, plans, apply)",
                 "games/s", contract, contract_details),
        Workload("boundary: basic-strategy games, fast core (Board.resolve)", "ticks/s", core,
                 core_details),
        Workload("boundary: adaptive (2-turn lookahead) vs DC games, engine contract",
                 "games/s", adaptive),
        Workload("boundary: territory map of a view (400 × 400 cells)", "maps/s", maps),
    ]


def _fresh_territory(state: State) -> str:
    """The view's territory text, computed afresh (the view keeps a per-position cache)."""
    from engine.boundary.game import _territory
    _territory.cache_clear()
    return territory(state)
