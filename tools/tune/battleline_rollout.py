"""Fit the ISMCTS rollout policy to Deep Barca's plays (``arena tune battleline-rollout``).

1. **Collect**: Deep Barca plays itself (``games`` deals from ``seed``, the same chance order
   as ``arena bench strength``); every troop play it makes on a flag the rollouts play on is
   a record — the seat's hand, both sides of every flag, the flags a rollout leaves out, and
   the play.
2. **Fit**: a conditional logit over each record's legal troop plays (the features of
   :func:`bots.battleline.rollout_policy.features`): the weights that make Deep Barca's plays
   most likely, by Adam on minibatches with a small L2 penalty. The last ``holdout`` share of
   the records (whole games) is kept out and scored: its mean negative log-likelihood, the
   uniform policy's and the formation policy's (at the rollout temperature 0.3), and how often
   each one's top play is Deep Barca's.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bots.battleline import rollout_policy, rollouts
from bots.battleline.board import is_troop
from bots.battleline.deep_barca import DeepBarca
from engine import registry
from engine.battleline.cards import INDEX
from engine.core import CHANCE
from engine.match import FixedOrder
from tools.bench.strength import request_for

Record = tuple[np.ndarray, np.ndarray, list[int], int, int, int]
"""(sides (9, 2, 3), fixed (9,), hand troop indices, seat, card, flag)."""


def collect_game(seed: int) -> list[Record]:
    """The records of one Deep Barca self-play game."""
    game = registry.get("battleline")
    players = [DeepBarca(), DeepBarca()]
    state = game.initial_state(2, game.normalize_options(None))
    chance = FixedOrder(seed)
    out: list[Record] = []
    while True:
        decision = game.decision(state)
        if decision.terminal:
            return out
        if decision.chance:
            state = game.apply_unchecked(state, {CHANCE: chance.pick(game, state)}).state
            continue
        seat = decision.seats[0]
        request = request_for(game, state, seat)
        view = request["view"]
        action = players[seat].choose(request)
        if view["phase"] == "play" and action["type"] == "play" and is_troop(action["card"]):
            table = rollouts.table_of(view, seat, [0.5] * 9)
            flag = action["flag"] - 1
            if not table.fixed[flag] and len(table.hand) > 1:
                out.append((table.sides.copy(), table.fixed.copy(), list(table.hand), seat,
                            INDEX[action["card"]], flag))
        state = game.apply_unchecked(state, {seat: action}).state


def collect(games: int, seed: int, jobs: int = 1,
            progress: Callable[[int, int], None] | None = None) -> list[Record]:
    """The records of ``games`` self-play games (deal ``seed + i``), in deal order."""
    seeds = [seed + i for i in range(games)]
    out: list[Record] = []
    if jobs <= 1:
        for done, s in enumerate(seeds, 1):
            out.extend(collect_game(s))
            if progress:
                progress(done, games)
        return out
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        for done, records in enumerate(pool.imap(collect_game, seeds, chunksize=4), 1):
            out.extend(records)
            if progress:
                progress(done, games)
    return out


@dataclass
class Data:
    """Records as arrays: features (n, 72, F), legal (n, 72), chosen (n,), hand, sides."""

    x: np.ndarray
    legal: np.ndarray
    chosen: np.ndarray
    hand: np.ndarray
    mine: np.ndarray
    own: np.ndarray


def arrays(records: Sequence[Record]) -> Data:
    n = len(records)
    hand = np.full((n, rollouts.HAND_SLOTS), -1, dtype=np.int16)
    mine = np.full((n, 9, 3), -1, dtype=np.int16)
    theirs = np.full((n, 9, 3), -1, dtype=np.int16)
    fixed = np.zeros((n, 9), dtype=bool)
    chosen = np.zeros(n, dtype=np.int64)
    for i, (sides, fx, cards, seat, card, flag) in enumerate(records):
        hand[i, :len(cards)] = cards
        mine[i], theirs[i], fixed[i] = sides[:, seat], sides[:, 1 - seat], fx
        chosen[i] = cards.index(card) * 9 + flag
    own, opp = (mine >= 0).sum(-1), (theirs >= 0).sum(-1)
    x = rollout_policy.features(hand, mine, own, theirs, opp).reshape(n, -1, len(
        rollout_policy.FEATURES))
    legal = ((hand[:, :, None] >= 0) & (own[:, None, :] < 3) & ~fixed[:, None, :]).reshape(n, -1)
    return Data(x, legal, chosen, hand, mine, own)


def _log_probs(scores: np.ndarray, legal: np.ndarray) -> np.ndarray:
    s = np.where(legal, scores, -np.inf)
    s = s - s.max(axis=1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=1, keepdims=True))


def nll(scores: np.ndarray, data: Data) -> float:
    """Mean negative log-likelihood of the chosen plays under softmax(scores)."""
    lp = _log_probs(scores, data.legal)
    return float(-lp[np.arange(len(lp)), data.chosen].mean())


def top1(scores: np.ndarray, data: Data) -> float:
    """How often the highest-scored legal play is the chosen one."""
    return float((np.where(data.legal, scores, -np.inf).argmax(1) == data.chosen).mean())


def fit(data: Data, iterations: int = 2000, batch: int = 4096, rate: float = 0.05,
        l2: float = 1e-4, seed: int = 1) -> np.ndarray:
    """The conditional logit's weights (Adam on minibatches)."""
    rng = np.random.default_rng(seed)
    w = np.zeros(data.x.shape[2])
    m1 = np.zeros_like(w)
    m2 = np.zeros_like(w)
    n = len(data.chosen)
    for it in range(1, iterations + 1):
        b = rng.choice(n, size=min(batch, n), replace=False)
        x = data.x[b]
        p = np.exp(_log_probs(x @ w, data.legal[b]))
        grad = -(x[np.arange(len(b)), data.chosen[b]] - np.einsum("na,naf->nf", p, x)).mean(0)
        grad += 2 * l2 * w
        m1 = 0.9 * m1 + 0.1 * grad
        m2 = 0.999 * m2 + 0.001 * grad * grad
        w -= rate * (m1 / (1 - 0.9 ** it)) / (np.sqrt(m2 / (1 - 0.999 ** it)) + 1e-8)
    return w


def report(weights: np.ndarray, data: Data, temperature: float = 0.3) -> dict[str, Any]:
    """The fitted, uniform and formation policies scored on ``data``."""
    n = len(data.chosen)
    formation = rollout_policy.FORMATION.scores(
        data.hand, data.mine, data.own, np.full_like(data.mine, -1),
        np.zeros_like(data.own)).reshape(n, -1) / temperature
    return {
        "records": n,
        "nll": nll(data.x @ weights, data),
        "nll_uniform": float(np.log(data.legal.sum(1)).mean()),
        "nll_formation": nll(formation, data),
        "top1": top1(data.x @ weights, data),
        "top1_formation": top1(formation, data),
    }
