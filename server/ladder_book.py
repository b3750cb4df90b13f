"""The ladder's books: rated entities, their standings, and the results that made them. No I/O.

A :class:`LadderBook` holds, for every game, each rated :class:`Entity` (one version of one
bot of one account) and its :class:`Standing` (rating, win/draw/loss counts, matches started
per seat, when it last started one). The live server and ``arena ladder rerate`` drive the same
two operations in the same order, so they agree to the last bit:

* :meth:`LadderBook.add_entity` — a new version joins; it starts from the initial rating, or
  from its seed version's rating *at that moment* (recorded as ``created_after``, the number
  of results rated before it);
* :meth:`LadderBook.rate` — a match's result (the engine's ranks per seat) updates every seat
  at once and gets the next ``seq``.

:meth:`LadderBook.replay` rebuilds a book from the raw records (entities and rated results),
interleaving entity creation and results by ``created_after``/``seq``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from server.ratings import INITIAL, Rating, rate, result_word, seeded_rating

DEFAULT_MIN_GAMES = 10
"""Rated matches below which a leaderboard entry is marked provisional."""


@dataclass(frozen=True)
class Entity:
    """One rated entity. ``seeded_from`` is another entity's id (an earlier version)."""

    id: int
    game: str
    account: str
    bot: str
    version: str
    seeded_from: int | None = None
    created_after: int = 0
    created_at: str = ""

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.game, self.account, self.bot, self.version)

    def label(self) -> dict[str, str]:
        return {"account": self.account, "bot": self.bot, "version": self.version}


@dataclass
class Standing:
    """Where an entity stands. ``games`` counts rated matches; ``started`` every match it
    was seated in (void ones too), ``seat_counts`` those per seat."""

    rating: Rating = INITIAL
    wins: int = 0
    draws: int = 0
    losses: int = 0
    started: int = 0
    seat_counts: list[int] = field(default_factory=list)
    last_played: float | None = None

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass(frozen=True)
class RatedResult:
    """What one :meth:`LadderBook.rate` did: ratings per seat before and after."""

    seq: int
    match_id: str
    entities: tuple[int, ...]
    ranks: tuple[int, ...]
    before: tuple[Rating, ...]
    after: tuple[Rating, ...]


