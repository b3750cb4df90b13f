"""A Boundary position as one side's bots read it from a view, and the shared vocabulary of
the rule book's bots (rules §11.1): ``nearest``, ``step``, ``clampF``, ``MOVE``,
``TRANSLATE``, ``FLANK``, ``PREDICT``, ``ALLYPOINT``.

Everything is integer and deterministic; ties go to the smallest id.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

Point = tuple[int, int]
Plan = dict[int, Point]

FIELD = 800
FLANK_OFFSET = 10
"""``o``: how far apart the members of a hunting blob spread across the line of approach."""


def d2(a: Point, b: Point) -> int:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2


def clamp_field(p: Point) -> Point:
    """``clampF``: both coordinates into the field."""
    return (min(FIELD - 1, max(0, p[0])), min(FIELD - 1, max(0, p[1])))


def _sgn(v: int) -> int:
    return (v > 0) - (v < 0)


def scaled(vector: Point, length: int) -> Point:
    """``vector`` scaled to about ``length`` px, truncated toward zero (never longer)."""
    dx, dy = vector
    big = math.isqrt(65536 * (dx * dx + dy * dy)) + 1
    return (_sgn(dx) * (length * abs(dx) * 256 // big), _sgn(dy) * (length * abs(dy) * 256 // big))


def step(frm: Point, to: Point, r: int) -> Point:
    """``to`` if it is within ``r`` px of ``frm``, else the point about ``r`` px from ``frm``
    toward ``to`` (truncation keeps it within ``r``)."""
    if d2(frm, to) <= r * r:
        return to
    dx, dy = scaled((to[0] - frm[0], to[1] - frm[1]), r)
    return (frm[0] + dx, frm[1] + dy)


def centroid(points: Iterable[Point]) -> Point:
    pts = list(points)
    return (sum(p[0] for p in pts) // len(pts), sum(p[1] for p in pts) // len(pts))


def nearest(origin: Point, candidates: Mapping[int, Point]) -> int | None:
    """The candidate id nearest ``origin`` (ties: smallest id), or ``None``."""
    best: int | None = None
    best_d = 0
    for key in sorted(candidates):
        d = d2(origin, candidates[key])
        if best is None or d < best_d:
            best, best_d = key, d
    return best


@dataclass
class World:
    """What a view says, shaped for planning. ``team`` is the side whose plan is being made
    (a shadow plans for the opponent with ``team`` swapped)."""

    team: int
    turn: int
    count: int                                  # pieces per side
    move_radius: int                            # M1
    pos: dict[int, Point]                       # living pieces
    prev: dict[int, Point]
    blobs: list[tuple[int, ...]]                # sorted by id
    treasures: dict[int, tuple[int, int, int]]  # id -> (x, y, value), those left
    scores: tuple[int, int]

    @classmethod
    def from_view(cls, view: Mapping[str, Any], team: int) -> World:
        options = view["options"]
        pos = {p["id"]: (p["x"], p["y"]) for p in view["pieces"]}
        prev = {p["id"]: (p["prev"][0], p["prev"][1]) for p in view["pieces"]}
        blobs = sorted(tuple(b["members"]) for b in view["blobs"])
        treasures = {t["id"]: (t["x"], t["y"], t["value"]) for t in view["treasures"]}
        return cls(team, view["turn"], options["pieces"], options["move_radius"], pos, prev,
                   blobs, treasures, (view["scores"][0], view["scores"][1]))

    @classmethod
    def from_board(cls, board: Any, team: int) -> World:
        """The world of a simulated position (:class:`engine.boundary.Board`)."""
        pos = {p: xy for p, xy in enumerate(board.pos) if xy is not None}
        prev = {p: board.prev[p] or pos[p] for p in pos}
        treasures = {t: board.treasures[t] for t in board.treasures_left()}
        return cls(team, board.turn, board.params.pieces, board.params.move_radius, pos, prev,
                   sorted(board.blobs), treasures, (board.scores[0], board.scores[1]))

    def as_team(self, team: int) -> World:
        return World(team, self.turn, self.count, self.move_radius, self.pos, self.prev,
                     self.blobs, self.treasures, self.scores)

    # ---- who is where -------------------------------------------------------------------

    def team_of(self, piece: int) -> int:
        return 0 if piece < self.count else 1

    def own(self) -> list[int]:
        return sorted(p for p in self.pos if self.team_of(p) == self.team)

    def enemy(self) -> list[int]:
        return sorted(p for p in self.pos if self.team_of(p) != self.team)

    def own_blobs(self) -> list[tuple[int, ...]]:
        return [b for b in self.blobs if self.team_of(b[0]) == self.team]

    def enemy_blobs(self) -> list[tuple[int, ...]]:
        return [b for b in self.blobs if self.team_of(b[0]) != self.team]

    def blob_of(self, piece: int) -> tuple[int, ...]:
        return next(b for b in self.blobs if piece in b)

    def size(self, piece: int) -> int:
        return len(self.blob_of(piece))

    def reach(self, piece: int) -> int:
        return self.move_radius * self.size(piece)

    def centroid(self, blob: tuple[int, ...]) -> Point:
        return centroid(self.pos[p] for p in blob)

    def treasure_points(self) -> dict[int, Point]:
        return {t: (x, y) for t, (x, y, _v) in self.treasures.items()}

    def treasure_value_left(self) -> int:
        return sum(v for _x, _y, v in self.treasures.values())

    def predict(self, piece: int) -> Point:
        """``PREDICT``: inertia, the same displacement as last turn."""
        (x, y), (px, py) = self.pos[piece], self.prev.get(piece, self.pos[piece])
        return clamp_field((2 * x - px, 2 * y - py))


class PlanBuilder:
    """A plan being built, with the rule book's movement verbs."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.plan: Plan = {}

    def ally_point(self, ally: int) -> Point:
        """``ALLYPOINT``: where the ally is going if already planned, else where it is."""
        return self.plan.get(ally, self.world.pos[ally])

    def move(self, piece: int, target: Point) -> None:
        """``MOVE``: toward ``target`` as far as the piece may go this turn."""
        self.plan[piece] = clamp_field(step(self.world.pos[piece], target,
                                            self.world.reach(piece)))

    def translate(self, blob: tuple[int, ...], target: Point) -> None:
        """``TRANSLATE``: the whole blob moves toward ``target``, keeping its formation."""
        world = self.world
        c = world.centroid(blob)
        moved = step(c, target, world.move_radius * len(blob))
        dx, dy = moved[0] - c[0], moved[1] - c[1]
        for m in blob:
            x, y = world.pos[m]
            self.plan[m] = clamp_field((x + dx, y + dy))

    def flank(self, blob: tuple[int, ...], aim: Point, offset: int = FLANK_OFFSET) -> None:
        """``FLANK``: members spread across the line of approach, alternating sides."""
        world = self.world
        c = world.centroid(blob)
        u = (aim[0] - c[0], aim[1] - c[1])
        if u == (0, 0):
            u = (1, 0)
        q = (-u[1], u[0])
        n = len(blob)
        for k, m in enumerate(sorted(blob)):
            if n == 1 or (n == 3 and k == 2):
                magnitude, side = 0, 1
            elif n == 2 or n == 3:
                magnitude, side = offset, (1 if k == 0 else -1)
            else:
                magnitude, side = offset * (1 + k // 2), (1 if k % 2 == 0 else -1)
            if magnitude:
                ox, oy = scaled(q, magnitude)
                target = (aim[0] + side * ox, aim[1] + side * oy)
            else:
                target = aim
            self.move(m, target)


def plan_action(world: World, plan: Plan) -> dict[str, Any]:
    """The wire action of a plan (moves that go nowhere left out)."""
    moves = {str(p): [x, y] for p, (x, y) in sorted(plan.items()) if world.pos.get(p) != (x, y)}
    return {"turn": world.turn, "moves": moves}
