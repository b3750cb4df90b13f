"""Formations: evaluation, best completions and claim proofs (public building blocks).

A *formation* is the set of cards on one side of a flag: 3 cards, or 4 under Mud. Its
*strength* is one ``int``, ``category * 64 + total``, so stronger formations compare greater:

==========  ========  =====================================================
category    number    rule
==========  ========  =====================================================
wedge       4         same colour, consecutive values (no wrap)
phalanx     3         same value
battalion   2         same colour
skirmish    1         consecutive values
host        0         anything else; under Fog every formation is a host
==========  ========  =====================================================

Equal strength is broken by completion order, which lives in the game state, not here.

Wild cards (morale tactics) take the value and colour that serve the formation best: a
Leader (``Alexander``/``Darius``) any value 1–10, ``Cavalry`` 8, ``Shield`` 1–3, any colour.

The search functions work on bitmasks (see :mod:`engine.battleline.cards`) and never
enumerate card combinations: per category they walk the candidate formations from the
strongest down (runs by start value, phalanxes by value, flushes by colour) and test them
against the available cards with a few mask operations, stopping at the first one that is
good enough. Public entry points:

* :func:`evaluate` — the formation of a complete side (``Formation``);
* :func:`best_completion` — the strongest formation a side can still reach from a set of
  available troop cards, with the cards to add (``Completion``);
* :func:`completion_beating` — the strongest completion stronger than a given strength
  (``None`` when there is none): the core of a claim proof;
* :func:`top_completions` — the k strongest completions with distinct card sets (Deep
  Barca's "top four formations" of a side);
* :func:`unseen_troops` — the troop cards a proof may give the opponent;
* :func:`prove_claim` / :func:`can_claim` / :func:`claimable_flags` — claims on a state.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product
from typing import Any, Final

from engine.battleline.cards import (
    ALL_TROOPS_MASK,
    INDEX,
    NUM_TROOPS,
    TROOPS,
    WILD_MAX,
    WILD_VALUES,
    cards_of_mask,
    troop_mask,
)

WEDGE: Final = 4
PHALANX: Final = 3
BATTALION: Final = 2
SKIRMISH: Final = 1
HOST: Final = 0
CATEGORY_NAMES: Final = ("host", "skirmish", "battalion", "phalanx", "wedge")
"""Category number -> name."""

_STEP = 64  # totals are at most 40, so one category step dominates any total

# ---- precomputed tables ---------------------------------------------------------------------

_VALUE_MASK: Final = [0] + [sum(1 << (c * 10 + v - 1) for c in range(6)) for v in range(1, 11)]
"""Value v -> mask of the six troop cards of that value."""

_RUN: Final = {n: [0] + [((1 << n) - 1) << (s - 1) if s + n - 1 <= 10 else 0
                         for s in range(1, 11)] for n in (3, 4)}
"""Run length n, start value s -> value bits s..s+n-1."""


def _top_tables() -> tuple[list[list[int]], list[list[int]]]:
    sums, masks = [], []
    for pattern in range(1024):
        values = [v for v in range(10, 0, -1) if pattern >> (v - 1) & 1]
        s, m = [0], [0]
        for k in range(1, 5):
            if k <= len(values):
                s.append(s[-1] + values[k - 1])
                m.append(m[-1] | 1 << (values[k - 1] - 1))
            else:
                s.append(-1)
                m.append(-1)
        sums.append(s)
        masks.append(m)
    return sums, masks


_TOP_SUM, _TOP_MASK = _top_tables()
"""10-bit value pattern, k -> sum / value bits of its k highest values (-1: fewer than k)."""


# ---- value types ----------------------------------------------------------------------------


def strength(category: int, total: int) -> int:
    """The comparable strength of a formation."""
    return category * _STEP + total


@dataclass(frozen=True)
class Formation:
    """A formation's category and total. ``strength`` compares formations (ties: completion
    order). Under Fog the category is always ``"host"``."""

    category: str
    total: int

    @property
    def strength(self) -> int:
        return strength(CATEGORY_NAMES.index(self.category), self.total)

    @classmethod
    def of(cls, value: int) -> Formation:
        return cls(CATEGORY_NAMES[value // _STEP], value % _STEP)

    def to_json(self) -> dict[str, Any]:
        return {"category": self.category, "total": self.total}


@dataclass(frozen=True)
class Completion:
    """A reachable formation: its strength and the troop cards to add (canonical order)."""

    formation: Formation
    cards: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"cards": list(self.cards), **self.formation.to_json()}


# ---- the search -----------------------------------------------------------------------------


def _cover(wilds: Sequence[int], run: int, missing: int, k: int = 0, used: int = 0
           ) -> int | None:
    """Value bits the wild cards ``wilds[k:]`` take inside ``run`` (one distinct value each,
    allowed by their masks, none of ``used``) so that every bit of ``missing`` is taken
    (``used`` included in the answer); ``None`` if impossible. (A plain recursive function,
    not a closure that calls itself: that would be a reference cycle on every call, left
    for the cyclic collector of a server playing thousands of matches.)"""
    if k == len(wilds):
        return used if missing & ~used == 0 else None
    options = run & wilds[k] & ~used
    while options:
        low = options & -options
        options ^= low
        found = _cover(wilds, run, missing, k + 1, used | low)
        if found is not None:
            return found
    return None


def _lowest(mask: int, k: int) -> int:
    """The ``k`` lowest set bits of ``mask`` (as a mask)."""
    out = 0
    for _ in range(k):
        low = mask & -mask
        out |= low
        mask ^= low
    return out


def _search(troops: Sequence[int], wilds: Sequence[int], wild_max: int, need: int,
            avail: int, size: int, fog: bool, threshold: int) -> tuple[int, int] | None:
    """The strongest formation of ``troops`` (card indices) + ``wilds`` (value masks) +
    ``need`` cards from ``avail`` (troop mask) that is stronger than ``threshold``.

    Returns ``(strength, added_mask)`` or ``None``. Categories are tried from the strongest
    down, so the first category with a candidate holds the overall best (a higher category
    beats any total of a lower one); inside a category candidates come strongest first.
    """
    if need > avail.bit_count():
        return None
    tsum = 0
    tvals = 0
    colours = 0
    for i in troops:
        tsum += i % 10 + 1
        tvals |= 1 << (i % 10)
        colours |= 1 << (i // 10)
    distinct = tvals.bit_count() == len(troops)
    one_colour = colours & (colours - 1) == 0
    colour_list = [colours.bit_length() - 1] if colours else range(6)

    if not fog:
        run_extra = size * (size - 1) // 2
        # Wedge: same colour, consecutive values.
        if one_colour and distinct and threshold < WEDGE * _STEP + size * (11 - size) + run_extra:
            runs = _RUN[size]
            for s in range(11 - size, 0, -1):
                value = WEDGE * _STEP + size * s + run_extra
                if value <= threshold:
                    break
                run = runs[s]
                if tvals & ~run:
                    continue
                fill = run & ~tvals
                for c in colour_list:
                    have = (avail >> (10 * c)) & 0x3FF
                    if not wilds:
                        if fill & ~have == 0:
                            return value, fill << (10 * c)
                    else:
                        used = _cover(wilds, fill, fill & ~have)
                        if used is not None:
                            return value, (fill & ~used) << (10 * c)
        # Phalanx: same value.
        if tvals & (tvals - 1) == 0 and threshold < PHALANX * _STEP + size * 10:
            values = [tvals.bit_length()] if tvals else range(10, 0, -1)
            for v in values:
                value = PHALANX * _STEP + size * v
                if value <= threshold:
                    break
                bit = 1 << (v - 1)
                if any(not w & bit for w in wilds):
                    continue
                cands = avail & _VALUE_MASK[v]
                if cands.bit_count() >= need:
                    return value, _lowest(cands, need)
        # Battalion: same colour, the highest available values of it.
        if one_colour and threshold < BATTALION * _STEP + 40:
            best = -1
            best_add = 0
            base = BATTALION * _STEP + tsum + wild_max
            for c in colour_list:
                have = (avail >> (10 * c)) & 0x3FF
                add = _TOP_SUM[have][need]
                if add >= 0 and base + add > best:
                    best = base + add
                    best_add = _TOP_MASK[have][need] << (10 * c)
            if best > threshold:
                return best, best_add
        # Skirmish: consecutive values, any colours.
        if distinct and threshold < SKIRMISH * _STEP + size * (11 - size) + run_extra:
            any_value = 0
            for c in range(6):
                any_value |= avail >> (10 * c)
            any_value &= 0x3FF
            runs = _RUN[size]
            for s in range(11 - size, 0, -1):
                value = SKIRMISH * _STEP + size * s + run_extra
                if value <= threshold:
                    break
                run = runs[s]
                if tvals & ~run:
                    continue
                fill = run & ~tvals
                missing = fill & ~any_value
                if wilds:
                    used = _cover(wilds, fill, missing)
                    if used is None:
                        continue
                    fill &= ~used
                elif missing:
                    continue
                added = 0
                while fill:
                    low = fill & -fill
                    fill ^= low
                    cands = avail & _VALUE_MASK[low.bit_length()]
                    added |= cands & -cands
                return value, added
    # Host (and everything under Fog): the highest total.
    total = tsum + wild_max
    added = 0
    left = need
    v = 10
    while left and v:
        cands = avail & _VALUE_MASK[v]
        while left and cands:
            low = cands & -cands
            cands ^= low
            added |= low
            total += v
            left -= 1
        v -= 1
    if total > threshold:
        return total, added
    return None


def _split(cards: Iterable[str]) -> tuple[list[int], list[int], int]:
    """Troop indices, wild value masks and the wilds' maximum total of a side."""
    troops, wilds, wild_max = [], [], 0
    for card in cards:
        i = INDEX[card]
        if i < NUM_TROOPS:
            troops.append(i)
        else:
            wilds.append(WILD_VALUES[card])
            wild_max += WILD_MAX[card]
    return troops, wilds, wild_max


