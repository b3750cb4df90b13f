"""Perft for any fast position core: the number of action sequences of a given length.

Golden perft counts guard move generation and double as a speed canary (python-chess's
habit). Every game's fast core (``engine/chexers/position.py``, ``engine/barca/position.py``)
has the same shape — ``apply(move)``, an exact ``undo()``, and ``result`` (``None`` while the
game goes on) — and differs only in how it lists its moves, which the caller passes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar


class Core(Protocol):
    """What perft needs of a position: play a move, take it back, tell a finished game."""

    result: Any

    def apply(self, move: Any) -> None: ...

    def undo(self) -> None: ...


P = TypeVar("P", bound=Core)


def perft(pos: P, depth: int, legal: Callable[[P], Sequence[Any]]) -> int:
    """Number of sequences of ``depth`` moves from ``pos``, each move from ``legal(pos)`` (a
    finished position has none). Bulk-counts the last ply. Leaves ``pos`` as it was."""
    if depth == 0:
        return 1
    if pos.result is not None:
        return 0
    moves = legal(pos)
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        pos.apply(move)
        total += perft(pos, depth - 1, legal)
        pos.undo()
    return total
