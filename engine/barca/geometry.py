"""The Barca board as index tables (rules §1-§3).

A square is an index ``10*(rank-1) + file`` (``a1`` = 0, ``j10`` = 99), so sorting indices
sorts squares canonically (§10). Everything the move generator needs is computed once, at
import: the 8-neighbourhood of every square as a bit set, and per square and direction the
ray of squares a sliding piece passes, nearest first.

Pieces are codes ``3*side + type``: sides 0 white, 1 black; types 0 mouse, 1 lion,
2 elephant, so that the type a piece fears is ``(type + 1) % 3`` (mouse fears lion, lion
fears elephant, elephant fears mouse, §4).
"""

from __future__ import annotations

from typing import Final

SIZE: Final = 10
NUM_SQUARES: Final = SIZE * SIZE

WHITE: Final = 0
BLACK: Final = 1
SIDE_NAMES: Final = ("white", "black")
SIDE_LETTERS: Final = "wb"

MOUSE: Final = 0
LION: Final = 1
ELEPHANT: Final = 2
TYPE_NAMES: Final = ("mouse", "lion", "elephant")
#: ``PIECE_LETTERS[code]``: BPN letter of piece code ``3*side + type``.
PIECE_LETTERS: Final = "MLEmle"
EMPTY: Final = -1

FILES: Final = "abcdefghij"
#: ``SQUARE_NAMES[i]``: ``"a1"`` … ``"j10"``.
SQUARE_NAMES: Final[tuple[str, ...]] = tuple(
    f"{FILES[i % SIZE]}{i // SIZE + 1}" for i in range(NUM_SQUARES))
SQUARE_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(SQUARE_NAMES)}

HOLES: Final[tuple[int, ...]] = (33, 36, 63, 66)
"""The watering holes d4, g4, d7, g7."""
HOLE_MASK: Final = sum(1 << h for h in HOLES)
HOLES_TO_WIN: Final = 3

ORTHOGONAL: Final = ((0, 1), (1, 0), (0, -1), (-1, 0))
DIAGONAL: Final = ((1, 1), (1, -1), (-1, -1), (-1, 1))
#: Directions ``(dfile, drank)`` per piece type (§3): mouse = rook, lion = bishop,
#: elephant = queen.
DIRECTIONS: Final = (ORTHOGONAL, DIAGONAL, ORTHOGONAL + DIAGONAL)


def feared(piece_type: int) -> int:
    """The type that ``piece_type`` fears (§4)."""
    return (piece_type + 1) % 3


def _on_board(f: int, r: int) -> bool:
    return 0 <= f < SIZE and 0 <= r < SIZE


def _neighbourhood(i: int) -> int:
    f, r = i % SIZE, i // SIZE
    mask = 0
    for df in (-1, 0, 1):
        for dr in (-1, 0, 1):
            if (df or dr) and _on_board(f + df, r + dr):
                mask |= 1 << (SIZE * (r + dr) + f + df)
    return mask


#: ``N8[i]``: bit set of the squares at Chebyshev distance exactly 1 from ``i`` (§1).
N8: Final[tuple[int, ...]] = tuple(_neighbourhood(i) for i in range(NUM_SQUARES))


def _ray(i: int, df: int, dr: int) -> tuple[int, ...]:
    f, r = i % SIZE + df, i // SIZE + dr
    out = []
    while _on_board(f, r):
        out.append(SIZE * r + f)
        f, r = f + df, r + dr
    return tuple(out)


#: ``RAYS[type][i]``: the non-empty rays of a piece of ``type`` on square ``i``, each the
#: squares it passes in one direction, nearest first.
RAYS: Final[tuple[tuple[tuple[tuple[int, ...], ...], ...], ...]] = tuple(
    tuple(tuple(ray for ray in (_ray(i, df, dr) for df, dr in dirs) if ray)
          for i in range(NUM_SQUARES))
    for dirs in DIRECTIONS)

def _lines() -> dict[tuple[int, int], tuple[int, tuple[int, ...]]]:
    table = {}
    for i in range(NUM_SQUARES):
        for kind, dirs in enumerate((ORTHOGONAL, DIAGONAL)):
            for df, dr in dirs:
                ray = _ray(i, df, dr)
                for k, t in enumerate(ray):
                    table[(i, t)] = (kind, ray[:k])
    return table


#: ``LINES[(a, b)]`` for squares on a common rank, file or diagonal: the kind of line
#: (0 orthogonal, 1 diagonal) and the squares strictly between them. Used to explain
#: illegal moves.
LINES: Final = _lines()


def moves_along(piece_type: int, kind: int) -> bool:
    """Whether a piece of ``piece_type`` slides along lines of ``kind`` (0 orthogonal,
    1 diagonal)."""
    return piece_type == ELEPHANT or piece_type == kind
