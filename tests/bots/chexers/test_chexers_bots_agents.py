"""The agents as bots: rules §10 cases C17-C22, answers from real requests, the registry,
determinism under a seed, time budgets and the two-player reduction."""

from __future__ import annotations

from typing import Any

import pytest

from bots import registry as bots
from bots.chexers import (
    AGENTS,
    Evaluator,
    GreedyBot,
    MaxnBot,
    MPMixBot,
    OffensiveBot,
    ParanoidBot,
    RandomMaxnBot,
    Search,
    mpmix_strategy,
    sum_utility,
)
from engine.chexers import GAME, START_CXN, Position
from engine.match import Match

START = Position.start


def text(act: Any) -> str:
    return str(act)


# ---- rules §10, C17-C22 -------------------------------------------------------------------


def test_c17_utility_is_48_for_every_colour_at_the_start() -> None:
    pos = START()
    assert [sum_utility(pos, c) for c in range(3)] == [48, 48, 48]
    ev = Evaluator.for_position(pos)
    assert ev.vector(pos) == [48, 48, 48]
    assert (ev.material, ev.maxsum, ev.draw) == (12, 260, 10)


def test_c18_greedy_first_action() -> None:
    bot = GreedyBot()
    assert text(bot.decide(START())) == "MOVE -3,0 -2,-1"
    assert bot.last is not None and bot.last.value == (49, 48, 48)


def test_c19_maxn_depth_3_value_and_action() -> None:
    for prune in (True, False):
        bot = MaxnBot(prune=prune)
        assert text(bot.decide(START())) == "MOVE -3,0 -2,-1"
        assert bot.last is not None and bot.last.value == (49, 49, 49)
        assert bot.last.depth == 3


def test_c20_paranoid_depth_4_value_and_action() -> None:
    bot = ParanoidBot()
    assert text(bot.decide(START())) == "MOVE -3,0 -2,0"
    assert bot.last is not None and (bot.last.value, bot.last.depth) == (51, 4)


def test_c21_mpmix_selection() -> None:
    assert mpmix_strategy([48, 48, 48], 0, 40, 40) == ("maxn", None)
    assert mpmix_strategy([90, 40, 40], 0, 40, 40) == ("paranoid", None)
    assert mpmix_strategy([40, 90, 40], 0, 40, 40) == ("offensive", 1)
    assert mpmix_strategy([40, 90, 45], 0, 40, 60) == ("maxn", None)
    # Ties for the lead go to the root, then to the earliest colour after it.
    assert mpmix_strategy([90, 90, 0], 1, 0, 0) == ("paranoid", None)
    assert mpmix_strategy([90, 10, 90], 1, 0, 0) == ("offensive", 2)
    assert mpmix_strategy([90, 10, 90], 1, 0, 100) == ("maxn", None)
    # §9.7's agent exactly (maxⁿ depth 3, first-child ties, the plain maxⁿ in a duel): maxⁿ's
    # C19 answer.
    bot = MPMixBot(depth=3, cautious=False, two_player=False, zero_sum=False)
    assert bot.strategy(START()) == ("maxn", None)
    assert text(bot.decide(START())) == "MOVE -3,0 -2,-1"
    assert bot.last is not None and (bot.last.mode, bot.last.value) == ("maxn", (49, 49, 49))
    # The default (depth 4, cautious ties) selects the same way and runs that maxⁿ.
    default = MPMixBot()
    assert (default.depth, default.offensive_depth, default.paranoid_depth) == (4, 4, 4)
    assert default.cautious and (default.t_d, default.t_o) == (40, 40)
    assert default.two_player and default.zero_sum
    assert default.strategy(START()) == ("maxn", None)
    expected = Search(START(), cautious=True).maxn(4)
    assert default.decide(START()) == expected.action
    assert default.last is not None and (default.last.mode, default.last.depth,
                                         default.last.value) == ("maxn", 4, expected.value)


def test_mpmix_runs_the_search_its_strategy_names() -> None:
    # Red far ahead (two exits): paranoid; Green far ahead: offensive against Green.
    red_leads = Position.from_cxn("gg2/5/3r1r/3r1rb/5b/5/4 r 2,0,0 30")    # H 106, 24, 24
    green_leads = Position.from_cxn("rr2/5/6/3g3/4g1/g4/gb2 r 0,2,0 30")   # H 31, 106, 14
    bot = MPMixBot()
    bot.decide(red_leads)
    assert bot.last is not None and bot.last.mode == "paranoid" and bot.last.depth == 4
    assert bot.last.action == Search(red_leads).paranoid(4).action
    bot.decide(green_leads)
    assert bot.last is not None and (bot.last.mode, bot.last.target) == ("offensive", 1)
    assert bot.last.action == Search(green_leads, cautious=True).offensive(4, 1).action
    classic = MPMixBot(depth=3, cautious=False, two_player=False, zero_sum=False)
    classic.decide(green_leads)
    assert classic.last is not None and classic.last.depth == 3
    assert classic.last.action == Search(green_leads).offensive(3, 1).action


