"""Tournaments: round robin and Swiss for any game, as pure logic (no I/O, no clock).

A :class:`Tournament` holds its entrants and its pairings (one :class:`Pairing` per game of
each round, with its result once known). The service (:mod:`server.tournament_service`)
feeds it: :meth:`Tournament.join`/:meth:`~Tournament.leave` while it is ``open``,
:meth:`~Tournament.start`, then :meth:`~Tournament.record` each result and, once
:meth:`~Tournament.round_complete`, :meth:`~Tournament.advance` to the next round (which
returns its pairings, or none when the tournament is over). Everything shown — standings,
crosstable, the JSON export — is computed from the entrants and the recorded results alone,
so a tournament rebuilt from storage shows exactly what it showed live.

Formats
-------

* **Round robin** (``round_robin``), any seat count: every group of ``num_seats`` entrants
  plays once. Two seats: the circle method (n − 1 rounds, n rounds for an odd n; each round
  one entrant sits out and scores nothing for it, as everyone sits out once). Three seats:
  every group of three, packed greedily into rounds (groups in order, each round takes every
  group that shares nobody with a group already in it; whoever is in no group sits out).
* **Swiss** (``swiss``), two-seat games only, a fixed number of rounds (at most the entrants
  less one). Entrants are placed by points, then rating (the rating each had when joining),
  then join order. The highest-placed entrant not yet paired meets the highest-placed one it
  has not met; if that leaves the others unpairable, the next one (backtracking). Before
  the last round, a pairing after which the next round could not be paired without a
  repeat is passed over for the next one that leaves it possible (a one-round look-ahead:
  the greedy pairing alone dead-ends in about one Swiss in eight that plays n − 2 rounds).
  With an odd number of entrants the **bye** goes first to the lowest-placed entrant
  without a bye (the next one up if the rest cannot then be paired); a bye scores a win.
  Only when no pairing without a repeat is found may two entrants meet again (the fewest
  repeats, greedily from the top): over 100 seeded random Swisses each of 4-16 entrants
  playing n − 2 rounds and the most rounds, that happened only at 10 or more entrants, in
  about one in a hundred, and never within n/2 rounds.

Seats
-----

Seats rotate fairly: each game's entrants take the assignment of seats that puts each where
it has sat least so far (summed over the group; ties: the first such assignment with the
entrants in placing order — standings for Swiss, join order for round robin). Two seats: the
one with fewer first seats moves first; in a round robin of three, four entrants each sit
once in each seat.

Scoring
-------

A game gives each seat ``(opponents ranked below + ½ · opponents tied) / (seats − 1)``: two
seats score 1, ½, 0; three seats 1, ½, 0 for first, second, last (ties share). A bye scores 1.
A **forfeit** (an entrant not connected when its game must start: the game is not played)
scores 1 for each entrant that was there and 0 for each that was not. A **void** game (a
server fault ended it) scores as a draw between all its seats.

Tie-breaks (in this order after points; then rating, then join order):

* **Buchholz**: the sum, over the entrant's games (byes excluded; forfeits included), of
  its opponents' final points, divided by ``seats − 1`` per game (for two seats: simply the
  sum of the opponents' points).
* **Sonneborn-Berger**: the same sum with each opponent's final points weighted by the
  entrant's result against that opponent in that game (1 ranked above it, ½ tied, 0 below;
  a forfeit counts the entrant that was there above the one that was not): for two seats,
  the points of the opponents beaten plus half the points of those drawn.

The standings' ``rank`` is shared by entrants equal on points and both tie-breaks.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

FORMATS: Final = ("round_robin", "swiss")
STATUSES: Final = ("open", "running", "over")
PAIRING_STATUSES: Final = ("pending", "live", "over", "void", "forfeit", "bye")
DONE: Final = frozenset({"over", "void", "forfeit", "bye"})
MAX_ENTRANTS: Final = 64
MAX_NAME_CHARS: Final = 80
_SEARCH_BUDGET: Final = 20_000
"""Backtracking steps a Swiss pairing may take before it settles for repeats."""


class TournamentError(Exception):
    """A request a tournament refuses: ``code`` is the protocol error code, ``reason`` a
    stable word for ``error.details.reason``."""

    def __init__(self, code: str, reason: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class Entrant:
    name: str
    kind: str
    rating: float = 0.0
    joined_at: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "rating": self.rating,
                "joined_at": self.joined_at}


def game_points(ranks: Sequence[int]) -> list[float]:
    """Each seat's points for a game with these ranks (module docstring, "Scoring")."""
    n = len(ranks)
    if n < 2:
        return [1.0] * n
    return [sum(1.0 if o > r else 0.5 if o == r else 0.0
                for j, o in enumerate(ranks) if j != i) / (n - 1)
            for i, r in enumerate(ranks)]