def side_strength(cards: Sequence[str], size: int = 3, fog: bool = False) -> int:
    """Strength of a complete side (``len(cards) >= size``; more cards than ``size`` happen
    after Mud leaves a 4-card side: the best ``size`` of them count)."""
    return _strength_of(tuple(cards), size, fog)


@lru_cache(maxsize=1 << 16)
def _strength_of(cards: tuple[str, ...], size: int, fog: bool) -> int:
    # Memoised: proofs re-evaluate the same complete sides turn after turn.
    if len(cards) > size:
        return max(_strength_of(sub, size, fog) for sub in combinations(cards, size))
    troops, wilds, wild_max = _split(cards)
    found = _search(troops, wilds, wild_max, 0, 0, size, fog, -1)
    assert found is not None, "a complete side always has a formation"
    return found[0]


def evaluate(cards: Sequence[str], size: int = 3, fog: bool = False) -> Formation:
    """The formation of a complete side. Raises ``ValueError`` for fewer than ``size`` cards
    or a card that cannot stand in a formation (Fog, Mud, guile)."""
    _check_side(cards, size)
    if len(cards) < size:
        raise ValueError(f"a formation needs {size} cards, got {len(cards)}")
    return Formation.of(side_strength(cards, size, fog))


def _check_side(cards: Sequence[str], size: int) -> None:
    for card in cards:
        if card not in INDEX or (INDEX[card] >= NUM_TROOPS and card not in WILD_VALUES):
            raise ValueError(f"{card!r} cannot stand in a formation")
    if size not in (3, 4):
        raise ValueError("a formation has 3 cards, or 4 under Mud")


