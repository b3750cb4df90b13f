"""Positions for the rule book's test cases (rules/boundary.md §14): pieces by team, in
pixels on the default field, with one far treasure so that a turn does not end the game."""

from __future__ import annotations

from collections.abc import Sequence

from engine.boundary.board import Board, Point
from engine.boundary.params import Params

FAR_ENEMY: Point = (100, 100)
FAR_TREASURE = (700, 700, 1)


def board(team0: Sequence[Point], team1: Sequence[Point],
          treasures: Sequence[tuple[int, int, int]] = (FAR_TREASURE,),
          blobs: Sequence[Sequence[int]] | None = None, params: Params | None = None) -> Board:
    """A position with ``team0`` as pieces ``0..`` and ``team1`` as pieces ``P..`` (``P``
    pieces a side, 7 by default). Blobs: as given (piece ids), else every piece alone and
    then regrouped as the rules would (a blob of nearby pieces)."""
    params = params or Params()
    count = params.pieces
    assert len(team0) <= count and len(team1) <= count
    pos: list[Point | None] = [None] * (2 * count)
    for k, p in enumerate(team0):
        pos[k] = p
    for k, p in enumerate(team1):
        pos[count + k] = p
    living = [p for p in range(2 * count) if pos[p] is not None]
    result = Board(params, pos, list(pos),
                   [tuple(b) for b in blobs] if blobs is not None else [(p,) for p in living],
                   list(treasures), [None] * len(treasures))
    result.lost = [None] * (2 * count)
    if blobs is None:
        result.regroup()
    return result


def count_of(b: Board, piece: int = 0) -> int:
    return b.surround_count(piece)
