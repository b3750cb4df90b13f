"""The ``store`` fixture: a new, empty store of each backend of :data:`contract.BACKENDS`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server.storage import Store
from tests.storage.contract import BACKENDS


@pytest.fixture(params=sorted(BACKENDS))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    opened = BACKENDS[request.param](tmp_path)
    try:
        yield opened
    finally:
        opened.close()