def test_c22_offensive_against_green() -> None:
    bot = OffensiveBot(target=1)
    assert text(bot.decide(START())) == "MOVE -3,0 -2,-1"
    assert bot.last is not None and bot.last.target == 1


def test_offensive_attacks_the_strongest_opponent_by_default() -> None:
    pos = Position.from_cxn("gggg/5/6/r5b/r4b/r4/r3 r 0,0,2 30")
    bot = OffensiveBot()
    bot.decide(pos)
    assert bot.last is not None and bot.last.target == 2


# ---- bots answer requests -----------------------------------------------------------------


def request_for(match: Match, seat: int, clock_ms: int | None = None) -> dict[str, Any]:
    return {"view": match.view(seat), "legal_actions": match.legal_actions(seat),
            "seat": seat, "clock_ms": clock_ms, "request_id": "r", "match_id": "m"}


def play(players: list[Any], turns: int, seed: int = 0) -> Match:
    """Up to ``turns`` turns of a match where each seat's bot answers real requests."""
    match = Match(GAME, 3, seed=seed)
    match.advance()
    for _ in range(turns):
        if match.is_over:
            break
        (seat,) = match.awaiting()
        action = players[seat].choose(request_for(match, seat))
        assert action in match.legal_actions(seat)
        match.submit(seat, action)
    return match


@pytest.mark.parametrize("name", sorted(AGENTS) + ["random"])
def test_every_agent_is_deterministic_under_a_seed(name: str) -> None:
    """Same seeds, same requests → same actions (30 turns against two random seats)."""
    def lineup(seed: int) -> list[Any]:
        return [bots.create(name, seed=seed), bots.create("random", seed=seed + 1),
                bots.create("random", seed=seed + 2)]
    first = play(lineup(5), 30).log
    assert play(lineup(5), 30).log == first
    assert len(first) == 30 or play(lineup(5), 30).is_over


def test_random_maxn_draws_among_ties_with_its_seed() -> None:
    # At the start all eight actions tie for Red at depth 3: the seed decides.
    picks = {text(RandomMaxnBot(seed=s).decide(START())) for s in range(12)}
    assert len(picks) > 2
    assert picks <= {text(a) for a in START().legal_actions()}
    bot = RandomMaxnBot(seed=3)
    bot.decide(START())
    assert bot.last is not None and bot.last.value == (49, 49, 49)


def test_choose_reads_the_view_with_its_history() -> None:
    """Mid-game request: the bot's answer is the search's answer on the exact position."""
    match = play([bots.create("random", seed=s) for s in (1, 2, 3)], 40, seed=9)
    assert not match.is_over
    (seat,) = match.awaiting()
    request = request_for(match, seat)
    pos = Position.from_view(request["view"])
    assert pos.to_notation() == GAME.to_notation(match.state)
    for name, cls in AGENTS.items():
        action = cls().choose(request)
        assert action in request["legal_actions"], name
    assert ParanoidBot().choose(request) == Search(pos).paranoid(4).action.to_json()


def test_forced_pass_is_answered_without_search() -> None:
    pos = Position.from_cxn("4/5/6/3rb2/6/5/4 g 0,0,0 1")  # rules C8: Green knocked out
    bot = MaxnBot()
    assert text(bot.decide(pos)) == "PASS" and bot.last is not None
    assert bot.last.mode == "forced"
    request = {"view": GAME.view(GAME.from_notation(pos.to_cxn()), 1),
               "legal_actions": [{"type": "PASS"}], "clock_ms": 10}
    assert bot.choose(request) == {"type": "PASS"}


def test_registry_names_make_the_agents() -> None:
    for name, cls in AGENTS.items():
        assert name in bots.names()
        assert type(bots.create(name, seed=1)) is cls
    assert set(AGENTS) == {"greedy", "maxn", "random-maxn", "paranoid", "offensive", "mp-mix"}


# ---- time -----------------------------------------------------------------------------------


def test_budget_from_options_and_clock() -> None:
    assert MaxnBot().budget_s(None) is None
    assert MaxnBot().budget_s(30_000) == pytest.approx(1.0)
    assert MaxnBot(time_ms=200).budget_s(30_000) == pytest.approx(0.2)
    assert MaxnBot(time_ms=200).budget_s(None) == pytest.approx(0.2)
    floor = MaxnBot(time_ms=0).budget_s(None)
    assert floor is not None and floor > 0  # a floor: always time for depth 1