def _available_mask(available: Iterable[str] | int) -> int:
    return available if isinstance(available, int) else troop_mask(list(available))


def completion_beating(cards: Sequence[str], available: Iterable[str] | int,
                       threshold: int | Formation, size: int = 3,
                       fog: bool = False) -> Completion | None:
    """The strongest completion of ``cards`` (a side with fewer than ``size`` cards) using
    troop cards from ``available`` (names or a troop mask) whose strength is greater than
    ``threshold``; ``None`` if no completion is that strong."""
    _check_side(cards, size)
    limit = threshold.strength if isinstance(threshold, Formation) else threshold
    troops, wilds, wild_max = _split(cards)
    avail = _available_mask(available) & ~troop_mask(list(cards))
    need = size - len(cards)
    if need < 0:
        raise ValueError("the side is already complete")
    found = _search(troops, wilds, wild_max, need, avail, size, fog, limit)
    if found is None:
        return None
    return Completion(Formation.of(found[0]), tuple(cards_of_mask(found[1])))


def best_completion(cards: Sequence[str], available: Iterable[str] | int, size: int = 3,
                    fog: bool = False) -> Completion | None:
    """The strongest formation ``cards`` can still become with troop cards from
    ``available``; ``None`` when too few cards are available. A complete side returns its
    own formation with no cards added."""
    if len(cards) >= size:
        return Completion(evaluate(cards, size, fog), ())
    return completion_beating(cards, available, -1, size, fog)


