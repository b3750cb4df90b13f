"""The SQLite backend: accounts, matches and the ladder in one stdlib ``sqlite3`` file.

:class:`SqliteStore` implements :class:`~server.storage.base.Store` on a file in WAL mode:
one writer thread applies the queued writes in order, many per commit (so the event loop
never waits for the disk), and one lock-guarded connection reads. Its ladder sub-store is
:class:`~server.storage.sqlite_ladder.SqliteLadderStore`, whose writes go through the same
queue. Opening a file migrates it to the current schema (:mod:`server.storage.sqlite_schema`).

A live match's appended entries are kept as one ``match_log_chunks`` row per run of
consecutive entries of a batch (the server hands each match's new entries over in order,
every fraction of a second), so the cost per action stays constant however long the match.
"""

from __future__ import annotations

import json
import os
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from protocol.codec import encode_json
from server.storage.base import (
    Account,
    MatchRow,
    Store,
    StoreError,
    check_status,
    claimed_seats,
    merge_log,
)
from server.storage.person_ratings import SqlitePersonRatings
from server.storage.sqlite_ladder import SqliteLadderStore
from server.storage.sqlite_schema import migrate
from server.storage.tournaments import SqlTournamentStore

_MATCH_COLUMNS = ("id, game, options, num_seats, seed, seats, clock, start, log, outcome, "
                  "status, moves, created_at, ended_at, live_state, chance, pair")


def _dumps(value: Any) -> str:
    """Compact JSON for a column (orjson when it can: the writer thread runs this for every
    action of every live match, and it holds the GIL the event loop needs)."""
    return encode_json(value)


class _Flush:
    def __init__(self) -> None:
        self.done = threading.Event()


class _Probe(_Flush):
    """A write made on its own, after the batch it came with (see
    :meth:`SqliteStore.check_writable`); ``error`` says why it failed."""

    def __init__(self) -> None:
        super().__init__()
        self.error: Exception | None = None

    def write(self, conn: sqlite3.Connection) -> None:
        # Rewriting the schema version as it is: a real write to the file's first page,
        # committed at once (a PRAGMA runs outside the module's implicit transactions),
        # that changes nothing.
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            conn.execute(f"PRAGMA user_version = {version}")
        except Exception as exc:
            self.error = exc


