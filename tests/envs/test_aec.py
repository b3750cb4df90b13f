"""Every registered game as a PettingZoo AEC env (engine/envs/aec.py): PettingZoo's own
api_test and seed_test, a game registered later, replays, rewards, illegal actions and the
parallel form of a simultaneous game."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test

from engine import registry
from engine.chexers import Chexers
from engine.envs import ActionNotAllowed, AECGameEnv, parallel_env, rank_rewards
from engine.envs.actions import LegalListIndex
from engine.envs.encoding import HashedViewEncoder
from engine.match import Match, replay
from tests.envs.helpers import quick_options, random_walk

GAMES = registry.names()

# api_test warns about dict observations: its own classic games (chess, go) have them too.
pytestmark = [pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
              pytest.mark.filterwarnings("ignore:Observation space for each agent probably")]


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_api_test(name: str) -> None:
    api_test(AECGameEnv(name, options=quick_options(name)), num_cycles=1000)


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_seed_test(name: str) -> None:
    seed_test(lambda: AECGameEnv(name, options=quick_options(name)), num_cycles=200)


def test_a_game_registered_later_gets_the_generic_layouts() -> None:
    """A game with no catalog and no encoder of its own still passes api_test: index by
    position in the legal list, hashed view features."""
    renamed = Chexers()
    renamed.info = dataclasses.replace(Chexers.info, name="chexers-newcomer")
    registry.register(renamed)
    try:
        env = AECGameEnv("chexers-newcomer")
        assert isinstance(env.episode.codec, LegalListIndex)
        assert isinstance(env.episode.encoder, HashedViewEncoder)
        api_test(env, num_cycles=300)
    finally:
        registry.unregister("chexers-newcomer")


@pytest.mark.parametrize("name", GAMES)
def test_an_episode_is_the_server_match_of_its_seed(name: str) -> None:
    """reset(seed=s) deals what Match(seed=s) deals; the episode's record replays, in the
    engine, to the outcome the env reported."""
    env = AECGameEnv(name, options=quick_options(name))
    random_walk(env, seed=5)
    record = env.episode.match.record()
    assert record["seed"] == 5
    *_, (final, _) = replay(env.episode.game, record)
    assert env.episode.game.outcome(final) == env.episode.outcome

    fresh = Match(env.episode.game, env.episode.num_seats, env.episode.options, seed=5)
    fresh.advance()
    env.reset(seed=5)
    assert fresh.state == env.episode.match.state


@pytest.mark.parametrize("name", GAMES)
def test_rewards_are_the_outcome_ranks(name: str) -> None:
    env = AECGameEnv(name, options=quick_options(name))
    env.reset(seed=11)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        totals[agent] += reward
        if termination:
            assert info["outcome"] == env.episode.outcome.to_json()  # type: ignore[union-attr]
            env.step(None)
        else:
            assert reward == 0 and info == {}
            env.step(env.action_space(agent).sample(observation.get("action_mask")))
    ranks = env.episode.outcome.ranks  # type: ignore[union-attr]
    assert list(totals.values()) == list(rank_rewards(ranks))


def test_rank_rewards() -> None:
    assert rank_rewards((0, 1)) == (1.0, -1.0)
    assert rank_rewards((0, 0)) == (0.0, 0.0)
    assert rank_rewards((1, 0, 1)) == (-0.5, 1.0, -0.5)
    assert rank_rewards((2, 0, 1)) == (-1.0, 1.0, 0.0)


def test_an_action_outside_the_mask_raises_and_changes_nothing() -> None:
    env = AECGameEnv("battleline")
    env.reset(seed=3)
    observation = env.observe(env.agent_selection)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    before = env.episode.match.state
    with pytest.raises(ActionNotAllowed, match="not legal"):
        env.step(illegal)
    with pytest.raises(ActionNotAllowed, match="outside"):
        env.step(10**6)
    assert env.episode.match.state is before and env.agent_selection == "seat_0"


def test_an_action_outside_the_mask_can_lose_the_game_instead() -> None:
    env = AECGameEnv("chexers", on_illegal="lose")
    env.reset(seed=3)
    mask = env.observe("seat_0")["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards == {"seat_0": -1.0, "seat_1": 0.5, "seat_2": 0.5}
    assert env.infos["seat_1"]["outcome"]["reason"] == "illegal_action"


def test_a_simultaneous_game_commits_each_seat_hidden_then_applies_both() -> None:
    env = AECGameEnv("boundary", options=quick_options("boundary"))
    env.reset(seed=2)
    assert env.agent_selection == "seat_0"
    before = env.episode.match.state
    env.step(np.full(env.action_space("seat_0").shape, 0.5, np.float32))
    # Seat 0's plan is held by the match: seat 1 still plans against the same position.
    assert env.agent_selection == "seat_1" and env.episode.match.state is before
    assert env.episode.match.committed() == (0,)
    env.step(np.zeros(env.action_space("seat_1").shape, np.float32))
    assert env.agent_selection == "seat_0" and env.episode.match.state["turn"] == 1
    plans = env.episode.match.log[-1]
    assert plans["0"]["moves"] and plans["1"]["moves"] == {}


def test_parallel_env_of_a_simultaneous_game() -> None:
    parallel_api_test(parallel_env("boundary", options=quick_options("boundary")),
                      num_cycles=100)
    with pytest.raises(ValueError, match="turn-based"):
        parallel_env("battleline")


def test_render_shows_the_position_in_the_game_notation() -> None:
    env = AECGameEnv("chexers", render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == "gggg/5/6/r5b/r4b/r3b/r2b r 0,0,0 0"
    assert AECGameEnv("chexers").render() is None
