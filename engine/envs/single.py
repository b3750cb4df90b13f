"""A game as a single-agent Gymnasium environment: the learner holds one seat, policies hold
the others.

::

    from bots import registry as bots
    env = SingleSeatEnv("battleline", bots.create("deep-barca", game="battleline", seed=1))
    observation, info = env.reset(seed=7)
    while True:
        action = env.action_space.sample(observation["action_mask"])
        observation, reward, terminated, truncated, info = env.step(action)
        if terminated:
            break

An opponent is any object with ``choose(request) -> action``: a house bot, or your own. It
gets the ``request`` a server would send its seat (its own view, its legal actions or action
space; no clock), built from the engine, never from the learner's side. (The engine does not
import ``bots/``: the caller hands the policies in.) A policy that draws random numbers goes
on drawing from one episode to the next, so ``reset(seed=s)`` replays a game exactly only
with a *factory*: ``opponents=lambda seat, seed: RandomBot(seed=seed)`` makes fresh
opponents at every reset, seeded from the match seed.

The observation and action spaces are those of :class:`~engine.envs.aec.AECGameEnv` for one
seat. ``reward`` is 0 until the game ends, then the learner's
:func:`~engine.envs.episode.rank_rewards` share (win +1, loss -1, draw 0), with ``terminated``
true and ``info["outcome"]`` set. An action outside the mask ends the game as a loss by
default (``on_illegal="lose"``, ``info["outcome"]["reason"] == "illegal_action"``), so an
agent that ignores the mask still gets a signal; ``on_illegal="raise"`` raises instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, SupportsFloat

import gymnasium

from engine.core import ActionError
from engine.envs.actions import ActionCodec
from engine.envs.aec import RENDER_MODES
from engine.envs.encoding import Encoder
from engine.envs.episode import Episode, Observation, OnIllegal, match_seed
from engine.rng import seed_from_text


class OpponentError(RuntimeError):
    """An opponent policy answered with an action the engine refused (a bug in the policy,
    not in the learner). The engine's error is the ``__cause__``."""


OpponentFactory = Callable[[int, int], Any]
"""``(seat, seed) -> policy``: makes a seat's opponent for one episode."""


class SingleSeatEnv(gymnasium.Env[dict[str, Any], Any]):
    """The learner plays ``seat`` of ``game`` (``None``: a seat drawn for each episode from
    the env's generator); ``opponents`` plays every other seat: one policy for all of them,
    a sequence with one per other seat in seat order, a mapping seat -> policy, or an
    :data:`OpponentFactory` called at every reset. ``num_seats``, ``options``,
    ``render_mode``, ``encoder`` and ``codec`` are those of
    :class:`~engine.envs.aec.AECGameEnv`."""

    metadata = {"render_modes": list(RENDER_MODES)}

    def __init__(self, game: str, opponents: Any, seat: int | None = 0,
                 num_seats: int | None = None, options: Mapping[str, Any] | None = None,
                 render_mode: str | None = None, *, on_illegal: OnIllegal = "lose",
                 encoder: Encoder | None = None, codec: ActionCodec | None = None) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode is one of {', '.join(RENDER_MODES)} or None")
        self.episode = Episode(game, num_seats, options, encoder=encoder, codec=codec,
                               on_illegal=on_illegal)
        seats = self.episode.num_seats
        if seat is not None and not 0 <= seat < seats:
            raise ValueError(f"seat must be 0..{seats - 1} or None, not {seat}")
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self._factory: OpponentFactory | None = None
        self.opponents: dict[int, Any] = {}
        if callable(opponents) and not hasattr(opponents, "choose"):
            self._factory = opponents
        else:
            self.opponents = _per_seat(opponents, seats, seat)
        self.render_mode = render_mode
        self.observation_space = self.episode.observation_space()
        self.action_space = self.episode.codec.space()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Observation, dict[str, Any]]:
        """A new game: ``seed`` is the match seed (same seed, same deal, same seat); without
        one, the env's generator (Gymnasium's ``np_random``) draws it. ``options`` is
        ignored: a game's options are fixed at construction."""
        super().reset(seed=seed)
        if self.fixed_seat is None:
            self.seat = int(self.np_random.integers(self.episode.num_seats))
        number = match_seed(self.np_random, seed)
        if self._factory is not None:
            self.opponents = {s: self._factory(s, seed_from_text(f"{number}/opponent/{s}"))
                              for s in range(self.episode.num_seats) if s != self.seat}
        self.episode.start(number)
        self._play_opponents()
        return self.episode.observe(self.seat), self._info()

    def step(self, action: Any) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        self.episode.act(self.seat, action)
        self._play_opponents()
        over = self.episode.outcome is not None
        reward = self.episode.rewards()[self.seat]
        if self.render_mode == "human":
            self.render()
        return self.episode.observe(self.seat), reward, over, False, self._info()

    def render(self) -> str | None:  # type: ignore[override]
        return self.episode.show(self.render_mode)

    def _play_opponents(self) -> None:
        """Let the other seats act until the game waits for the learner alone (or ends). In a
        simultaneous decision they commit first; the match keeps their plans hidden."""
        episode = self.episode
        while episode.outcome is None:
            others = [s for s in episode.awaiting() if s != self.seat]
            if not others:
                return
            for seat in others:
                policy = self.opponents[seat]
                answer = policy.choose(episode.request(seat))
                try:
                    episode.match.submit(seat, answer)
                except ActionError as err:
                    raise OpponentError(f"seat {seat}'s policy {policy!r} answered "
                                        f"{answer!r}: {err}") from err

    def _info(self) -> dict[str, Any]:
        outcome = self.episode.outcome
        info: dict[str, Any] = {"seat": self.seat}
        if outcome is not None:
            info["outcome"] = outcome.to_json()
        return info


def _per_seat(opponents: Any, seats: int, learner: int | None) -> dict[int, Any]:
    """Policies by seat for every seat the learner may leave to them."""
    if isinstance(opponents, Mapping):
        table = dict(opponents)
    elif isinstance(opponents, Sequence) and not isinstance(opponents, str):
        others = [s for s in range(seats) if s != learner] if learner is not None else None
        if others is None or len(opponents) != len(others):
            raise ValueError("a sequence of opponents needs a fixed learner seat and one "
                             f"policy per other seat ({seats - 1})")
        table = dict(zip(others, opponents, strict=True))
    else:
        table = {s: opponents for s in range(seats)}
    needed = [s for s in range(seats) if s != learner]
    missing = [s for s in needed if s not in table or not hasattr(table[s], "choose")
               or isinstance(table[s], type)]  # a bot's class, not a bot
    if missing:
        raise ValueError(f"no policy with choose(request) for seat(s) {missing}")
    return table