def test_iterative_deepening_with_ample_time_gives_the_fixed_depth_answer() -> None:
    pos = Position.from_cxn("1g1g/g2g1/r5/5bb/r4b/rr2b/4 g 0,0,0 7")
    for cls in (MaxnBot, ParanoidBot, MPMixBot):
        fixed, timed = cls(), cls()
        a = fixed.decide(pos)
        b = timed.decide(pos, budget_s=600.0)
        assert a == b and timed.last is not None and timed.last.depth == fixed.depth


def test_a_tiny_budget_still_answers_from_a_complete_shallower_search() -> None:
    pos = Position.from_cxn("1g1g/g2g1/r5/5bb/r4b/rr2b/4 g 0,0,0 7")
    bot = ParanoidBot(depth=12, time_ms=1)
    act = bot.decide(pos, budget_s=bot.budget_s(None))
    assert bot.last is not None and 1 <= bot.last.depth < 12
    assert act == Search(pos).paranoid(bot.last.depth).action
    assert pos.to_cxn() == "1g1g/g2g1/r5/5bb/r4b/rr2b/4 g 0,0,0 7" and pos.count() == 1


def test_a_node_budget_deepens_as_far_as_it_allows_and_the_same_everywhere() -> None:
    """``max_nodes``: iterative deepening that stops on node counts, not the clock, so the
    answer is a pure function of the position: the deepest complete search that fits."""
    pos = Position.from_cxn("1g1g/g2g1/r5/5bb/r4b/rr2b/4 g 0,0,0 7")
    ample = MaxnBot(depth=4, max_nodes=10**9)
    assert ample.decide(pos) == Search(pos).maxn(4).action
    assert ample.last is not None and ample.last.depth == 4
    full = ample.last.nodes
    for budget in (1, 50, full // 2):
        bots_ = [MaxnBot(depth=4, max_nodes=budget) for _ in range(2)]
        acts = [b.decide(pos) for b in bots_]
        decisions = [b.last for b in bots_]
        assert decisions[0] is not None and decisions[1] is not None
        assert acts[0] == acts[1] and decisions[0].depth == decisions[1].depth
        depth = decisions[0].depth
        assert 1 <= depth < 4
        assert acts[0] == Search(pos).maxn(depth).action
        # Depth 1 always completes; beyond it the budget holds over all iterations.
        assert depth == 1 or decisions[0].nodes <= budget
    assert pos.to_cxn() == "1g1g/g2g1/r5/5bb/r4b/rr2b/4 g 0,0,0 7" and pos.count() == 1


@pytest.mark.parametrize("options", [
    {"max_nodes": 0}, {"max_nodes": "many"}, {"max_nodes": 2.5}, {"max_nodes": True},
    {"cautious": "yes"}, {"cautious": 1}, {"offensive_depth": 0}, {"offensive_depth": "3"},
    {"paranoid_depth": -1}, {"random_ties": "no"},
])
def test_malformed_options_are_rejected(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        MPMixBot(**options)


def test_bench_agent_specs_parse_the_new_options() -> None:
    from tools.commands.bench_strength import make_bot, parse_agent

    assert parse_agent("mp-mix:depth=4:cautious=true:max_nodes=3000") == (
        "mp-mix", {"depth": 4, "cautious": True, "max_nodes": 3000})
    bot = make_bot("mp-mix:cautious=false:offensive_depth=3:random_ties=true", 1, "chexers")
    assert (bot.cautious, bot.offensive_depth, bot.random_ties) == (False, 3, True)
    with pytest.raises(ValueError):
        make_bot("mp-mix:cautious=maybe", 1, "chexers")


# ---- the two-player reduction ------------------------------------------------------------


def test_two_player_reduction_searches_the_duel_as_paranoid() -> None:
    pos = Position.from_cxn("gggg/5/6/r6/r5/r3b/r3 r 0,0,2 30")  # Blue has one piece
    duel = Position.from_cxn("gggg/5/6/r6/r5/r4/r3 r 0,0,3 30")  # Blue has no pieces left
    assert not MaxnBot(two_player=True).knocked_out_opponent(pos)
    bot = MaxnBot(two_player=True)
    bot.decide(duel)
    assert bot.last is not None and (bot.last.mode, bot.last.depth) == ("two_player", 5)
    assert bot.last.action == Search(duel).paranoid(5).action
    plain = MaxnBot()
    plain.decide(duel)
    assert plain.last is not None and plain.last.mode == "maxn"
    assert START_CXN == START().to_cxn()
