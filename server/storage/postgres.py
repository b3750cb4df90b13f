"""The PostgreSQL backend: accounts, matches and the ladder in a PostgreSQL database, on asyncpg.

:class:`PostgresStore` implements :class:`~server.storage.base.Store` with the same
synchronous interface and semantics as :class:`~server.storage.sqlite.SqliteStore`:

* asyncpg is asyncio-only, so the store owns a thread running its own event loop (never the
  server's): one **writer** coroutine on one connection applies the queued writes in order,
  many per transaction (up to ``batch``), and a small **pool** of connections serves the
  reads, which any thread makes through ``asyncio.run_coroutine_threadsafe(...).result()``;
* writes return at once (queued with ``loop.call_soon_threadsafe``); :meth:`~PostgresStore.flush`
  blocks until everything queued so far is committed and raises
  :class:`~server.storage.base.StoreError` if a queued write failed. When one write of a
  batch fails, the batch is rolled back and its writes are applied again one transaction
  each, so that only the failing one is lost (and reported);
* a writer connection that drops (the database restarted) is opened again for the next
  batch; the writes of the batch it dropped in are reported by the next flush;
* opening a database migrates it to the current schema (:mod:`server.storage.postgres_schema`;
  several processes may open one at once).

A live match's appended entries are kept as one ``match_log_chunks`` row per run of
consecutive entries of a batch, as in SQLite, so the cost per action stays constant however
long the match. Its ladder sub-store is
:class:`~server.storage.postgres_ladder.PostgresLadderStore`, whose writes go through the
same queue.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import asyncpg

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
from server.storage.person_ratings import PostgresPersonRatings
from server.storage.postgres_ladder import PostgresLadderStore
from server.storage.postgres_schema import migrate
from server.storage.tournaments import SqlTournamentStore

T = TypeVar("T")

URL_SCHEMES = ("postgresql://", "postgres://")
"""What a ``--db`` value that names a PostgreSQL database starts with."""

_MATCH_COLUMNS = ("id, game, options, num_seats, seed, seats, clock, start, log, outcome, "
                  "status, moves, created_at, ended_at, live_state, chance, pair")

_CONNECT_TIMEOUT_S = 10.0
_COMMAND_TIMEOUT_S = 60.0
_CLOSE_TIMEOUT_S = 30.0

_DB_ERRORS = (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError)
"""What reaching the database may raise (a dropped connection, a refused statement)."""

Write = Callable[[asyncpg.Connection], Awaitable[object]]
"""A queued write: run on the writer connection, inside the batch's transaction."""


def is_postgres_url(db: str) -> bool:
    return db.startswith(URL_SCHEMES)


def redact(dsn: str) -> str:
    """``dsn`` fit for a message or a log: the password (in the URL or as a parameter)
    replaced by ``***``."""
    try:
        parts = urlsplit(dsn)
        netloc = parts.netloc
        if "@" in netloc:
            credentials, at, hosts = netloc.rpartition("@")
            user, colon, _password = credentials.partition(":")
            netloc = f"{user}:***{at}{hosts}" if colon else netloc
        query = urlencode([(k, "***" if k == "password" else v)
                           for k, v in parse_qsl(parts.query, keep_blank_values=True)],
                          safe="*")
        return urlunsplit(parts._replace(netloc=netloc, query=query))
    except ValueError:
        return "a PostgreSQL database"


def _dumps(value: Any) -> str:
    """Compact JSON for a ``json`` column (orjson when it can, as SQLite's writer)."""
    return encode_json(value)


def _maybe(value: Any) -> str | None:
    return None if value is None else _dumps(value)


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


class _Flush:
    def __init__(self) -> None:
        self.done = threading.Event()


class _Probe(_Flush):
    """A write made on its own, after the batch it came with (see
    :meth:`PostgresStore.check_writable`); ``error`` says why it failed."""

    def __init__(self) -> None:
        super().__init__()
        self.error: BaseException | None = None


