"""The random start of a match (rules §4.2), drawn from SplitMix64 (:class:`engine.rng.Rng`,
the generator the rule book specifies in §9.6).

In the engine contract the start is one chance outcome: a *layout number* the driver draws
with the match's generator; :func:`layout` turns that number into positions and values with
its own SplitMix64 seeded by it, exactly as the rule book's setup does with a match seed
(its test vector: layout 1).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.boundary.params import (
    ALLY_MIN,
    EDGE_MARGIN,
    ENEMY_MIN,
    HEIGHT,
    SETUP_CANDIDATES,
    SETUP_RESTARTS,
    TP_MIN,
    TT_MIN,
    WIDTH,
    Params,
)
from engine.rng import Rng

LAYOUTS = 1 << 16
"""How many distinct starts a match draws from (the chance node's outcomes ``0..LAYOUTS-1``)."""

Point = tuple[int, int]


@dataclass(frozen=True)
class Layout:
    pieces: tuple[Point, ...]            # by piece id: team 0 first, then team 1
    treasures: tuple[tuple[int, int, int], ...]   # (x, y, value) by treasure id


class SetupFailed(RuntimeError):
    """No start satisfies the distance floors (only possible with extreme options)."""


def _far(p: Point, others: list[Point], limit: int) -> bool:
    x, y = p
    limit2 = limit * limit
    return all((x - ox) ** 2 + (y - oy) ** 2 >= limit2 for ox, oy in others)


def layout(number: int, params: Params) -> Layout:
    """The start drawn from ``Rng(number)`` (rules §4.2): pieces placed alternately (team 0's
    piece ``k``, then team 1's piece ``P+k``), then treasures with their values; any placement
    that exhausts its candidates restarts everything on the same stream."""
    rng = Rng(number)

    def candidate() -> Point:
        x = EDGE_MARGIN + rng.below(WIDTH - 2 * EDGE_MARGIN)
        y = EDGE_MARGIN + rng.below(HEIGHT - 2 * EDGE_MARGIN)
        return x, y

    def place(floors: list[tuple[list[Point], int]]) -> Point | None:
        """The first candidate at least ``limit`` from every point of each floor's list."""
        for _ in range(SETUP_CANDIDATES):
            p = candidate()
            if all(_far(p, points, limit) for points, limit in floors):
                return p
        return None

    count = params.pieces
    for _ in range(SETUP_RESTARTS):
        teams: tuple[list[Point], list[Point]] = ([], [])
        placed_all = True
        for _k in range(count):
            for team in (0, 1):
                allies, enemies = teams[team], teams[1 - team]
                p = place([(allies, ALLY_MIN), (enemies, ENEMY_MIN)])
                if p is None:
                    placed_all = False
                    break
                allies.append(p)
            if not placed_all:
                break
        if not placed_all:
            continue
        pieces = teams[0] + teams[1]
        treasures: list[tuple[int, int, int]] = []
        for _t in range(params.treasures):
            p = place([(pieces, TP_MIN), ([(x, y) for x, y, _v in treasures], TT_MIN)])
            if p is None:
                break
            treasures.append((p[0], p[1], 1 + rng.below(params.max_value)))
        else:
            return Layout(tuple(pieces), tuple(treasures))
    raise SetupFailed(f"no start found for layout {number} after {SETUP_RESTARTS} tries")