class LadderBook:
    def __init__(self) -> None:
        self.entities: dict[int, Entity] = {}
        self.standings: dict[int, Standing] = {}
        self._by_key: dict[tuple[str, str, str, str], int] = {}
        self.seq = 0
        """The last ``seq`` given to a rated result (0: none yet)."""

    # ---- entities ----------------------------------------------------------------------------

    def find(self, game: str, account: str, bot: str, version: str) -> Entity | None:
        entity_id = self._by_key.get((game, account, bot, version))
        return None if entity_id is None else self.entities[entity_id]

    def versions(self, game: str, account: str | None, bot: str) -> list[Entity]:
        """Every version of ``bot`` (of ``account``, or of any account), oldest first."""
        return [e for e in self.entities.values()
                if e.game == game and e.bot == bot and (account is None or e.account == account)]

    def restore(self, entity: Entity, standing: Standing) -> None:
        """Put back an entity as stored (loading a saved book)."""
        self.entities[entity.id] = entity
        self._by_key[entity.key] = entity.id
        self.standings[entity.id] = standing

    def next_id(self) -> int:
        return max(self.entities, default=0) + 1

    def add_entity(self, game: str, account: str, bot: str, version: str, *,
                   seeded_from: int | None = None, created_at: str = "",
                   entity_id: int | None = None, created_after: int | None = None) -> Entity:
        """Register a new rated entity. Raises ``ValueError`` if it exists or the seed is
        not an entity of the same game."""
        if (game, account, bot, version) in self._by_key:
            raise ValueError(f"{account}/{bot}@{version} is already on the {game} ladder")
        start = INITIAL
        if seeded_from is not None:
            seed = self.entities.get(seeded_from)
            if seed is None or seed.game != game:
                raise ValueError("a version is seeded from an entity of the same game")
            start = seeded_rating(self.standings[seeded_from].rating)
        entity = Entity(self.next_id() if entity_id is None else entity_id, game, account,
                        bot, version, seeded_from,
                        self.seq if created_after is None else created_after, created_at)
        self.entities[entity.id] = entity
        self._by_key[entity.key] = entity.id
        self.standings[entity.id] = Standing(rating=start)
        return entity

    # ---- matches -----------------------------------------------------------------------------

    def started(self, entities: Sequence[int], at: float) -> None:
        """A match started with ``entities[seat]`` in each seat."""
        for seat, entity_id in enumerate(entities):
            standing = self.standings[entity_id]
            standing.started += 1
            while len(standing.seat_counts) <= seat:
                standing.seat_counts.append(0)
            standing.seat_counts[seat] += 1
            if standing.last_played is None or at > standing.last_played:
                standing.last_played = at

    def rate(self, match_id: str, entities: Sequence[int], ranks: Sequence[int]) -> RatedResult:
        """Rate one finished match; returns what changed (with the new ``seq``)."""
        if len(set(entities)) != len(entities):
            raise ValueError("an entity holds one seat of a rated match")
        standings = [self.standings[e] for e in entities]
        before = tuple(s.rating for s in standings)
        after = tuple(rate(before, ranks))
        for seat, standing in enumerate(standings):
            standing.rating = after[seat]
            word = result_word(ranks, seat)
            if word == "win":
                standing.wins += 1
            elif word == "draw":
                standing.draws += 1
            else:
                standing.losses += 1
        self.seq += 1
        return RatedResult(self.seq, match_id, tuple(entities), tuple(ranks), before, after)

    # ---- reading -----------------------------------------------------------------------------

    def leaderboard(self, game: str, min_games: int = DEFAULT_MIN_GAMES,
                    limit: int | None = None) -> list[dict[str, Any]]:
        """The ``LadderEntry`` objects of ``game``, best ordinal first (ties: more games,
        then the older entity)."""
        rows = [(e, self.standings[e.id]) for e in self.entities.values() if e.game == game]
        rows.sort(key=lambda es: (-es[1].rating.ordinal, -es[1].games, es[0].id))
        out = []
        for rank, (entity, standing) in enumerate(rows[:limit], 1):
            out.append(self.entry(entity, standing, rank, min_games))
        return out

    @staticmethod
    def entry(entity: Entity, standing: Standing, rank: int, min_games: int
              ) -> dict[str, Any]:
        rating = standing.rating
        return {"rank": rank, **entity.label(), "mu": rating.mu, "sigma": rating.sigma,
                "ordinal": rating.ordinal, "games": standing.games, "wins": standing.wins,
                "draws": standing.draws, "losses": standing.losses,
                "provisional": standing.games < min_games}

    def rank_of(self, entity_id: int, min_games: int = DEFAULT_MIN_GAMES) -> dict[str, Any]:
        entity = self.entities[entity_id]
        for row in self.leaderboard(entity.game, min_games):
            if (row["account"], row["bot"], row["version"]) == (
                    entity.account, entity.bot, entity.version):
                return row
        raise KeyError(entity_id)  # pragma: no cover - every entity is on its leaderboard

    # ---- rebuilding from raw records ---------------------------------------------------------

    @classmethod
    def replay(cls, entities: Iterable[Entity],
               results: Iterable[tuple[int, str, Sequence[int], Sequence[int]]]
               ) -> tuple[LadderBook, list[RatedResult]]:
        """Recompute everything from raw records: ``entities`` as stored and ``results`` as
        ``(seq, match_id, entities per seat, ranks)`` of every rated match. Returns the book
        and each result's ratings, in ``seq`` order (renumbered 1, 2, … if gaps)."""
        book = cls()
        pending = sorted(entities, key=lambda e: (e.created_after, e.id))
        done: list[RatedResult] = []
        index = 0

        def create_up_to(seq: int) -> None:
            nonlocal index
            while index < len(pending) and pending[index].created_after < seq:
                e = pending[index]
                book.add_entity(e.game, e.account, e.bot, e.version, seeded_from=e.seeded_from,
                                created_at=e.created_at, entity_id=e.id,
                                created_after=e.created_after)
                index += 1

        for seq, match_id, seated, ranks in sorted(results, key=lambda r: r[0]):
            create_up_to(seq)
            done.append(book.rate(match_id, seated, ranks))
        create_up_to(float("inf"))  # type: ignore[arg-type]
        return book, done