@dataclass
class _Append:
    """Appended progress of live matches (:meth:`PostgresStore.append_actions`). Consecutive
    ones are applied together, three statements over arrays for any number of them: the rows
    are keyed, and a later value of a key replaces an earlier one (what applying them one
    after the other would leave)."""

    chunks: dict[tuple[str, int], str] = field(default_factory=dict)
    moves: dict[str, int] = field(default_factory=dict)
    states: dict[str, str] = field(default_factory=dict)

    def extend(self, other: _Append) -> None:
        self.chunks.update(other.chunks)
        self.moves.update(other.moves)
        self.states.update(other.states)

    async def __call__(self, conn: asyncpg.Connection) -> None:
        if self.chunks:
            await conn.execute(
                "INSERT INTO match_log_chunks (match_id, first, entries) "
                "SELECT * FROM unnest($1::text[], $2::integer[], $3::json[]) "
                "ON CONFLICT (match_id, first) DO UPDATE SET entries = EXCLUDED.entries",
                [match_id for match_id, _ in self.chunks], [first for _, first in self.chunks],
                list(self.chunks.values()))
        # A match that ended keeps its final count and no live state (the first result wins).
        if self.moves:
            await conn.execute(
                "UPDATE matches SET moves = v.moves "
                "FROM unnest($1::text[], $2::integer[]) AS v(id, moves) "
                "WHERE matches.id = v.id AND matches.status = 'live'",
                list(self.moves), list(self.moves.values()))
        if self.states:
            await conn.execute(
                "UPDATE matches SET live_state = v.state "
                "FROM unnest($1::text[], $2::json[]) AS v(id, state) "
                "WHERE matches.id = v.id AND matches.status = 'live'",
                list(self.states), list(self.states.values()))


def _merged(writes: Sequence[Any]) -> list[Any]:
    """``writes`` with each run of consecutive appends made one (a new one: the queued ones
    are left as they are, to be applied alone if the batch fails)."""
    merged: list[Any] = []
    for write in writes:
        if isinstance(write, _Append):
            if not (merged and isinstance(merged[-1], _Append)):
                merged.append(_Append())
            merged[-1].extend(write)
        else:
            merged.append(write)
    return merged


