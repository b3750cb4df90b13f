"""The exact integer tables of the influence rule (rules §5.3): ``THRESH`` (the logarithm
λ) and ``EXP`` (its inverse), for fields up to 800 × 800 pixels.

* ``λ(s) = floor(1024 · log2(s))`` for an integer ``s ≥ 1``; ``THRESH[k]`` is the smallest
  ``s`` with ``λ(s) ≥ k``, so ``λ(s) = #{k : THRESH[k] ≤ s} − 1``.
* ``EXP[μ] = floor(2 ** ((μ + 6144) / 2048))``.

Both are pure mathematical functions of the index, so every conforming engine has the same
numbers on every platform. They are built once per process (:func:`tables`): a float guess
for each entry, settled exactly with big-integer comparisons wherever the guess is not
comfortably far from the integer it rounds to, then the whole of each table is checked
against the SHA-256 the rule book publishes. :func:`build_exact` builds them with integer
arithmetic only (no float at all: each entry starts from its neighbour's value), the slow
second derivation that the tests compare with the fast one (rules §14.1, case 2).
"""

from __future__ import annotations

import hashlib
import math
import struct
from dataclasses import dataclass
from functools import cache

FIELD_MAX = 800
"""The largest field side the tables cover (the rule book's default field)."""

S_MAX = 2 * (2 * FIELD_MAX) ** 2
"""The largest half-pixel squared distance ``s`` on a field of at most 800 × 800 pixels."""

K_MAX = math.floor(1024 * math.log2(S_MAX)) + 2
"""The last index of both tables (22 824)."""

THRESH_SHA256 = "a1962a88194474133fb74d760ca5bed74042c041e9bfb77773638cb02ebdc68f"
EXP_SHA256 = "a877e4c13de5eb8e8143c95cfe298f7f9046637e4cea70ec706cb9b9634e3dcd"

# How far (as a fraction of one) a float guess must be from an integer to be trusted without
# a big-integer check. The guesses are within a few ulps of 2**x < 2**24, so their error is
# below 1e-8; a thousand times that margin costs a handful of exact checks per table.
_SAFE = 1e-5


@dataclass(frozen=True)
class Tables:
    thresh: tuple[int, ...]
    exp: tuple[int, ...]


def checksum(values: tuple[int, ...] | list[int]) -> str:
    """SHA-256 of the values as little-endian int64, as the rule book publishes them."""
    return hashlib.sha256(struct.pack(f"<{len(values)}q", *values)).hexdigest()


def _ceil_root(k: int, n: int, guess: int) -> int:
    """The smallest integer ``c ≥ 1`` with ``c ** n ≥ 2 ** k``, from a guess near it."""
    c, t = max(1, guess), 1 << k
    while c > 1 and (c - 1) ** n >= t:
        c -= 1
    while c ** n < t:
        c += 1
    return c


def _floor_root(e: int, n: int, guess: int) -> int:
    """The largest integer ``x ≥ 0`` with ``x ** n ≤ 2 ** e``, from a guess near it."""
    x, t = max(0, guess), 1 << e
    while x ** n > t:
        x -= 1
    while (x + 1) ** n <= t:
        x += 1
    return x


def _settled(value: float) -> tuple[int, bool]:
    """``(floor(value), whether that floor is certain)`` for a float guess of a root."""
    low = math.floor(value)
    frac = value - low
    return low, _SAFE < frac < 1 - _SAFE


def build_fast() -> Tables:
    """Both tables from float guesses, each doubtful entry settled exactly."""
    thresh = []
    for k in range(K_MAX + 1):
        low, certain = _settled(2.0 ** (k / 1024))
        # ceil of a non-integer is floor + 1; an integer guess (k a multiple of 1024 gives an
        # exact power of two) or a doubtful one is settled exactly.
        thresh.append(low + 1 if certain else _ceil_root(k, 1024, low))
    exp = []
    for mu in range(K_MAX + 1):
        low, certain = _settled(2.0 ** ((mu + 6144) / 2048))
        exp.append(low if certain else _floor_root(mu + 6144, 2048, low))
    return Tables(tuple(thresh), tuple(exp))


def build_exact() -> Tables:
    """Both tables with integer arithmetic only: every entry is found from the one before it
    (both tables grow by a factor of about ``2 ** (1/1024)`` or ``2 ** (1/2048)`` per index)
    and settled with big-integer comparisons. Slow (seconds); for the tests."""
    thresh = [1]
    for k in range(1, K_MAX + 1):
        prev = thresh[-1]
        thresh.append(_ceil_root(k, 1024, prev + (prev * 710 >> 20)))
    exp = [_floor_root(6144, 2048, 8)]
    for mu in range(1, K_MAX + 1):
        prev = exp[-1]
        exp.append(_floor_root(mu + 6144, 2048, prev + (prev * 355 >> 20)))
    return Tables(tuple(thresh), tuple(exp))


@cache
def tables() -> Tables:
    """The tables, built once per process and checked against the published SHA-256s."""
    built = build_fast()
    if checksum(built.thresh) != THRESH_SHA256 or checksum(built.exp) != EXP_SHA256:
        raise AssertionError("Boundary's influence tables do not match the rule book's "
                             "checksums: this platform's float math is off; use build_exact()")
    return built


def lam(s: int) -> int:
    """``λ(s) = floor(1024 · log2(s))`` for one integer ``1 ≤ s ≤ S_MAX`` (exact)."""
    import bisect
    return bisect.bisect_right(tables().thresh, s) - 1
