"""The store contract suite's backends and shared rows.

Every ``test_contract_*.py`` file in this folder runs each of its tests once per backend in
:data:`BACKENDS` (the ``store`` fixture of ``conftest.py``): the contract of
:class:`server.storage.Store` and its ladder sub-store, whatever keeps the data. A new backend
passes the suite by adding one entry here; what is true of one backend only (SQLite's
migrations, its table layout; PostgreSQL's migrations) is tested beside it in
``test_sqlite_*.py`` and ``test_postgres_*.py``.

A backend is made from a fresh folder alone, so that tests elsewhere can make one too
(``tests/ladder/test_ladder_any_store.py``). PostgreSQL's entry takes a new database on
:data:`POSTGRES`, the session's one PostgreSQL server: started by the first test that needs
it (``conftest.py``'s ``postgres_server`` fixture, which stops it at the end of the session,
or this entry, outside ``tests/storage``; then it stops when the interpreter exits).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from server.storage import MatchRow, MemoryStore, PostgresStore, SqliteStore, Store
from tools.services import PostgresServer


class SessionPostgres:
    """One throw-away PostgreSQL server for the test session
    (:class:`tools.services.PostgresServer`), started at first use, with a new database per
    caller: ``CREATE DATABASE`` takes a few tens of milliseconds, a server a second."""

    def __init__(self) -> None:
        self._server: PostgresServer | None = None
        self._lock = threading.Lock()
        self._names = itertools.count(1)

    def server(self) -> PostgresServer:
        with self._lock:
            if self._server is None:
                self._server = PostgresServer().start()
            return self._server

    def new_database(self) -> str:
        """The DSN of a new, empty database."""
        return self.server().create_database(f"arena_test_{next(self._names)}")

    def drop_database(self, dsn: str) -> None:
        """Drop the database of a DSN :meth:`new_database` gave (closed sessions or not)."""
        self.server().drop_database(urlsplit(dsn).path.lstrip("/"))

    def stop(self) -> None:
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            server.stop()


POSTGRES = SessionPostgres()

BACKENDS: dict[str, Callable[[Path], Store]] = {
    "sqlite": lambda folder: SqliteStore(folder / "arena.sqlite3"),
    "memory": lambda folder: MemoryStore(),
    "postgres": lambda folder: PostgresStore(POSTGRES.new_database()),
}
"""Backend name -> a new, empty store (``folder`` is a fresh directory it may use)."""


def row(match_id: str, created: str = "2024-01-01T00:00:00.000Z", *,
        game: str = "race") -> MatchRow:
    """A live match of two seats with a secret seed and a clock."""
    return MatchRow(id=match_id, game=game, options={"target": 5}, num_seats=2,
                    seed=2**62 + 3, seats=[{"seat": 0, "name": "a", "kind": "bot"},
                                           {"seat": 1, "name": "b", "kind": "guest"}],
                    clock={"initial_ms": 1000, "increment_ms": 0}, created_at=created)


def append_interleaved(store: Store) -> None:
    """Live matches ``a`` and ``b`` with three batches of progress: interleaved, then a
    rewritten entry of ``a`` and one beyond a gap; flushed."""
    for match_id in ("a", "b"):
        store.save_match(row(match_id))
    store.append_actions([("a", 0, {"n": 0}), ("b", 0, {"n": 100}), ("a", 1, {"n": 1}),
                          ("a", 2, {"n": 2}), ("b", 1, {"n": 101})], {"a": 3, "b": 2})
    store.append_actions([("b", 2, {"n": 102}), ("a", 3, {"n": 3}), ("a", 4, {"n": 4})],
                         {"a": 5, "b": 3})
    store.append_actions([("a", 4, {"n": "4 again"}), ("a", 9, {"n": "after a gap"})],
                         {"a": 6})
    store.flush()
