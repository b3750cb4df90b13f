"""The ``brs`` bot (bots/chexers/brs.py): its search equals plain best-reply (and paranoid)
minimax of its evaluation, it answers real requests legally and deterministically, it keeps
to its node budget, and it finds what a short search should: a winning exit, a free
conversion, and a threat that a one-turn search walks into."""

from __future__ import annotations

from typing import Any

import pytest
from chexers_reference import sample_positions
from test_chexers_bots_agents import play

from bots import registry as bots
from bots.chexers.brs import (
    WIN,
    BestReplySearch,
    BrsBot,
    RaceEvaluation,
    Weights,
    converting_jumps,
    finished_value,
)
from engine.chexers import DRAW, INDEX, PASS_ACT, Position
from tools.commands.bench_strength import make_bot
from tools.commands.run import DEFAULT_HOUSE_BOTS, game_groups

EV = RaceEvaluation(Weights())


def position(red: list[tuple[int, int]], green: list[tuple[int, int]],
             blue: list[tuple[int, int]], exits: tuple[int, int, int] = (0, 0, 0),
             turn: int = 30) -> Position:
    cells = [-1] * 37
    for colour, hexes in enumerate((red, green, blue)):
        for h in hexes:
            cells[INDEX[h]] = colour
    return Position(cells, list(exits), turn)


# ---- plain references -------------------------------------------------------------------------


def _children(pos: Position, root: int, paranoid: bool) -> list[list[Any]]:
    """The action sequences leading to the children of a node: one action per child at the
    root's turn (or at any turn when ``paranoid``); at an opponent's turn in best-reply
    search, each real move of either opponent with the other passing."""
    if paranoid or pos.turn % 3 == root:
        return [[act] for act in pos.legal_actions()]
    out = [[act, PASS_ACT] for act in pos.legal_actions() if act is not PASS_ACT]
    pos.apply(PASS_ACT)
    if pos.result is None:
        out += [[PASS_ACT, act] for act in pos.legal_actions() if act is not PASS_ACT]
    pos.undo()
    return out or [[PASS_ACT, PASS_ACT]]


def plain_value(pos: Position, depth: int, root: int, paranoid: bool, start: int) -> int:
    """Max/min of the root's value without pruning, table or ordering (``start``: the root
    position's turn, from which a win's distance counts)."""
    if pos.result is not None or depth == 0:
        return EV.root_value(pos, root, pos.turn - start)
    values = []
    for sequence in _children(pos, root, paranoid):
        played = 0
        for act in sequence:
            if pos.result is None:
                pos.apply(act)
                played += 1
        values.append(plain_value(pos, depth - 1, root, paranoid, start))
        for _ in range(played):
            pos.undo()
    return max(values) if pos.turn % 3 == root else min(values)


POSITIONS = sample_positions(6, seed=31, every=11)


@pytest.mark.parametrize("pos", POSITIONS, ids=lambda p: p.to_cxn())
def test_search_equals_plain_minimax_of_the_evaluation(pos: Position) -> None:
    before = pos.to_notation()
    root = pos.turn % 3
    for paranoid in (False, True):
        for depth in (1, 2, 3):
            search = BestReplySearch(pos, EV, paranoid=paranoid)
            act, value = search.search_root(depth)
            assert value == plain_value(pos, depth, root, paranoid, pos.turn), (paranoid, depth)
            start = pos.turn
            pos.apply(act)
            # The action is one of the best: its own subtree has the root's value.
            assert plain_value(pos, depth - 1, root, paranoid, start) == value
            pos.undo()
    assert pos.to_notation() == before and pos._stack == []


def test_the_evaluation_values_the_race_and_the_first_four_pieces() -> None:
    pos = Position.start()
    # Four pieces, each 6 hexes from its exits: 4 x 24 - 3 x 4 x 7 - 1 x 4 x 6.
    assert [EV.colour(pos, c) for c in range(3)] == [96 - 84 - 24] * 3
    assert EV.root_value(pos, 0) == 0
    # A fifth piece is worth less than a fourth; a missing one costs its race share too.
    five = position([(0, 0), (-3, 1), (-3, 2), (-3, 3), (-3, 0)], [], [])
    three = position([(0, 0), (-3, 1), (-3, 2)], [], [])
    four = position([(0, 0), (-3, 1), (-3, 2), (-3, 3)], [], [])
    gain = EV.colour(five, 0) - EV.colour(four, 0)
    loss = EV.colour(four, 0) - EV.colour(three, 0)
    assert 0 < gain < loss
    won = position([(3, 0)], [(0, 0)], [(0, 1)], exits=(3, 0, 0))
    won.apply(next(a for a in won.legal_actions() if str(a) == "EXIT 3,0"))
    assert won.result is not None and EV.root_value(won, 0) == WIN
    assert EV.root_value(won, 1) == -WIN


