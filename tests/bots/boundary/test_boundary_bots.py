"""Boundary's bots (bots/boundary): the shared vocabulary of rules §11.1, the six strategies'
plans always legal, the adaptive agent's classifier recognising each strategy exactly (its
shadow reproduces the plan), the thesis's turn rules, and the lookahead's clock budget."""

from __future__ import annotations

from typing import Any

import pytest

from bots.boundary.adaptive import AdaptivePlayer, Settings
from bots.boundary.agents import AdaptiveBot, StrategyBot
from bots.boundary.strategies import NAMES
from bots.boundary.world import PlanBuilder, World, d2, scaled, step
from engine import spaces
from engine.boundary import GAME, Board
from engine.core import CHANCE
from engine.match import request_fields
from engine.rng import Rng


def start(layout: int) -> dict[str, Any]:
    return GAME.apply(GAME.initial_state(2, GAME.normalize_options(None)),
                      {CHANCE: layout}).state


def request(state: dict[str, Any], seat: int, match_id: str = "m",
            deadline_ms: int | None = None) -> dict[str, Any]:
    return {"type": "request", "match_id": match_id, "request_id": "r", "seat": seat,
            "view": GAME.view(state, seat), **request_fields(GAME, state, seat),
            "clock_ms": None, "deadline_ms": deadline_ms}


def test_step_never_goes_farther_than_its_radius() -> None:
    rng = Rng(11)
    for _ in range(2000):
        a = (rng.below(800), rng.below(800))
        b = (rng.below(800), rng.below(800))
        r = 1 + rng.below(280)
        p = step(a, b, r)
        assert d2(a, p) <= r * r
        if d2(a, b) <= r * r:
            assert p == b
        else:   # truncation loses under two pixels per axis
            assert d2(a, p) >= max(0, r - 2) ** 2
    assert scaled((3, 4), 10) == (5, 7)   # ⌊10·3·256/1281⌋, ⌊10·4·256/1281⌋: never longer


def test_flank_spreads_a_blob_across_the_line_of_approach() -> None:
    state = start(1)
    world = World.from_view(GAME.view(state, 0), 0)
    world.blobs = [(0, 1, 2)] + [b for b in world.blobs if b[0] > 2]
    for p, xy in zip((0, 1, 2), ((300, 300), (310, 300), (305, 310)), strict=True):
        world.pos[p] = xy
    builder = PlanBuilder(world)
    builder.flank((0, 1, 2), (305, 200))   # approach straight up: spread sideways
    # Centroid (305, 303), u = (0, −103), q = (103, 0): the first member aims +o across,
    # the second −o (o = 10, truncated to 9 like step), the third straight at the aim.
    assert [builder.plan[p] for p in (0, 1, 2)] == [(314, 200), (296, 200), (305, 200)]


@pytest.mark.parametrize("names", [("GT", "GC"), ("BT", "DC"), ("HC", "DT"), ("DC", "GC")])
def test_every_plan_of_a_whole_game_is_in_the_action_space_and_legal(
        names: tuple[str, str]) -> None:
    state = start(7)
    bots = [StrategyBot(names[0]), StrategyBot(names[1])]
    turns = 0
    while GAME.decision(state).seats:
        joint = {}
        for seat in (0, 1):
            req = request(state, seat)
            action = bots[seat].choose(req)
            assert spaces.contains(req["action_space"], action), (names, seat, action)
            joint[seat] = GAME.check_action(state, seat, action)
        state = GAME.apply(state, joint).state
        turns += 1
    assert GAME.outcome(state) is not None and turns <= 100


@pytest.mark.parametrize("opponent", NAMES)
def test_the_shadow_of_the_true_strategy_predicts_its_plan_exactly(opponent: str) -> None:
    # The agent as seat 0 (its own choices made with no lookahead, for speed); the basic
    # strategy as seat 1. Each turn the agent's error for the true strategy is 0.
    state = start(3)
    player = AdaptivePlayer(0, Settings(lookahead=0), Rng(1))
    basic = StrategyBot(opponent)
    exact = 0
    for turn in range(6):
        if not GAME.decision(state).seats:
            break
        mine = player.plan(GAME.view(state, 0))
        if turn >= 1:
            assert player.errors[opponent] == 0, (turn, player.errors)
            exact += 1
        theirs = basic.choose(request(state, 1))
        moves = {str(p): [x, y] for p, (x, y) in mine.items()}
        state = GAME.apply(state, {0: {"turn": turn, "moves": moves}, 1: theirs}).state
    assert exact >= 3


def test_the_thesis_turn_rules_and_table() -> None:
    settings = Settings.thesis()
    player = AdaptivePlayer(0, settings, Rng(5))
    world = World.from_view(GAME.view(start(2), 0), 0)
    first = {player.choose(world)[0] for _ in range(40)}
    assert len(first) > 2          # turn 0: a random basic strategy
    world.turn = 1
    for guess, played in (("GT", "GC"), ("BT", "GC"), ("DT", "HC"), ("DC", "HC")):
        player.guess = guess
        assert player.choose(world) == (played, guess)
    world.turn = 2
    for guess, played in (("GC", "DT"), ("HC", "DT"), ("GT", "BT"), ("DC", "BT")):
        player.guess = guess
        assert player.choose(world) == (played, guess)
    world.turn = 3
    for guess in NAMES:
        player.guess = guess
        assert player.choose(world) == (settings.table[guess], guess)
    # Late game: the gap exceeds the treasure left.
    world.scores = (world.treasure_value_left() + 31, 0)
    assert player.choose(world) == ("DT", "GC")
    world.scores = (0, world.treasure_value_left() + 1)
    assert player.choose(world) == ("GC", "DT")


def test_the_lookahead_stops_at_its_deadline_and_plays_the_tables_choice(
        monkeypatch: pytest.MonkeyPatch) -> None:
    bot = AdaptiveBot()
    assert bot.budget_s({"deadline_ms": 30_000}) == pytest.approx(3.0)
    assert bot.budget_s({"deadline_ms": None}) is None
    assert AdaptiveBot(time_budget_s=0.5).budget_s({"deadline_ms": 30_000}) == 0.5
    state = start(4)
    for _ in range(2):   # two turns so that the agent has a guess
        joint = {0: bot.choose(request(state, 0, deadline_ms=0)),
                 1: StrategyBot("GC").choose(request(state, 1))}
        state = GAME.apply(state, joint).state
    calls: list[int] = []
    original = Board.resolve

    def counting(self: Board, plans: Any) -> Any:
        calls.append(1)
        return original(self, plans)

    monkeypatch.setattr(Board, "resolve", counting)
    bot.choose(request(state, 0, deadline_ms=0))   # no time: nothing simulated
    assert calls == []
    bot.choose(request(state, 0))                  # untimed: every distinct plan simulated
    assert len(calls) > 2
