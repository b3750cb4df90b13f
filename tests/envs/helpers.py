"""Shared by tests/envs: quick options per game and a masked random walk through an AEC env."""

from __future__ import annotations

from typing import Any

from engine.envs.aec import AECGameEnv

QUICK_OPTIONS: dict[str, dict[str, Any]] = {
    # Boundary resolves every turn tick by tick (~20 ms a turn here); 12 turns of 4 pieces
    # still capture, merge and end by the turn limit. Other games run with their defaults.
    "boundary": {"turn_limit": 12, "pieces": 4, "treasures": 6},
}


def quick_options(name: str) -> dict[str, Any] | None:
    return QUICK_OPTIONS.get(name)


def random_walk(env: AECGameEnv, seed: int) -> None:
    """Play ``env`` to the end from ``reset(seed=seed)``, each agent sampling its action
    space under its mask (action spaces seeded from ``seed``)."""
    env.reset(seed=seed)
    for k, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed + k)
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
        else:
            env.step(env.action_space(agent).sample(observation.get("action_mask")))