def _assignments(wilds: Sequence[int], run: int, missing: int) -> Iterator[int]:
    """Every set of value bits the wild cards can take inside ``run`` (distinct values,
    allowed by their masks) that covers ``missing``."""
    seen: set[int] = set()

    def place(k: int, used: int) -> Iterator[int]:
        if k == len(wilds):
            if missing & ~used == 0 and used not in seen:
                seen.add(used)
                yield used
            return
        options = run & wilds[k] & ~used
        while options:
            low = options & -options
            options ^= low
            yield from place(k + 1, used | low)

    yield from place(0, 0)


def _combinations(mask: int, k: int) -> Iterator[int]:
    """Every ``k``-card subset of a troop mask (as masks)."""
    bits = []
    while mask:
        low = mask & -mask
        bits.append(low)
        mask ^= low
    for combo in combinations(bits, k):
        yield sum(combo)


def _candidates(category: int, troops: Sequence[int], wilds: Sequence[int], need: int,
                avail: int, size: int) -> Iterator[int]:
    """Added-card masks of every completion that can form ``category`` (a completion may
    also be stronger: each is evaluated afterwards)."""
    tvals = 0
    colours = 0
    for i in troops:
        tvals |= 1 << (i % 10)
        colours |= 1 << (i // 10)
    distinct = tvals.bit_count() == len(troops)
    one_colour = colours & (colours - 1) == 0
    colour_list = [colours.bit_length() - 1] if colours else list(range(6))
    if category in (WEDGE, SKIRMISH) and distinct and (category == SKIRMISH or one_colour):
        for s in range(11 - size, 0, -1):
            run = _RUN[size][s]
            if tvals & ~run:
                continue
            fill = run & ~tvals
            if category == WEDGE:
                for c in colour_list:
                    have = (avail >> (10 * c)) & 0x3FF
                    for used in _assignments(wilds, fill, fill & ~have):
                        yield (fill & ~used) << (10 * c)
                continue
            any_value = 0
            for c in range(6):
                any_value |= avail >> (10 * c)
            for used in _assignments(wilds, fill, fill & ~any_value & 0x3FF):
                rest = fill & ~used
                choices = []
                while rest:
                    low = rest & -rest
                    rest ^= low
                    choices.append(_combinations(avail & _VALUE_MASK[low.bit_length()], 1))
                for picked in product(*(list(c) for c in choices)):
                    yield sum(picked)
    elif category == PHALANX and tvals & (tvals - 1) == 0:
        for v in ([tvals.bit_length()] if tvals else range(10, 0, -1)):
            if all(w >> (v - 1) & 1 for w in wilds):
                yield from _combinations(avail & _VALUE_MASK[v], need)
    elif category == BATTALION and one_colour:
        for c in colour_list:
            yield from _combinations(avail & (0x3FF << (10 * c)), need)
    elif category == HOST:
        yield from _combinations(avail, need)


def top_completions(cards: Sequence[str], available: Iterable[str] | int, limit: int = 4,
                    size: int = 3, fog: bool = False) -> list[Completion]:
    """The ``limit`` strongest completions of ``cards`` with troop cards from ``available``,
    each a different set of added cards, strongest first (equal strengths: canonical order of
    the added cards). The "top formations a side can still make" of Deep Barca's MFA.

    Cost: categories are enumerated from the strongest down and the search stops once
    ``limit`` completions of the current category or better are known; only a side that can
    make fewer than ``limit`` skirmishes or better pays for enumerating hosts (all
    ``need``-card subsets). Under Fog only the top cards by value are combined."""
    _check_side(cards, size)
    need = size - len(cards)
    if need < 0:
        raise ValueError("more cards than the formation holds")
    if need == 0:
        return [Completion(evaluate(cards, size, fog), ())]
    troops, wilds, _ = _split(cards)
    avail = _available_mask(available) & ~troop_mask(list(cards))
    if need > avail.bit_count():
        return []
    base = tuple(cards)
    found: dict[int, int] = {}
    if fog:
        # The best sums only use the (need + limit - 1) highest cards.
        ranked = sorted((INDEX[c] for c in cards_of_mask(avail)),
                        key=lambda i: (-(i % 10), i))[:need + limit - 1]
        pool = sum(1 << i for i in ranked)
        for added in _combinations(pool, need):
            found[added] = _strength_of(base + tuple(cards_of_mask(added)), size, fog)
    else:
        for category in (WEDGE, PHALANX, BATTALION, SKIRMISH, HOST):
            for added in _candidates(category, troops, wilds, need, avail, size):
                if added not in found:
                    found[added] = _strength_of(base + tuple(cards_of_mask(added)), size, fog)
            floor = category * _STEP
            if sum(1 for v in found.values() if v >= floor) >= limit:
                break
    ordered = sorted(found.items(),
                     key=lambda kv: (-kv[1], [INDEX[c] for c in cards_of_mask(kv[0])]))
    return [Completion(Formation.of(v), tuple(cards_of_mask(m))) for m, v in ordered[:limit]]


# ---- claims on a state ----------------------------------------------------------------------


@dataclass(frozen=True)
class Proof:
    """The answer to "may ``seat`` claim ``flag`` now?".

    ``rule`` is ``None`` when the claim holds, else the rule it breaks (``"flag_claimed"``,
    ``"side_incomplete"``, ``"claim_not_proven"``). ``formation`` is the claimer's formation
    (when complete); ``opponent`` the opponent's formation if complete; ``counter_example``
    a completion of the opponent's side that would beat the claimer (proof failures only).
    """

    seat: int
    flag: int
    rule: str | None
    formation: Formation | None = None
    opponent: Formation | None = None
    counter_example: Completion | None = None

    @property
    def proven(self) -> bool:
        return self.rule is None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "flag": self.flag, "proven": self.proven}
        if self.rule is not None:
            out["rule"] = self.rule
        if self.formation is not None:
            out["formation"] = self.formation.to_json()
        if self.opponent is not None:
            out["opponent"] = self.opponent.to_json()
        if self.counter_example is not None:
            out["counter_example"] = self.counter_example.to_json()
        return out


