"""Fixtures shared across the suite.

``arena``: a real :class:`~server.app.ArenaServer` on 127.0.0.1, port 0, with its own SQLite
file, closed after the test. Directories that need a differently configured server (web,
ladder, server) define their own fixture of the same name, which takes precedence.

The browser tests (``tests/web``) always run last, whatever order the paths were given in:
Playwright's sync API keeps an event loop running in the main thread for as long as its
session-scoped browser lives, and an asyncio test after it could not start its own loop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.app import ArenaServer
from server.storage import SqliteStore

WEB_TESTS = Path(__file__).parent / "web"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.path.is_relative_to(WEB_TESTS))  # stable: web last


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
