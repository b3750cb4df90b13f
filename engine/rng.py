"""A small, self-contained, seedable PRNG (SplitMix64).

Why not :mod:`random`: only ``random.Random(seed).random()`` is promised to be reproducible
across Python versions, and golden playthroughs and replays must stay identical forever.
SplitMix64 is tiny, fast enough for drivers and bots, and fully specified here.

Contract: the same seed gives the same sequence on every platform and Python version.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def seed_from_text(text: str) -> int:
    """A 64-bit seed derived from a string (stable: FNV-1a, then mixed)."""
    h = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) & _MASK
    return _mix(h)


class Rng:
    """SplitMix64 generator. ``Rng(seed)`` for any integer seed (taken modulo 2**64)."""

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK

    def next_u64(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        return _mix(self._state)

    def below(self, n: int) -> int:
        """Uniform integer in ``[0, n)`` without modulo bias. ``n`` must be positive."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        if n & (n - 1) == 0:
            return self.next_u64() & (n - 1)
        # Rejection sampling on the top of the 64-bit range.
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def random(self) -> float:
        """Uniform float in ``[0, 1)`` with 53 bits of precision."""
        return (self.next_u64() >> 11) * (1.0 / (1 << 53))

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def weighted_index(self, weights: Sequence[int]) -> int:
        """Index ``i`` with probability ``weights[i] / sum(weights)`` (integer weights)."""
        total = sum(weights)
        r = self.below(total)
        if total == len(weights) and min(weights) == 1:
            return r  # all weights 1 (a shuffled deck): the scan below would stop at r
        for i, w in enumerate(weights):
            if r < w:
                return i
            r -= w
        raise AssertionError("unreachable: weights changed during draw")

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def fork(self, label: str) -> Rng:
        """An independent generator for a named purpose (e.g. one per bot seat)."""
        return Rng(_mix(self.next_u64() ^ seed_from_text(label)))

    def getstate(self) -> int:
        return self._state

    def setstate(self, state: int) -> None:
        self._state = state & _MASK
