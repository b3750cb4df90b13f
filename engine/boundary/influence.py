"""Influence: the colour of an influence cell (rules §5.3), vectorised with integer NumPy.

Every cell is coloured from the living pieces and their blobs by the rule book's integer
procedure, exactly: half-pixel squared distances ``s``, ``λ(s)`` from the exact table
(``floor(1024·log2 s)`` guessed in float64 and then settled against ``THRESH``, so the
result is the table's), blob scores ``Λ``, the closest blob per team by cross-multiplication
(ties to the smaller blob id), ``G = EXP[⌊Λ/n⌋]`` and the strict radius test. No float
reaches a decision.

Colours: :data:`TEAM0` (0), :data:`TEAM1` (1), :data:`NEUTRAL` (2).

:func:`cell_colours` colours any list of cells (what the capture checks read, rules §5.5);
:func:`colour_map` the whole 400 × 400 field for display, computing only the cells that can
be inside some team's radius (a cell more than ``R(n)`` pixels from every piece of a blob of
``n`` cannot be inside for that blob: a geometric mean is never below its smallest factor),
which gives the same colours as computing them all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.boundary.params import COLUMNS, ROWS
from engine.boundary.tables import S_MAX, tables

TEAM0 = 0
TEAM1 = 1
NEUTRAL = 2

IntArray = NDArray[np.int64]


@cache
def _arrays() -> tuple[IntArray, IntArray, NDArray[np.int16], NDArray[np.int32]]:
    t = tables()
    thresh = np.array(t.thresh, dtype=np.int64)
    # λ for every s the field can produce, in one flat table (10 MB, built in ~0.1 s): a
    # lookup is then one gather.
    flat = (np.searchsorted(thresh, np.arange(S_MAX + 1, dtype=np.int64), side="right")
            - 1).astype(np.int16)
    exp = np.array(t.exp, dtype=np.int64)
    return thresh, exp, flat, exp.astype(np.int32)


def lam(s: NDArray[np.integer[Any]]) -> NDArray[np.int32]:
    """``λ(s)`` for an array of integers ``1 ≤ s ≤ S_MAX``, exactly as the table defines it."""
    return _arrays()[2][s].astype(np.int32)


@dataclass(frozen=True)
class Blobs:
    """The living pieces as the influence rule sees them.

    ``x``/``y``: positions of the living pieces; ``blob``: each one's blob index into
    ``sizes``/``teams``/``ids`` (blobs ordered by id). Build with :meth:`of`."""

    x: IntArray
    y: IntArray
    blob: IntArray
    sizes: tuple[int, ...]
    teams: tuple[int, ...]
    ids: tuple[int, ...]

    @classmethod
    def of(cls, positions: Sequence[tuple[int, int]], blobs: Sequence[Sequence[int]],
           team_of: Sequence[int]) -> Blobs:
        """``positions`` by piece id; ``blobs``: member lists (living pieces only, each sorted,
        the lists in any order); ``team_of`` by piece id."""
        ordered = sorted(blobs, key=lambda members: members[0])
        xs: list[int] = []
        ys: list[int] = []
        index: list[int] = []
        for b, members in enumerate(ordered):
            for p in members:
                xs.append(positions[p][0])
                ys.append(positions[p][1])
                index.append(b)
        return cls(np.array(xs, dtype=np.int64), np.array(ys, dtype=np.int64),
                   np.array(index, dtype=np.int64), tuple(len(m) for m in ordered),
                   tuple(team_of[m[0]] for m in ordered), tuple(m[0] for m in ordered))


_SCALE = 420
"""lcm(1..7): ``Λ · (420 // n)`` is ``420 · Λ / n`` exactly for every blob size, so blob
scores compare as integers (the rule book's cross-multiplication, one blob at a time)."""


def cell_colours(ci: IntArray, cj: IntArray, blobs: Blobs, influence_radius: int) -> IntArray:
    """The colour of each cell ``(ci[k], cj[k])`` (``int64`` array of TEAM0/TEAM1/NEUTRAL)."""
    n_cells = ci.shape[0]
    out = np.full(n_cells, NEUTRAL, dtype=np.int64)
    if n_cells == 0 or blobs.x.shape[0] == 0:
        return out
    exp = _arrays()[3]
    # Everything fits int32 (s ≤ 5.1e6, Λ·420/n ≤ 6.7e7, G·(G+G') ≤ 6.6e8), which halves the
    # memory the arrays take and so their time.
    # s = (4i + 1 - 2x)^2 + (4j + 1 - 2y)^2 for every (cell, piece): cells down, pieces across.
    dx = (4 * ci.astype(np.int32) + 1)[:, None] - 2 * blobs.x.astype(np.int32)[None, :]
    dy = (4 * cj.astype(np.int32) + 1)[:, None] - 2 * blobs.y.astype(np.int32)[None, :]
    lam_cp = lam(dx * dx + dy * dy)
    # Blob scores: pieces are grouped by blob, so one reduceat over the columns sums each blob.
    starts = np.flatnonzero(np.r_[True, blobs.blob[1:] != blobs.blob[:-1]])
    sizes = np.array(blobs.sizes, dtype=np.int32)
    keys = np.add.reduceat(lam_cp, starts, axis=1) * (_SCALE // sizes)[None, :]
    teams = np.array(blobs.teams, dtype=np.int64)
    rows = np.arange(n_cells)
    best: list[tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.int32]] | None] = []
    for team in (0, 1):
        cols = np.flatnonzero(teams == team)
        if cols.shape[0] == 0:
            best.append(None)
            continue
        # The closest blob: the smallest key; argmin takes the first, i.e. the smaller id.
        mine = keys[:, cols]
        pick = mine.argmin(axis=1)
        key = mine[rows, pick]
        size = sizes[cols][pick]
        best.append((key, size, exp[key // _SCALE]))
    unit = 16 * influence_radius
    inside = []
    for team in (0, 1):
        ours, theirs = best[team], best[1 - team]
        if ours is None:
            inside.append(np.zeros(n_cells, dtype=bool))
            continue
        _, size, g = ours
        if theirs is None:
            inside.append(g < unit * size)
        else:
            inside.append(g * (g + theirs[2]) < unit * size * theirs[2])
    in0, in1 = inside
    out[in0 & ~in1] = TEAM0
    out[in1 & ~in0] = TEAM1
    both = in0 & in1
    if both.any():
        b0, b1 = best[0], best[1]
        assert b0 is not None and b1 is not None
        k0, k1 = b0[0][both], b1[0][both]
        out[both] = np.where(k0 < k1, TEAM0, np.where(k1 < k0, TEAM1, NEUTRAL))
    return out


def candidate_mask(blobs: Blobs, influence_radius: int) -> NDArray[np.bool_]:
    """``[j, i]`` True for every cell that may be inside some team's radius: within
    ``R(n) + 2`` pixels (a margin for the rounding of ``EXP`` and the half-pixel sample) of
    a piece of a blob of ``n`` pieces. Every other cell is neutral."""
    mask = np.zeros((ROWS, COLUMNS), dtype=bool)
    ii = np.arange(COLUMNS, dtype=np.int64)
    jj = np.arange(ROWS, dtype=np.int64)
    for x, y, b in zip(blobs.x.tolist(), blobs.y.tolist(), blobs.blob.tolist(), strict=True):
        reach = influence_radius * blobs.sizes[b] + 2
        i0, i1 = max(0, (x - reach) // 2), min(COLUMNS - 1, (x + reach) // 2)
        j0, j1 = max(0, (y - reach) // 2), min(ROWS - 1, (y + reach) // 2)
        # (2i + 1/2 - x)^2 + (2j + 1/2 - y)^2 <= reach^2, times 4 to stay in integers.
        di = (4 * ii[i0:i1 + 1] + 1 - 2 * x) ** 2
        dj = (4 * jj[j0:j1 + 1] + 1 - 2 * y) ** 2
        mask[j0:j1 + 1, i0:i1 + 1] |= dj[:, None] + di[None, :] <= 4 * reach * reach
    return mask


def colour_map(blobs: Blobs, influence_radius: int) -> NDArray[np.int64]:
    """The colour of every cell, indexed ``[j, i]`` (row ``j``, column ``i``)."""
    colours = np.full((ROWS, COLUMNS), NEUTRAL, dtype=np.int64)
    if blobs.x.shape[0] == 0:
        return colours
    jj, ii = np.nonzero(candidate_mask(blobs, influence_radius))
    colours[jj, ii] = cell_colours(ii.astype(np.int64), jj.astype(np.int64), blobs,
                                   influence_radius)
    return colours


def full_colour_map(blobs: Blobs, influence_radius: int) -> NDArray[np.int64]:
    """Every cell computed, no culling: the reference :func:`colour_map` must equal."""
    jj, ii = np.mgrid[0:ROWS, 0:COLUMNS]
    colours = cell_colours(ii.ravel().astype(np.int64), jj.ravel().astype(np.int64), blobs,
                           influence_radius)
    return colours.reshape(ROWS, COLUMNS)


_RUN_LETTERS = "abn"   # team 0, team 1, neutral
_RUN = re.compile(r"([abn])(\d+)")


def encode_runs(colours: NDArray[np.int64]) -> str:
    """Row-major run-length text of a colour map: a letter (``a`` team 0, ``b`` team 1, ``n``
    neutral) then the run's length in decimal, e.g. ``n812a9n391``."""
    flat = colours.ravel()
    change = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    starts = np.r_[0, change]
    lengths = np.diff(np.r_[starts, flat.shape[0]])
    values = flat[starts]
    return "".join(f"{_RUN_LETTERS[v]}{n}" for v, n in zip(values.tolist(), lengths.tolist(),
                                                           strict=True))


def decode_runs(text: str) -> NDArray[np.int64]:
    """The colour map back from :func:`encode_runs` (0 team 0, 1 team 1, 2 neutral): each
    run's value repeated in NumPy (a Python list of the 160,000 cells took ~15 ms; an env
    decodes a view at every step)."""
    runs = _RUN.findall(text)
    values = np.array([_RUN_LETTERS.index(letter) for letter, _ in runs], dtype=np.int64)
    lengths = np.array([int(n) for _, n in runs], dtype=np.int64)
    return np.repeat(values, lengths).reshape(ROWS, COLUMNS)
