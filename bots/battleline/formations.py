"""The formations one side of a flag may still make, strongest first (paper section 3.2).

A *candidate* is one formation a side can still complete: its strength (the engine's
``category * 64 + total``, see :mod:`engine.battleline.formations`) and what it still needs,
as *groups* ``(mask, count)``: at least ``count`` of the troop cards in ``mask`` must join the
side. A straight flush needs specific cards (one group ``(those cards, their number)``); three
nines need "any two of the five nines left" (one group ``(nines, 2)``); a straight needs, per
missing value, one card of that value in any colour (one group per value). A candidate whose
side holds wild cards (Leaders, Companion Cavalry, Shield Bearers) may have several ways to
place them; it keeps each way as an *alternative* and counts the likeliest one.

:func:`candidates` lists them top-down by category and stops after the first category that
brings the count to ``limit`` (a higher category beats any total of a lower one, so the top
``limit`` formations are never below that category). The work is done on the engine's
troop bitmasks; results are pure functions of their arguments and are cached by the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations, combinations_with_replacement, permutations
from typing import Final

from engine.battleline.cards import TROOPS, WILD_MAX, WILD_VALUES
from engine.battleline.formations import (
    BATTALION,
    PHALANX,
    SKIRMISH,
    WEDGE,
    side_strength,
    strength,
)

Group = tuple[int, int]
"""``(mask, count)``: at least ``count`` of the troop cards in ``mask``."""

VALUE_MASK: Final = [0] + [sum(1 << (c * 10 + v - 1) for c in range(6)) for v in range(1, 11)]
"""Value v -> mask of the six troop cards of that value."""
COLOUR_MASK: Final = [0x3FF << (10 * c) for c in range(6)]


Alternatives = tuple[tuple[Group, ...], ...]
Candidate = tuple[int, Alternatives]
"""``(strength, alternatives)``: a formation a side may still make; ``alternatives`` holds one
tuple of groups per way of getting there (several only with wild cards); ``((),)`` means the
side is complete. Plain tuples: thousands are built per decision."""


def wanted(candidate: Candidate) -> int:
    """Every troop card a formation could use: its wishlist (paper section 3.5)."""
    out = 0
    for groups in candidate[1]:
        for mask, _ in groups:
            out |= mask
    return out


def set_bits(mask: int) -> list[int]:
    """The indices of the set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _run_tables() -> dict[int, list[tuple[int, int, int, int]]]:
    """Size -> every run ``(start, value bits, wedge strength, skirmish strength)``, the
    highest first."""
    out = {}
    for size in (3, 4):
        extra = size * (size - 1) // 2
        out[size] = [(s, ((1 << size) - 1) << (s - 1), strength(WEDGE, size * s + extra),
                      strength(SKIRMISH, size * s + extra)) for s in range(11 - size, 0, -1)]
    return out


_RUNS: Final = _run_tables()


def _wild_placements(wilds: Sequence[str], missing: int) -> list[int]:
    """Each set of value bits of ``missing`` the wild cards can take (one distinct value
    each, allowed by the card); ``[0]`` without wilds."""
    if not wilds:
        return [0]
    found: set[int] = set()
    values = set_bits(missing)
    for chosen in permutations(values, len(wilds)):
        if all(WILD_VALUES[w] >> v & 1 for w, v in zip(wilds, chosen, strict=True)):
            used = 0
            for v in chosen:
                used |= 1 << v
            found.add(used)
    return sorted(found)


@lru_cache(maxsize=8)
def _multisets(k: int) -> tuple[tuple[int, tuple[tuple[int, int], ...], int, bool], ...]:
    """Every multiset of ``k`` values 1–10 as ``(sum, ((value, multiplicity), …), value
    bits, has a repeated value)``, the largest sum first."""
    out = []
    for combo in combinations_with_replacement(range(10, 0, -1), k):
        counts: dict[int, int] = {}
        bits = 0
        for v in combo:
            counts[v] = counts.get(v, 0) + 1
            bits |= 1 << (v - 1)
        out.append((sum(combo), tuple(sorted(counts.items(), reverse=True)), bits,
                    len(counts) < k))
    out.sort(key=lambda item: -item[0])
    return tuple(out)


def _is_run_bits(bits: int, count: int) -> bool:
    """Whether ``count`` values with these value bits are distinct and consecutive."""
    return bits.bit_count() == count and bits // (bits & -bits) == (1 << count) - 1


