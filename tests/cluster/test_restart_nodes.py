"""A cluster stopped as a whole and started again: the new node resumes the matches the old
ones left live — through the dead node's job stream, or, when Redis lost the match's job and
host keys, from the store alone (the first node of a cluster adopts the orphans)."""

from __future__ import annotations

import asyncio
import secrets

import pytest
import redis.asyncio as aioredis

from clients.connection import ReconnectPolicy, connect
from server.app import ArenaServer
from server.cluster import ClusterConfig
from server.storage.postgres import PostgresStore
from tests.cluster.helpers import play_out, seek_pair
from tools.services import PostgresServer, RedisServer

FAST = ReconnectPolicy(initial_delay=0.1, max_delay=0.3, max_attempts=100)


@pytest.mark.parametrize("redis_lost_the_match", [False, True])
async def test_a_cluster_restarted_resumes_its_matches(
        postgres: PostgresServer, redis_server: RedisServer,
        redis_lost_the_match: bool) -> None:
    dsn = postgres.create_database(f"restart_{secrets.token_hex(3)}")
    prefix = f"r{secrets.token_hex(3)}:"

    def node(name: str) -> ArenaServer:
        return ArenaServer(PostgresStore(dsn), grace_s=20.0, cluster=ClusterConfig(
            redis_server.url, node_id=name, prefix=prefix))

    old = node("old")
    await old.start("127.0.0.1", 0)
    port = old.port
    one = await connect(old.ws_url, name="one", reconnect=FAST)
    two = await connect(old.ws_url, name="two", reconnect=FAST)
    match_id = await seek_pair(one, two)
    assert match_id in old.live
    await asyncio.sleep(1.0)  # the match's job and host are in Redis, its row in the store
    await old.close()
    old.store.close()
    if redis_lost_the_match:
        r = aioredis.from_url(redis_server.url)
        for pattern in ("match:*", "jobs:*", "nodes"):
            for key in await r.keys(prefix + pattern):
                await r.delete(key)
        await r.aclose()

    new = node("new")
    await new.start("127.0.0.1", port)  # the clients reconnect to the same address
    try:
        for _ in range(100):
            if match_id in new.live:
                break
            await asyncio.sleep(0.1)
        assert match_id in new.live, "the new node did not resume the match"

        ends = await asyncio.wait_for(
            asyncio.gather(play_out(one, match_id), play_out(two, match_id)), 60)
        assert ends[0]["outcome"] == ends[1]["outcome"]
        assert one.reconnects >= 1 and two.reconnects >= 1
        await new.flush_store()
        row = await asyncio.to_thread(new.store.get_match, match_id)
        assert row is not None and row.status == "over"
    finally:
        for conn in (one, two):
            await conn.close()
        await new.close()
        new.store.close()
