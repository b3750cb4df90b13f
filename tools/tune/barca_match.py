"""Self-play matches between two Barca agents and the seed's match score (rules §12.4).

* :func:`openings`: ``count`` distinct openings, each ``plies`` random legal moves from the
  start (a seeded PRNG), skipping any that repeat a position or end the game.
* :func:`play_game`: one game between agent A and agent B from an opening, A playing
  ``a_side``; returns a :class:`GameRecord` with A's game score:

  * A wins: ``C / L``; A loses: ``−C / L`` (``L`` = plies the agents played, ``C = 300``);
  * a draw (claim, fivefold, ply cap): ``D_MAX · tanh((avg_A − avg_B) / S)``, where
    ``avg_X`` is the mean over X's decision points of the *unbiased* value
    ``U(s, side(X)) = (E_{w_A}(s, side(X)) + E_{w_B}(s, side(X))) / 2``.

* :func:`match_score`: ``M(A, B) = Σ s_A`` over the games of each opening with A as White
  and with B as White, so ``M(B, A) = −M(A, B)`` and ``M(A, A) = 0`` (B24).

Agents are :class:`~bots.barca.agents.BarcaBot` (fixed depth, no time budget, so a game is a
pure function of the two weight vectors, the depths and the opening). Games are independent,
so a match's games may run in worker processes (:func:`play_games`); the result does not
depend on how many.
"""

from __future__ import annotations

import math
import multiprocessing
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from bots.barca.agents import BarcaBot
from bots.barca.evaluation import evaluate
from engine.barca.position import DRAW, Position

C: Final = 300
D_MAX: Final = 0.5
S: Final = 100
OPENING_PLIES: Final = 4

Opening = tuple[int, ...]
"""The moves of an opening (fast-core moves, ``100*from + to``)."""


def openings(count: int, seed: int, plies: int = OPENING_PLIES) -> list[Opening]:
    """``count`` distinct openings of ``plies`` random legal moves from the start, drawn with
    ``random.Random(seed)``; an opening that repeats a position or ends the game is skipped."""
    rng = random.Random(seed)
    out: list[Opening] = []
    seen: set[Opening] = set()
    attempts = 0
    while len(out) < count:
        attempts += 1
        if attempts > 100 * count + 1000:
            raise ValueError(f"cannot find {count} distinct {plies}-ply openings")
        pos = Position.start()
        moves: list[int] = []
        ok = True
        for _ in range(plies):
            move = rng.choice(pos.legal_moves())
            pos.apply(move)
            moves.append(move)
            if pos.result is not None or pos.count() > 1:
                ok = False
                break
        opening = tuple(moves)
        if ok and opening not in seen:
            seen.add(opening)
            out.append(opening)
    return out


def position_after(opening: Opening) -> Position:
    """The start position with ``opening`` played (its history included)."""
    pos = Position.start()
    for move in opening:
        pos.apply(move)
    return pos


@dataclass(frozen=True)
class Agent:
    """One side of a match: its weights and search depth."""

    weights: tuple[int, ...]
    depth: int = 2

    def bot(self) -> BarcaBot:
        return BarcaBot(depth=self.depth, weights=self.weights)


@dataclass(frozen=True)
class GameTask:
    """One game to play: ``a`` and ``b``, the opening, the side ``a`` plays (0 White)."""

    a: Agent
    b: Agent
    opening: Opening
    a_side: int
    index: int = 0


@dataclass(frozen=True)
class GameRecord:
    """How a game went, from A's side: ``winner`` is ``"a"``, ``"b"`` or ``None`` (draw);
    ``reason`` the rules' reason (``holes``, ``claim``, ``fivefold``, ``ply_cap``);
    ``plies`` played by the agents; ``score`` A's game score; ``avg_a``, ``avg_b`` the mean
    unbiased values of the draw score."""

    task: GameTask
    winner: str | None
    reason: str
    plies: int
    score: float
    avg_a: float
    avg_b: float


