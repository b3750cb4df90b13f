"""Storage: accounts, matches and the ladder behind one interface, SQLite by default.

* :mod:`server.storage.base` — the :class:`Store` interface, its rows and its contract;
* :mod:`server.storage.ladder` — the ladder's sub-store interface (:meth:`Store.ladder`);
* :mod:`server.storage.sqlite` — the SQLite file backend (:class:`SqliteStore`), with its
  ladder tables (:mod:`server.storage.sqlite_ladder`) and its versioned schema and
  migrations (:mod:`server.storage.sqlite_schema`);
* :mod:`server.storage.postgres` — the PostgreSQL backend (:class:`PostgresStore`, on
  asyncpg, its own thread and event loop behind the same synchronous interface), with its
  ladder tables (:mod:`server.storage.postgres_ladder`) and its versioned schema and
  migrations (:mod:`server.storage.postgres_schema`), safe for several servers opening one
  database at once;
* :mod:`server.storage.memory` — the in-memory backend (:class:`MemoryStore`).

Every backend passes the contract suite in ``tests/storage/``. The server and the ladder use
only the interfaces; which backend is chosen where the program is put together:
:func:`open_store` picks one from a ``--db`` value (a ``postgresql://`` or ``postgres://``
URL, or an SQLite file).
"""

from server.storage.base import (
    ACCOUNT_KINDS,
    HOUSE_PREFIX,
    MATCH_STATUSES,
    Account,
    MatchRow,
    Store,
    StoreError,
    is_reserved_name,
    name_key,
    new_token,
    token_hash,
    utc_now,
)
from server.storage.ladder import LadderMatchRow, LadderStore
from server.storage.memory import MemoryStore
from server.storage.postgres import PostgresStore, is_postgres_url, redact
from server.storage.sqlite import SqliteStore
from server.storage.tournaments import TournamentStore


def open_store(db: str) -> Store:
    """The store a ``--db`` value names: :class:`PostgresStore` for a ``postgresql://`` or
    ``postgres://`` URL (``postgresql://user[:password]@host[:port]/database``), else
    :class:`SqliteStore` on that file. Raises :class:`StoreError` when it cannot be opened
    (a database that cannot be reached, or of a newer release)."""
    if is_postgres_url(db):
        return PostgresStore(db)
    return SqliteStore(db)


def describe_db(db: str) -> str:
    """A ``--db`` value fit for a message: a URL's password hidden."""
    return redact(db) if is_postgres_url(db) else db


__all__ = [
    "ACCOUNT_KINDS", "HOUSE_PREFIX", "MATCH_STATUSES", "Account", "LadderMatchRow",
    "LadderStore", "MatchRow", "MemoryStore", "PostgresStore", "SqliteStore", "Store",
    "StoreError", "describe_db", "is_reserved_name", "name_key", "new_token", "open_store",
    "token_hash", "utc_now", "TournamentStore",
]
