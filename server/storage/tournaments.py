"""The tournaments' sub-store: tournaments, their entrants and their pairings with results.

A :class:`TournamentStore` comes from :meth:`server.storage.Store.tournaments`. It keeps

* each tournament's **header** (name, game, format, seats, rounds, options, clock, creator,
  status and times): :meth:`TournamentStore.save_tournament` writes it whole (an upsert);
* its **entrants** in join order, each with the rating it joined with;
* its **pairings**, one row per game of each round (round, board, the entrants by seat, and
  once known the match id, status, ranks and reason): :meth:`TournamentStore.save_pairing`
  writes one whole (an upsert), as it is made and again as its result comes.

That is everything :class:`server.tournaments.Tournament` needs: :meth:`TournamentStore.load`
rebuilds one, and its standings are computed from the stored results alone.

Writes are queued in order with the store's other writes and return at once (the SQL
backends apply them on their writer); reads see what is committed
(:meth:`TournamentStore.flush` first to read your own writes). SQLite and PostgreSQL keep
the same tables (``tournaments``, ``tournament_entrants``, ``tournament_pairings``; options,
clock, seats and ranks as JSON text) and use the same statements
(:class:`SqlTournamentStore`), written with ``?`` placeholders and ``ON CONFLICT`` upserts,
which both speak (PostgreSQL's ``$n`` are put in by :func:`dollar_params`).
"""

from __future__ import annotations

import json
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from server.tournaments import Entrant, Pairing, Tournament

HEADER_COLUMNS = ("id", "name", "game", "format", "num_seats", "rounds", "creator",
                  "options", "clock", "status", "created_at", "started_at", "ended_at")

SQLITE_TABLES = (
    """CREATE TABLE tournaments (
        id          TEXT PRIMARY KEY,
        name        TEXT NOT NULL,
        game        TEXT NOT NULL,
        format      TEXT NOT NULL,
        num_seats   INTEGER NOT NULL,
        rounds      INTEGER NOT NULL,
        creator     TEXT NOT NULL,
        options     TEXT NOT NULL,
        clock       TEXT,
        status      TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        started_at  TEXT,
        ended_at    TEXT)""",
    "CREATE INDEX tournaments_created ON tournaments (created_at DESC, id)",
    """CREATE TABLE tournament_entrants (
        tournament_id  TEXT NOT NULL,
        seq            INTEGER NOT NULL,
        name           TEXT NOT NULL,
        kind           TEXT NOT NULL,
        rating         REAL NOT NULL,
        joined_at      TEXT NOT NULL,
        PRIMARY KEY (tournament_id, name))""",
    """CREATE TABLE tournament_pairings (
        tournament_id  TEXT NOT NULL,
        round          INTEGER NOT NULL,
        board          INTEGER NOT NULL,
        seats          TEXT NOT NULL,
        status         TEXT NOT NULL,
        match_id       TEXT,
        ranks          TEXT,
        reason         TEXT,
        PRIMARY KEY (tournament_id, round, board))""",
)
"""The tables as SQLite creates them (``sqlite_schema``'s migration)."""

POSTGRES_TABLES = tuple(
    sql.replace("TEXT", 'TEXT COLLATE "C"').replace('TEXT COLLATE "C" PRIMARY KEY',
                                                    "TEXT PRIMARY KEY")
    .replace("REAL", "DOUBLE PRECISION")
    for sql in SQLITE_TABLES)
"""The same tables in PostgreSQL (``postgres_schema``'s migration): byte-order text, as its
other tables, so that ordering matches SQLite's."""


