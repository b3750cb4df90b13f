"""Barca's fast cores timed side by side (``arena bench engine --game barca``).

The same work on the from-scratch generator (:class:`engine.barca.Position`) and on the
incremental update of rules §12.6 (:class:`engine.barca.incremental.IncrementalPosition`):

* perft(4) from the start (3,046,014 leaves; one run is one operation of a few seconds);
* seeded random playouts (``legal_moves`` then ``apply``, to the game's end);
* the same playouts reading, at every position, both sides' move sets and statuses — what the
  evaluation of §12.2 reads at each leaf of a search.

Each incremental workload names its scratch twin as its baseline, and ``arena bench engine``
quotes the ratio of their medians (incremental / scratch, above 1 when incremental is faster).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable
from typing import Any

from engine.barca.incremental import IncrementalPosition
from engine.barca.position import Position, perft
from tools.bench.engine import ComparedWorkload
from tools.bench.measure import Operation, Workload

PERFT_DEPTH = 4
PERFT_NODES = 3_046_014
"""perft(4) from the start (rules §10)."""

Core = type[Position]


def playout(core: Core, seed: int, *, read_both_sides: bool = False) -> int:
    """One random game on ``core`` from the start, moves drawn by ``random.Random(seed)`` (so
    both cores play the same game); returns its length in plies. With ``read_both_sides``,
    each position's move sets and statuses of both sides are read first."""
    rng = random.Random(seed)
    pos = core.start()
    plies = 0
    while pos.result is None:
        if read_both_sides:
            for side in (0, 1):
                pos.moves(side)
                pos.statuses(side)
        moves = pos.legal_moves()
        pos.apply(moves[int(rng.random() * len(moves))])
        plies += 1
    return plies


def _perft(core: Core) -> Callable[[], Operation]:
    def make() -> Operation:
        def one() -> int:
            nodes = perft(core.start(), PERFT_DEPTH)
            if nodes != PERFT_NODES:  # a wrong core must not be timed as a fast one
                raise AssertionError(f"perft({PERFT_DEPTH}) = {nodes}, not {PERFT_NODES}")
            return 1
        return one
    return make


def _playouts(core: Core, read_both_sides: bool = False) -> Callable[[], Operation]:
    def make() -> Operation:
        seeds = iter(range(1 << 62))
        return lambda: playout(core, next(seeds), read_both_sides=read_both_sides) >= 0
    return make


def _reading_playouts(core: Core) -> Callable[[], Operation]:
    return _playouts(core, read_both_sides=True)


def workloads() -> list[Workload]:
    """Each timing on the scratch core, then on the incremental one (compared with it)."""
    lengths = [playout(Position, seed) for seed in range(20)]
    mean_plies = {"mean plies per game (seeds 0-19)": round(statistics.mean(lengths), 1)}
    kinds: tuple[tuple[str, str, Callable[[Core], Callable[[], Operation]], dict[str, Any]],
                 ...] = (
        (f"perft({PERFT_DEPTH}) from the start", f"perft({PERFT_DEPTH})/s", _perft,
         {"leaves": PERFT_NODES}),
        ("random playouts", "games/s", _playouts, mean_plies),
        ("random playouts reading both sides' moves and statuses", "games/s",
         _reading_playouts, mean_plies),
    )
    out: list[Workload] = []
    for what, unit, make, details in kinds:
        scratch = f"barca: {what}, scratch core"
        out.append(ComparedWorkload(scratch, unit, make(Position), dict(details)))
        out.append(ComparedWorkload(f"barca: {what}, incremental core", unit,
                                    make(IncrementalPosition), dict(details), scratch))
    return out
