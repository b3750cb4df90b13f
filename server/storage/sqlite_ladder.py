"""The SQLite backend's ladder sub-store: the ladder's tables in the store's file.

Tables (``server/storage/sqlite_schema.py`` creates them): ``ladder_entities``,
``ladder_matches`` (the raw results; entities, ranks and ratings as JSON),
``ladder_ratings`` and ``ladder_history`` (derived). Writes go through
:meth:`~server.storage.sqlite.SqliteStore.write_later`, so they are ordered with the match
writes and never block the event loop; the rows of one result are written in one
transaction. Reads use the store's reader.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from server.ladder_book import Entity, LadderBook, RatedResult, Standing
from server.ratings import Rating
from server.storage.sql_ladder import SqlLadderReads, dumps, rated_rows, ratings_json


class SqliteFile(Protocol):
    """What the ladder's tables need of the SQLite store that holds them (its reader and its
    writer thread); :class:`~server.storage.sqlite.SqliteStore` provides it. A protocol, not
    an import: the store makes this sub-store, so importing it back would be a cycle."""

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple[Any, ...]]: ...

    def select(self, sql: str, *, order_by: str, limit: int | None = None,
               **equal: Any) -> list[tuple[Any, ...]]: ...

    def write_later(self, write: Callable[[sqlite3.Connection], object]) -> None: ...

    def flush(self) -> None: ...





class SqliteLadderStore(SqlLadderReads):
    """The ladder's tables in a :class:`~server.storage.sqlite.SqliteStore`'s file."""

    store: SqliteFile

    def __init__(self, store: SqliteFile) -> None:
        self.store = store

    # ---- writing -----------------------------------------------------------------------------

    def save_entity(self, entity: Entity, start: Rating) -> None:
        params = (entity.id, entity.game, entity.account, entity.bot, entity.version,
                  entity.seeded_from, entity.created_after, entity.created_at)

        def write(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO ladder_entities (id, game, account, bot, version, "
                         "seeded_from, created_after, created_at) VALUES (?,?,?,?,?,?,?,?)",
                         params)
            conn.execute("INSERT OR REPLACE INTO ladder_ratings VALUES (?,?,?,0,0,0)",
                         (entity.id, start.mu, start.sigma))

        self.store.write_later(write)

    def save_start(self, match_id: str, game: str, entities: Sequence[int],
                   before: Sequence[Rating], started: float, started_at: str,
                   twin: str | None = None) -> None:
        params = (match_id, game, dumps(list(entities)), "live", ratings_json(before),
                  started, started_at, twin)
        self.store.write_later(lambda conn: conn.execute(
            "INSERT INTO ladder_matches (match_id, game, entities, status, before, started, "
            "started_at, twin) VALUES (?,?,?,?,?,?,?,?)", params))

    def save_void(self, match_id: str, reason: str, ended_at: str) -> None:
        self.store.write_later(lambda conn: conn.execute(
            "UPDATE ladder_matches SET status='void', reason=?, ended_at=? "
            "WHERE match_id=? AND status='live'", (reason, ended_at, match_id)))

    def save_rated(self, result: RatedResult, reason: str, ended_at: str,
                   standings: Sequence[Standing]) -> None:
        """One rated result: the raw row, the seats' new ratings and their history points,
        in one transaction; nothing if the match is rated or void already (the first result
        wins). ``standings[i]`` is seat ``i``'s standing after the update."""
        match_row, ratings, history = rated_rows(result, reason, ended_at, standings)

        def write(conn: sqlite3.Connection) -> None:
            stored = conn.execute("SELECT status FROM ladder_matches WHERE match_id=?",
                                  (result.match_id,)).fetchone()
            if stored is not None and stored[0] != "live":
                return
            conn.execute("UPDATE ladder_matches SET status='rated', ranks=?, reason=?, seq=?, "
                         "before=?, after=?, ended_at=? WHERE match_id=?", match_row)
            conn.executemany("INSERT OR REPLACE INTO ladder_ratings VALUES (?,?,?,?,?,?)",
                             ratings)
            conn.executemany("INSERT OR REPLACE INTO ladder_history VALUES (?,?,?,?,?,?,?)",
                             history)

        self.store.write_later(write)

    def replace_derived(self, book: LadderBook, results: Sequence[RatedResult],
                        ended_at: dict[str, str]) -> None:
        def write(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM ladder_history")
            conn.execute("DELETE FROM ladder_ratings")
            # seq is UNIQUE: clear them all before renumbering
            conn.executemany("UPDATE ladder_matches SET seq=NULL WHERE match_id=?",
                             [(r.match_id,) for r in results])
            for r in results:
                conn.execute("UPDATE ladder_matches SET seq=?, before=?, after=? "
                             "WHERE match_id=?", (r.seq, ratings_json(r.before),
                                                  ratings_json(r.after), r.match_id))
                conn.executemany(
                    "INSERT INTO ladder_history VALUES (?,?,?,?,?,?,?)",
                    [(e, r.seq, r.match_id, rank, a.mu, a.sigma, ended_at[r.match_id])
                     for e, rank, a in zip(r.entities, r.ranks, r.after, strict=True)])
            conn.executemany(
                "INSERT INTO ladder_ratings VALUES (?,?,?,?,?,?)",
                [(e, s.rating.mu, s.rating.sigma, s.wins, s.draws, s.losses)
                 for e, s in book.standings.items()])

        self.store.write_later(write)