def draw_score(avg_a: float, avg_b: float) -> float:
    """A's score for a drawn game; odd in its argument, so B's is exactly its negation."""
    x = (avg_a - avg_b) / S
    return math.copysign(D_MAX * math.tanh(abs(x)), x) if x else 0.0


def play_game(task: GameTask) -> GameRecord:
    """Play ``task`` to the end: the agents' claim policy included (§12.3)."""
    bots = {task.a_side: task.a.bot(), 1 - task.a_side: task.b.bot()}
    wa, wb = task.a.weights, task.b.weights
    pos = position_after(task.opening)
    sums = {0: 0.0, 1: 0.0}
    counts = {0: 0, 1: 0}
    plies = 0
    result: tuple[int, str] | None = None
    while result is None:
        side = pos.side
        # U(s, side): both agents' opinion of the position for the deciding side.
        sums[side] += (evaluate(pos, side, wa) + evaluate(pos, side, wb)) / 2
        counts[side] += 1
        bot = bots[side]
        move, claim = bot.decide_move(pos)
        if move is None:  # a bare claim
            result = (DRAW, "claim")
            break
        pos.apply(move)
        plies += 1
        result = pos.result
        if result is None and claim:
            result = (DRAW, "claim")  # the policy attaches claim only at count ≥ 3
    a = task.a_side
    avg_a = sums[a] / counts[a] if counts[a] else 0.0
    avg_b = sums[1 - a] / counts[1 - a] if counts[1 - a] else 0.0
    winner_side, reason = result
    if winner_side == DRAW:
        winner, score = None, draw_score(avg_a, avg_b)
    else:
        winner = "a" if winner_side == a else "b"
        score = C / plies if winner == "a" else -C / plies
    return GameRecord(task, winner, reason, plies, score, avg_a, avg_b)


def match_tasks(a: Agent, b: Agent, opening_set: Sequence[Opening]) -> list[GameTask]:
    """Per opening, A as White then B as White (A plays Black)."""
    out = []
    for k, opening in enumerate(opening_set):
        out.append(GameTask(a, b, opening, 0, 2 * k))
        out.append(GameTask(a, b, opening, 1, 2 * k + 1))
    return out


def _pool_context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


class GamePool:
    """Plays games here (``jobs`` ≤ 1) or in ``jobs`` worker processes kept for its life
    (each worker keeps its evaluation cache from game to game). Use as a context manager."""

    def __init__(self, jobs: int = 1) -> None:
        self.jobs = jobs
        self._pool = _pool_context().Pool(jobs) if jobs > 1 else None

    def __enter__(self) -> GamePool:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()

    def play(self, tasks: Sequence[GameTask]) -> Iterator[GameRecord]:
        """Records as games finish (any order with workers; ``task.index`` says which)."""
        if self._pool is None:
            for task in tasks:
                yield play_game(task)
        else:
            yield from self._pool.imap_unordered(play_game, tasks, chunksize=1)


def match_score(records: Sequence[GameRecord]) -> float:
    """``M(A, B)``: the sum of A's game scores, added in task order (so the float sum does
    not depend on the order games finished in)."""
    return math.fsum(r.score for r in sorted(records, key=lambda r: r.task.index))


def play_match(a: Agent, b: Agent, opening_set: Sequence[Opening],
               pool: GamePool | None = None,
               on_game: Callable[[GameRecord], None] | None = None,
               ) -> tuple[float, list[GameRecord]]:
    """``M(A, B)`` over ``opening_set`` and the games' records (in task order);
    ``on_game`` is told of each game as it ends."""
    tasks = match_tasks(a, b, opening_set)
    records = []
    for record in (pool or GamePool(1)).play(tasks):
        records.append(record)
        if on_game is not None:
            on_game(record)
    records.sort(key=lambda r: r.task.index)
    return match_score(records), records
