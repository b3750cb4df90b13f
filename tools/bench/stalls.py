"""Where a latency tail comes from: an event loop's stalls and the collector's pauses.

:class:`Stalls` runs in a server or load-generator process while a bench counts. It records

* the event loop's lag: a task asks to wake every ``tick_s`` and notes how late it woke
  (a callback that holds the loop for 20 ms shows up as a 20 ms lag; the samples are spread
  over time, not over messages, so their p99 is "the loop was that late 1% of the time");
* every pause of the cyclic garbage collector (``gc.callbacks``), by generation.

:meth:`Stalls.report` gives both as plain figures for a bench's JSON, :func:`describe` in
one line.
"""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any


class Stalls:
    def __init__(self, tick_s: float = 0.005) -> None:
        self.tick_s = tick_s
        self.lags: list[float] = []
        self.gc_pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._gc_started = 0.0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start recording (again from nothing)."""
        self.stop()
        self.lags.clear()
        for pauses in self.gc_pauses.values():
            pauses.clear()
        gc.callbacks.append(self._on_gc)
        self._task = asyncio.get_running_loop().create_task(self._tick())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)

    async def _tick(self) -> None:
        clock, tick = time.perf_counter, self.tick_s
        while True:
            asked = clock()
            await asyncio.sleep(tick)
            self.lags.append(clock() - asked - tick)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.gc_pauses[info["generation"]].append(time.perf_counter() - self._gc_started)

    def report(self) -> dict[str, Any]:
        lags = sorted(self.lags)

        def pct(p: float) -> float:
            return round(lags[min(len(lags) - 1, int(p * len(lags)))] * 1000, 3) if lags else 0.0

        return {"loop_lag_ms": {"p50": pct(0.5), "p99": pct(0.99), "max": pct(1.0),
                                "samples": len(lags)},
                "gc": {f"gen{generation}": {"count": len(pauses),
                                            "total_ms": round(sum(pauses) * 1000, 2),
                                            "max_ms": round(max(pauses, default=0.0) * 1000, 2)}
                       for generation, pauses in self.gc_pauses.items()}}


def describe(report: dict[str, Any]) -> str:
    """A :meth:`Stalls.report` in one line: the loop's lag and the collector's pauses."""
    lag = report["loop_lag_ms"]
    pauses = ", ".join(f"{g['count']} of gen {n} (max {g['max_ms']:.1f} ms)"
                       for n, g in enumerate(report["gc"].values()) if g["count"])
    return (f"loop lag p99 {lag['p99']:.2f} ms (max {lag['max']:.1f}), "
            f"gc pauses: {pauses or 'none'}")