def flag_size(env: Mapping[str, Any]) -> int:
    """Cards per formation beside a flag with these environment cards."""
    return 4 if "Mud" in env else 3


def unseen_mask(state: Mapping[str, Any]) -> int:
    """Troop cards not visible on the table or in a discard pile (deck and both hands, the
    claimer's own hand included), as a mask."""
    seen = 0
    index = INDEX
    for flag in state["flags"]:
        for side in flag["sides"]:
            for card in side:
                i = index[card]
                if i < NUM_TROOPS:
                    seen |= 1 << i
    for pile in state["discards"]:
        for card in pile:
            i = index[card]
            if i < NUM_TROOPS:
                seen |= 1 << i
    return ALL_TROOPS_MASK & ~seen


def unseen_troops(state: Mapping[str, Any]) -> list[str]:
    """The troop cards a claim proof lets the opponent use, in canonical order."""
    return cards_of_mask(unseen_mask(state))


def _holds(data: Mapping[str, Any], seat: int, unseen: int) -> bool:
    """Claim check for an unclaimed flag dict whose ``seat`` side is complete: the fast path
    of :func:`can_claim` and :func:`claimable_flags` (no value objects built)."""
    env = data["env"]
    size = 4 if "Mud" in env else 3
    fog = "Fog" in env
    sides = data["sides"]
    own = _strength_of(tuple(sides[seat]), size, fog)
    theirs = sides[1 - seat]
    if len(theirs) >= size:
        other = _strength_of(tuple(theirs), size, fog)
        if own != other:
            return own > other
        order: list[int] = data["order"]
        return order.index(seat) < order.index(1 - seat)
    troops, wilds, wild_max = _split(theirs)
    return _search(troops, wilds, wild_max, size - len(theirs), unseen, size, fog, own) is None


