"""Storage: accounts and matches behind one small interface, SQLite by default.

:class:`Store` is the interface the server uses; :class:`SqliteStore` implements it on a
stdlib ``sqlite3`` file in WAL mode. A PostgreSQL backend implements the same methods.

Contract:

* Bearer tokens are never stored: an account keeps the SHA-256 of its token
  (:func:`token_hash`). :meth:`Store.create_account` returns the token once.
* Match writes (:meth:`Store.save_match`, :meth:`Store.append_actions`,
  :meth:`Store.update_match`) return at once: a writer thread applies them in order, many
  per commit. So the event loop never waits for the disk. :meth:`Store.flush` blocks until
  everything queued so far is on disk.
* A live match's progress is appended, not rewritten: :meth:`Store.append_actions` adds new
  log entries (the server sends them in batches every fraction of a second; SQLite keeps
  each match's new entries of a batch as one row), so the cost per action stays constant
  however long the match. :meth:`Store.update_match` writes the whole
  log once, when the match ends.
* Reads (``get_*``/``list_*``) read what is committed; they are cheap but do touch the
  disk, so the server calls them off the event loop where they may be slow (replays).
* A match is stored as game + options + seat count + seed + action log (+ a custom start
  state), so replays cost nothing; live matches are written as they go (status ``live``),
  so a restarted server can list them.
"""

from __future__ import annotations

import hashlib
import json
import queue
import secrets
import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from protocol.codec import encode_json

ACCOUNT_KINDS = ("human", "bot")
MATCH_STATUSES = ("live", "over", "void")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A bearer token: 256 random bits, URL-safe, prefixed so that it never starts with ``-``
    (a token pasted after ``--token`` must not read as an option) and is recognisable in a
    secret scanner."""
    return "arena_" + secrets.token_urlsafe(32)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Account:
    name: str
    kind: str
    created_at: str


@dataclass
class MatchRow:
    """One stored match. ``seats`` is ``[{"seat", "name", "kind"}]``; ``seed`` is secret."""

    id: str
    game: str
    options: dict[str, Any]
    num_seats: int
    seed: int
    seats: list[dict[str, Any]]
    clock: dict[str, Any] | None = None
    start: dict[str, Any] | None = None
    log: list[dict[str, Any]] = field(default_factory=list)
    outcome: dict[str, Any] | None = None
    status: str = "live"
    moves: int = 0
    created_at: str = field(default_factory=utc_now)
    ended_at: str | None = None

    def record(self) -> dict[str, Any]:
        """The replay record **without** the seed (what a client of a finished match gets)."""
        return {"game": self.game, "num_seats": self.num_seats, "options": self.options,
                "start": self.start, "log": self.log, "outcome": self.outcome}

    def summary(self) -> dict[str, Any]:
        """Public facts, fit for any client at any time (no log, no seed)."""
        return {"match_id": self.id, "game": self.game, "seats": self.seats,
                "status": self.status, "started_at": self.created_at,
                "ended_at": self.ended_at, "moves": self.moves, "outcome": self.outcome}


class StoreError(Exception):
    pass


class Store(ABC):
    """What the server needs from storage. Implementations are thread-safe."""

    # accounts
    @abstractmethod
    def create_account(self, name: str, kind: str) -> str:
        """Create an account and return its bearer token (shown once, stored hashed).
        Raises :class:`StoreError` if the name is taken or the kind unknown."""

    @abstractmethod
    def rotate_token(self, name: str) -> str:
        """Give an existing account a new bearer token (the old one stops working) and
        return it. Raises :class:`StoreError` for an unknown account."""

    @abstractmethod
    def account_for_token(self, token: str) -> Account | None: ...

    @abstractmethod
    def get_account(self, name: str) -> Account | None: ...

    @abstractmethod
    def list_accounts(self) -> list[Account]: ...

    # matches
    @abstractmethod
    def save_match(self, row: MatchRow) -> None:
        """Queue an insert-or-replace of the whole row."""

    @abstractmethod
    def append_actions(self, entries: Sequence[tuple[str, int, dict[str, Any]]],
                       moves: Mapping[str, int]) -> None:
        """Queue new log entries of live matches, ``(match_id, index, entry)`` each, and
        their move counts."""

    @abstractmethod
    def update_match(self, match_id: str, *, log: Sequence[dict[str, Any]], moves: int,
                     status: str = "live", outcome: dict[str, Any] | None = None,
                     ended_at: str | None = None) -> None:
        """Queue a write of a match's whole log and status (and, when it ends, its
        result)."""

    @abstractmethod
    def void_live_matches(self) -> int:
        """At start-up: matches still ``live`` were cut off by a stop or a crash of an
        earlier server. Mark them ``void`` (unrated, logs kept) and return how many."""

    @abstractmethod
    def get_match(self, match_id: str) -> MatchRow | None: ...

    @abstractmethod
    def list_matches(self, *, status: str | None = None, game: str | None = None,
                     limit: int = 100) -> list[MatchRow]: ...

    @abstractmethod
    def flush(self) -> None:
        """Block until every queued write is committed."""

    @abstractmethod
    def close(self) -> None: ...


_SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    name        TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    token_hash  TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    id          TEXT PRIMARY KEY,
    game        TEXT NOT NULL,
    options     TEXT NOT NULL,
    num_seats   INTEGER NOT NULL,
    seed        INTEGER NOT NULL,
    seats       TEXT NOT NULL,
    clock       TEXT,
    start       TEXT,
    log         TEXT NOT NULL,
    outcome     TEXT,
    status      TEXT NOT NULL,
    moves       INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL,
    ended_at    TEXT
);
CREATE INDEX IF NOT EXISTS matches_status ON matches(status, created_at);
CREATE TABLE IF NOT EXISTS match_actions (
    match_id    TEXT NOT NULL,
    idx         INTEGER NOT NULL,
    entry       TEXT NOT NULL,
    PRIMARY KEY (match_id, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS match_log_chunks (
    match_id    TEXT NOT NULL,
    first       INTEGER NOT NULL,
    entries     TEXT NOT NULL,
    PRIMARY KEY (match_id, first)
) WITHOUT ROWID;
"""

