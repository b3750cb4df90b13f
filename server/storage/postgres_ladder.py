"""The PostgreSQL backend's ladder sub-store: the ladder's tables in the store's database.

Tables (:mod:`server.storage.postgres_schema` creates them): ``ladder_entities``,
``ladder_matches`` (the raw results; entities, ranks and ratings as JSON), ``ladder_ratings``
and ``ladder_history`` (derived). Writes go through
:meth:`~server.storage.postgres.PostgresStore.write_later`, so they are ordered with the match
writes and never block the event loop; the rows of one result are written in one
transaction. Reads use the store's reader pool.

A result is written once: :meth:`PostgresLadderStore.save_rated` and
:meth:`~PostgresLadderStore.save_void` of a match whose raw row is rated or void already are
ignored (the first result wins; a second server that resumed the match must not rate it
twice).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol

import asyncpg

from server.ladder_book import Entity, LadderBook, RatedResult, Standing
from server.ratings import Rating
from server.storage.base import StoreError
from server.storage.sql_ladder import SqlLadderReads, dumps, rated_rows, ratings_json


class PostgresDatabase(Protocol):
    """What the ladder's tables need of the PostgreSQL store that holds them (its readers and
    its writer); :class:`~server.storage.postgres.PostgresStore` provides it. A protocol, not
    an import: the store makes this sub-store, so importing it back would be a cycle."""

    def query(self, sql: str, args: Iterable[Any] = ()) -> list[tuple[Any, ...]]: ...

    def select(self, sql: str, *, order_by: str, limit: int | None = None,
               **equal: Any) -> list[tuple[Any, ...]]: ...

    def write_later(self, write: Callable[[asyncpg.Connection], Awaitable[object]]
                    ) -> None: ...

    def flush(self) -> None: ...


_UPSERT_RATING = ("INSERT INTO ladder_ratings (entity, mu, sigma, wins, draws, losses) "
                  "VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT (entity) DO UPDATE SET "
                  "mu=EXCLUDED.mu, sigma=EXCLUDED.sigma, wins=EXCLUDED.wins, "
                  "draws=EXCLUDED.draws, losses=EXCLUDED.losses")
_INSERT_POINT = ("INSERT INTO ladder_history (entity, seq, match_id, rank, mu, sigma, at) "
                 "VALUES ($1,$2,$3,$4,$5,$6,$7)")





async def _already_ended(conn: asyncpg.Connection, match_id: str) -> bool:
    """Whether the raw row of ``match_id`` exists and is rated or void already."""
    status = await conn.fetchval("SELECT status FROM ladder_matches WHERE match_id=$1",
                                 match_id)
    return status is not None and status != "live"


class PostgresLadderStore(SqlLadderReads):
    """The ladder's tables in a :class:`~server.storage.postgres.PostgresStore`'s database."""

    store: PostgresDatabase

    def __init__(self, store: PostgresDatabase) -> None:
        self.store = store
        self._token: int | None = None

    # ---- writing -----------------------------------------------------------------------------

    def fence(self, token: int) -> None:
        """Each later ladder write first checks ``ladder_fence`` (under a row lock) and is
        refused if a newer token is there; this one's is recorded at once."""
        self._token = token
        self._write(lambda conn: conn.execute("SELECT 1"))

    def _write(self, write: Callable[[asyncpg.Connection], Awaitable[Any]]) -> None:
        token = self._token
        if token is None:
            self.store.write_later(write)
            return

        async def fenced(conn: asyncpg.Connection) -> None:
            held = await conn.fetchval(
                "INSERT INTO ladder_fence (id, token) VALUES (1, $1) ON CONFLICT (id) DO "
                "UPDATE SET token = EXCLUDED.token WHERE ladder_fence.token <= EXCLUDED.token "
                "RETURNING token", token)
            if held is None:
                raise StoreError(f"fenced off: a ladder leader with a newer token than {token} "
                                 "has written; this one lost the lock")
            await write(conn)

        self.store.write_later(fenced)

    def save_entity(self, entity: Entity, start: Rating) -> None:
        args = (entity.id, entity.game, entity.account, entity.bot, entity.version,
                entity.seeded_from, entity.created_after, entity.created_at)

        async def write(conn: asyncpg.Connection) -> None:
            await conn.execute(
                "INSERT INTO ladder_entities (id, game, account, bot, version, seeded_from, "
                "created_after, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)", *args)
            await conn.execute(_UPSERT_RATING, entity.id, start.mu, start.sigma, 0, 0, 0)

        self._write(write)

    def save_start(self, match_id: str, game: str, entities: Sequence[int],
                   before: Sequence[Rating], started: float, started_at: str,
                   twin: str | None = None) -> None:
        args = (match_id, game, dumps(list(entities)), "live", ratings_json(before),
                started, started_at, twin)
        self._write(lambda conn: conn.execute(
            "INSERT INTO ladder_matches (match_id, game, entities, status, before, started, "
            "started_at, twin) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)", *args))

    def save_void(self, match_id: str, reason: str, ended_at: str) -> None:
        self._write(lambda conn: conn.execute(
            "UPDATE ladder_matches SET status='void', reason=$1, ended_at=$2 "
            "WHERE match_id=$3 AND status='live'", reason, ended_at, match_id))

    def save_rated(self, result: RatedResult, reason: str, ended_at: str,
                   standings: Sequence[Standing]) -> None:
        """One rated result: the raw row, the seats' new ratings and their history points,
        in one transaction; nothing if the match is rated or void already.
        ``standings[i]`` is seat ``i``'s standing after the update."""
        match_row, ratings, history = rated_rows(result, reason, ended_at, standings)

        async def write(conn: asyncpg.Connection) -> None:
            if await _already_ended(conn, result.match_id):
                return
            await conn.execute(
                "UPDATE ladder_matches SET status='rated', ranks=$1, reason=$2, seq=$3, "
                "before=$4, after=$5, ended_at=$6 WHERE match_id=$7", *match_row)
            await conn.executemany(_UPSERT_RATING, ratings)
            await conn.executemany(
                _INSERT_POINT + " ON CONFLICT (entity, seq) DO UPDATE SET "
                "match_id=EXCLUDED.match_id, rank=EXCLUDED.rank, mu=EXCLUDED.mu, "
                "sigma=EXCLUDED.sigma, at=EXCLUDED.at", history)

        self._write(write)

    def replace_derived(self, book: LadderBook, results: Sequence[RatedResult],
                        ended_at: dict[str, str]) -> None:
        cleared = [(r.match_id,) for r in results]
        rated = [(r.seq, ratings_json(r.before), ratings_json(r.after), r.match_id)
                 for r in results]
        points = [(e, r.seq, r.match_id, rank, a.mu, a.sigma, ended_at[r.match_id])
                  for r in results
                  for e, rank, a in zip(r.entities, r.ranks, r.after, strict=True)]
        ratings = [(e, s.rating.mu, s.rating.sigma, s.wins, s.draws, s.losses)
                   for e, s in book.standings.items()]

        async def write(conn: asyncpg.Connection) -> None:
            await conn.execute("DELETE FROM ladder_history")
            await conn.execute("DELETE FROM ladder_ratings")
            # seq is UNIQUE: clear them all before renumbering
            await conn.executemany("UPDATE ladder_matches SET seq=NULL WHERE match_id=$1",
                                   cleared)
            await conn.executemany("UPDATE ladder_matches SET seq=$1, before=$2, after=$3 "
                                   "WHERE match_id=$4", rated)
            await conn.executemany(_INSERT_POINT, points)
            await conn.executemany(_UPSERT_RATING, ratings)

        self._write(write)
