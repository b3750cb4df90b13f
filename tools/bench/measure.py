"""Shared machinery of the benchmarks: a timing loop, medians, tables, JSON, progress.

A :class:`Workload` is measured ``repeat`` times; each run calls a fresh operation (so every run
does the same work from the same seeds) in a loop for ``seconds`` of wall-clock time and
counts the units it completed. The rate of a run is units per second; a result reports the
median, minimum and maximum rate over the runs (a median because a shared 2-core machine has
noisy neighbours: one slow run must not move the figure).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from server.commands.arguments import non_negative_float, positive_float, positive_int

Operation = Callable[[], int]
"""One batch of work; returns how many units (games, proofs, …) it completed."""


@dataclass(frozen=True)
class Workload:
    """Something to time. ``make()`` returns a fresh :data:`Operation` for each run."""

    name: str
    unit: str
    make: Callable[[], Operation]
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Result:
    name: str
    unit: str
    rates: tuple[float, ...]
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def median(self) -> float:
        return statistics.median(self.rates)

    @property
    def minimum(self) -> float:
        return min(self.rates)

    @property
    def maximum(self) -> float:
        return max(self.rates)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "unit": self.unit, "median": self.median,
                "min": self.minimum, "max": self.maximum, "runs": list(self.rates),
                **({"details": self.details} if self.details else {})}


def add_common(p: argparse.ArgumentParser, *, repeat: int = 5, seconds: float = 2.0) -> None:
    """The options every benchmark shares."""
    p.add_argument("--repeat", type=positive_int, default=repeat,
                   help=f"timed runs per measurement; the median is reported (default {repeat})")
    p.add_argument("--seconds", type=positive_float, default=seconds,
                   help=f"wall-clock seconds per run (default {seconds})")
    p.add_argument("--warmup", type=non_negative_float, default=0.2,
                   help="untimed seconds before the runs (default 0.2)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


def run_for(operation: Operation, seconds: float) -> tuple[int, float]:
    """Call ``operation`` until ``seconds`` have passed (at least once): (units, elapsed)."""
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    units = 0
    while True:
        units += operation()
        now = clock()
        if now >= deadline:
            return units, now - start


def measure(workload: Workload, repeat: int, seconds: float, warmup: float = 0.0,
            progress: Callable[[str], None] | None = None) -> Result:
    """Time ``workload``: ``repeat`` runs of ``seconds`` each, after ``warmup`` seconds."""
    if repeat < 1 or seconds <= 0:
        raise ValueError("repeat must be >= 1 and seconds > 0")
    if warmup > 0:
        run_for(workload.make(), warmup)
    rates = []
    for n in range(repeat):
        units, elapsed = run_for(workload.make(), seconds)
        rates.append(units / elapsed)
        if progress is not None:
            progress(f"{workload.name}: run {n + 1}/{repeat}: {rates[-1]:,.1f} {workload.unit}")
    return Result(workload.name, workload.unit, tuple(rates), dict(workload.details))


def stderr_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def environment() -> dict[str, Any]:
    """What the figures were measured on."""
    return {"python": platform.python_version(), "implementation": platform.python_implementation(),
            "machine": platform.machine(), "cpus": os.cpu_count(), "system": platform.system()}


def format_rate(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:,.1f}"
    return f"{value:,.2f}"


def print_table(results: Sequence[Result], out: TextIO | None = None) -> None:
    """A fixed-width table: name, median, min, max, unit, and the median's time per unit."""
    out = out or sys.stdout  # looked up per call: tests and callers may redirect stdout
    rows = [("benchmark", "median", "min", "max", "unit", "per unit")]
    for r in results:
        per = 1 / r.median if r.median > 0 else float("inf")
        rows.append((r.name, format_rate(r.median), format_rate(r.minimum),
                     format_rate(r.maximum), r.unit, _duration(per)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:4], widths[1:4],
                                                                        strict=True)]
        cells += [row[4].ljust(widths[4]), row[5].rjust(widths[5])]
        print("  ".join(cells).rstrip(), file=out)
        if n == 0:
            print("  ".join("-" * w for w in widths), file=out)


def print_json(benchmark: str, results: Sequence[Result], settings: dict[str, Any],
               out: TextIO | None = None) -> None:
    out = out or sys.stdout
    print(json.dumps({"benchmark": benchmark, "settings": settings, "environment": environment(),
                      "results": [r.to_json() for r in results]}, indent=2), file=out)


def _duration(seconds: float) -> str:
    if seconds == float("inf"):
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.1f} {unit}"
    return f"{seconds / 1e-9:.0f} ns"
