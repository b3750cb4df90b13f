"""The ``store`` fixture: a new, empty store of each backend of :data:`contract.BACKENDS`.

PostgreSQL: one throw-away server for the whole session (``postgres_server``: ``initdb`` in
a temporary folder and ``postgres`` on 127.0.0.1 at a free port, installed with apt if
missing; see :class:`tools.services.PostgresServer`), started when the first test that needs
it runs, and a new database for each test (the ``postgres`` backend's store, or
``postgres_database``), dropped after it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server.storage import PostgresStore, Store
from tests.storage.contract import BACKENDS, POSTGRES
from tools.services import PostgresServer


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The session's PostgreSQL server on 127.0.0.1 (superuser ``postgres``, trust
    authentication on loopback), stopped and removed at the end of the session."""
    try:
        yield POSTGRES.server()
    finally:
        POSTGRES.stop()


@pytest.fixture
def postgres_database(postgres_server: PostgresServer) -> Iterator[str]:
    """The DSN of a new, empty database on the session's server, dropped after the test."""
    dsn = POSTGRES.new_database()
    try:
        yield dsn
    finally:
        POSTGRES.drop_database(dsn)


@pytest.fixture(params=sorted(BACKENDS))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "postgres":
        request.getfixturevalue("postgres_server")  # stopped at the end of the session
    opened = BACKENDS[request.param](tmp_path)
    try:
        yield opened
    finally:
        opened.close()
        if isinstance(opened, PostgresStore):
            POSTGRES.drop_database(opened.dsn)
