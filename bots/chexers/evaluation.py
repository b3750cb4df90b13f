"""The seed report's utility (its Equation 1) in exact integer form (rules §9.1).

For colour ``p`` in a position that goes on::

    U_p = 20 · N_p − Σ_{x ∈ p's pieces} (dist_to_exit_p(x) + 2)      N_p = pieces + exits

which is 20 × the report's ``f_p = −0.1 · Σ (½·dist + 1) + N_p`` (same ordering, integers).
At the start every colour has 48. A finished game is worth ``20·(P+1)`` to the winner and 0
to the others, or 10 to everyone for a draw, where ``P`` = pieces on the board + all exits
(constant within a game, 12 from the normal start). So every utility lies in
``[0, MAXSUM]`` with ``MAXSUM = 20·(P+1)`` and the three add up to at most ``MAXSUM``: the
bound shallow pruning relies on.

The report's alternative cost terms are :data:`VARIANTS` (default ``"sum"``): ``"average"``
(mean cost over all own pieces) and ``"best4"`` (mean cost over the 4 own pieces nearest their
exits, the report's "final version"). Their scaled form ``20·f_p`` is fractional, so a variant
multiplies every utility (terminal ones included) by :attr:`Evaluator.scale`, the least
common multiple of the possible divisors; orderings are unchanged and everything stays an
exact integer.
"""

from __future__ import annotations

from typing import Final

from engine.chexers import DIST_TO_EXIT, DRAW, Position

VARIANTS: Final = ("sum", "average", "best4")

#: ``PIECE_VALUE[c][i]`` = 20 − (dist_to_exit_c(i) + 2): what a piece of colour ``c`` on hex
#: ``i`` adds to ``U_c``. Every term is ≥ 12 (distances are at most 6).
PIECE_VALUE: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(18 - d for d in dists) for dists in DIST_TO_EXIT)
#: ``PIECE_COST[c][i]`` = dist_to_exit_c(i) + 2, the per-piece cost (×20) of Equation 1.
PIECE_COST: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(d + 2 for d in dists) for dists in DIST_TO_EXIT)

EXIT_VALUE: Final = 20
DRAW_VALUE: Final = 10
"""Every seat's utility in a drawn game: just above a knocked-out seat's 0 (our choice)."""

_AVERAGE_SCALE: Final = 27720  # lcm(1..12): a colour can own at most 12 pieces
_BEST4_SCALE: Final = 12       # lcm(1..4)


def total_material(pos: Position) -> int:
    """``P``: pieces on the board plus all exits (constant within one game)."""
    return sum(b.bit_count() for b in pos.bb) + sum(pos.exits)


def sum_utility(pos: Position, colour: int) -> int:
    """``U_colour`` of a position that goes on, Equation 1 as an integer (no scaling)."""
    bits = pos.bb[colour]
    value = EXIT_VALUE * pos.exits[colour]
    table = PIECE_VALUE[colour]
    while bits:
        low = bits & -bits
        bits ^= low
        value += table[low.bit_length() - 1]
    return value


class Evaluator:
    """Utilities of one game (one ``P``) under one cost variant.

    ``vector(pos)`` gives ``[U_red, U_green, U_blue]`` for any position, finished or not;
    ``static(pos, c)`` one component of a position that goes on. ``maxsum`` bounds the sum of a
    vector; ``scale`` is 1 for ``"sum"``.
    """

    __slots__ = ("variant", "scale", "material", "maxsum", "win", "draw")

    def __init__(self, material: int, variant: str = "sum") -> None:
        if variant not in VARIANTS:
            raise ValueError(f"unknown evaluation variant {variant!r}; one of {VARIANTS}")
        self.variant = variant
        self.scale = {"sum": 1, "average": _AVERAGE_SCALE, "best4": _BEST4_SCALE}[variant]
        self.material = material
        self.win = 20 * (material + 1) * self.scale
        self.maxsum = self.win
        self.draw = DRAW_VALUE * self.scale

    @classmethod
    def for_position(cls, pos: Position, variant: str = "sum") -> Evaluator:
        return cls(total_material(pos), variant)

    def static(self, pos: Position, colour: int) -> int:
        """``U_colour`` (scaled) of a position whose game goes on."""
        if self.variant == "sum":
            return sum_utility(pos, colour)
        costs = sorted(PIECE_COST[colour][i] for i in pos.pieces(colour))
        if self.variant == "best4":
            costs = costs[:4]
        n = pos.num_pieces(colour) + pos.exits[colour]
        value = EXIT_VALUE * n * self.scale
        if costs:
            value -= sum(costs) * self.scale // len(costs)
        return value

    def terminal(self, pos: Position) -> list[int]:
        """The vector of a finished game (``pos.result`` set)."""
        assert pos.result is not None
        winner = pos.result[0]
        if winner == DRAW:
            return [self.draw, self.draw, self.draw]
        out = [0, 0, 0]
        out[winner] = self.win
        return out

    def vector(self, pos: Position) -> list[int]:
        """``[U_0, U_1, U_2]`` for any position (terminal values once the game is over)."""
        if pos.result is not None:
            return self.terminal(pos)
        return [self.static(pos, 0), self.static(pos, 1), self.static(pos, 2)]
