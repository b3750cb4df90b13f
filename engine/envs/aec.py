"""Every registered game as a PettingZoo AEC environment.

::

    env = AECGameEnv("battleline")
    env.reset(seed=7)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            action = env.action_space(agent).sample(mask)
        env.step(action)

Agents are ``seat_0``, ``seat_1``, … (the engine's seats). ``agent_selection`` is the seat
the game waits for; chance nodes never show (the match resolves them with its generator).
In a simultaneous game (Boundary) every acting seat is selected in turn, its action is held
hidden by the match, and the joint action is applied once the last one is in; such a game
can also be had as a parallel env (:func:`parallel_env`).

Rewards come once, when the game ends: :func:`~engine.envs.episode.rank_rewards` of the
outcome's ranks (win +1, loss -1, draw 0). ``infos[agent]`` is ``{}`` until then, and then
``{"outcome": {"ranks", "reason", ...}}``. Games always end by their own rules, so
``truncations`` stay false.

An action outside the mask raises :class:`~engine.envs.actions.ActionNotAllowed` and changes
nothing (PettingZoo's classic games refuse illegal moves the same way); with
``on_illegal="lose"`` it ends the game instead, that seat ranked last.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import aec_to_parallel

from engine.envs.actions import ActionCodec
from engine.envs.encoding import Encoder
from engine.envs.episode import Episode, Observation, OnIllegal, match_seed

RENDER_MODES = ("ansi", "human")


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


class AECGameEnv(AECEnv[str, Observation, Any]):
    """One registered game, ``num_seats`` seats (default: the game's minimum), ``options``
    as a match takes them. ``render_mode``: ``"ansi"`` (:meth:`render` returns the position
    in the game's notation) or ``"human"`` (prints it). ``encoder``/``codec`` replace the
    game's own observation and action layouts (:mod:`engine.envs.encoding`,
    :mod:`engine.envs.actions`)."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "arena_v0",
                "is_parallelizable": False}

    def __init__(self, game: str, num_seats: int | None = None,
                 options: Mapping[str, Any] | None = None, render_mode: str | None = None, *,
                 on_illegal: OnIllegal = "raise", encoder: Encoder | None = None,
                 codec: ActionCodec | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode is one of {', '.join(RENDER_MODES)} or None")
        self.episode = Episode(game, num_seats, options, encoder=encoder, codec=codec,
                               on_illegal=on_illegal)
        info = self.episode.game.info
        self.metadata = {**self.metadata, "name": f"{info.name}_v0",
                         # aec_to_parallel needs every agent to act once per cycle: what a
                         # simultaneous game's decisions ask of every seat (Boundary).
                         "is_parallelizable": info.simultaneous}
        self.render_mode = render_mode
        self.possible_agents = [agent_name(s) for s in range(self.episode.num_seats)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        self._observation_spaces = {a: self.episode.observation_space()
                                    for a in self.possible_agents}
        self._action_spaces = {a: self.episode.codec.space() for a in self.possible_agents}
        self._seeds: np.random.Generator | None = None
        self.agents: list[str] = []

    # ---- spaces ------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    # ---- the AEC cycle -------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game. ``seed`` is the match seed (same seed, same deal); without one the
        next seed comes from a stream fixed by the last seed given (OS entropy if none ever
        was). ``options`` is accepted for the API and ignored: a game's options are fixed
        at construction."""
        if seed is not None or self._seeds is None:
            self._seeds, _ = seeding.np_random(seed)
        self.episode.start(match_seed(self._seeds, seed))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = agent_name(self.episode.awaiting()[0])

    def observe(self, agent: str) -> Observation:
        return self.episode.observe(self._seat[agent])

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.episode.act(self._seat[agent], action)
        self._clear_rewards()
        outcome = self.episode.outcome
        if outcome is None:
            self.agent_selection = agent_name(self.episode.awaiting()[0])
        else:
            for a, reward in zip(self.agents, self.episode.rewards(), strict=True):
                self.rewards[a] = reward
                self.terminations[a] = True
                self.infos[a] = {"outcome": outcome.to_json()}
            # The next seat in order sees the end first, then the others in turn.
            self.agent_selection = self.agents[(self._seat[agent] + 1) % len(self.agents)]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # ---- the rest --------------------------------------------------------------------------

    def render(self) -> str | None:
        return self.episode.show(self.render_mode)

    def close(self) -> None:
        """Nothing to release (no window, no process)."""


def parallel_env(game: str, num_seats: int | None = None,
                 options: Mapping[str, Any] | None = None, render_mode: str | None = None,
                 **kwargs: Any) -> ParallelEnv[str, Observation, Any]:
    """A simultaneous game (Boundary) as a PettingZoo parallel env: every seat acts each
    step. Raises ``ValueError`` for a turn-based game (use :class:`AECGameEnv`)."""
    env = AECGameEnv(game, num_seats, options, render_mode, **kwargs)
    if not env.metadata["is_parallelizable"]:
        raise ValueError(f"{game} is turn-based: every step has one seat acting; use the "
                         "AEC env")
    return aec_to_parallel(env)