def _is_run(values: Sequence[int]) -> bool:
    bits = 0
    for v in values:
        bits |= 1 << v
    return _is_run_bits(bits, len(values))


def count_formations(found: list[Candidate], by_strength: bool) -> int:
    """How many formations ``found`` holds (different strengths with ``by_strength``)."""
    return len({c[0] for c in found}) if by_strength else len(found)


_count = count_formations


def strike(candidate: Candidate, removed: int) -> Candidate | None:
    """``candidate`` once the cards of ``removed`` can no longer join the side; ``None``
    when no way to make it is left."""
    alternatives = []
    for groups in candidate[1]:
        kept = []
        for mask, count in groups:
            if mask & removed:
                mask &= ~removed
                if mask.bit_count() < count:
                    break
            kept.append((mask, count))
        else:
            alternatives.append(tuple(kept))
    if not alternatives:
        return None
    return (candidate[0], tuple(alternatives))


def candidates(troops: tuple[int, ...], wilds: tuple[str, ...], size: int, fog: bool,
               avail: int, limit: int, spread: int = 0, by_strength: bool = False
               ) -> list[Candidate]:
    """The formations a side holding ``troops`` (card indices) and ``wilds`` (wild card names)
    can still make with troop cards from ``avail`` (a mask of cards it may still get),
    strongest first by category, at least the top ``limit`` of them when that many exist
    (all of the last category reached, so ties at the cut are all there).

    A complete side gives its one formation with no groups. Under Fog every formation is a
    host (only totals count). With ``by_strength`` the count is of different strengths
    (formations as rank and total). ``spread`` > 0 lists every category instead (all wedges,
    phalanxes and straights, the ``spread`` best flushes per colour and hosts): the pool a
    side picks a goal from."""
    if spread:
        limit = spread
    have = len(troops) + len(wilds)
    if have >= size:
        cards = [TROOPS[i] for i in troops] + list(wilds)
        return [(side_strength(cards, size, fog), ((),))]
    need = size - have
    tmask = 0
    tvals = 0
    colours = 0
    tsum = 0
    for i in troops:
        tmask |= 1 << i
        tvals |= 1 << (i % 10)
        colours |= 1 << (i // 10)
        tsum += i % 10 + 1
    avail &= ~tmask
    distinct_values = tvals.bit_count() == len(troops)
    one_colour = colours & (colours - 1) == 0
    colour_list = [colours.bit_length() - 1] if colours else list(range(6))
    wild_max = sum(WILD_MAX[w] for w in wilds)
    out: list[Candidate] = []
    if fog:
        out.extend(_hosts(troops, wilds, tsum + wild_max, need, avail, limit, fog=True))
        return out
    runs = _RUNS[size]

    # Wedge: one colour, consecutive values.
    if one_colour and distinct_values:
        for _, run, wedge, _ in runs:
            if tvals & ~run:
                continue
            missing = run & ~tvals
            for c in colour_list:
                shift = 10 * c
                colour_avail = (avail >> shift) & 0x3FF
                if not wilds:
                    if missing & ~colour_avail == 0:
                        out.append((wedge, (((missing << shift, need),),)))
                    continue
                alternatives: list[tuple[Group, ...]] = []
                for used in _wild_placements(wilds, missing):
                    rest = missing & ~used
                    if rest & ~colour_avail == 0:
                        alternatives.append(((rest << shift, need),))
                if alternatives:
                    out.append((wedge, tuple(alternatives)))
    if not spread and _count(out, by_strength) >= limit:
        return out

    # Phalanx: one value.
    if tvals & (tvals - 1) == 0:
        values = [tvals.bit_length()] if tvals else list(range(10, 0, -1))
        for v in values:
            if wilds and any(not WILD_VALUES[w] >> (v - 1) & 1 for w in wilds):
                continue
            mask = avail & VALUE_MASK[v]
            if mask.bit_count() >= need:
                out.append((strength(PHALANX, size * v), (((mask, need),),)))
    if not spread and _count(out, by_strength) >= limit:
        return out

    # Battalion: one colour, any values; the top combinations by total lie among the
    # (need + limit + 1) highest cards of the colour (a few spare for skipped wedges).
    if one_colour:
        flushes: list[Candidate] = []
        base = strength(BATTALION, tsum + wild_max)
        tvalues = [i % 10 for i in troops]
        for c in colour_list:
            colour_cards = set_bits(avail & COLOUR_MASK[c])
            colour_cards.reverse()
            del colour_cards[need + (2 if spread else limit + 1):]
            these = []
            for combo in combinations(colour_cards, need):
                if not wilds and _is_run(tvalues + [i % 10 for i in combo]):
                    continue  # that is a wedge, listed above
                mask = 0
                total = base
                for i in combo:
                    mask |= 1 << i
                    total += i % 10 + 1
                these.append((total, (((mask, need),),)))
            if spread:
                these.sort(key=lambda cand: -cand[0])
                del these[spread:]
            flushes.extend(these)
        flushes.sort(key=lambda cand: -cand[0])
        out.extend(flushes)
    if not spread and _count(out, by_strength) >= limit:
        return out

    # Skirmish: consecutive values, any colours: one group per missing value.
    if distinct_values:
        for _, run, _, skirmish in runs:
            if tvals & ~run:
                continue
            missing = run & ~tvals
            alternatives = []
            for used in _wild_placements(wilds, missing):
                groups: list[Group] = []
                for v in set_bits(missing & ~used):
                    mask = avail & VALUE_MASK[v + 1]
                    if not mask:
                        break
                    groups.append((mask, 1))
                else:
                    alternatives.append(tuple(groups))
            if alternatives:
                out.append((skirmish, tuple(alternatives)))
    if not spread and _count(out, by_strength) >= limit:
        return out

    out.extend(_hosts(troops, wilds, tsum + wild_max, need, avail,
                      spread or limit - _count(out, by_strength), fog=False))
    return out


def _hosts(troops: tuple[int, ...], wilds: tuple[str, ...], base: int, need: int, avail: int,
           limit: int, fog: bool) -> list[Candidate]:
    """Hosts by total: each multiset of values to add, one group per value. Outside Fog the
    multisets that would make a phalanx or a straight are skipped (listed above)."""
    counts = [0] + [(avail & VALUE_MASK[v]).bit_count() for v in range(1, 11)]
    tbits = 0
    for i in troops:
        tbits |= 1 << (i % 10)
    tdup = tbits.bit_count() < len(troops)
    size = len(troops) + need
    out: list[Candidate] = []
    last = -1
    for total, parts, pbits, pdup in _multisets(need):
        if len(out) >= limit and total < last:
            break
        if any(counts[v] < m for v, m in parts):
            continue
        if not fog and not wilds:
            both = tbits | pbits
            if both & (both - 1) == 0:
                continue  # one value throughout: a phalanx, listed above
            if not (tdup or pdup or tbits & pbits) and _is_run_bits(both, size):
                continue  # a straight, listed above
        groups = tuple((avail & VALUE_MASK[v], m) for v, m in parts)
        out.append((base + total, (groups,)))
        last = total
    return out


def probability(candidate: Candidate, p: Sequence[float],
                memo: dict[tuple[int, int], float] | None = None) -> float:
    """The chance of making ``candidate`` when troop card ``i`` reaches the side with
    probability ``p[i]``, the cards independent (paper section 3.4); the likeliest
    alternative counts. ``memo`` caches group chances for this ``p`` (groups recur across
    candidates: the nines of a phalanx, the values of a straight)."""
    best = 0.0
    for groups in candidate[1]:
        prob = 1.0
        for group in groups:
            if memo is None:
                prob *= at_least(group[0], group[1], p)
            else:
                found = memo.get(group)
                if found is None:
                    found = at_least(group[0], group[1], p)
                    memo[group] = found
                prob *= found
            if prob == 0.0:
                break
        if prob > best:
            best = prob
    return best


def at_least(mask: int, count: int, p: Sequence[float]) -> float:
    """P(at least ``count`` of the cards in ``mask``) for independent cards."""
    if count == 1:
        miss = 1.0
        while mask:
            low = mask & -mask
            miss *= 1.0 - p[low.bit_length() - 1]
            mask ^= low
        return 1.0 - miss
    if count == mask.bit_count():
        prob = 1.0
        while mask:
            low = mask & -mask
            prob *= p[low.bit_length() - 1]
            mask ^= low
        return prob
    # dist[k] = P(exactly k so far), capped at count (the last entry absorbs "count or more").
    dist = [1.0] + [0.0] * count
    while mask:
        low = mask & -mask
        q = p[low.bit_length() - 1]
        mask ^= low
        dist[count] += dist[count - 1] * q
        for k in range(count - 1, 0, -1):
            dist[k] = dist[k] * (1.0 - q) + dist[k - 1] * q
        dist[0] *= 1.0 - q
    return dist[count]
