"""The ladder's sub-store: what the ladder keeps, behind one interface every backend implements.

A :class:`LadderStore` comes from :meth:`server.storage.Store.ladder`. It keeps

* the **entities**: one per rated bot version (game, account, bot, version, the entity it
  was seeded from, ``created_after`` = results rated before it joined);
* the **raw results**: one :class:`LadderMatchRow` per ladder match with its entities per
  seat, status (``live`` → ``rated`` or ``void``), the engine's ranks and reason, the rating
  order ``seq`` of a rated match and each seat's ratings before and after. A duplicate pair
  (:mod:`server.pairs`) is *one* raw result: its row is game 1's (``match_id``, entities as
  seated there) with ``twin`` naming game 2 (the same entities, seats swapped); its ranks are
  the pair's (:func:`server.pairs.pair_result`) and its reason ``duplicate <points>``, while
  each game's own outcome stays in its match's record;
* each entity's **current rating** and counts (derived; rebuilt by :meth:`rerate`);
* each entity's **rating history**, one point per rated match (derived; rebuilt too).

Writes are queued in order with the store's other writes and return at once; the rows of
one result (its raw row, the ratings and the history) are written atomically. Reads see
what is committed (:meth:`LadderStore.flush` first to read your own writes).

A backend implements the abstract reads and writes; loading the book and rerating are
written once, here, on top of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from server.ladder_book import Entity, LadderBook, RatedResult, Standing
from server.ratings import Rating

LADDER_STATUSES = ("live", "rated", "void")


@dataclass
class LadderMatchRow:
    """One raw result. ``before``/``after``: ratings per seat (``after`` only if rated).
    ``twin``: a duplicate pair's second match (this row is the pair's)."""

    match_id: str
    game: str
    entities: list[int]
    status: str
    ranks: list[int] | None
    reason: str | None
    seq: int | None
    before: list[Rating] | None
    after: list[Rating] | None
    started: float
    started_at: str
    ended_at: str | None
    twin: str | None = None

    def seatings(self) -> list[list[int]]:
        """The entities per seat of each match this result stands for (a pair: two, seats
        swapped)."""
        if self.twin is None:
            return [self.entities]
        return [self.entities, self.entities[::-1]]


def rating_point(seq: int, match_id: str, at: str, rank: int, mu: float, sigma: float
                 ) -> dict[str, Any]:
    """One ``RatingPoint`` of the protocol: an entity's rating after one rated match."""
    return {"seq": seq, "match_id": match_id, "at": at, "rank": rank, "mu": mu,
            "sigma": sigma, "ordinal": Rating(mu, sigma).ordinal}


class LadderStore(ABC):
    """The ladder's persistence in one store."""

    # ---- reading -----------------------------------------------------------------------------

    @abstractmethod
    def entities(self) -> list[Entity]:
        """Every entity, by id."""

    @abstractmethod
    def standings(self) -> dict[int, Standing]:
        """Each entity's stored rating and win/draw/loss counts (its start rating until it
        is first rated), by entity id; the other fields of :class:`Standing` are left at
        their defaults."""

    @abstractmethod
    def matches(self, *, game: str | None = None, status: str | None = None,
                limit: int | None = None) -> list[LadderMatchRow]:
        """Raw results, newest first (``started``, then ``match_id``)."""

    @abstractmethod
    def history(self, entity_id: int, limit: int | None = None) -> list[dict[str, Any]]:
        """:func:`rating_point` objects of one entity, oldest first (the latest ``limit``)."""

    def load_book(self) -> LadderBook:
        """The book as stored: entities, current ratings and counts, seat counts from every
        match, the last ``seq``."""
        book = LadderBook()
        standings = self.standings()
        for entity in self.entities():
            # Entities seeded but never rated start where their seed stood when they
            # joined: their start rating is stored too (written on creation).
            book.restore(entity, standings.get(entity.id, Standing()))
        rows = self.matches()
        for row in reversed(rows):
            for seating in row.seatings():
                book.started(seating, row.started)
        book.seq = max((row.seq or 0 for row in rows), default=0)
        return book

    # ---- writing -----------------------------------------------------------------------------

    @abstractmethod
    def save_entity(self, entity: Entity, start: Rating) -> None:
        """Queue a new entity and its start rating (no games yet). An entity whose id or
        (game, account, bot, version) is stored already fails the next flush."""

    @abstractmethod
    def save_start(self, match_id: str, game: str, entities: Sequence[int],
                   before: Sequence[Rating], started: float, started_at: str,
                   twin: str | None = None) -> None:
        """Queue a new ``live`` raw result with its seats' ratings before it (``twin``: a
        duplicate pair's, whose second match is ``twin``)."""

    @abstractmethod
    def save_void(self, match_id: str, reason: str, ended_at: str) -> None:
        """Queue: this match ended unrated."""

    @abstractmethod
    def save_rated(self, result: RatedResult, reason: str, ended_at: str,
                   standings: Sequence[Standing]) -> None:
        """Queue one rated result: the raw row, the seats' new ratings and their history
        points, atomically. ``standings[i]`` is seat ``i``'s standing after the update."""

    @abstractmethod
    def replace_derived(self, book: LadderBook, results: Sequence[RatedResult],
                        ended_at: dict[str, str]) -> None:
        """Queue, atomically: every rated match's ``seq``, ``before`` and ``after`` from
        ``results``; the history rebuilt from them (a point at ``ended_at[match_id]``); the
        current ratings and counts from ``book``. What :meth:`rerate` writes."""

    def fence(self, token: int) -> None:
        """From now on this store's ladder writes carry ``token``, a fencing token of the
        ladder's lock (a cluster's leader took it with this token): a backend that several
        processes share refuses them (:meth:`flush` raises :class:`StoreError`) once a
        writer with a newer token has written, so a leader that lost the lock without
        knowing cannot overwrite its successor's ratings. One process alone (SQLite, memory)
        has nothing to fence."""
        return None

    @abstractmethod
    def flush(self) -> None:
        """Block until every write queued in the store (the ladder's and the others) is
        committed."""

    def rerate(self) -> tuple[LadderBook, list[RatedResult]]:
        """Recompute every rating from the raw results and rewrite the derived data
        (ratings, history, each rated match's before/after). Run it while no server uses the
        store. Returns the new book and the results in rating order."""
        rows = self.matches()
        rated = sorted((m for m in rows if m.status == "rated"), key=lambda m: m.seq or 0)
        book, results = LadderBook.replay(
            self.entities(), [(m.seq or 0, m.match_id, m.entities, m.ranks or []) for m in rated])
        for row in reversed(rows):
            for seating in row.seatings():
                book.started(seating, row.started)
        self.replace_derived(book, results,
                             {m.match_id: m.ended_at or m.started_at for m in rated})
        self.flush()
        return book, results
