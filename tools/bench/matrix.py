"""Round robins of two-seat games as a win matrix: every pair of agents plays the same starts
(one match seed per start, the same for every pair), each start twice with the seats
swapped. ``arena bench strength boundary`` prints one beside the thesis's tables;
``arena tune boundary`` builds the adaptive agent's counter table from one.

Results stream as :class:`Game` records (one per game, JSON-able), so a caller can log them
and resume: :func:`games_for` lists every game of a round robin, a caller skips those already
in its log, and :func:`play` plays the rest (in worker processes with ``jobs`` > 1).
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from engine import registry
from tools.bench.tournament import derive_seed, format_table, play_match, wilson

BotMaker = Callable[[str, int], Any]


@dataclass(frozen=True)
class Game:
    """One game of a round robin: agents ``a`` and ``b``, start ``start`` (its match seed
    follows from the run's seed and the start alone), ``a`` in seat ``seat_of_a``."""

    game: str
    a: str
    b: str
    start: int
    seat_of_a: int
    seed: int
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def key(self) -> str:
        return f"{self.a}|{self.b}|{self.start}|{self.seat_of_a}"


@dataclass(frozen=True)
class Result:
    """What a game did: ``ranks`` per seat, the ``reason``, ``scores`` when the game has
    them, the number of turns, and the wall time each agent spent deciding (seconds)."""

    game: Game
    ranks: tuple[int, ...]
    reason: str
    turns: int
    seconds: tuple[float, float]

    def to_json(self) -> dict[str, Any]:
        return {"a": self.game.a, "b": self.game.b, "start": self.game.start,
                "seat_of_a": self.game.seat_of_a, "ranks": list(self.ranks),
                "reason": self.reason, "turns": self.turns,
                "seconds": [round(s, 4) for s in self.seconds]}

    def score_of_a(self) -> float:
        """1 for a win of ``a``, ½ for a draw, 0 for a loss."""
        if self.ranks[0] == self.ranks[1]:
            return 0.5
        return 1.0 if self.ranks[self.game.seat_of_a] == 0 else 0.0


def games_for(game: str, agents: Sequence[str], games_per_pair: int, seed: int,
              options: Mapping[str, Any] | None = None,
              pairs: Iterable[tuple[str, str]] | None = None) -> list[Game]:
    """Every game of the round robin: ``ceil(games_per_pair / 2)`` starts, each played by
    every pair of distinct agents (or just ``pairs``) in both seatings."""
    starts = math.ceil(games_per_pair / 2)
    chosen = list(pairs) if pairs is not None else list(itertools.combinations(agents, 2))
    opts = tuple(sorted((options or {}).items()))
    return [Game(game, a, b, k, seat, derive_seed(seed, game, "start", k), opts)
            for k in range(starts) for a, b in chosen for seat in (0, 1)]


_MAKE: BotMaker | None = None


def play_one(task: Game, make_bot: BotMaker | None = None) -> Result:
    """Play one game in this process."""
    maker = make_bot or _MAKE
    assert maker is not None, "play() sets the bot maker"
    seating = (task.a, task.b) if task.seat_of_a == 0 else (task.b, task.a)
    players = [maker(spec, derive_seed(task.seed, seat, spec))
               for seat, spec in enumerate(seating)]
    spent = [0.0, 0.0]

    def on_decision(seat: int, _bot: Any, wall: float, _cpu: float) -> None:
        spent[seat] += wall

    result = play_match(registry.get(task.game), players, seed=task.seed,
                        options=dict(task.options), on_decision=on_decision)
    of_a = (spent[0], spent[1]) if task.seat_of_a == 0 else (spent[1], spent[0])
    return Result(task, tuple(result.ranks), result.reason, result.turns, of_a)


def play(tasks: Sequence[Game], make_bot: BotMaker, jobs: int = 1) -> Iterator[Result]:
    """Play ``tasks`` (results in completion order with ``jobs`` > 1 forked workers)."""
    global _MAKE
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for task in tasks:
            yield play_one(task, make_bot)
        return
    _MAKE = make_bot
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            yield from pool.imap_unordered(play_one, tasks, chunksize=1)
    finally:
        _MAKE = None


@dataclass
class Cell:
    """Row agent against column agent: wins, draws, losses, and the scores of each start's
    pair of games (the two seatings of one start are not independent; starts are)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def share(self) -> float:
        """Win share, a draw counting half."""
        return (self.wins + self.draws / 2) / self.games if self.games else float("nan")

    def ci95(self) -> tuple[float, float]:
        """Wilson 95% interval of the win share (a draw as half a win)."""
        return wilson(round(self.wins + self.draws / 2), self.games)


class Matrix:
    """Results of a round robin, row agent against column agent."""

    def __init__(self, agents: Sequence[str]) -> None:
        self.agents = list(agents)
        self.cells: dict[tuple[str, str], Cell] = {}
        self.reasons: dict[str, int] = {}
        self.turns = 0
        self.seconds: dict[str, list[float]] = {a: [0.0, 0] for a in agents}  # [total, games]
        self.started = time.monotonic()

    def cell(self, row: str, column: str) -> Cell:
        return self.cells.setdefault((row, column), Cell())

    def add(self, result: Result) -> None:
        a, b = result.game.a, result.game.b
        score = result.score_of_a()
        for row, column, s in ((a, b, score), (b, a, 1 - score)):
            cell = self.cell(row, column)
            if s == 1.0:
                cell.wins += 1
            elif s == 0.0:
                cell.losses += 1
            else:
                cell.draws += 1
        self.reasons[result.reason] = self.reasons.get(result.reason, 0) + 1
        self.turns += result.turns
        for agent, spent in ((a, result.seconds[0]), (b, result.seconds[1])):
            self.seconds.setdefault(agent, [0.0, 0])
            self.seconds[agent][0] += spent
            self.seconds[agent][1] += 1

    @property
    def games(self) -> int:
        return sum(self.reasons.values())

    def share(self, row: str, column: str) -> float:
        return self.cell(row, column).share() if row != column else 0.5

    def to_json(self) -> dict[str, Any]:
        return {
            "agents": self.agents,
            "games": self.games,
            "cells": {f"{r}|{c}": {"wins": cell.wins, "draws": cell.draws,
                                   "losses": cell.losses, "share": cell.share(),
                                   "ci95": list(cell.ci95())}
                      for (r, c), cell in sorted(self.cells.items())},
            "reasons": dict(sorted(self.reasons.items())),
            "mean_turns": self.turns / max(self.games, 1),
            "seconds_per_game": {a: s / max(n, 1) for a, (s, n) in self.seconds.items()},
        }

    def render(self, labels: Mapping[str, str] | None = None, intervals: bool = True) -> str:
        """The matrix as text: row agent's win share (draws half) against each column, and
        its 95% interval under it."""
        labels = labels or {}
        names = [labels.get(a, a) for a in self.agents]
        rows: list[list[str]] = [["", *names, "mean"]]
        for agent, name in zip(self.agents, names, strict=True):
            shares, spans = [name], [""]
            others = [c for c in self.agents if c != agent]
            for column in self.agents:
                if column == agent:
                    shares.append("–")
                    spans.append("")
                    continue
                cell = self.cell(agent, column)
                shares.append(f"{100 * cell.share():.0f}" if cell.games else "·")
                lo, hi = cell.ci95()
                spans.append(f"{100 * lo:.0f}–{100 * hi:.0f}" if cell.games else "")
            mean = [self.cell(agent, c).share() for c in others if self.cell(agent, c).games]
            shares.append(f"{100 * sum(mean) / len(mean):.0f}" if mean else "·")
            spans.append("")
            rows.append(shares)
            if intervals:
                rows.append(spans)
        return format_table(rows, [False] + [True] * (len(names) + 1))


def result_from_json(task: Game, data: Mapping[str, Any]) -> Result:
    return Result(task, tuple(data["ranks"]), str(data["reason"]), int(data["turns"]),
                  (float(data["seconds"][0]), float(data["seconds"][1])))


def as_dict(task: Game) -> dict[str, Any]:
    return asdict(task)