class SqliteStore(Store):
    """SQLite in WAL mode; one writer thread batching commits, one lock-guarded reader."""

    def __init__(self, path: str | Path, *, batch: int = 500) -> None:
        """Open (creating or migrating) the file at ``path``. Raises :class:`StoreError` for
        a file of a newer schema version than this code knows."""
        self.path = str(path)
        self._batch = batch
        # Migrated synchronously, so the store is usable on return.
        setup = self._connect(autocommit=True)
        try:
            migrate(setup, self.path)
        finally:
            setup.close()
        self._file = self._file_id()
        self._reader = self._connect(check_same_thread=False)
        self._read_lock = threading.Lock()
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._closed = False
        self._error: BaseException | None = None
        self._writer_ready = threading.Event()
        self._writer = threading.Thread(target=self._write_loop, name="arena-store-writer",
                                        daemon=True)
        self._writer.start()
        # The writer opens the file before the store is handed out: every connection is to
        # the file this store checked (check_writable compares against it).
        self._writer_ready.wait()
        self._ladder = SqliteLadderStore(self)
        self._person_ratings = SqlitePersonRatings(self)
        self._tournaments = SqlTournamentStore(self, self._execute_later)

    def _connect(self, check_same_thread: bool = True, *,
                 autocommit: bool = False) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, check_same_thread=check_same_thread, timeout=30)
        if autocommit:  # the caller begins and ends its transactions itself
            conn.isolation_level = None
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")  # durable at checkpoints; WAL keeps it safe
        return conn

    # ---- writer ----------------------------------------------------------------------------

    def _write_loop(self) -> None:
        try:
            conn = self._connect()
        finally:
            self._writer_ready.set()
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
                if isinstance(f, _Probe):
                    f.write(conn)
                f.done.set()
            if stop:
                break
        conn.close()

    @staticmethod
    def _apply(conn: sqlite3.Connection, ops: Sequence[tuple[str, str, Any]]) -> None:
        with conn:
            for kind, _key, params in ops:
                if kind == "append":
                    rows, moves, states = params
                    conn.executemany("INSERT OR REPLACE INTO match_log_chunks (match_id, "
                                     "first, entries) VALUES (?,?,?)", rows)
                    # (a match that ended meanwhile keeps its final count and no live
                    # state: the first result wins)
                    conn.executemany("UPDATE matches SET moves=? WHERE id=? "
                                     "AND status='live'", moves)
                    conn.executemany("UPDATE matches SET live_state=? WHERE id=? "
                                     "AND status='live'", states)
                elif kind == "save":
                    conn.execute(f"INSERT OR REPLACE INTO matches ({_MATCH_COLUMNS}) "
                                 "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", params)
                elif kind == "update":
                    # A match already over or void is left as it is: the first result wins
                    # (a second server that resumed the same match must not overwrite it).
                    conn.execute("UPDATE matches SET log=?, moves=?, status=?, "
                                 "outcome=COALESCE(?, outcome), "
                                 "ended_at=COALESCE(?, ended_at) "
                                 "WHERE id=? AND status='live'", params)
                    if params[2] != "live":  # the whole log is in the row now
                        conn.execute("DELETE FROM match_log_chunks WHERE match_id=?",
                                     (params[-1],))
                        conn.execute("UPDATE matches SET live_state=NULL WHERE id=?",
                                     (params[-1],))
                elif kind == "token":
                    conn.execute("UPDATE accounts SET token_hash=? WHERE name=?", params)
                elif kind == "banned":
                    conn.execute("UPDATE accounts SET banned=? WHERE name=?", params)
                elif kind == "account":
                    conn.execute("INSERT INTO accounts (name, kind, token_hash, created_at, "
                                 "owner, password_hash) VALUES (?,?,?,?,?,?)", params)
                elif kind == "call":
                    params(conn)  # a sub-store's write (the ladder's), in queue order

    def _put(self, op: Any) -> None:
        if self._closed:
            raise StoreError("the store is closed")
        self._queue.put(op)

    def write_later(self, write: Callable[[sqlite3.Connection], object]) -> None:
        """Queue ``write(connection)`` for the writer thread, in order with every other
        queued write; it runs inside the batch's transaction (so one call is atomic). For
        this backend's sub-stores (the ladder's), which keep their tables in this file."""
        self._put(("call", "", write))

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        """Read committed rows with the store's reader connection (for this backend's
        sub-stores)."""
        return self._read(sql, params)

    def select(self, sql: str, *, order_by: str, limit: int | None = None,
               **equal: Any) -> list[tuple[Any, ...]]:
        """:meth:`query` ``sql`` (a ``SELECT … FROM …``) for the rows whose columns equal
        the ``equal`` values that are not ``None``, in ``order_by`` order, ``limit`` at the
        most. Column names come from the code, never from a client."""
        where = [(column, value) for column, value in equal.items() if value is not None]
        params = [value for _, value in where]
        if where:
            sql += " WHERE " + " AND ".join(f"{column}=?" for column, _ in where)
        sql += f" ORDER BY {order_by}"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return self._read(sql, params)

    def ladder(self) -> SqliteLadderStore:
        return self._ladder

    def person_ratings(self) -> SqlitePersonRatings:
        return self._person_ratings

    def tournaments(self) -> SqlTournamentStore:
        return self._tournaments

    def _execute_later(self, sql: str, params: tuple[Any, ...]) -> None:
        self.write_later(lambda conn: conn.execute(sql, params))

    def _file_id(self) -> tuple[int, int]:
        status = os.stat(self.path)
        return status.st_dev, status.st_ino

    def check_writable(self) -> None:
        """Also refuses when the path no longer leads to the file this store opened (its
        folder was removed, the file replaced): the writes would go to a file nobody can
        open again."""
        try:
            moved = self._file_id() != self._file
        except OSError as exc:
            raise StoreError(f"{self.path}: {exc.strerror}") from exc
        if moved:
            raise StoreError(f"{self.path} is no longer the file this store opened")
        probe = _Probe()
        self._put(probe)
        probe.done.wait()
        if probe.error is not None:
            raise StoreError(f"{self.path} cannot be written: {probe.error}") from probe.error

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

    def _add_account(self, account: Account, hashed_token: str,
                     password_hash: str | None = None) -> None:
        self._put(("account", account.name,
                   (account.name, account.kind, hashed_token, account.created_at,
                    account.owner, password_hash)))
        self.flush()

    def _write_now(self, write: Callable[[sqlite3.Connection], object]) -> None:
        self.write_later(write)
        self.flush()

    def _password_hash(self, name: str) -> str | None:
        rows = self._read("SELECT password_hash FROM accounts WHERE name=?", (name,))
        return rows[0][0] if rows else None

    def _set_password_hash(self, name: str, password_hash: str) -> None:
        self._write_now(lambda conn: conn.execute(
            "UPDATE accounts SET password_hash=? WHERE name=?", (password_hash, name)))

    def _add_login(self, name: str, hashed_token: str, created_at: str) -> None:
        self._write_now(lambda conn: conn.execute(
            "INSERT INTO logins (token_hash, account, created_at) VALUES (?,?,?)",
            (hashed_token, name, created_at)))

    def _login_hashes(self, name: str) -> list[str]:
        return [h for (h,) in self._read("SELECT token_hash FROM logins WHERE account=?",
                                         (name,))]

    def _delete_logins(self, hashed_tokens: Sequence[str]) -> None:
        rows = [(h,) for h in hashed_tokens]
        if rows:
            self._write_now(lambda conn: conn.executemany(
                "DELETE FROM logins WHERE token_hash=?", rows))

    def claim_matches(self, guest: str, name: str) -> int:
        # The seats column is JSON text: LIKE narrows the rows (on the guest's hex suffix,
        # which JSON never escapes), claimed_seats decides.
        changes = []
        for match_id, seats in self._read(
                "SELECT id, seats FROM matches WHERE status != 'live' AND seats LIKE ?",
                (f"%{guest.rsplit('#', 1)[-1]}%",)):
            claimed = claimed_seats(json.loads(seats), guest, name)
            if claimed is not None:
                changes.append((_dumps(claimed), match_id))
        if changes:
            self._write_now(lambda conn: conn.executemany(
                "UPDATE matches SET seats=? WHERE id=? AND status != 'live'", changes))
        return len(changes)

    def _set_token_hash(self, name: str, hashed_token: str) -> None:
        self._put(("token", name, (hashed_token, name)))
        self.flush()

    def _set_banned(self, name: str, banned: bool) -> None:
        self._put(("banned", name, (int(banned), name)))
        self.flush()

    def _read(self, sql: str, params: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        with self._read_lock:
            if self._closed:
                raise StoreError("the store is closed")
            return self._reader.execute(sql, tuple(params)).fetchall()

    def _accounts(self, where: str, params: Iterable[Any] = ()) -> list[Account]:
        return [Account(name, kind, created_at, bool(banned), owner)
                for name, kind, created_at, banned, owner in self._read(
                    f"SELECT name, kind, created_at, banned, owner FROM accounts {where}",
                    params)]

    def _account_by_token_hash(self, hashed_token: str) -> Account | None:
        return next(iter(self._accounts(
            "WHERE token_hash=? OR name=(SELECT account FROM logins WHERE token_hash=?)",
            (hashed_token, hashed_token))), None)

    def get_account(self, name: str) -> Account | None:
        return next(iter(self._accounts("WHERE name=?", (name,))), None)

    def list_accounts(self) -> list[Account]:
        return self._accounts("ORDER BY name")

    # ---- matches ---------------------------------------------------------------------------

    def save_match(self, row: MatchRow) -> None:
        self._put(("save", row.id, (
            row.id, row.game, _dumps(row.options), row.num_seats, row.seed, _dumps(row.seats),
            None if row.clock is None else _dumps(row.clock),
            None if row.start is None else _dumps(row.start), _dumps(row.log),
            None if row.outcome is None else _dumps(row.outcome), row.status, row.moves,
            row.created_at, row.ended_at,
            None if row.live_state is None else _dumps(row.live_state),
            None if row.chance == "rng" else row.chance,
            None if row.pair is None else _dumps(row.pair))))

    def append_actions(self, entries: Sequence[tuple[str, int, dict[str, Any]]],
                       moves: Mapping[str, int],
                       live_states: Mapping[str, dict[str, Any]] | None = None) -> None:
        if not entries and not moves and not live_states:
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
        states = [(_dumps(state), match_id) for match_id, state in (live_states or {}).items()]
        self._put(("append", "", (rows, [(n, match_id) for match_id, n in moves.items()],
                                   states)))

    def update_match(self, match_id: str, *, log: Sequence[dict[str, Any]], moves: int,
                     status: str = "live", outcome: dict[str, Any] | None = None,
                     ended_at: str | None = None) -> None:
        check_status(status)
        self._put(("update", match_id, (
            _dumps(list(log)), moves, status, None if outcome is None else _dumps(outcome),
            ended_at, match_id)))

    def _live_log(self, match_id: str, stored: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A live match's log: the row's log continued by its chunks."""
        return merge_log(stored, ((first, json.loads(entries)) for first, entries in self._read(
            "SELECT first, entries FROM match_log_chunks WHERE match_id=? ORDER BY first",
            (match_id,))))

    @staticmethod
    def _row(values: tuple[Any, ...]) -> MatchRow:
        (id_, game, options, num_seats, seed, seats, clock, start, log, outcome, status, moves,
         created_at, ended_at, live_state, chance, pair) = values
        return MatchRow(
            id=id_, game=game, options=json.loads(options), num_seats=num_seats, seed=seed,
            seats=json.loads(seats), clock=None if clock is None else json.loads(clock),
            start=None if start is None else json.loads(start), log=json.loads(log),
            outcome=None if outcome is None else json.loads(outcome), status=status,
            moves=moves, created_at=created_at, ended_at=ended_at,
            live_state=None if live_state is None else json.loads(live_state),
            chance=chance or "rng", pair=None if pair is None else json.loads(pair))

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
        return [self._row(r) for r in self.select(
            f"SELECT {_MATCH_COLUMNS} FROM matches", order_by="created_at DESC, id",
            limit=limit, status=status, game=game)]