# ---- what it finds ------------------------------------------------------------------------------


def test_takes_the_winning_exit() -> None:
    pos = position([(3, -1), (0, 0)], [(1, -1), (2, -3)], [(0, 2), (-1, 1)], exits=(3, 1, 1))
    bot = BrsBot()
    assert str(bot.decide(pos)) == "EXIT 3,-1"
    assert bot.last is not None and bot.last.value == WIN - 1  # one turn away


def test_a_sooner_win_and_a_later_loss_are_worth_more() -> None:
    assert finished_value(0, 0, 1) > finished_value(0, 0, 5) > 0
    assert finished_value(1, 0, 1) < finished_value(1, 0, 5) < 0
    assert finished_value(DRAW, 0, 3) == 0


def test_takes_a_free_conversion() -> None:
    # Red at (0,0) can jump Green's (1,0) to (2,0); nothing can answer it.
    pos = position([(0, 0), (-3, 1), (-3, 2), (-3, 3)], [(1, 0), (0, -3), (-1, -2), (3, -3)],
                   [(0, 3), (1, 2), (-1, 3), (-2, 3)])
    assert str(BrsBot().decide(pos)) == "JUMP 0,0 2,0"


def test_sees_a_threat_a_one_turn_search_walks_into() -> None:
    # Green's (1,0) can jump Red's (0,0) to (-1,0); Red cannot jump back ((2,0) is taken).
    pos = position([(0, 0), (-3, 1), (-3, 2), (-3, 3)], [(1, 0), (2, 0), (1, -3), (2, -3)],
                   [(0, 3), (1, 2), (2, 1), (3, 0)])
    def red_pieces_at_risk() -> list[str]:
        return [str(a) for c in (1, 2) for a in converting_jumps(pos, c)
                if pos.cells[a.mid] == 0]

    shallow, _ = BestReplySearch(pos, EV).search_root(1)
    pos.apply(shallow)
    assert red_pieces_at_risk() == ["JUMP 1,0 -1,0"]  # one turn deep, it is left to be taken
    pos.undo()
    pos.apply(BrsBot().decide(pos))
    assert red_pieces_at_risk() == []


# ---- the bot --------------------------------------------------------------------------------


def test_answers_real_requests_legally_and_deterministically() -> None:
    def lineup() -> list[Any]:
        return [bots.create("brs", seed=1, max_nodes=150),
                bots.create("random", seed=2),
                bots.create("brs", seed=3, max_nodes=60, paranoid=True, quiesce=1)]
    first = play(lineup(), 45, seed=4)
    assert len(first.log) >= 45 or first.is_over
    assert play(lineup(), 45, seed=4).log == first.log


def test_a_whole_game_against_two_seed_agents_ends_legally() -> None:
    match = play([bots.create("brs", max_nodes=100), bots.create("greedy"),
                  bots.create("random", seed=5)], 1000, seed=6)
    assert match.is_over


def test_keeps_to_its_node_budget_and_deepens_with_it() -> None:
    pos = POSITIONS[2]
    depths = []
    for budget in (50, 400, 2000):
        bot = BrsBot(max_nodes=budget)
        act = bot.decide(pos)
        assert bot.last is not None and bot.last.nodes <= budget
        assert act in pos.legal_actions()
        depths.append(bot.last.depth)
        assert BrsBot(max_nodes=budget).decide(pos) is act  # the same answer every time
    assert depths == sorted(depths) and depths[0] < depths[-1]


def test_registry_bench_specs_and_house_bots() -> None:
    assert type(bots.create("brs")) is BrsBot
    assert BrsBot.games == ("chexers",)
    bot = make_bot("brs:max_nodes=300:mix=50:paranoid=true", 0, "chexers")
    assert (bot.max_nodes, bot.evaluation.weights.mix, bot.paranoid) == (300, 50, True)
    assert "brs" in DEFAULT_HOUSE_BOTS.split(",")
    assert game_groups("brs", ["battleline", "chexers", "barca"]) == [["chexers"]]


@pytest.mark.parametrize("options", [{"max_nodes": 0}, {"mix": 101}, {"core": -1},
                                     {"race": 1.5}, {"paranoid": "yes"}, {"quiesce": -1}])
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        BrsBot(**options)


def test_unknown_options_are_refused() -> None:
    with pytest.raises(TypeError):
        BrsBot(prune=False)
