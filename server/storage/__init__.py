"""Storage: accounts, matches and the ladder behind one interface, SQLite by default.

* :mod:`server.storage.base` — the :class:`Store` interface, its rows and its contract;
* :mod:`server.storage.ladder` — the ladder's sub-store interface (:meth:`Store.ladder`);
* :mod:`server.storage.sqlite` — the SQLite file backend (:class:`SqliteStore`), with its
  ladder tables (:mod:`server.storage.sqlite_ladder`) and its versioned schema and
  migrations (:mod:`server.storage.sqlite_schema`);
* :mod:`server.storage.memory` — the in-memory backend (:class:`MemoryStore`).

Every backend passes the contract suite in ``tests/storage/``. The server and the ladder use
only the interfaces; which backend is chosen where the program is put together.
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
from server.storage.sqlite import SqliteStore

__all__ = [
    "ACCOUNT_KINDS", "HOUSE_PREFIX", "MATCH_STATUSES", "Account", "LadderMatchRow",
    "LadderStore", "MatchRow", "MemoryStore", "SqliteStore", "Store", "StoreError",
    "is_reserved_name", "name_key", "new_token", "token_hash", "utc_now",
]
