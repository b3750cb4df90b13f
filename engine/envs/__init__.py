"""Every registered game as a reinforcement-learning environment (guide:
``docs/environments.md``).

=================  ============================================================================
AEC (PettingZoo)   :class:`AECGameEnv` ``(game, num_seats=None, options=None,
                   render_mode=None)``: agents ``seat_0`` …; one seat acts per step; a
                   simultaneous decision selects each acting seat in turn and applies the
                   joint action after the last. :func:`parallel_env` for simultaneous games.
Single agent       :class:`SingleSeatEnv` ``(game, opponents, seat=0, …)`` (Gymnasium): the
                   learner holds one seat, ``choose(request)`` policies (house bots) the rest.
Observations       ``{"observation": Box float32, "action_mask": Box int8}`` from
                   ``game.view(state, seat)`` only (:mod:`engine.envs.encoders`; a game
                   without an encoder gets a hashed one). No mask for an action space.
Actions            ``Discrete`` over a fixed catalog of the game's every action (Battle Line
                   11,478, Chexers 331, Barca 5,882; :mod:`engine.envs.catalogs`), or over
                   the legal list by position for a game without one; Boundary's plan is a
                   ``Box([-1, 1], (pieces, 2))`` mapped into its action space
                   (:mod:`engine.envs.actions`).
Chance             Resolved inside by the match's seeded generator: ``reset(seed=s)`` deals as
                   a server match of seed ``s``; same seed and actions, same episode.
Rewards            At the end only: seats beaten minus seats that beat you, over ``n - 1``
                   (win +1, loss -1, draw 0). ``infos[agent]["outcome"]`` then.
Illegal actions    ``ActionNotAllowed`` (AEC default) or a loss (``on_illegal="lose"``, the
                   single-agent default).
=================  ============================================================================

This package is the engine's one adapter to RL libraries: it alone in ``engine/`` imports
NumPy (beyond Boundary), Gymnasium and PettingZoo (``pip install tabletop-arena[envs]``), and
nothing in the rules imports it (``tests/test_layers.py``).
"""

from engine.envs.actions import ActionNotAllowed
from engine.envs.aec import AECGameEnv, parallel_env
from engine.envs.episode import rank_rewards
from engine.envs.single import OpponentError, SingleSeatEnv

__all__ = ["AECGameEnv", "ActionNotAllowed", "OpponentError", "SingleSeatEnv", "parallel_env",
           "rank_rewards"]
