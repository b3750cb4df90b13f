"""Fixtures shared across the suite.

``arena``: a real :class:`~server.app.ArenaServer` on 127.0.0.1, port 0, with its own SQLite
file, closed after the test. Directories that need a differently configured server (web,
ladder, server) define their own fixture of the same name, which takes precedence.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.app import ArenaServer
from server.storage import SqliteStore


@pytest.fixture
async def arena(tmp_path: Path) -> AsyncIterator[ArenaServer]:
    store = SqliteStore(tmp_path / "arena.sqlite3")
    server = ArenaServer(store, grace_s=10.0)
    await server.start("127.0.0.1", 0)
    try:
        yield server
    finally:
        await server.close()
        store.close()
