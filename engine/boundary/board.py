"""The fast core: a mutable Boundary position and the resolution of a turn (rules §8.3).

:class:`Board` holds what the rules need (positions, blobs, treasures, scores, the turn)
as plain lists; :mod:`engine.boundary.game` converts it to and from the JSON state. The
bots and the benchmarks use it directly.

A turn: every piece walks from its start ``S`` to its target ``T`` along the rounded
straight segment, one king step per tick (``N = ceil(|T − S|)`` ticks, position after tick
``k`` = ``S + rdiv(k·Δ, N)``). Each tick moves every living piece, takes one influence
snapshot, checks every piece, then every treasure, against it, applies all captures at
once, regroups the blobs and checks for the end. Nothing depends on the order in which
pieces or blobs are processed.

Only the cells that a check can read are coloured, and only for the checks that can succeed:
a piece is checked only if some enemy piece is within ``45 + R(n)`` pixels of it (no enemy
colour can reach its rays otherwise, and walls alone give at most 3 sides), a treasure only if
some piece is within ``R(n) + 3`` pixels. Both bounds are loose by a margin, so the result is
the rule book's exactly (``tests/boundary`` compares it with checking everything).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.boundary.blobs import Blob, regroup
from engine.boundary.capture import captured, surround_counts, treasure_owners
from engine.boundary.influence import Blobs
from engine.boundary.params import (
    DIRECTIONS,
    HEIGHT,
    RAY,
    SURROUND,
    WALL_CAP,
    WIDTH,
    Params,
)
from engine.boundary.setup import Layout

Point = tuple[int, int]

TREASURES = "treasures"
ELIMINATION = "elimination"
TURN_LIMIT = "turn_limit"

_PIECE_MARGIN = 45   # px beyond R(n): 30·√2 ray reach + half a cell + EXP rounding, rounded up
_TREASURE_MARGIN = 3  # px beyond R(n): a neighbour pixel's diagonal + half a cell + rounding


_RAY_START = np.array(DIRECTIONS, dtype=np.float64)              # pixel 1 of each ray
_RAY_SPAN = (RAY - 1) * _RAY_START                                # pixel 1 → pixel 30
_RAY_END = RAY * np.array(DIRECTIONS, dtype=np.int64)


def _enough_sides(xy: NDArray[np.int64], rows: NDArray[np.intp],
                  enemies: NDArray[np.bool_], reach: NDArray[np.int64]) -> NDArray[np.bool_]:
    """For the pieces ``xy[rows]``: whether the rays that pass within ``reach[e]`` of some
    enemy ``e``, plus at most 3 walls, could make 6 sides (a sound upper bound of the
    surround count; the margin of ``reach`` dwarfs any float rounding here)."""
    origin = xy[rows].astype(np.float64)                           # (S, 2)
    start = origin[:, None, :] + _RAY_START[None, :, :]             # (S, 8, 2)
    rel = xy.astype(np.float64)[None, None, :, :] - start[:, :, None, :]   # (S, 8, L, 2)
    span = _RAY_SPAN[None, :, None, :]
    along = np.clip((rel * span).sum(axis=3) / (span * span).sum(axis=3), 0.0, 1.0)
    gap = rel - along[..., None] * span
    close = (gap * gap).sum(axis=3) <= (reach * reach).astype(np.float64)[None, None, :]
    possible = (close & enemies[rows][:, None, :]).any(axis=2).sum(axis=1)   # (S,)
    ends = xy[rows][:, None, :] + _RAY_END[None, :, :]              # (S, 8, 2)
    walls = ((ends < 0) | (ends >= np.array([WIDTH, HEIGHT]))).any(axis=2).sum(axis=1)
    return possible + np.minimum(WALL_CAP, walls) >= SURROUND


def rdiv(a: int, b: int) -> int:
    """``a / b`` rounded half away from zero (``b > 0``)."""
    q = (2 * abs(a) + b) // (2 * b)
    return q if a >= 0 else -q


def steps_to(start: Point, target: Point) -> int:
    """``N = ceil(|target − start|)``, exactly."""
    q = (target[0] - start[0]) ** 2 + (target[1] - start[1]) ** 2
    r = math.isqrt(q)
    return r if r * r == q else r + 1


def position_at(start: Point, target: Point, steps: int, tick: int) -> Point:
    """Where a piece walking ``start → target`` in ``steps`` ticks is after ``tick``."""
    if tick >= steps:
        return target
    return (start[0] + rdiv(tick * (target[0] - start[0]), steps),
            start[1] + rdiv(tick * (target[1] - start[1]), steps))


def on_field(x: int, y: int) -> bool:
    return 0 <= x < WIDTH and 0 <= y < HEIGHT


@dataclass
class Board:
    """A position. ``pos[p]`` is ``None`` once piece ``p`` is captured; ``blobs`` are sorted
    member tuples of living pieces; ``taken[t]`` is ``None`` while treasure ``t`` lies on
    the field, else ``(team, turn, tick)``; ``prev`` are the positions at the start of the
    previous turn (the inertia the rule book's bots assume); ``result`` is the reason the
    game ended, or ``None``."""

    params: Params
    pos: list[Point | None]
    prev: list[Point | None]
    blobs: list[Blob]
    treasures: list[tuple[int, int, int]]
    taken: list[tuple[int, int, int] | None]
    scores: list[int] = field(default_factory=lambda: [0, 0])
    turn: int = 0
    result: str | None = None
    lost: list[tuple[int, int] | None] = field(default_factory=list)

    # ---- construction -----------------------------------------------------------------

    @classmethod
    def from_layout(cls, params: Params, layout: Layout) -> Board:
        pos: list[Point | None] = list(layout.pieces)
        board = cls(params, pos, list(pos), [(p,) for p in range(len(pos))],
                    list(layout.treasures), [None] * len(layout.treasures))
        board.lost = [None] * len(pos)
        board.regroup()
        return board

    def copy(self) -> Board:
        return Board(self.params, list(self.pos), list(self.prev), list(self.blobs),
                     list(self.treasures), list(self.taken), list(self.scores), self.turn,
                     self.result, list(self.lost))

    # ---- queries ----------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.result is not None

    def team_of(self, piece: int) -> int:
        return self.params.team_of(piece)

    def living(self, team: int | None = None) -> list[int]:
        pieces = range(len(self.pos)) if team is None else self.params.team_pieces(team)
        return [p for p in pieces if self.pos[p] is not None]

    def blob_of(self) -> dict[int, Blob]:
        """Piece id → its blob."""
        return {p: blob for blob in self.blobs for p in blob}

    def sizes(self) -> dict[int, int]:
        """Piece id → its blob's size (living pieces)."""
        return {p: len(blob) for blob in self.blobs for p in blob}

    def reach(self, piece: int) -> int:
        """How far ``piece`` may be sent this turn: ``M(n)`` of its blob now."""
        size = next(len(b) for b in self.blobs if piece in b)
        return self.params.move_reach(size)

    def treasures_left(self) -> list[int]:
        return [t for t, taken in enumerate(self.taken) if taken is None]

    def snapshot(self) -> Blobs:
        return Blobs.of(self._points(), self.blobs, [self.team_of(p) for p in range(len(self.pos))])

    def surround_count(self, piece: int) -> int:
        """The surround count of a living piece in the current position (rules §6.1)."""
        point = self.pos[piece]
        if point is None:
            raise ValueError(f"piece {piece} has been captured")
        return surround_counts([(point[0], point[1], self.team_of(piece))], self.snapshot(),
                               self.params.influence_radius)[0]

    def _points(self) -> list[Point]:
        return [p if p is not None else (0, 0) for p in self.pos]

    # ---- rules ------------------------------------------------------------------------

    def regroup(self) -> list[dict[str, Any]]:
        """Regroup the blobs (rules §7.2); the merge and split events (without a tick)."""
        params = self.params
        outcome = regroup(self.blobs, self._points(), params.team_of, params.merge_distance,
                          params.split_distance)
        self.blobs = list(outcome.blobs)
        events: list[dict[str, Any]] = []
        for blob, parts in outcome.splits:
            events.append({"kind": "split", "team": params.team_of(blob[0]),
                           "blob": list(blob), "into": [list(p) for p in parts]})
        for parts, merged in outcome.merges:
            events.append({"kind": "merge", "team": params.team_of(merged[0]),
                           "blobs": [list(p) for p in parts], "into": list(merged)})
        return events

    def resolve(self, plans: Mapping[int, Point]) -> tuple[int, list[dict[str, Any]]]:
        """Play the turn with ``plans`` (piece id → target; both teams' plans together,
        already validated) and return ``(ticks, events)``; events carry their tick."""
        params = self.params
        starts = {p: pt for p, pt in enumerate(self.pos) if pt is not None}
        walks: dict[int, tuple[Point, Point, int]] = {}
        for p, start in starts.items():
            target = plans.get(p, start)
            if target != start:
                walks[p] = (start, target, steps_to(start, target))
        ticks = max([1, *(steps for _, _, steps in walks.values())])
        self.prev = [starts.get(p) for p in range(len(self.pos))]
        events: list[dict[str, Any]] = []
        for tick in range(1, ticks + 1):
            moved = False
            for p, (start, target, steps) in list(walks.items()):
                if self.pos[p] is None:
                    del walks[p]
                    continue
                if tick <= steps:
                    self.pos[p] = position_at(start, target, steps, tick)
                    moved = True
            tick_events = self._captures(tick)
            if moved or tick_events:
                tick_events.extend({"tick": tick, **event} for event in self.regroup())
            events.extend(tick_events)
            if self._ended():
                return tick, events
        self.turn += 1
        if self.turn >= params.turn_limit:
            self.result = TURN_LIMIT
        return ticks, events

    def _ended(self) -> bool:
        """Checked after every tick (rules §10): the turn's remaining movement is dropped."""
        if not self.treasures_left():
            self.result = TREASURES
        elif not self.living(0) or not self.living(1):
            self.result = ELIMINATION
        else:
            return False
        self.turn += 1
        return True

    def candidates(self) -> tuple[list[int], list[int]]:
        """The pieces and treasures that could be captured now. Every other check would
        fail, so skipping it changes nothing (``tests/boundary`` plays games with every
        check made and compares):

        * a piece needs an enemy piece within ``45 + R(n)`` px (no enemy colour reaches its
          rays otherwise), and enough sides that could count: a ray can be enemy-held only
          if it passes within ``R(n) + 2`` px of an enemy piece of a blob of ``n`` (a cell
          coloured by a team lies within its closest blob's radius of one of that blob's
          pieces: a geometric mean is never below its smallest factor), walls give at most
          3, so fewer than 6 such rays plus walls cannot capture;
        * a treasure needs a piece within ``R(n) + 3`` px."""
        params = self.params
        living = [p for p, pt in enumerate(self.pos) if pt is not None]
        xy = np.array([self.pos[p] for p in living], dtype=np.int64)
        team = np.array([self.team_of(p) for p in living], dtype=np.int64)
        sizes = self.sizes()
        radius = np.array([params.influence_reach(sizes[p]) for p in living], dtype=np.int64)
        # Pieces with an enemy close enough for its colour to reach their rays.
        diff = xy[:, None, :] - xy[None, :, :]
        d2 = (diff * diff).sum(axis=2)
        reach = _PIECE_MARGIN + radius
        enemies = team[:, None] != team[None, :]
        near = (d2 <= (reach * reach)[None, :]) & enemies
        rows = np.flatnonzero(near.any(axis=1))
        suspects = []
        if rows.shape[0]:
            keep = _enough_sides(xy, rows, enemies, radius + 2)
            suspects = [living[i] for i in rows[keep].tolist()]
        left = self.treasures_left()
        spots: list[int] = []
        if left:
            txy = np.array([self.treasures[t][:2] for t in left], dtype=np.int64)
            tdiff = txy[:, None, :] - xy[None, :, :]
            treach = _TREASURE_MARGIN + radius
            close = ((tdiff * tdiff).sum(axis=2) <= (treach * treach)[None, :]).any(axis=1)
            spots = [left[i] for i in np.flatnonzero(close).tolist()]
        return suspects, spots

    def _captures(self, tick: int) -> list[dict[str, Any]]:
        """One snapshot, every check against it, every capture applied together."""
        params = self.params
        suspects, spots = self.candidates()
        if not suspects and not spots:
            return []
        snapshot = self.snapshot()
        events: list[dict[str, Any]] = []
        lost: list[int] = []
        if suspects:
            counts = surround_counts(
                [(*self.pos[p], self.team_of(p)) for p in suspects],  # type: ignore[misc]
                snapshot, params.influence_radius)
            lost = [p for p, count in zip(suspects, counts, strict=True) if captured(count)]
        owners = treasure_owners([self.treasures[t][:2] for t in spots], snapshot,
                                 params.influence_radius) if spots else []
        for p in lost:
            by = 1 - self.team_of(p)
            self.scores[by] += params.capture_points
            self.pos[p] = None
            self.lost[p] = (self.turn, tick)
            events.append({"tick": tick, "kind": "piece_captured", "piece": p, "by": by,
                           "points": params.capture_points})
        for t, owner in zip(spots, owners, strict=True):
            if owner is None:
                continue
            value = self.treasures[t][2]
            self.scores[owner] += value
            self.taken[t] = (owner, self.turn, tick)
            events.append({"tick": tick, "kind": "treasure_captured", "treasure": t,
                           "by": owner, "points": value})
        if lost:
            gone = set(lost)
            self.blobs = [kept for kept in (tuple(p for p in b if p not in gone)
                                            for b in self.blobs) if kept]
        return events

    def all_surround_counts(self) -> dict[int, int]:
        """Every living piece's surround count now, unpruned (tests compare the pruning)."""
        living = self.living()
        counts = surround_counts([(*self.pos[p], self.team_of(p))  # type: ignore[misc]
                                  for p in living], self.snapshot(),
                                 self.params.influence_radius)
        return dict(zip(living, counts, strict=True))


def plan_points(moves: Mapping[str, Sequence[int]]) -> dict[int, Point]:
    """A plan's ``moves`` object as piece id → target."""
    return {int(p): (int(xy[0]), int(xy[1])) for p, xy in moves.items()}
