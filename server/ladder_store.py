"""The ladder's tables in the server's SQLite file, written through the store's writer thread.

Tables (created if missing):

* ``ladder_entities`` — one row per rated entity (game, account, bot, version, the entity it
  was seeded from, ``created_after`` = results rated before it joined);
* ``ladder_matches`` — the **raw results**: one row per ladder match with its entities per
  seat, status (``live`` → ``rated`` or ``void``), the engine's ranks and reason, the rating
  order ``seq`` of a rated match and each seat's ratings before and after;
* ``ladder_ratings`` — each entity's current rating and counts (derived; rebuilt by
  ``rerate``);
* ``ladder_history`` — each entity's rating after each rated match (derived; rebuilt too).

Writes go through :meth:`server.storage.SqliteStore.write_later`, so they are ordered with the
match writes and never block the event loop; the rows of one result (its match row, the
ratings and the history) are written in one transaction. Reads use the store's reader.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from server.ladder_book import Entity, LadderBook, RatedResult, Standing
from server.ratings import Rating
from server.storage import SqliteStore, utc_now

SCHEMA = """
CREATE TABLE IF NOT EXISTS ladder_entities (
    id            INTEGER PRIMARY KEY,
    game          TEXT NOT NULL,
    account       TEXT NOT NULL,
    bot           TEXT NOT NULL,
    version       TEXT NOT NULL,
    seeded_from   INTEGER,
    created_after INTEGER NOT NULL,
    created_at    TEXT NOT NULL,
    UNIQUE (game, account, bot, version)
);
CREATE TABLE IF NOT EXISTS ladder_matches (
    match_id    TEXT PRIMARY KEY,
    game        TEXT NOT NULL,
    entities    TEXT NOT NULL,
    status      TEXT NOT NULL,
    ranks       TEXT,
    reason      TEXT,
    seq         INTEGER UNIQUE,
    before      TEXT,
    after       TEXT,
    started     REAL NOT NULL,
    started_at  TEXT NOT NULL,
    ended_at    TEXT
);
CREATE INDEX IF NOT EXISTS ladder_matches_game ON ladder_matches(game, started);
CREATE TABLE IF NOT EXISTS ladder_ratings (
    entity  INTEGER PRIMARY KEY,
    mu      REAL NOT NULL,
    sigma   REAL NOT NULL,
    wins    INTEGER NOT NULL,
    draws   INTEGER NOT NULL,
    losses  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ladder_history (
    entity    INTEGER NOT NULL,
    seq       INTEGER NOT NULL,
    match_id  TEXT NOT NULL,
    rank      INTEGER NOT NULL,
    mu        REAL NOT NULL,
    sigma     REAL NOT NULL,
    at        TEXT NOT NULL,
    PRIMARY KEY (entity, seq)
);
"""

_MATCH_COLUMNS = ("match_id, game, entities, status, ranks, reason, seq, before, after, "
                  "started, started_at, ended_at")


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _ratings_json(ratings: Sequence[Rating]) -> str:
    return _dumps([[r.mu, r.sigma] for r in ratings])


def _ratings_of(text: str | None) -> list[Rating] | None:
    return None if text is None else [Rating(mu, sigma) for mu, sigma in json.loads(text)]


@dataclass
class LadderMatchRow:
    """One raw result. ``before``/``after``: ratings per seat (``after`` only if rated)."""

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


class LadderStore:
    """The ladder's persistence on a :class:`~server.storage.SqliteStore`'s file."""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store
        setup = sqlite3.connect(store.path, timeout=30)
        try:
            setup.executescript(SCHEMA)
            setup.commit()
        finally:
            setup.close()

    # ---- loading -----------------------------------------------------------------------------

    def entities(self) -> list[Entity]:
        rows = self.store.query("SELECT id, game, account, bot, version, seeded_from, "
                                "created_after, created_at FROM ladder_entities ORDER BY id")
        return [Entity(*row) for row in rows]

    def matches(self, *, game: str | None = None, status: str | None = None,
                limit: int | None = None) -> list[LadderMatchRow]:
        """Raw results, newest first."""
        where: list[str] = []
        params: list[Any] = []
        if game is not None:
            where.append("game=?")
            params.append(game)
        if status is not None:
            where.append("status=?")
            params.append(status)
        sql = f"SELECT {_MATCH_COLUMNS} FROM ladder_matches"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY started DESC, match_id"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [self._match(row) for row in self.store.query(sql, params)]

    @staticmethod
    def _match(row: tuple[Any, ...]) -> LadderMatchRow:
        (match_id, game, entities, status, ranks, reason, seq, before, after, started,
         started_at, ended_at) = row
        return LadderMatchRow(match_id, game, json.loads(entities), status,
                              None if ranks is None else json.loads(ranks), reason, seq,
                              _ratings_of(before), _ratings_of(after), started, started_at,
                              ended_at)

    def load_book(self) -> LadderBook:
        """The book as stored: entities, current ratings and counts, seat counts from every
        match, the last ``seq``."""
        book = LadderBook()
        for entity in self.entities():
            book.restore(entity, Standing())
        for entity_id, mu, sigma, wins, draws, losses in self.store.query(
                "SELECT entity, mu, sigma, wins, draws, losses FROM ladder_ratings"):
            standing = book.standings.get(entity_id)
            if standing is not None:
                standing.rating = Rating(mu, sigma)
                standing.wins, standing.draws, standing.losses = wins, draws, losses
        # Entities seeded but never rated start where their seed stood when they joined:
        # their start rating is in the ratings table too (written on creation).
        for row in reversed(self.matches()):
            book.started(row.entities, row.started)
        (last,) = self.store.query("SELECT COALESCE(MAX(seq), 0) FROM ladder_matches")[0]
        book.seq = int(last)
        return book

    def void_live(self) -> int:
        """At start-up: ladder matches still ``live`` were cut off by a stop or crash of an
        earlier server: a server-side fault, so ``void``. Returns how many."""
        (count,) = self.store.query(
            "SELECT COUNT(*) FROM ladder_matches WHERE status='live'")[0]
        ended = utc_now()
        self.store.write_later(lambda conn: conn.execute(
            "UPDATE ladder_matches SET status='void', reason='interrupted', ended_at=? "
            "WHERE status='live'", (ended,)))
        self.store.flush()
        return int(count)

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
                   before: Sequence[Rating], started: float, started_at: str) -> None:
        params = (match_id, game, _dumps(list(entities)), "live", _ratings_json(before),
                  started, started_at)
        self.store.write_later(lambda conn: conn.execute(
            "INSERT INTO ladder_matches (match_id, game, entities, status, before, started, "
            "started_at) VALUES (?,?,?,?,?,?,?)", params))

    def save_void(self, match_id: str, reason: str, ended_at: str) -> None:
        self.store.write_later(lambda conn: conn.execute(
            "UPDATE ladder_matches SET status='void', reason=?, ended_at=? WHERE match_id=?",
            (reason, ended_at, match_id)))

    def save_rated(self, result: RatedResult, reason: str, ended_at: str,
                   standings: Sequence[Standing]) -> None:
        """One rated result: the raw row, the seats' new ratings and their history points,
        in one transaction. ``standings[i]`` is seat ``i``'s standing after the update."""
        match_row = (_dumps(list(result.ranks)), reason, result.seq,
                     _ratings_json(result.before), _ratings_json(result.after), ended_at,
                     result.match_id)
        ratings = [(e, s.rating.mu, s.rating.sigma, s.wins, s.draws, s.losses)
                   for e, s in zip(result.entities, standings, strict=True)]
        history = [(e, result.seq, result.match_id, rank, r.mu, r.sigma, ended_at)
                   for e, rank, r in zip(result.entities, result.ranks, result.after,
                                         strict=True)]

        def write(conn: sqlite3.Connection) -> None:
            conn.execute("UPDATE ladder_matches SET status='rated', ranks=?, reason=?, seq=?, "
                         "before=?, after=?, ended_at=? WHERE match_id=?", match_row)
            conn.executemany("INSERT OR REPLACE INTO ladder_ratings VALUES (?,?,?,?,?,?)",
                             ratings)
            conn.executemany("INSERT OR REPLACE INTO ladder_history VALUES (?,?,?,?,?,?,?)",
                             history)

        self.store.write_later(write)

    # ---- history -----------------------------------------------------------------------------

    def history(self, entity_id: int, limit: int | None = None) -> list[dict[str, Any]]:
        """``RatingPoint`` objects of one entity, oldest first (the latest ``limit``)."""
        sql = ("SELECT seq, match_id, at, rank, mu, sigma FROM ladder_history WHERE entity=? "
               "ORDER BY seq DESC")
        params: list[Any] = [entity_id]
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        rows = self.store.query(sql, params)
        return [{"seq": seq, "match_id": match_id, "at": at, "rank": rank, "mu": mu,
                 "sigma": sigma, "ordinal": Rating(mu, sigma).ordinal}
                for seq, match_id, at, rank, mu, sigma in reversed(rows)]

    # ---- rerating ----------------------------------------------------------------------------

    def rerate(self) -> tuple[LadderBook, list[RatedResult]]:
        """Recompute every rating from the raw results and rewrite the derived tables
        (ratings, history, each rated match's before/after). Run it while no server uses the
        file. Returns the new book and the results in rating order."""
        rated = sorted(self.matches(status="rated"), key=lambda m: m.seq or 0)
        book, results = LadderBook.replay(
            self.entities(), [(m.seq or 0, m.match_id, m.entities, m.ranks or []) for m in rated])
        ended = {m.match_id: m.ended_at or m.started_at for m in rated}
        for row in reversed(self.matches()):
            book.started(row.entities, row.started)

        def write(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM ladder_history")
            conn.execute("DELETE FROM ladder_ratings")
            for r in results:
                conn.execute("UPDATE ladder_matches SET seq=NULL WHERE match_id=?",
                             (r.match_id,))
            for r in results:
                conn.execute("UPDATE ladder_matches SET seq=?, before=?, after=? "
                             "WHERE match_id=?", (r.seq, _ratings_json(r.before),
                                                  _ratings_json(r.after), r.match_id))
                conn.executemany(
                    "INSERT INTO ladder_history VALUES (?,?,?,?,?,?,?)",
                    [(e, r.seq, r.match_id, rank, a.mu, a.sigma, ended[r.match_id])
                     for e, rank, a in zip(r.entities, r.ranks, r.after, strict=True)])
            conn.executemany(
                "INSERT INTO ladder_ratings VALUES (?,?,?,?,?,?)",
                [(e, s.rating.mu, s.rating.sigma, s.wins, s.draws, s.losses)
                 for e, s in book.standings.items()])

        self.store.write_later(write)
        self.store.flush()
        return book, results
