"""The seed's Barca agent (rules §12): an evaluation vector with integer weights, negamax
alpha-beta with a repetition memory and a claim policy, and a greedy baseline."""

from bots.barca.agents import BarcaBot, GreedyBarcaBot
from bots.barca.evaluation import (
    DEFAULT_WEIGHTS,
    FEATURES,
    evaluate,
    feature_vector,
    features,
)
from bots.barca.search import WIN, RootResult, child_values, search, search_timed

__all__ = [
    "DEFAULT_WEIGHTS", "FEATURES", "WIN", "BarcaBot", "GreedyBarcaBot", "RootResult",
    "child_values", "evaluate", "feature_vector", "features", "search", "search_timed",
]
