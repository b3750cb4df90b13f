"""The ladder's pairing logic: who plays whom next, in which seat. Sans-I/O, deterministic.

:func:`plan` takes a snapshot of the bots available on one game's ladder (each a
:class:`Candidate`), the :class:`PairLog` of recent matches, the current time and a random
generator, and returns the matches to start now (each a :class:`Pairing`: one entity per seat).
It never reads a clock or global randomness, so a test replays it exactly with its own
``now`` and ``random.Random(seed)``.

The rules, in order:

1. **Seed**: the next match is built around the candidate with the fewest games, then the
   longest idle (never played counts as idle forever), so a new version plays its placement
   games first and nobody starves.
2. **Opponents**: among the other candidates of *another account* (an account never plays
   itself, so it cannot farm rating with a sandbagging twin) whose pair with every seat
   already chosen is under the hourly cap (:meth:`Policy.pair_cap`: it grows with the
   number of candidates, so a small ladder of fast bots does not stall), take the
   ``window`` nearest in ordinal to the seats chosen so far — busy ones included — and draw
   one at random among those with a free slot.
   If all of them are busy, the seed waits for them (near opponents are the informative
   ones), but not longer than ``patience_s`` since it was last seated or freed: then it takes
   the nearest of those with a free slot. Repeat until the seats are full. A seed for which no
   opponent qualifies yet is skipped this round.
3. **Seats**: of every assignment of the chosen entities to seats, the one that puts each
   entity where it has sat least (summed over the entities; ties drawn at random), so first
   moves rotate.
4. **Capacity**: a candidate is in at most ``free`` of the returned matches (``free`` is what
   it declared minus what it is already playing).

The caller then records each pairing in the :class:`PairLog` (``plan`` does so itself for the
matches it returns) and starts the matches.
"""

from __future__ import annotations

import itertools
import random
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

HOUR_S: Final = 3600.0


@dataclass(frozen=True)
class Candidate:
    """One rated entity on the ladder and connected. ``free``: matches it may start now (0:
    busy, but it still counts for the rating windows); ``seat_counts[s]``: matches it started
    in seat ``s`` (for this ladder's seat count); ``last_played``: when its last match started
    (``None``: never); ``waiting_since``: when it was last seated, freed or joined (``None``:
    waiting for ever, so never made to wait)."""

    entity: int
    account: str
    free: int
    games: int
    ordinal: float
    last_played: float | None = None
    seat_counts: tuple[int, ...] = ()
    waiting_since: float | None = None


@dataclass(frozen=True)
class Pairing:
    """A match to start: ``seats[i]`` is the entity that takes seat ``i``."""

    seats: tuple[int, ...]


@dataclass(frozen=True)
class Policy:
    """How one game's ladder pairs. Any two entities start at most :meth:`pair_cap`
    matches together within an hour (a three-seat match counts for each of its three
    pairs); ``patience_s`` is how long a free entity waits for a busy opponent of its
    rating window."""

    num_seats: int = 2
    window: int = 3
    pair_cap_per_hour: int = 12
    patience_s: float = 15.0
    pair_cap_per_bot: int = 0

    def pair_cap(self, bots: int) -> int:
        """The hourly cap of a pair when ``bots`` entities are on the ladder:
        ``max(pair_cap_per_hour, pair_cap_per_bot × bots)``. A cap that stays fixed while
        bots come lets a ladder of a few fast bots use up every pair's hour in minutes and
        then sit idle for the rest of it; growing it with the ladder keeps each pair's share
        of an entity's matches bounded (it meets ``bots - 1`` others) while the ladder
        stays busy."""
        return max(self.pair_cap_per_hour, self.pair_cap_per_bot * bots)

    def __post_init__(self) -> None:
        if (self.num_seats < 2 or self.window < 1 or self.pair_cap_per_hour < 1
                or self.patience_s < 0 or self.pair_cap_per_bot < 0):
            raise ValueError("num_seats >= 2, window >= 1, pair_cap_per_hour >= 1, "
                             "patience_s >= 0 and pair_cap_per_bot >= 0")


