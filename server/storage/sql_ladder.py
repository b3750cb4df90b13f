"""What the SQL backends' ladder sub-stores share: the reads, over the same tables.

SQLite (:mod:`server.storage.sqlite_ladder`) and PostgreSQL
(:mod:`server.storage.postgres_ladder`) keep the ladder in the same tables with the same
columns (entities, ranks and ratings as JSON text), and read them with the same statements;
only their writes differ (each backend's placeholders and upserts). A backend's store gives
:class:`SqlLadderReads` its ``query`` and ``select`` (:class:`ReadableTables`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from server.ladder_book import Entity, RatedResult, Standing
from server.ratings import Rating
from server.storage.ladder import LadderMatchRow, LadderStore, rating_point

MATCH_COLUMNS = ("match_id, game, entities, status, ranks, reason, seq, before, after, "
                 "started, started_at, ended_at, twin")


class ReadableTables(Protocol):
    """A store's reads, as the ladder's sub-store uses them."""

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple[Any, ...]]: ...

    def select(self, sql: str, *, order_by: str, limit: int | None = None,
               **equal: Any) -> list[tuple[Any, ...]]: ...

    def flush(self) -> None: ...


def dumps(value: Any) -> str:
    """Compact JSON text, as the ladder's JSON columns hold it."""
    return json.dumps(value, separators=(",", ":"))


def ratings_json(ratings: Sequence[Rating]) -> str:
    return dumps([[r.mu, r.sigma] for r in ratings])


def rated_rows(result: RatedResult, reason: str, ended_at: str,
               standings: Sequence[Standing]
               ) -> tuple[tuple[Any, ...], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """A rated result as its rows: the raw match row's new values (ranks, reason, seq,
    before, after, ended_at, match_id), each seat's rating row (entity, mu, sigma, wins,
    draws, losses; ``standings[i]`` is seat ``i``'s after the update), and each seat's
    history point (entity, seq, match_id, rank, mu, sigma, at)."""
    match_row = (dumps(list(result.ranks)), reason, result.seq, ratings_json(result.before),
                 ratings_json(result.after), ended_at, result.match_id)
    ratings = [(e, s.rating.mu, s.rating.sigma, s.wins, s.draws, s.losses)
               for e, s in zip(result.entities, standings, strict=True)]
    history = [(e, result.seq, result.match_id, rank, r.mu, r.sigma, ended_at)
               for e, rank, r in zip(result.entities, result.ranks, result.after, strict=True)]
    return match_row, ratings, history


def ratings_of(text: str | None) -> list[Rating] | None:
    return None if text is None else [Rating(mu, sigma) for mu, sigma in json.loads(text)]


class SqlLadderReads(LadderStore):
    """The reads of the ladder's tables; a backend adds its writes."""

    store: ReadableTables

    def entities(self) -> list[Entity]:
        rows = self.store.query("SELECT id, game, account, bot, version, seeded_from, "
                                "created_after, created_at FROM ladder_entities ORDER BY id")
        return [Entity(*row) for row in rows]

    def standings(self) -> dict[int, Standing]:
        return {entity: Standing(Rating(mu, sigma), wins, draws, losses)
                for entity, mu, sigma, wins, draws, losses in self.store.query(
                    "SELECT entity, mu, sigma, wins, draws, losses FROM ladder_ratings")}

    def matches(self, *, game: str | None = None, status: str | None = None,
                limit: int | None = None) -> list[LadderMatchRow]:
        return [self._match(row) for row in self.store.select(
            f"SELECT {MATCH_COLUMNS} FROM ladder_matches", order_by="started DESC, match_id",
            limit=limit, game=game, status=status)]

    @staticmethod
    def _match(row: tuple[Any, ...]) -> LadderMatchRow:
        (match_id, game, entities, status, ranks, reason, seq, before, after, started,
         started_at, ended_at, twin) = row
        return LadderMatchRow(match_id, game, json.loads(entities), status,
                              None if ranks is None else json.loads(ranks), reason, seq,
                              ratings_of(before), ratings_of(after), started, started_at,
                              ended_at, twin)

    def history(self, entity_id: int, limit: int | None = None) -> list[dict[str, Any]]:
        rows = self.store.select("SELECT seq, match_id, at, rank, mu, sigma FROM ladder_history",
                                 order_by="seq DESC", limit=limit, entity=entity_id)
        return [rating_point(*row) for row in reversed(rows)]

    def flush(self) -> None:
        self.store.flush()
