"""Boundary's parameters (rules §2): the fixed constants and the per-match options.

A match's options are its frozen rule variant; ladder and lobby games use the defaults. The
field is always 800 × 800 pixels (400 × 400 influence cells), the size the exact tables of
:mod:`engine.boundary.tables` cover.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from engine.core import BadOptions

WIDTH: Final = 800
HEIGHT: Final = 800
CELL: Final = 2
COLUMNS: Final = WIDTH // CELL
ROWS: Final = HEIGHT // CELL

RAY: Final = 30            # capture scan length per direction, pixels
RUN: Final = 3             # consecutive enemy pixels that make a side enemy-held
SURROUND: Final = 6        # sides (of 8) that capture a piece; also the treasure threshold
WALL_CAP: Final = 3        # at most this many sides credited to walls
DIRECTIONS: Final = ((1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1))
"""E, NE, N, NW, W, SW, S, SE (``y`` grows downward)."""

EDGE_MARGIN: Final = 20
ALLY_MIN: Final = 60
ENEMY_MIN: Final = 100
TP_MIN: Final = 60
TT_MIN: Final = 40
SETUP_CANDIDATES: Final = 1000
SETUP_RESTARTS: Final = 100

DEFAULT_OPTIONS: Final[dict[str, int]] = {
    "pieces": 7,
    "treasures": 15,
    "max_value": 7,
    "capture_points": 30,
    "influence_radius": 20,
    "move_radius": 40,
    "turn_limit": 100,
}
"""The options a match may set (rules §2; every default is the rule book's)."""

_RANGES: Final[dict[str, tuple[int, int]]] = {
    "pieces": (1, 7),
    "treasures": (1, 15),
    "max_value": (1, 15),
    "capture_points": (0, 100),
    # R1 below ALLY_MIN / 2 keeps every piece alone at setup (MERGE(1) = 2·R1 < ALLY_MIN).
    "influence_radius": (10, 29),
    "move_radius": (10, 80),
    "turn_limit": (1, 100),
}


def check_options(options: Mapping[str, Any]) -> None:
    """Raise :class:`BadOptions` for a value outside its range."""
    for key, (low, high) in _RANGES.items():
        if not low <= options[key] <= high:
            raise BadOptions(f"{key} must be {low}–{high}", option=key)


@dataclass(frozen=True)
class Params:
    """The rules of one match. ``R(n) = R1·n``, ``M(n) = M1·n``, ``MERGE(n) = R1·(n+1)``,
    ``SPLIT(n) = R1·(n+2)`` (rules §2, §7.2)."""

    pieces: int = 7
    treasures: int = 15
    max_value: int = 7
    capture_points: int = 30
    influence_radius: int = 20
    move_radius: int = 40
    turn_limit: int = 100

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Params:
        return cls(**{key: int(options[key]) for key in DEFAULT_OPTIONS})

    def to_options(self) -> dict[str, int]:
        return {key: getattr(self, key) for key in DEFAULT_OPTIONS}

    def team_of(self, piece: int) -> int:
        return 0 if piece < self.pieces else 1

    def team_pieces(self, team: int) -> range:
        return range(team * self.pieces, (team + 1) * self.pieces)

    def move_reach(self, size: int) -> int:
        return self.move_radius * size

    def influence_reach(self, size: int) -> int:
        return self.influence_radius * size

    def merge_distance(self, size: int) -> int:
        return self.influence_radius * (size + 1)

    def split_distance(self, size: int) -> int:
        return self.influence_radius * (size + 2)