@dataclass
class PairLog:
    """When pairs of entities started matches together, for the hourly cap."""

    span_s: float = HOUR_S
    _times: dict[tuple[int, int], deque[float]] = field(default_factory=dict)

    @staticmethod
    def _key(a: int, b: int) -> tuple[int, int]:
        return (a, b) if a < b else (b, a)

    def add(self, entities: Iterable[int], at: float) -> None:
        """A match started at ``at`` between ``entities`` (every pair of them counts)."""
        for a, b in itertools.combinations(sorted(set(entities)), 2):
            times = self._times.setdefault((a, b), deque())
            times.append(at)
            if len(times) > 1 and times[-2] > at:  # loaded out of order: keep it sorted
                self._times[(a, b)] = deque(sorted(times))

    def count(self, a: int, b: int, now: float) -> int:
        """Matches ``a`` and ``b`` started together in the ``span_s`` before ``now``."""
        times = self._times.get(self._key(a, b))
        if not times:
            return 0
        while times and times[0] <= now - self.span_s:
            times.popleft()
        return len(times)


def _seed_order(c: Candidate) -> tuple[int, float, int]:
    idle_since = float("-inf") if c.last_played is None else c.last_played
    return (c.games, idle_since, c.entity)


def plan(candidates: Sequence[Candidate], policy: Policy, log: PairLog, now: float,
         rng: random.Random) -> list[Pairing]:
    """The matches to start now (see the module docstring). Records them in ``log``."""
    everyone = {c.entity: c for c in candidates}
    cap = policy.pair_cap(len(everyone))
    pairings: list[Pairing] = []
    skipped: set[int] = set()
    while True:
        seeds = sorted((c for e, c in everyone.items() if c.free > 0 and e not in skipped),
                       key=_seed_order)
        if not seeds:
            return pairings
        seed = seeds[0]
        group = _opponents(seed, everyone, policy, cap, log, now, rng)
        if group is None:
            skipped.add(seed.entity)
            continue
        seats = _assign_seats(group, rng)
        pairings.append(Pairing(tuple(c.entity for c in seats)))
        log.add((c.entity for c in seats), now)
        for s, c in enumerate(seats):
            counts = list(c.seat_counts or (0,) * policy.num_seats)
            counts[s] += 1
            everyone[c.entity] = replace(c, free=c.free - 1, games=c.games + 1,
                                         last_played=now, waiting_since=now,
                                         seat_counts=tuple(counts))


def _opponents(seed: Candidate, everyone: dict[int, Candidate], policy: Policy, cap: int,
               log: PairLog, now: float, rng: random.Random) -> list[Candidate] | None:
    group = [seed]
    patient = seed.waiting_since is not None and now - seed.waiting_since < policy.patience_s
    while len(group) < policy.num_seats:
        accounts = {c.account for c in group}
        eligible = [c for c in everyone.values()
                    if c.account not in accounts
                    and all(log.count(c.entity, g.entity, now) < cap for g in group)]
        target = sum(c.ordinal for c in group) / len(group)
        eligible.sort(key=lambda c: (abs(c.ordinal - target), c.entity))
        if patient:  # only the nearest will do, free or not (it waits for busy ones)
            window = [c for c in eligible[:policy.window] if c.free > 0]
        else:
            window = [c for c in eligible if c.free > 0][:policy.window]
        if not window:
            return None
        group.append(window[rng.randrange(len(window))])
    return group


def _assign_seats(group: list[Candidate], rng: random.Random) -> list[Candidate]:
    n = len(group)

    def sat(c: Candidate, seat: int) -> int:
        return c.seat_counts[seat] if seat < len(c.seat_counts) else 0

    best: list[tuple[int, ...]] = []
    best_cost: int | None = None
    for order in itertools.permutations(range(n)):  # order[seat] = index into group
        cost = sum(sat(group[i], seat) for seat, i in enumerate(order))
        if best_cost is None or cost < best_cost:
            best, best_cost = [order], cost
        elif cost == best_cost:
            best.append(order)
    chosen = best[rng.randrange(len(best))]
    return [group[i] for i in chosen]
