"""Blobs: merging and splitting (rules §7.2).

:func:`regroup` runs after the captures of every tick (and once at setup):

1. *Splits.* In each blob of ``n ≥ 2`` pieces, two pieces are linked when
   ``D2 ≤ SPLIT(n)²``; a blob whose links leave several connected components becomes one blob
   per component, and each new blob is checked again with its own (smaller) size.
2. *Merges.* While two allied blobs ``A``, ``B`` have pieces within ``MERGE(max(|A|,|B|))``,
   the first such pair in the order (team, smaller blob id, larger blob id) merges.

A blob's id is its smallest piece id. The result does not depend on the order of the input
(rules §7.2: splitting acts on each blob alone and merging is monotone).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

Point = tuple[int, int]
Blob = tuple[int, ...]


@dataclass(frozen=True)
class Regroup:
    """What one regroup did: ``splits`` (old blob → its parts) and ``merges`` (the blobs that
    became one → the new blob), in the order they happened; ``blobs`` the result, by id."""

    blobs: tuple[Blob, ...]
    splits: tuple[tuple[Blob, tuple[Blob, ...]], ...]
    merges: tuple[tuple[tuple[Blob, ...], Blob], ...]


Distances = list[list[int]]
"""``d2[p][q]``: squared distance between pieces ``p`` and ``q`` (by piece id)."""


def _distances(positions: Sequence[Point]) -> Distances:
    """Squared distances between every two pieces, in one NumPy pass (exact integers)."""
    xy = np.array(positions, dtype=np.int64)
    diff = xy[:, None, :] - xy[None, :, :]
    d2: Distances = (diff * diff).sum(axis=2).tolist()
    return d2


def _components(members: Blob, d2: Distances, limit2: int) -> list[Blob]:
    """Connected components of ``members`` under links of squared length ``≤ limit2``."""
    left = list(members)
    parts: list[Blob] = []
    while left:
        frontier = [left.pop(0)]
        part = list(frontier)
        while frontier:
            row = d2[frontier.pop()]
            near = [q for q in left if row[q] <= limit2]
            for q in near:
                left.remove(q)
            frontier.extend(near)
            part.extend(near)
        parts.append(tuple(sorted(part)))
    return parts


def _split(blob: Blob, d2: Distances, split_distance: Callable[[int], int]) -> list[Blob]:
    if len(blob) < 2:
        return [blob]
    limit = split_distance(len(blob))
    limit2 = limit * limit
    if all(d2[p][q] <= limit2 for i, p in enumerate(blob) for q in blob[i + 1:]):
        return [blob]   # every two members linked: one component (the usual case)
    parts = _components(blob, d2, limit2)
    if len(parts) == 1:
        return parts
    out: list[Blob] = []
    for part in parts:
        out.extend(_split(part, d2, split_distance))
    return out


def regroup(blobs: Sequence[Blob], positions: Sequence[Point], team_of: Callable[[int], int],
            merge_distance: Callable[[int], int], split_distance: Callable[[int], int]
            ) -> Regroup:
    """Split, then merge, the living ``blobs`` (member tuples) at ``positions`` (by piece id)."""
    d2 = _distances(positions)
    splits: list[tuple[Blob, tuple[Blob, ...]]] = []
    current: list[Blob] = []
    for blob in sorted(tuple(sorted(b)) for b in blobs):
        parts = _split(blob, d2, split_distance)
        if len(parts) > 1:
            splits.append((blob, tuple(sorted(parts))))
        current.extend(parts)
    merges: list[tuple[tuple[Blob, ...], Blob]] = []
    while True:
        current.sort()
        pair = _first_merge(current, d2, team_of, merge_distance)
        if pair is None:
            break
        a, b = pair
        merged = tuple(sorted(a + b))
        current = [blob for blob in current if blob is not a and blob is not b] + [merged]
        merges.append(((a, b), merged))
    return Regroup(tuple(sorted(current)), tuple(splits), tuple(_chain(merges)))


def _first_merge(blobs: list[Blob], d2: Distances, team_of: Callable[[int], int],
                 merge_distance: Callable[[int], int]) -> tuple[Blob, Blob] | None:
    """The first mergeable pair in the order (team, smaller blob id, larger blob id)."""
    for team in (0, 1):
        mine = [b for b in blobs if team_of(b[0]) == team]   # sorted by id already
        for i, a in enumerate(mine):
            for b in mine[i + 1:]:
                limit = merge_distance(max(len(a), len(b)))
                limit2 = limit * limit
                for p in a:
                    row = d2[p]
                    for q in b:
                        if row[q] <= limit2:
                            return a, b
    return None


def _chain(merges: list[tuple[tuple[Blob, ...], Blob]]) -> list[tuple[tuple[Blob, ...], Blob]]:
    """Fold merges into one entry per resulting blob: three blobs that became one in two
    steps read as ``((a, b, c), abc)``, with the original blobs only."""
    out: list[tuple[tuple[Blob, ...], Blob]] = []
    for parts, merged in merges:
        originals: list[Blob] = []
        for part in parts:
            earlier = next((e for e in out if e[1] == part), None)
            if earlier is None:
                originals.append(part)
            else:
                out.remove(earlier)
                originals.extend(earlier[0])
        out.append((tuple(sorted(originals)), merged))
    return sorted(out, key=lambda entry: entry[1])
