"""The store contract suite's backends and shared rows.

Every ``test_contract_*.py`` file in this folder runs each of its tests once per backend in
:data:`BACKENDS` (the ``store`` fixture of ``conftest.py``): the contract of
:class:`server.storage.Store` and its ladder sub-store, whatever keeps the data. A new backend
(PostgreSQL) passes the suite by adding one entry here; what is true of one backend's files
only (SQLite's migrations, its table layout) is tested beside it in ``test_sqlite_*.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from server.storage import MatchRow, MemoryStore, SqliteStore, Store

BACKENDS: dict[str, Callable[[Path], Store]] = {
    "sqlite": lambda folder: SqliteStore(folder / "arena.sqlite3"),
    "memory": lambda folder: MemoryStore(),
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