_MATCH_COLUMNS = ("id, game, options, num_seats, seed, seats, clock, start, log, outcome, "
                  "status, moves, created_at, ended_at")


def _dumps(value: Any) -> str:
    """Compact JSON for a column (orjson when it can: the writer thread runs this for every
    action of every live match, and it holds the GIL the event loop needs)."""
    return encode_json(value)


class _Flush:
    def __init__(self) -> None:
        self.done = threading.Event()


class SqliteStore(Store):
    """SQLite in WAL mode; one writer thread batching commits, one lock-guarded reader."""

    def __init__(self, path: str | Path, *, batch: int = 500) -> None:
        self.path = str(path)
        self._batch = batch
        # The schema is created synchronously so the store is usable on return.
        setup = self._connect()
        setup.executescript(_SCHEMA)
        setup.commit()
        setup.close()
        self._reader = self._connect(check_same_thread=False)
        self._read_lock = threading.Lock()
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._closed = False
        self._error: BaseException | None = None
        self._writer = threading.Thread(target=self._write_loop, name="arena-store-writer",
                                        daemon=True)
        self._writer.start()

    def _connect(self, check_same_thread: bool = True) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, check_same_thread=check_same_thread, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")  # durable at checkpoints; WAL keeps it safe
        return conn

    # ---- writer ----------------------------------------------------------------------------

    def _write_loop(self) -> None:
        conn = self._connect()
        while True:
            first = self._queue.get()
            if first is None:
                break
            ops = [first]
            stop = False
            while len(ops) < self._batch:
                try:
                    op = self._queue.get_nowait()
                except queue.Empty:
                    break
                if op is None:
                    stop = True
                    break
                ops.append(op)
            flushes = [op for op in ops if isinstance(op, _Flush)]
            try:
                self._apply(conn, [op for op in ops if not isinstance(op, _Flush)])
            except Exception as exc:  # keep the thread alive; report on the next flush
                self._error = exc
                conn.rollback()
            for f in flushes:
                f.done.set()
            if stop:
                break
        conn.close()

    @staticmethod
    def _apply(conn: sqlite3.Connection, ops: Sequence[tuple[str, str, Any]]) -> None:
        with conn:
            for kind, _key, params in ops:
                if kind == "append":
                    rows, moves = params
                    conn.executemany("INSERT OR REPLACE INTO match_log_chunks (match_id, "
                                     "first, entries) VALUES (?,?,?)", rows)
                    conn.executemany("UPDATE matches SET moves=? WHERE id=?", moves)
                elif kind == "save":
                    conn.execute(f"INSERT OR REPLACE INTO matches ({_MATCH_COLUMNS}) "
                                 "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", params)
                elif kind == "update":
                    conn.execute("UPDATE matches SET log=?, moves=?, status=?, "
                                 "outcome=COALESCE(?, outcome), "
                                 "ended_at=COALESCE(?, ended_at) WHERE id=?", params)
                    if params[2] != "live":  # the whole log is in the row now
                        conn.execute("DELETE FROM match_log_chunks WHERE match_id=?",
                                     (params[-1],))
                        conn.execute("DELETE FROM match_actions WHERE match_id=?",
                                     (params[-1],))
                elif kind == "token":
                    conn.execute("UPDATE accounts SET token_hash=? WHERE name=?", params)
                elif kind == "account":
                    conn.execute("INSERT INTO accounts (name, kind, token_hash, created_at) "
                                 "VALUES (?,?,?,?)", params)
                elif kind == "call":
                    params(conn)  # an extension's write (the ladder's), in queue order

    def _put(self, op: Any) -> None:
        if self._closed:
            raise StoreError("the store is closed")
        self._queue.put(op)

    def write_later(self, write: Callable[[sqlite3.Connection], object]) -> None:
        """Queue ``write(connection)`` for the writer thread, in order with every other
        queued write; it runs inside the batch's transaction (so one call is atomic). For
        modules that keep their own tables in this file (the ladder)."""
        self._put(("call", "", write))

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        """Read committed rows with the store's reader connection."""
        return self._read(sql, params)

    def flush(self) -> None:
        marker = _Flush()
        self._put(marker)
        marker.done.wait()
        if self._error is not None:
            error, self._error = self._error, None
            raise StoreError(f"a queued write failed: {error}") from error

    def close(self) -> None:
        if self._closed:
            return
        self.flush()
        self._closed = True
        self._queue.put(None)
        self._writer.join()
        with self._read_lock:
            self._reader.close()

    # ---- accounts --------------------------------------------------------------------------

    def create_account(self, name: str, kind: str) -> str:
        if kind not in ACCOUNT_KINDS:
            raise StoreError(f"account kind must be one of {', '.join(ACCOUNT_KINDS)}")
        if not name or len(name) > 64 or not name.replace("-", "").replace("_", "").replace(
                ".", "").isalnum():
            raise StoreError("account names are 1-64 letters, digits, '-', '_' or '.'")
        if self.get_account(name) is not None:
            raise StoreError(f"an account named {name!r} exists already")
        token = new_token()
        self._put(("account", name, (name, kind, token_hash(token), utc_now())))
        self.flush()
        return token

    def rotate_token(self, name: str) -> str:
        if self.get_account(name) is None:
            raise StoreError(f"no account named {name!r}")
        token = new_token()
        self._put(("token", name, (token_hash(token), name)))
        self.flush()
        return token

    def _read(self, sql: str, params: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        with self._read_lock:
            return self._reader.execute(sql, tuple(params)).fetchall()

    def account_for_token(self, token: str) -> Account | None:
        rows = self._read("SELECT name, kind, created_at FROM accounts WHERE token_hash=?",
                          (token_hash(token),))
        return Account(*rows[0]) if rows else None

    def get_account(self, name: str) -> Account | None:
        rows = self._read("SELECT name, kind, created_at FROM accounts WHERE name=?", (name,))
        return Account(*rows[0]) if rows else None

    def list_accounts(self) -> list[Account]:
        return [Account(*row) for row in
                self._read("SELECT name, kind, created_at FROM accounts ORDER BY name")]

    # ---- matches ---------------------------------------------------------------------------

    def save_match(self, row: MatchRow) -> None:
        self._put(("save", row.id, (
            row.id, row.game, _dumps(row.options), row.num_seats, row.seed, _dumps(row.seats),
            None if row.clock is None else _dumps(row.clock),
            None if row.start is None else _dumps(row.start), _dumps(row.log),
            None if row.outcome is None else _dumps(row.outcome), row.status, row.moves,
            row.created_at, row.ended_at)))

    def append_actions(self, entries: Sequence[tuple[str, int, dict[str, Any]]],
                       moves: Mapping[str, int]) -> None:
        if not entries and not moves:
            return
        # One row per run of consecutive entries of a match (the server hands over each
        # match's new entries in order, every fraction of a second): a handful of actions
        # cost one encode and one B-tree insert instead of one each.
        chunks: list[tuple[str, int, list[dict[str, Any]]]] = []
        open_chunk: dict[str, tuple[str, int, list[dict[str, Any]]]] = {}
        for match_id, index, entry in entries:
            last = open_chunk.get(match_id)
            if last is not None and last[1] + len(last[2]) == index:
                last[2].append(entry)
            else:
                open_chunk[match_id] = last = (match_id, index, [entry])
                chunks.append(last)
        rows = [(match_id, first, _dumps(run)) for match_id, first, run in chunks]
        self._put(("append", "", (rows, [(n, match_id) for match_id, n in moves.items()])))

    def update_match(self, match_id: str, *, log: Sequence[dict[str, Any]], moves: int,
                     status: str = "live", outcome: dict[str, Any] | None = None,
                     ended_at: str | None = None) -> None:
        if status not in MATCH_STATUSES:
            raise StoreError(f"unknown match status {status!r}")
        self._put(("update", match_id, (
            _dumps(list(log)), moves, status, None if outcome is None else _dumps(outcome),
            ended_at, match_id)))

    def _live_log(self, match_id: str, stored: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A live match's log: the row's log followed by the appended entries (single
        entries as written before chunks, then chunks of consecutive entries)."""
        log = list(stored)

        def put(idx: int, entry: dict[str, Any]) -> None:
            if idx == len(log):
                log.append(entry)
            elif idx < len(log):
                log[idx] = entry

        for idx, entry in self._read("SELECT idx, entry FROM match_actions WHERE match_id=? "
                                     "ORDER BY idx", (match_id,)):
            put(idx, json.loads(entry))
        for first, entries in self._read("SELECT first, entries FROM match_log_chunks "
                                         "WHERE match_id=? ORDER BY first", (match_id,)):
            for offset, entry in enumerate(json.loads(entries)):
                put(first + offset, entry)
        return log

    def void_live_matches(self) -> int:
        rows = self._read("SELECT id, num_seats, log, moves FROM matches WHERE status='live'")
        ended = utc_now()
        for match_id, num_seats, log, moves in rows:
            self.update_match(match_id, log=self._live_log(match_id, json.loads(log)),
                              moves=moves, status="void",
                              outcome={"ranks": [0] * num_seats, "reason": "void"},
                              ended_at=ended)
        self.flush()
        return len(rows)

    @staticmethod
    def _row(values: tuple[Any, ...]) -> MatchRow:
        (id_, game, options, num_seats, seed, seats, clock, start, log, outcome, status, moves,
         created_at, ended_at) = values
        return MatchRow(
            id=id_, game=game, options=json.loads(options), num_seats=num_seats, seed=seed,
            seats=json.loads(seats), clock=None if clock is None else json.loads(clock),
            start=None if start is None else json.loads(start), log=json.loads(log),
            outcome=None if outcome is None else json.loads(outcome), status=status,
            moves=moves, created_at=created_at, ended_at=ended_at)

    def get_match(self, match_id: str) -> MatchRow | None:
        rows = self._read(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE id=?", (match_id,))
        if not rows:
            return None
        row = self._row(rows[0])
        if row.status == "live":
            row.log = self._live_log(row.id, row.log)
        return row

    def list_matches(self, *, status: str | None = None, game: str | None = None,
                     limit: int = 100) -> list[MatchRow]:
        where: list[str] = []
        params: list[Any] = []
        if status is not None:
            where.append("status=?")
            params.append(status)
        if game is not None:
            where.append("game=?")
            params.append(game)
        sql = f"SELECT {_MATCH_COLUMNS} FROM matches"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY created_at DESC, id LIMIT ?"
        params.append(limit)
        return [self._row(r) for r in self._read(sql, params)]