class PostgresStore(Store):
    """PostgreSQL through asyncpg on a thread of its own; one writer connection batching
    commits, a small pool of readers."""

    def __init__(self, dsn: str, *, batch: int = 500, readers: int = 4) -> None:
        """Open (creating the tables or migrating them) the database at ``dsn``
        (``postgresql://user[:password]@host[:port]/database``). Raises :class:`StoreError`
        when it cannot be reached, or is of a newer schema version than this code knows."""
        self.dsn = dsn
        self.where = redact(dsn)
        self._batch = batch
        self._closed = False
        self._error: BaseException | None = None
        self._submit = threading.Lock()  # guards _closed against submissions to the loop
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run_loop, name="arena-postgres-store",
                                        daemon=True)
        self._thread.start()
        self._writer: asyncpg.Connection | None = None
        self._pool: asyncpg.Pool | None = None
        self._queue: asyncio.Queue[Any] | None = None
        self._writer_task: asyncio.Task[None] | None = None
        try:
            asyncio.run_coroutine_threadsafe(self._open(readers), self._loop).result()
        except BaseException:
            self._closed = True
            asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result()
            self._stop_loop()
            raise
        self._ladder = PostgresLadderStore(self)
        self._person_ratings = PostgresPersonRatings(self)
        self._tournaments = SqlTournamentStore(self, self._execute_later, dollar=True)

    # ---- the loop's thread -----------------------------------------------------------------

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
        finally:
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()

    async def _connect(self) -> asyncpg.Connection:
        try:
            return await asyncpg.connect(self.dsn, timeout=_CONNECT_TIMEOUT_S,
                                         command_timeout=_COMMAND_TIMEOUT_S)
        except _DB_ERRORS as exc:
            raise StoreError(f"cannot open {self.where}: {exc}") from exc

    async def _open(self, readers: int) -> None:
        conn = await self._connect()
        try:
            await migrate(conn, self.where)
        except BaseException:
            await conn.close()
            raise
        self._writer = conn  # the migrating connection writes from here on
        try:
            self._pool = await asyncpg.create_pool(
                self.dsn, min_size=1, max_size=max(1, readers), timeout=_CONNECT_TIMEOUT_S,
                command_timeout=_COMMAND_TIMEOUT_S)
        except _DB_ERRORS as exc:
            raise StoreError(f"cannot open {self.where}: {exc}") from exc
        self._queue = asyncio.Queue()
        self._writer_task = asyncio.get_running_loop().create_task(self._write_loop())

    async def _shutdown(self) -> None:
        """On the loop: let the writer finish the queue, close the connections, cancel what
        is left (reads made as the store closed fail with :class:`StoreError`)."""
        if self._queue is not None and self._writer_task is not None:
            self._queue.put_nowait(None)
            await self._writer_task
        if self._pool is not None:
            try:
                await asyncio.wait_for(self._pool.close(), _CLOSE_TIMEOUT_S)
            except _DB_ERRORS:
                self._pool.terminate()
        if self._writer is not None:
            try:
                await asyncio.wait_for(self._writer.close(), _CLOSE_TIMEOUT_S)
            except _DB_ERRORS:
                self._writer.terminate()
        current = asyncio.current_task()
        others = [t for t in asyncio.all_tasks() if t is not current]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the store's loop and return its result (from any other thread)."""
        with self._submit:
            if self._closed:
                coro.close()
                raise StoreError("the store is closed")
            future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result()
        except (asyncio.CancelledError, concurrent.futures.CancelledError) as exc:
            raise StoreError("the store is closed") from exc

    # ---- writer ----------------------------------------------------------------------------

    async def _writer_connection(self) -> asyncpg.Connection:
        if self._writer is None or self._writer.is_closed():
            self._writer = None
            self._writer = await self._connect()
        return self._writer

    async def _write_loop(self) -> None:
        assert self._queue is not None
        queue = self._queue
        while True:
            ops = [await queue.get()]
            while len(ops) < self._batch and not queue.empty():
                ops.append(queue.get_nowait())
            stop = None in ops
            writes = [op for op in ops if op is not None and not isinstance(op, _Flush)]
            if writes:
                await self._apply(writes)
            for marker in ops:
                if isinstance(marker, _Probe):
                    await self._probe(marker)
                if isinstance(marker, _Flush):
                    marker.done.set()
            if stop:
                break

    def _failed(self, exc: BaseException) -> None:
        if self._error is None:  # the first failure since the last flush is reported
            self._error = exc

    async def _apply(self, writes: list[Any]) -> None:
        try:
            conn = await self._writer_connection()
        except StoreError as exc:
            self._failed(exc)
            return
        try:
            async with conn.transaction():
                for write in _merged(writes):
                    await write(conn)
            return
        except Exception as exc:  # keep the writer alive; report on the next flush
            if len(writes) == 1 or conn.is_closed():
                self._failed(exc)
                return
        # One write failed (a statement error; nothing of the batch was committed): apply
        # them again one transaction each, so that only the failing one is lost.
        for write in writes:
            try:
                async with conn.transaction():
                    await write(conn)
            except Exception as exc:
                self._failed(exc)
                if conn.is_closed():
                    return

    async def _probe(self, probe: _Probe) -> None:
        try:
            conn = await self._writer_connection()
            # Rewriting the schema version as it is: a real write, committed at once, that
            # changes nothing.
            await conn.execute("UPDATE schema_version SET version = version")
        except Exception as exc:
            probe.error = exc

    def _put(self, op: Any) -> None:
        with self._submit:
            if self._closed:
                raise StoreError("the store is closed")
            assert self._queue is not None
            self._loop.call_soon_threadsafe(self._queue.put_nowait, op)

    def write_later(self, write: Write) -> None:
        """Queue ``await write(connection)`` for the writer, in order with every other queued
        write; it runs inside the batch's transaction (so one call is atomic). For this
        backend's sub-stores (the ladder's), which keep their tables in this database."""
        self._put(write)

    def ladder(self) -> PostgresLadderStore:
        return self._ladder

    def person_ratings(self) -> PostgresPersonRatings:
        return self._person_ratings

    def tournaments(self) -> SqlTournamentStore:
        return self._tournaments

    def _execute_later(self, sql: str, params: tuple[Any, ...]) -> None:
        self.write_later(lambda conn: conn.execute(sql, *params))

    def check_writable(self) -> None:
        probe = _Probe()
        self._put(probe)
        probe.done.wait()
        if probe.error is not None:
            raise StoreError(f"{self.where} cannot be written: {probe.error}"
                             ) from probe.error

    def flush(self) -> None:
        marker = _Flush()
        self._put(marker)
        marker.done.wait()
        if self._error is not None:
            error, self._error = self._error, None
            raise StoreError(f"a queued write failed: {error}") from error

    def close(self) -> None:
        """Flush (raising as :meth:`flush` does, after closing), then close the connections
        and stop the store's thread."""
        if self._closed:
            return
        try:
            self.flush()
        finally:
            with self._submit:
                already, self._closed = self._closed, True
            if not already:
                try:
                    asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result()
                finally:
                    self._stop_loop()

    # ---- reads -----------------------------------------------------------------------------

    async def _fetch(self, sql: str, args: Sequence[Any]) -> list[tuple[Any, ...]]:
        assert self._pool is not None
        try:
            async with self._pool.acquire() as conn:
                return [tuple(record) for record in await conn.fetch(sql, *args)]
        except _DB_ERRORS as exc:
            raise StoreError(f"reading {self.where} failed: {exc}") from exc

    def query(self, sql: str, args: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        """Read committed rows (``$1``, ``$2``… are ``args``) on one of the store's reader
        connections; for this backend's sub-stores too."""
        return self._run(self._fetch(sql, tuple(args)))

    def select(self, sql: str, *, order_by: str, limit: int | None = None,
               **equal: Any) -> list[tuple[Any, ...]]:
        """:meth:`query` ``sql`` (a ``SELECT … FROM …``) for the rows whose columns equal
        the ``equal`` values that are not ``None``, in ``order_by`` order, ``limit`` at the
        most. Column names come from the code, never from a client."""
        where = [(column, value) for column, value in equal.items() if value is not None]
        args = [value for _, value in where]
        if where:
            sql += " WHERE " + " AND ".join(
                f"{column}=${n}" for n, (column, _) in enumerate(where, 1))
        sql += f" ORDER BY {order_by}"
        if limit is not None:
            args.append(limit)
            sql += f" LIMIT ${len(args)}"
        return self.query(sql, args)

    # ---- accounts --------------------------------------------------------------------------

    def _add_account(self, account: Account, hashed_token: str,
                     password_hash: str | None = None) -> None:
        args = (account.name, account.kind, hashed_token, account.created_at, account.owner,
                password_hash)
        self.write_later(lambda conn: conn.execute(
            "INSERT INTO accounts (name, kind, token_hash, created_at, owner, password_hash) "
            "VALUES ($1,$2,$3,$4,$5,$6)", *args))
        self.flush()

    def _write_now(self, write: Write) -> None:
        self.write_later(write)
        self.flush()

    def _password_hash(self, name: str) -> str | None:
        rows = self.query("SELECT password_hash FROM accounts WHERE name=$1", (name,))
        return rows[0][0] if rows else None

    def _set_password_hash(self, name: str, password_hash: str) -> None:
        self._write_now(lambda conn: conn.execute(
            "UPDATE accounts SET password_hash=$1 WHERE name=$2", password_hash, name))

    def _add_login(self, name: str, hashed_token: str, created_at: str) -> None:
        self._write_now(lambda conn: conn.execute(
            "INSERT INTO logins (token_hash, account, created_at) VALUES ($1,$2,$3)",
            hashed_token, name, created_at))

    def _login_hashes(self, name: str) -> list[str]:
        return [h for (h,) in self.query("SELECT token_hash FROM logins WHERE account=$1",
                                         (name,))]

    def _delete_logins(self, hashed_tokens: Sequence[str]) -> None:
        gone = list(hashed_tokens)
        if gone:
            self._write_now(lambda conn: conn.execute(
                "DELETE FROM logins WHERE token_hash = ANY($1::text[])", gone))

    def claim_matches(self, guest: str, name: str) -> int:
        # As SQLite's: LIKE on the guest's hex suffix narrows, claimed_seats decides.
        changes = []
        for match_id, seats in self.query(
                "SELECT id, seats FROM matches WHERE status != 'live' AND seats::text LIKE $1",
                (f"%{guest.rsplit('#', 1)[-1]}%",)):
            claimed = claimed_seats(_loads(seats), guest, name)
            if claimed is not None:
                changes.append((_dumps(claimed), match_id))
        if changes:
            self._write_now(lambda conn: conn.executemany(
                "UPDATE matches SET seats=$1 WHERE id=$2 AND status != 'live'", changes))
        return len(changes)

    def _set_token_hash(self, name: str, hashed_token: str) -> None:
        self.write_later(lambda conn: conn.execute(
            "UPDATE accounts SET token_hash=$1 WHERE name=$2", hashed_token, name))
        self.flush()

    def _set_banned(self, name: str, banned: bool) -> None:
        self.write_later(lambda conn: conn.execute(
            "UPDATE accounts SET banned=$1 WHERE name=$2", banned, name))
        self.flush()

    def _accounts(self, where: str, args: Iterable[Any] = ()) -> list[Account]:
        return [Account(name, kind, created_at, bool(banned), owner)
                for name, kind, created_at, banned, owner in self.query(
                    f"SELECT name, kind, created_at, banned, owner FROM accounts {where}",
                    args)]

    def _account_by_token_hash(self, hashed_token: str) -> Account | None:
        return next(iter(self._accounts(
            "WHERE token_hash=$1 OR name=(SELECT account FROM logins WHERE token_hash=$1)",
            (hashed_token,))), None)

    def get_account(self, name: str) -> Account | None:
        return next(iter(self._accounts("WHERE name=$1", (name,))), None)

    def list_accounts(self) -> list[Account]:
        return self._accounts("ORDER BY name")

    # ---- matches ---------------------------------------------------------------------------

    def save_match(self, row: MatchRow) -> None:
        args = (row.id, row.game, _dumps(row.options), row.num_seats, row.seed,
                _dumps(row.seats), _maybe(row.clock), _maybe(row.start), _dumps(row.log),
                _maybe(row.outcome), row.status, row.moves, row.created_at, row.ended_at,
                _maybe(row.live_state), None if row.chance == "rng" else row.chance,
                _maybe(row.pair))
        columns = [c.strip() for c in _MATCH_COLUMNS.split(",")]
        updates = ", ".join(f"{c}=EXCLUDED.{c}" for c in columns[1:])
        sql = (f"INSERT INTO matches ({_MATCH_COLUMNS}) VALUES "
               f"({', '.join(f'${n}' for n in range(1, len(columns) + 1))}) "
               f"ON CONFLICT (id) DO UPDATE SET {updates}")
        self.write_later(lambda conn: conn.execute(sql, *args))

    def append_actions(self, entries: Sequence[tuple[str, int, dict[str, Any]]],
                       moves: Mapping[str, int],
                       live_states: Mapping[str, dict[str, Any]] | None = None) -> None:
        if not entries and not moves and not live_states:
            return
        # One row per run of consecutive entries of a match (the server hands over each
        # match's new entries in order): a handful of actions cost one row, not one each.
        chunks: list[tuple[str, int, list[dict[str, Any]]]] = []
        open_chunk: dict[str, tuple[str, int, list[dict[str, Any]]]] = {}
        for match_id, index, entry in entries:
            last = open_chunk.get(match_id)
            if last is not None and last[1] + len(last[2]) == index:
                last[2].append(entry)
            else:
                open_chunk[match_id] = last = (match_id, index, [entry])
                chunks.append(last)
        self._put(_Append(
            {(match_id, first): _dumps(run) for match_id, first, run in chunks},
            dict(moves),
            {match_id: _dumps(state) for match_id, state in (live_states or {}).items()}))

    def update_match(self, match_id: str, *, log: Sequence[dict[str, Any]], moves: int,
                     status: str = "live", outcome: dict[str, Any] | None = None,
                     ended_at: str | None = None) -> None:
        check_status(status)
        args = (_dumps(list(log)), moves, status, _maybe(outcome), ended_at, match_id)
        final = status != "live"

        async def write(conn: asyncpg.Connection) -> None:
            # A match already over or void is left as it is: the first result wins (a
            # second server that resumed the same match must not overwrite or double it).
            await conn.execute(
                "UPDATE matches SET log=$1, moves=$2, status=$3, "
                "outcome=COALESCE($4, outcome), ended_at=COALESCE($5, ended_at), "
                "live_state=CASE WHEN $3='live' THEN live_state END "
                "WHERE id=$6 AND status='live'", *args)
            if final:  # the whole log is in the row now
                await conn.execute("DELETE FROM match_log_chunks WHERE match_id=$1",
                                   match_id)

        self.write_later(write)

    @staticmethod
    def _row(values: Sequence[Any]) -> MatchRow:
        (id_, game, options, num_seats, seed, seats, clock, start, log, outcome, status, moves,
         created_at, ended_at, live_state, chance, pair) = values
        return MatchRow(
            id=id_, game=game, options=json.loads(options), num_seats=num_seats, seed=seed,
            seats=json.loads(seats), clock=_loads(clock), start=_loads(start),
            log=json.loads(log), outcome=_loads(outcome), status=status, moves=moves,
            created_at=created_at, ended_at=ended_at, live_state=_loads(live_state),
            chance=chance or "rng", pair=_loads(pair))

    def get_match(self, match_id: str) -> MatchRow | None:
        # One statement, so one snapshot: the row and its chunks as they were together.
        rows = self.query(
            f"SELECT {_MATCH_COLUMNS}, CASE WHEN status='live' THEN ("
            "SELECT json_agg(json_build_array(first, entries) ORDER BY first) "
            "FROM match_log_chunks WHERE match_id=$1) END "
            "FROM matches WHERE id=$1", (match_id,))
        if not rows:
            return None
        row = self._row(rows[0][:-1])
        chunks = rows[0][-1]
        if row.status == "live" and chunks is not None:
            row.log = merge_log(row.log, ((first, entries)
                                          for first, entries in json.loads(chunks)))
        return row

    def list_matches(self, *, status: str | None = None, game: str | None = None,
                     limit: int = 100) -> list[MatchRow]:
        return [self._row(r) for r in self.select(
            f"SELECT {_MATCH_COLUMNS} FROM matches", order_by="created_at DESC, id",
            limit=limit, status=status, game=game)]