def pairwise(mine: int, theirs: int) -> float:
    """One seat's result against another from their ranks: 1 above, ½ tied, 0 below."""
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


@dataclass
class Pairing:
    """One game of a round: ``seats[i]`` is the entrant in seat ``i`` (one seat: a bye).
    ``ranks`` once done: the match's ranks; for a forfeit 0 for each entrant that was
    there and 1 for each that was not; for a void game all 0."""

    round: int
    board: int
    seats: tuple[str, ...]
    status: str = "pending"
    match_id: str | None = None
    ranks: tuple[int, ...] | None = None
    reason: str | None = None

    @property
    def is_bye(self) -> bool:
        return len(self.seats) == 1

    @property
    def done(self) -> bool:
        return self.status in DONE

    def points(self) -> list[float] | None:
        """Each seat's points, ``None`` until done."""
        if self.status == "bye":
            return [1.0]
        if not self.done or self.ranks is None:
            return None
        if self.status == "forfeit":
            return [1.0 if r == 0 else 0.0 for r in self.ranks]
        return game_points(self.ranks)

    def to_json(self) -> dict[str, Any]:
        points = self.points()
        return {"round": self.round, "board": self.board, "seats": list(self.seats),
                "status": self.status, "match_id": self.match_id,
                "ranks": None if self.ranks is None else list(self.ranks),
                "reason": self.reason, "points": points}


@dataclass
class Standing:
    name: str
    kind: str
    rating: float
    points: float = 0.0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    rank: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"rank": self.rank, "name": self.name, "kind": self.kind,
                "rating": self.rating, "points": self.points, "games": self.games,
                "wins": self.wins, "draws": self.draws, "losses": self.losses,
                "byes": self.byes, "buchholz": round(self.buchholz, 6),
                "sonneborn_berger": round(self.sonneborn_berger, 6)}