class TournamentStore(ABC):
    """The tournaments' persistence in one store."""

    @abstractmethod
    def save_tournament(self, tournament: Tournament) -> None:
        """Write the header of ``tournament`` (insert or replace; entrants and pairings
        are written on their own)."""

    @abstractmethod
    def save_entrant(self, tournament_id: str, seq: int, entrant: Entrant) -> None:
        """Add an entrant (``seq``: its place in the join order)."""

    @abstractmethod
    def remove_entrant(self, tournament_id: str, name: str) -> None: ...

    @abstractmethod
    def save_pairing(self, tournament_id: str, pairing: Pairing) -> None:
        """Write one pairing whole (insert or replace)."""

    @abstractmethod
    def load(self, tournament_id: str) -> Tournament | None:
        """The tournament as stored (committed writes), or ``None``."""

    @abstractmethod
    def list_ids(self, *, status: str | None = None, limit: int | None = None
                 ) -> list[str]:
        """Tournament ids, newest first (``created_at``, then id)."""

    @abstractmethod
    def flush(self) -> None:
        """Block until every write queued so far is committed."""

    def unfinished(self) -> list[Tournament]:
        """Every tournament that is ``open`` or ``running``, oldest first (what a restarted
        server takes back)."""
        ids = self.list_ids(status="open") + self.list_ids(status="running")
        found = [t for t in (self.load(i) for i in ids) if t is not None]
        return sorted(found, key=lambda t: (t.created_at, t.id))


def _header_values(t: Tournament) -> tuple[Any, ...]:
    return (t.id, t.name, t.game, t.format, t.num_seats, t.rounds, t.creator,
            json.dumps(t.options, separators=(",", ":")),
            None if t.clock is None else json.dumps(t.clock, separators=(",", ":")),
            t.status, t.created_at, t.started_at, t.ended_at)


def _pairing_values(tournament_id: str, p: Pairing) -> tuple[Any, ...]:
    return (tournament_id, p.round, p.board, json.dumps(list(p.seats)), p.status,
            p.match_id, None if p.ranks is None else json.dumps(list(p.ranks)), p.reason)


def _rebuild(header: Sequence[Any], entrants: Iterable[Sequence[Any]],
             pairings: Iterable[Sequence[Any]]) -> Tournament:
    fields = dict(zip(HEADER_COLUMNS, header, strict=True))
    fields["tournament_id"] = fields.pop("id")
    fields["options"] = json.loads(fields["options"])
    fields["clock"] = None if fields["clock"] is None else json.loads(fields["clock"])
    return Tournament.rebuild(
        fields, [Entrant(name, kind, float(rating), joined_at)
                 for name, kind, rating, joined_at in entrants],
        [Pairing(number, board, tuple(json.loads(seats)), status, match_id,
                 None if ranks is None else tuple(json.loads(ranks)), reason)
         for number, board, seats, status, match_id, ranks, reason in pairings])


class MemoryTournamentStore(TournamentStore):
    """The memory backend's: the same rows in dicts (written at once)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._headers: dict[str, tuple[Any, ...]] = {}
        self._entrants: dict[str, dict[str, tuple[int, tuple[Any, ...]]]] = {}
        self._pairings: dict[str, dict[tuple[int, int], tuple[Any, ...]]] = {}

    def save_tournament(self, tournament: Tournament) -> None:
        with self._lock:
            self._headers[tournament.id] = _header_values(tournament)

    def save_entrant(self, tournament_id: str, seq: int, entrant: Entrant) -> None:
        with self._lock:
            self._entrants.setdefault(tournament_id, {})[entrant.name] = (
                seq, (entrant.name, entrant.kind, float(entrant.rating), entrant.joined_at))

    def remove_entrant(self, tournament_id: str, name: str) -> None:
        with self._lock:
            self._entrants.get(tournament_id, {}).pop(name, None)

    def save_pairing(self, tournament_id: str, pairing: Pairing) -> None:
        with self._lock:
            self._pairings.setdefault(tournament_id, {})[(pairing.round, pairing.board)] = \
                _pairing_values(tournament_id, pairing)[1:]

    def load(self, tournament_id: str) -> Tournament | None:
        with self._lock:
            header = self._headers.get(tournament_id)
            if header is None:
                return None
            entrants = [row for _, row in sorted(
                self._entrants.get(tournament_id, {}).values())]
            pairings = [row for _, row in sorted(self._pairings.get(tournament_id, {}).items())]
        return _rebuild(header, entrants, pairings)

    def list_ids(self, *, status: str | None = None, limit: int | None = None
                 ) -> list[str]:
        with self._lock:
            rows = [h for h in self._headers.values() if status is None or h[9] == status]
        rows.sort(key=lambda h: h[0])
        rows.sort(key=lambda h: h[10], reverse=True)
        return [h[0] for h in rows][:limit]

    def flush(self) -> None:
        pass


class SqlDatabase(Protocol):
    """What the SQL tournament store needs of its backend: committed reads with ``?``
    placeholders, and ordered writes (``execute(sql, params)`` queued on the writer)."""

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple[Any, ...]]: ...

    def flush(self) -> None: ...


def dollar_params(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1``, ``$2``… (no ``?`` appears otherwise)."""
    counter = iter(range(1, 1000))
    return re.sub(r"\?", lambda _: f"${next(counter)}", sql)


