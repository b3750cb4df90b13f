"""Real PostgreSQL and Redis for the cluster tests (one of each per test session, started
and installed if missing by :mod:`tools.services`), and three in-process nodes over them."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Iterator

import pytest

from server.app import ArenaServer
from server.cluster import ClusterConfig
from server.storage.postgres import PostgresStore
from tools.services import PostgresServer, RedisServer


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    with PostgresServer() as pg:
        yield pg


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    with RedisServer() as rs:
        yield rs


@pytest.fixture
async def three_nodes(postgres: PostgresServer, redis_server: RedisServer
                      ) -> AsyncIterator[list[ArenaServer]]:
    """Nodes ``a``, ``b`` and ``c`` in this process, each with its own PostgreSQL store (one
    database), on their own ports, coordinated through Redis under a fresh key prefix."""
    dsn = postgres.create_database(f"nodes_{secrets.token_hex(4)}")
    prefix = f"t{secrets.token_hex(3)}:"
    nodes: list[ArenaServer] = []
    try:
        for name in "abc":
            node = ArenaServer(PostgresStore(dsn), grace_s=10.0, cluster=ClusterConfig(
                redis_server.url, node_id=name, prefix=prefix))
            await node.start("127.0.0.1", 0)
            nodes.append(node)
        yield nodes
    finally:
        for node in nodes:
            await node.close()
            node.store.close()
