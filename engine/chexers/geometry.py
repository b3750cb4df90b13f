"""The Chexers board as index tables (rules §1-§2).

Every hex is a small integer: its position in the canonical hex order (``q`` ascending, then
``r`` ascending), so sorting indices sorts hexes canonically. Everything the move generator
and the notation need is precomputed here once, at import.

Colours are seat numbers: 0 red, 1 green, 2 blue.
"""

from __future__ import annotations

from typing import Final

RED: Final = 0
GREEN: Final = 1
BLUE: Final = 2
COLOURS: Final = (RED, GREEN, BLUE)
COLOUR_NAMES: Final = ("red", "green", "blue")
COLOUR_LETTERS: Final = "rgb"

#: The six neighbour steps in the referee's order (``_ADJACENT_STEPS``); the canonical action
#: order of one piece follows this order.
STEPS: Final[tuple[tuple[int, int], ...]] = ((-1, 0), (0, -1), (1, -1), (1, 0), (0, 1), (-1, 1))

#: All 37 hexes ``(q, r)`` in canonical order.
HEXES: Final[tuple[tuple[int, int], ...]] = tuple(
    (q, r) for q in range(-3, 4) for r in range(-3, 4) if -3 <= -q - r <= 3)
NUM_HEXES: Final = len(HEXES)
INDEX: Final[dict[tuple[int, int], int]] = {h: i for i, h in enumerate(HEXES)}

START_HEXES: Final[tuple[tuple[tuple[int, int], ...], ...]] = (
    ((-3, 0), (-3, 1), (-3, 2), (-3, 3)),
    ((0, -3), (1, -3), (2, -3), (3, -3)),
    ((3, 0), (2, 1), (1, 2), (0, 3)),
)
EXIT_HEXES: Final[tuple[tuple[tuple[int, int], ...], ...]] = (
    ((3, -3), (3, -2), (3, -1), (3, 0)),
    ((-3, 3), (-2, 3), (-1, 3), (0, 3)),
    ((-3, 0), (-2, -1), (-1, -2), (0, -3)),
)

#: ``EXIT_MASK[c]`` has bit ``i`` set when hex ``i`` is an exit hex of colour ``c``.
EXIT_MASK: Final[tuple[int, ...]] = tuple(
    sum(1 << INDEX[h] for h in hexes) for hexes in EXIT_HEXES)

#: Rows of the position notation: ``ROWS[k]`` lists the hex indices of row ``r = k - 3`` with
#: ``q`` ascending (lengths 4, 5, 6, 7, 6, 5, 4).
ROWS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(INDEX[(q, r)] for q in range(-3, 4) if (q, r) in INDEX) for r in range(-3, 4))


def on_board(q: int, r: int) -> bool:
    return -3 <= q <= 3 and -3 <= r <= 3 and -3 <= -q - r <= 3


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Hex distance between two axial coordinates."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def dist_to_exit(colour: int, q: int, r: int) -> int:
    """Hex distance from ``(q, r)`` to the nearest exit hex of ``colour`` (0…6)."""
    if colour == RED:
        return 3 - q
    if colour == GREEN:
        return 3 - r
    return 3 + q + r


#: ``DIST_TO_EXIT[c][i]``: :func:`dist_to_exit` as a table.
DIST_TO_EXIT: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(dist_to_exit(c, q, r) for q, r in HEXES) for c in COLOURS)


def _neighbour_table() -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """Per hex, ``(step, neighbour, beyond)`` for every on-board neighbour in step order;
    ``beyond`` (the landing hex of a jump) is ``-1`` when off the board. A neighbour that is
    off the board implies the hex beyond is too (the hexagon is convex), so such steps can
    produce no action and are left out."""
    table = []
    for q, r in HEXES:
        row = []
        for k, (dq, dr) in enumerate(STEPS):
            if not on_board(q + dq, r + dr):
                assert not on_board(q + 2 * dq, r + 2 * dr)
                continue
            far = INDEX[(q + 2 * dq, r + 2 * dr)] if on_board(q + 2 * dq, r + 2 * dr) else -1
            row.append((k, INDEX[(q + dq, r + dr)], far))
        table.append(tuple(row))
    return tuple(table)


#: ``NEIGHBOURS[i]``: ``(step, neighbour, beyond)`` per on-board neighbour of hex ``i``.
NEIGHBOURS: Final = _neighbour_table()
