"""A real server on 127.0.0.1, port 0, with a real SQLite file in ``tmp_path``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from engine import registry
from server.app import ArenaServer
from server.logs import configure_logging
from server.storage import SqliteStore
from tests.server_tests.minigames import TEST_GAMES

configure_logging("warning")


@pytest.fixture(autouse=True)
def test_games() -> Iterator[None]:
    """The tiny test games, registered only while a server test runs (the conformance
    suite over the registry must not see them)."""
    for game in TEST_GAMES:
        registry.register(game, replace=True)
    yield
    for game in TEST_GAMES:
        registry.unregister(game.info.name)


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
