"""Captures (rules §6): the surround count of a piece and the treasure check, read from one
influence snapshot.

A piece's 8 rays are the pixels ``(x + j·dx, y + j·dy)``, ``j = 1..30``. A ray stops at the
first pixel outside the field (it *met a wall*). It is *enemy-held* if 3 consecutive examined
pixels have the enemy's colour; its *end is friendly* if pixel 30 was reached and has the
piece's own colour. ``count = enemy-held + min(3, walls not enemy-held) − friendly ends``;
``count ≥ 6`` captures. A treasure goes to a team owning at least 6 of its 8 neighbouring
pixels.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from engine.boundary.influence import Blobs, IntArray, cell_colours
from engine.boundary.params import COLUMNS, DIRECTIONS, HEIGHT, RAY, RUN, SURROUND, WALL_CAP, WIDTH

WALL = 3
_DIRS = np.array(DIRECTIONS, dtype=np.int64)                 # (8, 2)
_STEPS = np.arange(1, RAY + 1, dtype=np.int64)               # (30,)
_NEIGHBOURS = np.array([(dx, dy) for dx, dy in DIRECTIONS], dtype=np.int64)


def _pixel_colours(px: IntArray, py: IntArray, blobs: Blobs, influence_radius: int
                   ) -> IntArray:
    """The colour of each pixel (any shape; off-field pixels are WALL), each distinct cell
    computed once."""
    on = (px >= 0) & (px < WIDTH) & (py >= 0) & (py < HEIGHT)
    out = np.full(px.shape, WALL, dtype=np.int64)
    cells = (py[on] // 2) * COLUMNS + px[on] // 2
    unique, back = np.unique(cells, return_inverse=True)
    colours = cell_colours(unique % COLUMNS, unique // COLUMNS, blobs, influence_radius)
    out[on] = colours[back]
    return out


def surround_counts(pieces: Sequence[tuple[int, int, int]], blobs: Blobs,
                    influence_radius: int) -> list[int]:
    """The surround count of each ``(x, y, team)`` against the snapshot of ``blobs``."""
    if not pieces:
        return []
    xyt = np.array(pieces, dtype=np.int64)                    # (P, 3)
    px = xyt[:, 0, None, None] + _DIRS[None, :, 0, None] * _STEPS[None, None, :]
    py = xyt[:, 1, None, None] + _DIRS[None, :, 1, None] * _STEPS[None, None, :]
    colours = _pixel_colours(px, py, blobs, influence_radius)  # (P, 8, 30)
    team = xyt[:, 2, None, None]
    wall = colours == WALL
    # A ray stops at its first wall pixel: nothing from there on is examined.
    met_wall = wall.any(axis=2)
    examined = ~np.logical_or.accumulate(wall, axis=2)
    enemy = (colours == 1 - team) & examined
    run = enemy[:, :, :RAY - RUN + 1]
    for r in range(1, RUN):
        run = run & enemy[:, :, r:RAY - RUN + 1 + r]
    held = run.any(axis=2)
    friendly_end = (colours[:, :, RAY - 1] == team[:, :, 0]) & ~met_wall
    walls = np.minimum(WALL_CAP, (met_wall & ~held).sum(axis=1))
    counts = held.sum(axis=1) + walls - friendly_end.sum(axis=1)
    return [int(c) for c in counts.tolist()]


def captured(count: int) -> bool:
    return count >= SURROUND


def treasure_owners(spots: Sequence[tuple[int, int]], blobs: Blobs, influence_radius: int
                    ) -> list[int | None]:
    """For each treasure at ``(x, y)``: the team owning at least 6 of its 8 neighbouring
    pixels, or ``None`` (off-field neighbours count for nobody)."""
    if not spots:
        return []
    xy = np.array(spots, dtype=np.int64)
    px = xy[:, 0, None] + _NEIGHBOURS[None, :, 0]
    py = xy[:, 1, None] + _NEIGHBOURS[None, :, 1]
    colours = _pixel_colours(px, py, blobs, influence_radius)
    owners: list[int | None] = []
    for row in colours.tolist():
        owner = None
        for team in (0, 1):
            if row.count(team) >= SURROUND:
                owner = team
        owners.append(owner)
    return owners


def colours_at(pixels: NDArray[np.int64], blobs: Blobs, influence_radius: int) -> IntArray:
    """Colours of ``(N, 2)`` pixels (tools and tests)."""
    return _pixel_colours(pixels[:, 0], pixels[:, 1], blobs, influence_radius)
