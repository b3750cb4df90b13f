"""The fast core checks only the pieces and treasures that could be captured
(:meth:`Board.candidates`); a board that checks every living piece and treasure at every
tick must play exactly the same games (events, ticks, scores)."""

from __future__ import annotations

from typing import Any

import pytest

from bots.boundary.strategies import make
from bots.boundary.world import World
from engine.boundary import GAME, Board, board_of
from engine.core import CHANCE
from engine.match import random_policy
from engine.rng import Rng


class CheckEverything(Board):
    def candidates(self) -> tuple[list[int], list[int]]:
        return self.living(), self.treasures_left()


def unpruned(board: Board) -> CheckEverything:
    return CheckEverything(board.params, list(board.pos), list(board.prev), list(board.blobs),
                           list(board.treasures), list(board.taken), list(board.scores),
                           board.turn, board.result, list(board.lost))


def play_both(layout: int, planners: Any, turns: int) -> int:
    state = GAME.apply(GAME.initial_state(2, GAME.normalize_options({})),
                       {CHANCE: layout}).state
    fast, slow = board_of(state), unpruned(board_of(state))
    captures = 0
    for _ in range(turns):
        if fast.over:
            break
        plans: dict[int, tuple[int, int]] = {}
        for team in (0, 1):
            plans.update(planners[team](fast, team))
        a, b = fast.resolve(plans), slow.resolve(plans)
        assert a == b, (layout, fast.turn)
        assert (fast.pos, fast.blobs, fast.scores, fast.taken, fast.result) == (
            slow.pos, slow.blobs, slow.scores, slow.taken, slow.result)
        captures += sum(1 for e in a[1] if e["kind"] == "piece_captured")
    return captures


def strategy(name: str) -> Any:
    memory = {0: make(name), 1: make(name)}

    def plan(board: Board, team: int) -> dict[int, tuple[int, int]]:
        return memory[team].plan(World.from_board(board, team))
    return plan


def random_planner(seed: int) -> Any:
    policy = random_policy(Rng(seed))

    def plan(board: Board, team: int) -> dict[int, tuple[int, int]]:
        from engine.boundary.game import state_of
        state = state_of(board, 0, None)
        action = policy({}, GAME.action_space(state, team) or {}, team)
        return {int(p): (xy[0], xy[1]) for p, xy in action["moves"].items()}
    return plan


@pytest.mark.parametrize("layout, names", [(3, ("GC", "GT")), (8, ("DC", "HC")),
                                           (11, ("DT", "GC"))])
def test_pruned_checks_play_the_same_games_as_checking_everything(layout: int,
                                                                 names: tuple[str, str]) -> None:
    captures = play_both(layout, (strategy(names[0]), strategy(names[1])), turns=12)
    assert captures > 0   # the games reach the fights the pruning must not change


def test_pruned_checks_match_in_random_play() -> None:
    play_both(5, (random_planner(1), random_planner(2)), turns=6)
