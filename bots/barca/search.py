"""Negamax alpha-beta with the seed's repetition memory and claim policy (rules §12.3).

:func:`search` plays and takes back moves on the fast :class:`Position` it is given (left as
it was), whose ``history`` holds the game's positions; ``apply`` counts the search path in
it too, so a node's :meth:`Position.count` is "game history plus search path, including this
node" — exactly what the repetition memory reads.

Values are from the side to move at a node:

* the previous mover has won → ``−(WIN − plies_from_root)`` (faster wins, slower losses);
* a draw by fivefold repetition or the ply cap → 0;
* **repetition memory:** a node whose count is ≥ 3 → 0, not expanded (either side could
  claim the draw there, §7.2);
* depth exhausted → ``E_w(s, side to move)`` (:func:`~bots.barca.evaluation.evaluate`).

Children come in canonical order (§10) and the best move is the first child that strictly
improves alpha, so the result is a pure function of the position, its history, the depth and
the weights. With a deadline, :func:`search_timed` deepens 1, 2, … and keeps the deepest
completed result (depth 1 always completes).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from bots.barca.evaluation import DEFAULT_WEIGHTS, evaluate
from engine.barca.position import DRAW, REPETITIONS_TO_CLAIM, Position

WIN: Final = 1_000_000
_INF: Final = 1 << 40
_CHECK_EVERY: Final = 256  # nodes between two looks at the clock


class SearchTimeout(Exception):
    """The deadline passed; the position is back as it was."""


@dataclass(frozen=True)
class RootResult:
    """A decision: the ``move`` (``100*from + to`` or ``PASS``), its ``value`` for the side to
    move, the ``depth`` searched and the interior ``nodes`` expanded."""

    move: int
    value: int
    depth: int
    nodes: int


class _Searcher:
    def __init__(self, pos: Position, weights: Sequence[int], deadline: float | None) -> None:
        self.pos = pos
        self.weights = weights
        self.deadline = deadline
        self.nodes = 0

    def value(self, depth: int, alpha: int, beta: int, plies: int) -> int:
        """Negamax value of the current node, ``plies`` from the root (fail-soft)."""
        pos = self.pos
        result = pos.result
        if result is not None:
            return 0 if result[0] == DRAW else -(WIN - plies)
        if pos.count() >= REPETITIONS_TO_CLAIM:
            return 0
        if depth == 0:
            return evaluate(pos, pos.side, self.weights)
        self.nodes += 1
        if self.deadline is not None and self.nodes % _CHECK_EVERY == 0 \
                and time.perf_counter() > self.deadline:
            raise SearchTimeout
        best = -_INF
        for move in pos.legal_moves():
            pos.apply(move)
            try:
                v = -self.value(depth - 1, -beta, -alpha, plies + 1)
            finally:
                pos.undo()
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        return best

    def root(self, depth: int) -> RootResult:
        pos = self.pos
        self.nodes += 1
        moves = pos.legal_moves()
        alpha = -_INF
        best = moves[0]
        for move in moves:
            pos.apply(move)
            try:
                v = -self.value(depth - 1, -_INF, -alpha, 1)
            finally:
                pos.undo()
            if v > alpha:
                alpha, best = v, move
        return RootResult(best, alpha, depth, self.nodes)


def search(pos: Position, depth: int = 3,
           weights: Sequence[int] = DEFAULT_WEIGHTS) -> RootResult:
    """The fixed-depth decision for the side to move in ``pos`` (not over; ``depth`` ≥ 1)."""
    if depth < 1:
        raise ValueError("depth must be at least 1")
    return _Searcher(pos, weights, None).root(depth)


def search_timed(pos: Position, budget_s: float, max_depth: int = 64,
                 weights: Sequence[int] = DEFAULT_WEIGHTS) -> RootResult:
    """Iterative deepening within about ``budget_s`` seconds: the deepest completed result
    (depth 1 always completes, whatever the budget)."""
    deadline = time.perf_counter() + budget_s
    best = _Searcher(pos, weights, None).root(1)
    for depth in range(2, max_depth + 1):
        try:
            best = _Searcher(pos, weights, deadline).root(depth)
        except SearchTimeout:
            break
        if time.perf_counter() > deadline:
            break
    return best


def child_values(pos: Position, depth: int,
                 weights: Sequence[int] = DEFAULT_WEIGHTS) -> dict[int, int]:
    """Each root move's exact value (full window) at ``depth`` (for tests and analysis)."""
    s = _Searcher(pos, weights, None)
    out = {}
    for move in pos.legal_moves():
        pos.apply(move)
        try:
            out[move] = -s.value(depth - 1, -_INF, _INF, 1)
        finally:
            pos.undo()
    return out
