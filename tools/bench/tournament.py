"""Shared machinery of the benchmarks that play whole matches between bots (``arena bench
strength`` and ``arena bench bot``): seatings, seeded random openings, one match driven by
``choose(request)`` calls, Wilson intervals, percentiles and a progress bar.

Bots are duck-typed (any object with ``choose(request) -> action``, the contract of
:mod:`clients.runner`), so this module needs only ``engine/``; the commands that name bots
(``tools/commands/``) take them from the registry in :mod:`bots.registry`.

A match here is a :class:`~engine.match.Match` driven exactly as the server drives one: each
seat that must act gets a request (``view``, ``legal_actions``, ``seat``, and ``None`` for
``clock_ms`` and ``deadline_ms``) and its answer is checked by the engine. The first
``opening_plies`` actions are drawn uniformly with the opening's own generator (the same for
every seating of a line-up), so deterministic bots still meet many different positions and
every seating plays the same openings (and, with chance, the same deals: the match seed is
the opening's).
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from engine.core import Game
from engine.match import Match, random_policy, request_fields
from engine.rng import Rng, seed_from_text


def seatings(lineup: Sequence[str]) -> list[tuple[str, ...]]:
    """Every distinct seat permutation of a line-up, sorted (``a,b,b`` has three)."""
    return sorted(set(itertools.permutations(lineup)))


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion (95% with the default ``z``)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0 ≤ q ≤ 1) by linear interpolation; ``nan`` when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def derive_seed(*parts: object) -> int:
    """A stable 64-bit seed from any parts (their text joined by ``/``)."""
    return seed_from_text("/".join(str(p) for p in parts))


@dataclass
class MatchResult:
    """One finished match: ``ranks`` per seat (0 = first; all 0 = draw), the ``reason``, the
    number of ``turns`` (actions applied, opening included) and each seat's decision times in
    seconds (opening plies excluded): wall-clock ``times`` and the deciding thread's CPU
    ``cpu_times`` (what the bot itself spent, whatever else the machine was doing)."""

    ranks: tuple[int, ...]
    reason: str
    turns: int
    times: list[list[float]] = field(default_factory=list)
    cpu_times: list[list[float]] = field(default_factory=list)

    @property
    def is_draw(self) -> bool:
        return all(r == 0 for r in self.ranks)


def play_match(game: Game, players: Sequence[Any], *, seed: int, opening_plies: int = 0,
               max_turns: int = 100_000,
               on_decision: Callable[[int, Any, float, float], None] | None = None,
               options: Mapping[str, Any] | None = None) -> MatchResult:
    """Play one match: ``players[seat].choose(request)`` after ``opening_plies`` random
    actions. ``on_decision(seat, bot, wall_seconds, cpu_seconds)`` is called after each timed
    decision; ``options`` are the game's (its defaults fill the rest)."""
    match = Match(game, len(players), options, seed=seed)
    match.advance()
    opening = random_policy(Rng(derive_seed(seed, "opening")))
    times: list[list[float]] = [[] for _ in players]
    cpu_times: list[list[float]] = [[] for _ in players]
    turns = 0
    clock = time.perf_counter
    cpu_clock = time.thread_time
    while not match.is_over:
        if turns >= max_turns:
            raise RuntimeError(f"{game.info.name}: no result after {max_turns} turns")
        for seat in match.awaiting():
            choices = match.choices(seat)
            if turns < opening_plies:
                action = opening({}, choices, seat)
            else:
                request = {"type": "request", "match_id": f"bench-{seed}",
                           "request_id": str(turns), "seat": seat, "view": match.view(seat),
                           **request_fields(game, match.state, seat, choices),
                           "clock_ms": None, "deadline_ms": None}
                start, cpu_start = clock(), cpu_clock()
                action = players[seat].choose(request)
                spent, cpu = clock() - start, cpu_clock() - cpu_start
                times[seat].append(spent)
                cpu_times[seat].append(cpu)
                if on_decision is not None:
                    on_decision(seat, players[seat], spent, cpu)
            match.submit(seat, action)
            if match.is_over:
                break
        turns += 1
    outcome = match.outcome
    assert outcome is not None
    return MatchResult(outcome.ranks, outcome.reason, turns, times, cpu_times)


class Progress:
    """A one-line progress bar on stderr: ``[####....] done/total  rate  ETA``. Redraws in
    place on a terminal; elsewhere prints a line every ``every`` percent."""

    def __init__(self, total: int, label: str = "", out: TextIO | None = None,
                 every: int = 10) -> None:
        self.total = max(total, 1)
        self.label = label
        self.out = out or sys.stderr
        self.tty = self.out.isatty()
        self.start = time.monotonic()
        self.every = every
        self._last_step = -1
        self.done = 0

    def advance(self, n: int = 1, note: str = "") -> None:
        self.done += n
        step = self.done * 100 // self.total
        if not self.tty and step // self.every == self._last_step // self.every \
                and self.done < self.total:
            return
        self._last_step = step
        elapsed = time.monotonic() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else float("inf")
        width = 30
        filled = width * self.done // self.total
        bar = "#" * filled + "." * (width - filled)
        line = (f"{self.label} [{bar}] {self.done}/{self.total}  {rate:.1f}/s  "
                f"ETA {_clock(eta)} {note}").rstrip()
        if self.tty:
            print("\r" + line, end="", file=self.out, flush=True)
            if self.done >= self.total:
                print(file=self.out)
        else:
            print(line, file=self.out, flush=True)


def _clock(seconds: float) -> str:
    if seconds == float("inf"):
        return "--:--"
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else \
        f"{s // 60:02d}:{s % 60:02d}"


def format_table(rows: Sequence[Sequence[str]], right: Sequence[bool] | None = None) -> str:
    """Fixed-width text table; the first row is the header (underlined)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    right = right or [False] * len(widths)
    lines = []
    for n, row in enumerate(rows):
        cells = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(row, widths, right,
                                                                     strict=True)]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
