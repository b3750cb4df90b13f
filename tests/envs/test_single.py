"""The single-agent Gymnasium env (engine/envs/single.py): Gymnasium's env checker for every
game, house bots as opponents, and a tabular learner that plays a few games through it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any, SupportsFloat

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from bots import registry as bots
from bots.random_bot import RandomBot
from engine import registry
from engine.envs import ActionNotAllowed, OpponentError, SingleSeatEnv, rank_rewards
from engine.match import replay
from tests.envs.helpers import quick_options

QUICK = quick_options("boundary")

# Without a gymnasium.make spec the checker cannot try other render modes; it says so.
pytestmark = pytest.mark.filterwarnings("ignore:.*Not able to test alternative render modes")


def fresh_random(seat: int, seed: int) -> RandomBot:
    return RandomBot(seed=seed)


@pytest.mark.parametrize("name", registry.names())
def test_gymnasium_env_checker(name: str) -> None:
    """With opponents made afresh at each reset, a seed replays an episode exactly (the
    checker steps twice from one seed and compares)."""
    check_env(SingleSeatEnv(name, fresh_random, seat=None, options=quick_options(name)))


@pytest.mark.parametrize(("name", "bot"), [("battleline", "deep-barca"), ("chexers", "greedy"),
                                           ("barca", "greedy"), ("boundary", "greedy")])
def test_a_game_against_a_house_bot_ends_with_the_engines_outcome(name: str, bot: str) -> None:
    env = SingleSeatEnv(name, bots.create(bot, game=name, seed=2), seat=None,
                        options=quick_options(name), on_illegal="raise")
    observation, info = env.reset(seed=8)
    seat = info["seat"]
    terminated, steps = False, 0
    reward: SupportsFloat = 0.0
    while not terminated:
        mask = observation.get("action_mask")
        assert mask is None or mask.any()  # the learner is only asked when it must act
        observation, reward, terminated, truncated, info = env.step(
            env.action_space.sample(mask))
        assert not truncated and info["seat"] == seat
        steps += 1
    *_, (final, _) = replay(env.episode.game, env.episode.match.record())
    outcome = env.episode.game.outcome(final)
    assert outcome is not None and info["outcome"] == outcome.to_json()
    assert reward == rank_rewards(outcome.ranks)[seat] and steps > 0


def test_the_seat_is_drawn_per_episode_and_fixed_by_the_seed() -> None:
    env = SingleSeatEnv("chexers", RandomBot(seed=0), seat=None)
    seats = {env.reset(seed=s)[1]["seat"] for s in range(12)}
    assert seats == {0, 1, 2}
    assert env.reset(seed=5)[1]["seat"] == env.reset(seed=5)[1]["seat"]


def test_a_shared_random_opponent_does_not_replay_but_a_factory_does() -> None:
    def first_plans(env: SingleSeatEnv) -> list[object]:
        plans = []
        for _ in range(2):
            env.reset(seed=4)
            env.step(np.zeros(env.action_space.shape, np.float32))
            plans.append(env.episode.match.log[-1]["1"])
        return plans

    shared = first_plans(SingleSeatEnv("boundary", RandomBot(seed=0), options=QUICK))
    assert shared[0] != shared[1]  # the bot's generator moved on between the episodes
    fresh = first_plans(SingleSeatEnv("boundary", fresh_random, options=QUICK))
    assert fresh[0] == fresh[1]


def test_opponents_by_seat() -> None:
    one, two = RandomBot(seed=1), RandomBot(seed=2)
    env = SingleSeatEnv("chexers", [one, two], seat=1)
    assert env.opponents == {0: one, 2: two}
    assert SingleSeatEnv("chexers", {0: one, 2: two}, seat=1).opponents == {0: one, 2: two}
    with pytest.raises(ValueError, match="seat"):
        SingleSeatEnv("chexers", {0: one}, seat=1)
    with pytest.raises(ValueError, match="fixed learner seat"):
        SingleSeatEnv("chexers", [one, two], seat=None)


def test_an_illegal_index_loses_by_default_or_raises() -> None:
    env = SingleSeatEnv("battleline", RandomBot(seed=0))
    observation, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["outcome"]["reason"]) == (-1.0, True, "illegal_action")
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(illegal)  # and the outcome stays as it was
    assert env.episode.outcome is not None and env.episode.outcome.reason == "illegal_action"
    strict = SingleSeatEnv("battleline", RandomBot(seed=0), on_illegal="raise")
    strict.reset(seed=1)
    with pytest.raises(ActionNotAllowed):
        strict.step(illegal)


class Garbage:
    def choose(self, request: Mapping[str, Any]) -> Any:
        return {"type": "fly"}


def test_an_opponent_answering_nonsense_is_reported_as_its_fault() -> None:
    env = SingleSeatEnv("barca", Garbage(), seat=1)
    with pytest.raises(OpponentError, match="seat 0"):
        env.reset(seed=0)


class TabularQ:
    """One-step Q-learning over observations seen exactly (their bytes), masked."""

    def __init__(self, alpha: float = 0.5, gamma: float = 0.95, epsilon: float = 0.2,
                 seed: int = 0) -> None:
        self.q: defaultdict[bytes, dict[int, float]] = defaultdict(dict)
        self.alpha, self.gamma, self.epsilon = alpha, gamma, epsilon
        self.rng = np.random.default_rng(seed)

    def act(self, key: bytes, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        values = self.q[key]
        if self.rng.random() < self.epsilon or not values:
            return int(self.rng.choice(legal))
        return max(legal.tolist(), key=lambda a: values.get(a, 0.0))

    def learn(self, key: bytes, action: int, reward: float, after: bytes | None,
              mask: np.ndarray | None) -> None:
        future = 0.0
        if after is not None and mask is not None:
            future = max((self.q[after].get(int(a), 0.0) for a in np.flatnonzero(mask)),
                         default=0.0)
        old = self.q[key].get(action, 0.0)
        self.q[key][action] = old + self.alpha * (reward + self.gamma * future - old)


def test_a_tabular_learner_plays_through_the_env_against_a_house_bot() -> None:
    """Five Battle Line games against Deep Barca: the learner only ever picks masked actions
    (the env would raise otherwise), each game's last reward is the engine's outcome for its
    seat, and the Q-table learns it: the last decision of each game moved towards that
    reward."""
    env = SingleSeatEnv("battleline", bots.create("deep-barca", game="battleline", seed=3),
                        seat=None, on_illegal="raise")
    learner = TabularQ()
    finals = []
    for episode in range(5):
        observation, info = env.reset(seed=100 + episode)
        key = observation["observation"].tobytes()
        while True:
            action = learner.act(key, observation["action_mask"])
            observation, reward, terminated, _, info = env.step(action)
            after = observation["observation"].tobytes()
            learner.learn(key, action, float(reward),
                          None if terminated else after, observation["action_mask"])
            if terminated:
                break
            key = after
        ranks = info["outcome"]["ranks"]
        assert reward == rank_rewards(ranks)[info["seat"]]
        finals.append((key, action, float(reward)))
    for key, action, reward in finals:
        value = learner.q[key][action]
        assert value == pytest.approx(0.5 * reward) if reward else value == 0.0
    assert sum(len(v) for v in learner.q.values()) > 50
