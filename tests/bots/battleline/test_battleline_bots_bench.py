"""The duplicate-pair strength bench (tools/bench/strength.py) and legality over many games.

The 10,000-game legality run is a bench command (see bots/battleline/README.md); here a
200-game sample keeps the suite fast.
"""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

import pytest

from bots.battleline.deep_barca import DeepBarca
from bots.battleline.greedy import GreedyBot
from bots.random_bot import RandomBot
from engine.battleline import GAME
from engine.core import CHANCE
from server.render import render_for
from tools.bench.strength import (
    DuplicateStats,
    FixedOrder,
    GameResult,
    PairTask,
    pair_tasks,
    play_game,
    play_pair,
    request_for,
)
from tools.cli import main

MAKERS = {"deep-barca": lambda seed: DeepBarca(seed),
          "greedy": lambda seed: GreedyBot(seed),
          "random": lambda seed: RandomBot(seed)}


def make_bot(spec: str, seed: int) -> Any:
    return MAKERS[spec](seed)


class Live:
    """The fields of a live match that ``render_for(..., "request")`` reads."""

    def __init__(self, state: Any) -> None:
        self.match_id = "m1"
        self.game = GAME
        self.state = state

    def legal_actions(self, seat: int) -> list[Any]:
        return GAME.legal_actions(self.state, seat)


def dealt(seed: int) -> Any:
    order = FixedOrder(seed)
    state = GAME.initial_state(2, {})
    while GAME.decision(state).chance:
        state = GAME.apply(state, {CHANCE: order.pick(GAME, state)}).state
    return state


def test_bots_get_exactly_the_request_the_server_sends() -> None:
    state = dealt(3)
    for seat in (0, 1):
        mine = request_for(GAME, state, seat, match_id="m1", request_id="r7")
        server = render_for(Live(state), seat, "request",  # type: ignore[arg-type]
                            request_id="r7", clocks_ms=None)
        assert mine == server
        assert mine["view"]["hand"] == state["hands"][seat]


def test_fixed_order_deals_the_same_cards_whoever_plays() -> None:
    assert dealt(11)["hands"] == dealt(11)["hands"]
    assert dealt(11)["hands"] != dealt(12)["hands"]
    # Both games of a pair: same hands, and the troop cards come off the deck in one order.
    draws: list[list[str]] = []
    task = PairTask("battleline", ("random", "greedy"), 0, 99, None)
    _, results = play_pair(task, make_bot)
    assert all(r.illegal == [0, 0] for r in results)
    for seating in (("random", "greedy"), ("greedy", "random")):
        order = FixedOrder(99)
        state = GAME.initial_state(2, {})
        players = [make_bot(s, 0) for s in seating]
        troop: list[str] = []
        while not GAME.decision(state).terminal:
            decision = GAME.decision(state)
            if decision.chance:
                card = order.pick(GAME, state)
                if state["phase"] == "deal" or state["pending"] == "troop":
                    troop.append(card)
                state = GAME.apply(state, {CHANCE: card}).state
                continue
            seat = decision.seats[0]
            action = players[seat].choose(request_for(GAME, state, seat))
            state = GAME.apply(state, {seat: action}).state
        draws.append(troop)
    shared = min(len(d) for d in draws)
    assert shared > 20 and draws[0][:shared] == draws[1][:shared]


def test_duplicate_stats_count_from_the_first_agents_side() -> None:
    stats = DuplicateStats(("a", "b"))
    task = PairTask("battleline", ("a", "b"), 0, 1, None)
    won = GameResult((0, 1), "five_flags", 10, [0, 0], [[0.001], [0.002]], [[0.001], [0.002]])
    lost_seat1 = GameResult((0, 1), "breakthrough", 12, [0, 0], [[0.001], [0.002]],
                            [[0.001], [0.002]])
    drawn = GameResult((0, 0), "stalemate", 9, [0, 0], [[0.001], [0.001]], [[0.0], [0.0]])
    stats.add(task, [won, lost_seat1])   # a wins as seat 0, loses as seat 1: a split
    stats.add(task, [won, won])          # seat 0 wins both: a split again
    stats.add(task, [drawn, GameResult((1, 0), "five_flags", 9, [0, 0], [[0.0], [0.0]],
                                       [[0.0], [0.0]])])   # a draw, then a win as seat 1
    data = stats.to_json()
    assert (data["wins"], data["draws"], data["losses"]) == (3, 1, 2)
    assert data["games"] == 6 and data["pairs"] == 3
    assert data["score"] == pytest.approx(3.5 / 6)
    assert data["pairs_split"] == 3 and data["pairs_won_both"] == 0
    lo, hi = data["win_ci95"]
    assert lo < 0.5 < hi
    assert data["decision_ms"]["a"]["n"] == 6


@pytest.mark.slow
def test_no_illegal_action_in_200_games() -> None:
    """100 duplicate pairs: Deep Barca v random, Deep Barca v greedy, greedy v random."""
    counts = {("deep-barca", "random"): 10, ("deep-barca", "greedy"): 10,
              ("greedy", "random"): 80}
    games = 0
    for agents, pairs in counts.items():
        stats = DuplicateStats(agents)
        for task in pair_tasks(GAME, agents, 2 * pairs, seed=2024):
            _, results = play_pair(task, make_bot)
            for result in results:
                assert result.illegal == [0, 0]
                assert result.reason in ("five_flags", "breakthrough", "stalemate")
            stats.add(task, results)
            games += 2
        data = stats.to_json()
        assert data["illegal_actions"] == {agents[0]: 0, agents[1]: 0}
        if agents[1] == "random":
            assert data["score"] > 0.8, (agents, data["score"])  # far above chance
    assert games == 200


def test_an_illegal_action_forfeits_the_game() -> None:
    class Cheat:
        def choose(self, request: dict[str, Any]) -> Any:
            return {"type": "play", "card": "10r", "flag": 1}  # rarely in hand; never twice

    result = play_game(GAME, [Cheat(), RandomBot(1)], seed=5)
    assert result.reason == "forfeit"
    assert result.illegal[0] == 1 and result.ranks == (1, 0)


def run_cli(*argv: str) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(list(argv)) == 0
    return json.loads(out.getvalue())


def test_arena_bench_strength_plays_duplicate_pairs() -> None:
    data = run_cli("bench", "strength", "battleline", "deep-barca", "greedy", "-n", "4",
                   "--json")
    result = data["result"]
    assert result["agents"] == ["deep-barca", "greedy"]
    assert result["games"] == 4 and result["pairs"] == 2
    assert result["wins"] + result["draws"] + result["losses"] == 4
    assert result["illegal_actions"] == {"deep-barca": 0, "greedy": 0}


def test_arena_bench_bot_knows_deep_barcas_game() -> None:
    data = run_cli("bench", "bot", "deep-barca", "-n", "1", "--json")
    assert data["game"] == "battleline"
    row = data["results"][0]
    assert row["agent"] == "deep-barca" and row["decisions"] > 20