class SqlTournamentStore(TournamentStore):
    """The tables in a SQL backend's database. ``execute(sql, params)`` queues one write
    on the backend's writer; ``dollar``: the backend wants ``$n`` placeholders."""

    def __init__(self, db: SqlDatabase, execute: Callable[[str, tuple[Any, ...]], None],
                 *, dollar: bool = False) -> None:
        self.db = db
        self._execute = execute
        self._dollar = dollar

    def _sql(self, sql: str) -> str:
        return dollar_params(sql) if self._dollar else sql

    def _write(self, sql: str, params: tuple[Any, ...]) -> None:
        self._execute(self._sql(sql), params)

    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self.db.query(self._sql(sql), params)

    def save_tournament(self, tournament: Tournament) -> None:
        columns = ", ".join(HEADER_COLUMNS)
        updates = ", ".join(f"{c}=excluded.{c}" for c in HEADER_COLUMNS[1:])
        self._write(f"INSERT INTO tournaments ({columns}) VALUES "
                    f"({', '.join('?' * len(HEADER_COLUMNS))}) "
                    f"ON CONFLICT (id) DO UPDATE SET {updates}", _header_values(tournament))

    def save_entrant(self, tournament_id: str, seq: int, entrant: Entrant) -> None:
        self._write("INSERT INTO tournament_entrants (tournament_id, seq, name, kind, rating, "
                    "joined_at) VALUES (?,?,?,?,?,?) ON CONFLICT (tournament_id, name) "
                    "DO UPDATE SET seq=excluded.seq, kind=excluded.kind, "
                    "rating=excluded.rating, joined_at=excluded.joined_at",
                    (tournament_id, seq, entrant.name, entrant.kind, float(entrant.rating),
                     entrant.joined_at))

    def remove_entrant(self, tournament_id: str, name: str) -> None:
        self._write("DELETE FROM tournament_entrants WHERE tournament_id=? AND name=?",
                    (tournament_id, name))

    def save_pairing(self, tournament_id: str, pairing: Pairing) -> None:
        self._write("INSERT INTO tournament_pairings (tournament_id, round, board, seats, "
                    "status, match_id, ranks, reason) VALUES (?,?,?,?,?,?,?,?) "
                    "ON CONFLICT (tournament_id, round, board) DO UPDATE SET "
                    "seats=excluded.seats, status=excluded.status, "
                    "match_id=excluded.match_id, ranks=excluded.ranks, "
                    "reason=excluded.reason", _pairing_values(tournament_id, pairing))

    def load(self, tournament_id: str) -> Tournament | None:
        headers = self._read(f"SELECT {', '.join(HEADER_COLUMNS)} FROM tournaments "
                             "WHERE id=?", (tournament_id,))
        if not headers:
            return None
        entrants = self._read("SELECT name, kind, rating, joined_at FROM tournament_entrants "
                              "WHERE tournament_id=? ORDER BY seq, name", (tournament_id,))
        pairings = self._read("SELECT round, board, seats, status, match_id, ranks, reason "
                              "FROM tournament_pairings WHERE tournament_id=? "
                              "ORDER BY round, board", (tournament_id,))
        return _rebuild(headers[0], entrants, pairings)

    def list_ids(self, *, status: str | None = None, limit: int | None = None
                 ) -> list[str]:
        sql, params = "SELECT id FROM tournaments", list[Any]()
        if status is not None:
            sql += " WHERE status=?"
            params.append(status)
        sql += " ORDER BY created_at DESC, id"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [row[0] for row in self._read(sql, tuple(params))]

    def flush(self) -> None:
        self.db.flush()
