"""A real server on 127.0.0.1, port 0, with a real SQLite file in ``tmp_path``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.app import ArenaServer
from server.logs import configure_logging
from server.storage import SqliteStore
from tests.server.minigames import register_all

register_all()
configure_logging("warning")


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:  # type: ignore[misc]
    s = SqliteStore(tmp_path / "arena.sqlite3")
    yield s
    s.close()


@pytest.fixture
async def server(store: SqliteStore) -> AsyncIterator[ArenaServer]:
    srv = ArenaServer(store, grace_s=5.0)
    await srv.start("127.0.0.1", 0)
    yield srv
    await srv.close()
