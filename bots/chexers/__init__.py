"""Chexers bots: the search agents of the seed report (``shared/rules/chexers.md`` §9).

=================  ============================================================================
Agent (registry)   What it does
=================  ============================================================================
``random``         uniform over the legal actions (the generic :mod:`bots.random_bot`).
``greedy``         one ply: highest own utility after the action (§9.3).
``maxn``           maxⁿ, default depth 3, shallow pruning on (exact) (§9.4).
``random-maxn``    maxⁿ with a seeded random choice among root actions tied for the best.
``paranoid``       negamax alpha-beta of the root's utility vs. both opponents, depth 4 (§9.5).
``offensive``      maxⁿ where the root minimises the leader's utility, depth 3 (§9.6).
``mp-mix``         MP-Mix(T_d = T_o = 40): paranoid when leading, offensive against a clear
                   leader, maxⁿ otherwise (§9.7); by default depth 4 in every mode,
                   cautious ties, and a zero-sum duel search once an opponent is knocked
                   out (deviations, measured: ``bots/chexers/README.md``).
``brs``            not the report's: best-reply search (the root's turns alternate with the one
                   opponent reply that hurts it most) over a race evaluation, under a node
                   budget; stronger than every agent above (:mod:`bots.chexers.brs`, README).
=================  ============================================================================

Utility: the report's Equation 1 ×20, ``U_p = 20·(pieces + exits) − Σ (dist_to_exit + 2)``
(48 at the start); a win is worth ``20·(P+1)``, a loss 0, a draw 10
(:mod:`bots.chexers.evaluation`). Options of every search bot (keyword arguments of the
classes in :mod:`bots.chexers.agents`): ``depth``, ``time_ms`` (per-move budget; iterative
deepening), ``clock_share`` (share of the remaining clock one move may use), ``variant``
(``sum`` | ``average`` | ``best4``), ``prune``, ``two_player`` (paranoid duel search once an
opponent is knocked out, depth ``two_player_depth``, default ``depth + 2``), ``zero_sum``
(that duel search values ``U_me − U_rival`` instead of ``U_me`` alone; default off, on
for MP-Mix, as is ``two_player``), ``leaf_scan`` (default on; off only to measure it), ``cautious``
(maxⁿ-like searches resolve an opponent's tie against the root and the root's offensive tie
for itself; default off, on for MP-Mix), ``max_nodes`` (iterative deepening under a node
budget: deterministic, unlike ``time_ms``), ``quiesce`` (default 0, off: a leaf reached by a
converting jump is searched on by converting jumps, at most that many more turns, each mover
free to stand); MP-Mix also ``t_d``, ``t_o``, ``paranoid_depth``,
``offensive_depth``, ``random_ties``; offensive ``target``. Run one against a server::

    arena bot maxn --game chexers --server ws://127.0.0.1:8765/ws --token TOKEN
"""

from bots.chexers.agents import (
    AGENTS,
    ChexersBot,
    Decision,
    GreedyBot,
    MaxnBot,
    MPMixBot,
    OffensiveBot,
    ParanoidBot,
    RandomMaxnBot,
    leader_of,
    mpmix_strategy,
)
from bots.chexers.evaluation import Evaluator, sum_utility, total_material
from bots.chexers.search import RootResult, Search, SearchStats, SearchTimeout

__all__ = [
    "AGENTS", "ChexersBot", "Decision", "Evaluator", "GreedyBot", "MPMixBot", "MaxnBot",
    "OffensiveBot", "ParanoidBot", "RandomMaxnBot", "RootResult", "Search", "SearchStats",
    "SearchTimeout", "leader_of", "mpmix_strategy", "sum_utility", "total_material",
]