def _proof(state: Mapping[str, Any], seat: int, flag: int) -> Proof:
    data = state["flags"][flag - 1]
    if data["claimed"] is not None:
        return Proof(seat, flag, "flag_claimed")
    env = data["env"]
    size = 4 if "Mud" in env else 3
    fog = "Fog" in env
    mine = data["sides"][seat]
    if len(mine) < size:
        return Proof(seat, flag, "side_incomplete")
    own = side_strength(mine, size, fog)
    theirs = data["sides"][1 - seat]
    if len(theirs) >= size:
        other = side_strength(theirs, size, fog)
        order = data["order"]
        wins = own > other or (own == other and order.index(seat) < order.index(1 - seat))
        return Proof(seat, flag, None if wins else "claim_not_proven", Formation.of(own),
                     Formation.of(other))
    troops, wilds, wild_max = _split(theirs)
    found = _search(troops, wilds, wild_max, size - len(theirs), unseen_mask(state), size,
                    fog, own)
    counter = None
    if found is not None:
        counter = Completion(Formation.of(found[0]), tuple(cards_of_mask(found[1])))
    return Proof(seat, flag, None if found is None else "claim_not_proven", Formation.of(own),
                 None, counter)


def prove_claim(state: Mapping[str, Any], seat: int, flag: int) -> Proof:
    """Whether ``seat`` may claim ``flag`` (1–9) in ``state``, with the reasons: the formations
    compared, or a counter-example completion of the opponent's side. When both sides are
    complete and the claimer's loses, ``opponent`` holds the better formation."""
    return _proof(state, seat, flag)


def can_claim(state: Mapping[str, Any], seat: int, flag: int, unseen: int | None = None) -> bool:
    """Fast yes/no form of :func:`prove_claim`. ``unseen`` (from :func:`unseen_mask`) may be
    passed in when checking several flags of one state."""
    data = state["flags"][flag - 1]
    if data["claimed"] is not None:
        return False
    if len(data["sides"][seat]) < (4 if "Mud" in data["env"] else 3):
        return False
    return _holds(data, seat, unseen_mask(state) if unseen is None else unseen)


def claimable_flags(state: Mapping[str, Any], seat: int) -> list[int]:
    """Every flag (1–9, ascending) ``seat`` could claim in ``state``, ignoring whose turn it is."""
    unseen = -1
    out = []
    for n, data in enumerate(state["flags"]):
        if data["claimed"] is not None:
            continue
        if len(data["sides"][seat]) < (4 if "Mud" in data["env"] else 3):
            continue
        if unseen < 0:
            unseen = unseen_mask(state)
        if _holds(data, seat, unseen):
            out.append(n + 1)
    return out


__all__ = [
    "BATTALION", "CATEGORY_NAMES", "Completion", "Formation", "HOST", "PHALANX", "Proof",
    "SKIRMISH", "TROOPS", "WEDGE", "best_completion", "can_claim", "claimable_flags",
    "completion_beating", "evaluate", "flag_size", "prove_claim", "side_strength", "strength",
    "top_completions", "unseen_mask", "unseen_troops",
]
