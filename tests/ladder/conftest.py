"""The ladder tests run real servers on 127.0.0.1 port 0. The server tests' tiny games
(``race``, ``faulty``) are registered only while a ladder test runs (the conformance suite
over the registry must not see them)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import registry
from server.logs import configure_logging
from tests.server_tests.minigames import TEST_GAMES

sys.path.insert(0, str(Path(__file__).parent))
configure_logging("warning")


@pytest.fixture(autouse=True)
def test_games() -> Iterator[None]:
    for game in TEST_GAMES:
        registry.register(game, replace=True)
    yield
    for game in TEST_GAMES:
        registry.unregister(game.info.name)