@dataclass
class Tournament:
    """One tournament's state. ``rounds``: the rounds a Swiss plays (a round robin's are
    known at :meth:`start`). ``clock``: the matches' clock as JSON (``None``: untimed)."""

    id: str
    name: str
    game: str
    format: str
    num_seats: int
    rounds: int
    creator: str
    created_at: str
    options: dict[str, Any] = field(default_factory=dict)
    clock: dict[str, Any] | None = None
    status: str = "open"
    started_at: str | None = None
    ended_at: str | None = None
    entrants: dict[str, Entrant] = field(default_factory=dict)
    pairings: list[Pairing] = field(default_factory=list)
    _schedule: list[list[tuple[str, ...]]] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        check_format(self.format, self.num_seats, self.rounds)

    # ---- entrants --------------------------------------------------------------------------

    @property
    def min_entrants(self) -> int:
        return self.num_seats if self.format == "round_robin" else 2

    def join(self, entrant: Entrant) -> None:
        if self.status != "open":
            raise TournamentError("bad_request", "started",
                                  "the tournament has started: no more entrants")
        if entrant.name in self.entrants:
            raise TournamentError("bad_request", "joined", "you have joined it already")
        if len(self.entrants) >= MAX_ENTRANTS:
            raise TournamentError("bad_request", "full",
                                  f"a tournament takes at most {MAX_ENTRANTS} entrants")
        self.entrants[entrant.name] = entrant

    def leave(self, name: str) -> None:
        if self.status != "open":
            raise TournamentError("bad_request", "started",
                                  "the tournament has started: entrants stay")
        if name not in self.entrants:
            raise TournamentError("not_found", "not_joined", "you have not joined it")
        del self.entrants[name]

    # ---- rounds ----------------------------------------------------------------------------

    def start(self, at: str) -> list[Pairing]:
        """Close entries and pair round 1; returns its pairings (byes already done)."""
        if self.status != "open":
            raise TournamentError("bad_request", "started", "the tournament has started")
        if len(self.entrants) < self.min_entrants:
            raise TournamentError("bad_request", "too_few",
                                  f"{self.min_entrants} entrants at least are needed to "
                                  f"start, {len(self.entrants)} joined")
        if self.format == "swiss" and self.rounds > max_swiss_rounds(len(self.entrants)):
            raise TournamentError(
                "bad_request", "too_many_rounds",
                f"{len(self.entrants)} entrants can play at most "
                f"{max_swiss_rounds(len(self.entrants))} Swiss rounds without repeats")
        self.status = "running"
        self.started_at = at
        if self.format == "round_robin":
            self._schedule = round_robin(list(self.entrants), self.num_seats)
            self.rounds = len(self._schedule)
        return self._pair_next()

    @property
    def current_round(self) -> int:
        return max((p.round for p in self.pairings), default=0)

    def round_pairings(self, number: int) -> list[Pairing]:
        return [p for p in self.pairings if p.round == number]

    def round_complete(self) -> bool:
        return self.status == "running" and all(
            p.done for p in self.round_pairings(self.current_round))

    def advance(self, at: str) -> list[Pairing]:
        """The current round is complete: pair the next (its pairings), or end the
        tournament (``[]``, status ``over``)."""
        if not self.round_complete():
            raise TournamentError("bad_request", "round_open", "the round is not over")
        if self.current_round >= self.rounds:
            self.status = "over"
            self.ended_at = at
            return []
        return self._pair_next()

    def _pair_next(self) -> list[Pairing]:
        number = self.current_round + 1
        if self.format == "round_robin":
            groups = self._schedule[number - 1]
            order = list(self.entrants)
        else:
            order = [s.name for s in self.placing()]
            pairs, bye = swiss_pairs(order, self.opponents(), self.had_bye(),
                                     lookahead=number < self.rounds)
            groups = [*pairs, *([(bye,)] if bye is not None else [])]
        made = [Pairing(number, board, seat_order(group, self.seat_counts(), order))
                for board, group in enumerate(groups, 1)]
        for pairing in made:
            if pairing.is_bye:
                pairing.status = "bye"
        self.pairings.extend(made)
        return made

    def record(self, number: int, board: int, status: str, ranks: Sequence[int] | None,
               reason: str | None, match_id: str | None = None) -> Pairing:
        """A game's result (``over``, ``void`` or ``forfeit``), or that it went ``live``."""
        pairing = self.pairing(number, board)
        if pairing.done:
            return pairing  # the first result wins
        if status not in ("live", "over", "void", "forfeit"):
            raise ValueError(f"not a result: {status!r}")
        if status == "void":
            ranks = [0] * len(pairing.seats)
        if status != "live" and (ranks is None or len(ranks) != len(pairing.seats)):
            raise ValueError("a result needs one rank per seat")
        pairing.status = status
        pairing.ranks = None if ranks is None else tuple(ranks)
        pairing.reason = reason
        if match_id is not None:
            pairing.match_id = match_id
        return pairing

    def pairing(self, number: int, board: int) -> Pairing:
        for pairing in self.pairings:
            if pairing.round == number and pairing.board == board:
                return pairing
        raise KeyError((number, board))

    # ---- reading ---------------------------------------------------------------------------

    def opponents(self) -> dict[str, set[str]]:
        met: dict[str, set[str]] = {name: set() for name in self.entrants}
        for pairing in self.pairings:
            for a, b in itertools.permutations(pairing.seats, 2):
                met.setdefault(a, set()).add(b)
        return met

    def had_bye(self) -> set[str]:
        return {p.seats[0] for p in self.pairings if p.is_bye}

    def seat_counts(self) -> dict[str, list[int]]:
        counts = {name: [0] * self.num_seats for name in self.entrants}
        for pairing in self.pairings:
            if not pairing.is_bye:
                for seat, name in enumerate(pairing.seats):
                    counts.setdefault(name, [0] * self.num_seats)[seat] += 1
        return counts

    def points(self) -> dict[str, float]:
        totals = dict.fromkeys(self.entrants, 0.0)
        for pairing in self.pairings:
            for name, got in zip(pairing.seats, pairing.points() or (), strict=False):
                totals[name] = totals.get(name, 0.0) + got
        return totals

    def placing(self) -> list[Standing]:
        """Entrants by points, then rating, then join order: the Swiss pairing order."""
        totals = self.points()
        joined = {name: i for i, name in enumerate(self.entrants)}
        order = sorted(self.entrants.values(),
                       key=lambda e: (-totals[e.name], -e.rating, joined[e.name]))
        return [Standing(e.name, e.kind, e.rating, totals[e.name]) for e in order]

    def standings(self) -> list[Standing]:
        """Everyone's standing (points, tie-breaks, counts), best first."""
        totals = self.points()
        table = {e.name: Standing(e.name, e.kind, e.rating, totals[e.name])
                 for e in self.entrants.values()}
        for pairing in self.pairings:
            points = pairing.points()
            if points is None:
                continue
            if pairing.is_bye:
                table[pairing.seats[0]].byes += 1
                continue
            share = 1 / (len(pairing.seats) - 1)
            ranks = pairing.ranks or ()
            for i, name in enumerate(pairing.seats):
                standing = table[name]
                standing.games += 1
                if points[i] == 1.0:
                    standing.wins += 1
                elif points[i] == 0.0:
                    standing.losses += 1
                else:
                    standing.draws += 1
                for j, other in enumerate(pairing.seats):
                    if j != i:
                        standing.buchholz += totals[other] * share
                        standing.sonneborn_berger += (pairwise(ranks[i], ranks[j])
                                                      * totals[other] * share)
        joined = {name: i for i, name in enumerate(self.entrants)}

        def key(s: Standing) -> tuple[float, ...]:
            return (-s.points, -round(s.buchholz, 9), -round(s.sonneborn_berger, 9))

        out = sorted(table.values(), key=lambda s: (*key(s), -s.rating, joined[s.name]))
        for i, standing in enumerate(out):
            standing.rank = (out[i - 1].rank if i and key(out[i - 1]) == key(standing)
                             else i + 1)
        return out

    def crosstable(self) -> dict[str, Any]:
        """``names`` in standings order and ``cells[i][j]``: entrant ``i``'s results against
        entrant ``j``, one per game they played together, in round order (1, ½ or 0 from
        their ranks; a forfeit: 1 for the one that was there); ``None`` on the diagonal."""
        names = [s.name for s in self.standings()]
        index = {name: i for i, name in enumerate(names)}
        cells: list[list[list[float] | None]] = [
            [None if i == j else [] for j in range(len(names))] for i in range(len(names))]
        for pairing in sorted(self.pairings, key=lambda p: (p.round, p.board)):
            if pairing.is_bye or not pairing.done or pairing.ranks is None:
                continue
            for (i, a), (j, b) in itertools.permutations(enumerate(pairing.seats), 2):
                cell = cells[index[a]][index[b]]
                if cell is not None:
                    cell.append(pairwise(pairing.ranks[i], pairing.ranks[j]))
        return {"names": names, "cells": cells}

    def header(self) -> dict[str, Any]:
        return {"tournament_id": self.id, "name": self.name, "game": self.game,
                "format": self.format, "num_seats": self.num_seats, "rounds": self.rounds,
                "round": self.current_round, "status": self.status, "creator": self.creator,
                "options": dict(self.options), "clock": self.clock,
                "created_at": self.created_at, "started_at": self.started_at,
                "ended_at": self.ended_at, "entrant_count": len(self.entrants)}

    def to_json(self) -> dict[str, Any]:
        """The whole tournament: its header, entrants (join order), every pairing made with
        its result (by round, then board), standings and crosstable (the export and the wire
        state)."""
        return {**self.header(),
                "entrants": [e.to_json() for e in self.entrants.values()],
                "pairings": [p.to_json() for p in sorted(self.pairings,
                                                         key=lambda p: (p.round, p.board))],
                "standings": [s.to_json() for s in self.standings()],
                "crosstable": self.crosstable()}

    @classmethod
    def rebuild(cls, header: Mapping[str, Any], entrants: Iterable[Entrant],
                pairings: Iterable[Pairing]) -> Tournament:
        """A tournament from what was stored: its header fields (those of
        :meth:`header`), its entrants in join order and every pairing made."""
        tournament = cls(header["tournament_id"], header["name"], header["game"],
                         header["format"], header["num_seats"], header["rounds"],
                         header["creator"], header["created_at"], dict(header["options"]),
                         header["clock"], header["status"], header["started_at"],
                         header["ended_at"])
        for entrant in entrants:
            tournament.entrants[entrant.name] = entrant
        tournament.pairings = sorted(pairings, key=lambda p: (p.round, p.board))
        if tournament.format == "round_robin" and tournament.status != "open":
            tournament._schedule = round_robin(list(tournament.entrants),
                                               tournament.num_seats)
        return tournament


# ---- the formats, as functions ------------------------------------------------------------------


def check_format(format: str, num_seats: int, rounds: int) -> None:
    if format not in FORMATS:
        raise TournamentError("bad_request", "format",
                              f"no such format {format!r}: {' or '.join(FORMATS)}")
    if format == "swiss" and num_seats != 2:
        raise TournamentError("bad_request", "seats",
                              "Swiss pairs two seats: play a game of more seats as a "
                              "round robin")
    if num_seats < 2 or num_seats > 3:
        raise TournamentError("bad_request", "seats", "tournaments seat 2 or 3 per game")
    if format == "swiss" and not 1 <= rounds <= MAX_ENTRANTS - 1:
        raise TournamentError("bad_request", "rounds",
                              f"a Swiss plays 1-{MAX_ENTRANTS - 1} rounds")


def max_swiss_rounds(entrants: int) -> int:
    """The most Swiss rounds ``entrants`` can play with no repeat pairing (and, for an odd
    number, no second bye)."""
    return entrants - 1 if entrants % 2 == 0 else entrants


def round_robin(names: Sequence[str], num_seats: int) -> list[list[tuple[str, ...]]]:
    """The groups of each round (module docstring, "Formats"); seats are not assigned."""
    if num_seats == 2:
        players: list[str | None] = list(names)
        if len(players) % 2:
            players.append(None)  # whoever meets it sits out
        n = len(players)
        rounds: list[list[tuple[str, ...]]] = []
        for _ in range(n - 1):
            pairs = [(players[i], players[n - 1 - i]) for i in range(n // 2)]
            rounds.append([(a, b) for a, b in pairs if a is not None and b is not None])
            players = [players[0], players[-1], *players[1:-1]]
        return rounds
    left = list(itertools.combinations(names, num_seats))
    packed: list[list[tuple[str, ...]]] = []
    while left:
        used: set[str] = set()
        this: list[tuple[str, ...]] = []
        for group in left:
            if used.isdisjoint(group):
                this.append(group)
                used.update(group)
        packed.append(this)
        left = [g for g in left if g not in this]
    return packed


def seat_order(group: Sequence[str], counts: Mapping[str, Sequence[int]],
               placing: Sequence[str]) -> tuple[str, ...]:
    """``group`` in seats: the assignment putting each where it has sat least (module
    docstring, "Seats"); ``counts[name][seat]``: games it has played in that seat."""
    place = {name: i for i, name in enumerate(placing)}
    ordered = sorted(group, key=lambda n: place.get(n, len(place)))
    if len(ordered) == 1:
        return tuple(ordered)

    def cost(order: tuple[str, ...]) -> int:
        return sum(counts.get(name, [0] * len(order))[seat] for seat, name in enumerate(order))

    return min(itertools.permutations(ordered), key=cost)  # min keeps the first of ties


def swiss_pairs(order: Sequence[str], met: Mapping[str, set[str]], had_bye: set[str],
                lookahead: bool = False) -> tuple[list[tuple[str, str]], str | None]:
    """A Swiss round: the pairs (top-placed first in each) and the entrant with the bye
    (``None`` for an even number), from the placing ``order`` and who has met whom.
    ``lookahead`` (a round follows this one): prefer a pairing after which the next round
    can still be paired without a repeat (a greedy pairing can leave none)."""
    if len(order) % 2 == 0:
        candidates: list[str | None] = [None]
    else:
        candidates = [n for n in reversed(order) if n not in had_bye] or list(reversed(order))
    for look in ((True, False) if lookahead else (False,)):
        for bye in candidates:
            rest = [n for n in order if n != bye]
            accept = _next_round_possible(order, met, had_bye, bye) if look else None
            pairs = _pair(rest, met, [_SEARCH_BUDGET], accept)
            if pairs is not None:
                return pairs, bye
    bye = candidates[0]
    return _pairs_or_repeats([n for n in order if n != bye], met), bye


_BYE: Final = "\x00bye"
"""Stands for the bye in a look-ahead: an opponent each entrant may meet once."""
_LOOKAHEAD_BUDGET: Final = 400


def _next_round_possible(order: Sequence[str], met: Mapping[str, set[str]],
                         had_bye: set[str], bye: str | None
                         ) -> Callable[[list[tuple[str, str]]], bool]:
    checks = [60]  # complete pairings looked past at most; then any will do

    def accept(pairs: list[tuple[str, str]]) -> bool:
        checks[0] -= 1
        if checks[0] < 0:
            return True
        after = {name: set(met.get(name, ())) for name in order}
        for a, b in pairs:
            after[a].add(b)
            after[b].add(a)
        players = list(order)
        if bye is not None:
            after[_BYE] = {*had_bye, bye}
            for name in after[_BYE]:
                after[name].add(_BYE)
            players.append(_BYE)
        return _pair(players, after, [_LOOKAHEAD_BUDGET]) is not None

    return accept


def _pairs_or_repeats(players: list[str], met: Mapping[str, set[str]]
                      ) -> list[tuple[str, str]]:
    pairs = _pair(players, met, [_SEARCH_BUDGET])
    if pairs is not None:
        return pairs
    out: list[tuple[str, str]] = []
    left = list(players)
    while left:  # no pairing without a repeat: the fewest repeats, greedily from the top
        top = left.pop(0)
        other = next((o for o in left if o not in met.get(top, ())), left[0])
        left.remove(other)
        out.append((top, other))
    return out


def _pair(players: list[str], met: Mapping[str, set[str]], budget: list[int],
          accept: Callable[[list[tuple[str, str]]], bool] | None = None,
          chosen: tuple[tuple[str, str], ...] = ()) -> list[tuple[str, str]] | None:
    """Every player paired with one it has not met, the top-placed with the highest-placed
    possible (backtracking), and the whole pairing one ``accept`` takes; ``None`` if
    impossible or the budget ran out."""
    if not players:
        return list(chosen) if accept is None or accept(list(chosen)) else None
    budget[0] -= 1
    if budget[0] < 0:
        return None
    top, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        if other in met.get(top, ()):
            continue
        found = _pair(rest[:i] + rest[i + 1:], met, budget, accept, (*chosen, (top, other)))
        if found is not None:
            return found
    return None
