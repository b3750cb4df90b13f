"""Three nodes on one port over a real PostgreSQL and a real Redis; one dies by ``kill -9``.

Three ``arena serve`` processes share a port (SO_REUSEPORT). A bot whose connection landed
on node A seeks a Battle Line match, then a bot on node B: B pairs them and hosts the match
(A's seat is a remote seat over Redis); a spectator on node C watches. Node B is killed with
SIGKILL in the middle of the match. Node A or C must take the match over from PostgreSQL,
the bot of B must resume on a surviving node with its resume token, both bots must finish
the match, and then:

* each bot saw exactly one ``match_end``, and the store holds the match once, over, with
  its whole log and that outcome (nothing lost, nothing doubled);
* the spectator saw the match go on after the takeover and end, and never any card that was
  hidden all match long (undrawn, or left in a hand) nor the match's seed;
* no node is left hosting it (its Redis job and host key are gone).
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import redis

from clients.connection import Connection, ReconnectPolicy, connect
from engine import registry
from server.render import SeatInfo
from server.runner import MatchRunner
from server.storage.postgres import PostgresStore
from tests.cluster.helpers import seek_pair
from tools.bench import spy
from tools.services import PostgresServer, RedisServer, free_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(180)


class Node:
    def __init__(self, node_id: str, port: int, dsn: str, redis_url: str, log: Path) -> None:
        self.node_id = node_id
        self.log = log
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tools.cli", "serve", "--port", str(port), "--db", dsn,
             "--redis", redis_url, "--reuse-port", "--node-id", node_id, "--grace", "30",
             "--log-level", "warning", "--limit", "address_rate_per_s=100000",
             "--limit", "address_burst=100000"],
            cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def node_of(conn: Connection) -> str:
    ws = conn._ws  # noqa: SLF001 - the Server header names the node the socket landed on
    assert ws is not None and ws.response is not None
    server = ws.response.headers["Server"]
    return server.rsplit("node/", 1)[1]


async def connect_to(url: str, node: str, **kwargs: Any) -> Connection:
    """A connection that landed on ``node`` (the kernel spreads connections over the
    nodes on the port: try until one lands there)."""
    for _ in range(200):
        conn = await connect(url, reconnect=ReconnectPolicy(initial_delay=0.1, max_delay=0.5,
                                                            max_attempts=60), **kwargs)
        if node_of(conn) == node:
            return conn
        await conn.close()
    raise AssertionError(f"no connection landed on node {node}")


@pytest.fixture(scope="module")
def services() -> Any:
    with PostgresServer() as pg, RedisServer() as rs:
        yield pg, rs


@pytest.fixture
async def cluster(services: Any, tmp_path: Path) -> AsyncIterator[tuple[str, dict[str, Node],
                                                                        str, str]]:
    pg, rs = services
    dsn = pg.create_database("three_nodes")
    PostgresStore(dsn).close()  # the schema, once, before three processes open it
    port = free_port()
    nodes = {name: Node(name, port, dsn, rs.url, tmp_path / f"{name}.log")
             for name in ("a", "b", "c")}
    try:
        for _ in range(300):
            served = [(tmp_path / f"{n}.log").read_text() for n in nodes]
            if all("serving on" in text for text in served):
                break
            for name, node in nodes.items():
                assert node.proc.poll() is None, (tmp_path / f"{name}.log").read_text()
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the nodes did not start")
        yield f"ws://127.0.0.1:{port}/ws", nodes, dsn, rs.url
    finally:
        for node in nodes.values():
            node.stop()


class Bot:
    """Answers every request with a random legal action, a little slowly (so the match is
    still on when its host is killed); counts what it receives."""

    def __init__(self, conn: Connection, seed: int) -> None:
        self.conn = conn
        self.rng = random.Random(seed)
        self.actions = 0
        self.ends: list[dict[str, Any]] = []
        self.starts = 0

    async def play(self) -> None:
        async for message in self.conn:
            kind = message["type"]
            if kind == "match_start":
                self.starts += 1
            elif kind == "request":
                await asyncio.sleep(0.03)
                try:
                    await self.conn.send({"type": "action", "match_id": message["match_id"],
                                          "request_id": message["request_id"],
                                          "action": self.rng.choice(message["legal_actions"])})
                    self.actions += 1
                except Exception:
                    pass  # the connection dropped: the resync asks again
            elif kind == "match_end":
                self.ends.append(message)
                return


async def test_a_match_survives_its_host_killed(cluster: Any) -> None:
    url, nodes, dsn, redis_url = cluster
    x = await connect_to(url, "a", name="x")
    y = await connect_to(url, "b", name="y")
    z = await connect_to(url, "c", name="z")
    bx, by = Bot(x, 1), Bot(y, 2)
    match_id = await seek_pair(x, y)
    bx.starts = 1
    watched: list[dict[str, Any]] = []
    spectating = await z.spectate(match_id)
    watched.append(spectating)

    async def watch() -> None:
        async for message in z:
            watched.append(message)
            if message["type"] == "match_end":
                return

    tasks = [asyncio.create_task(bx.play()), asyncio.create_task(by.play()),
             asyncio.create_task(watch())]
    while bx.actions + by.actions < 12:
        await asyncio.sleep(0.02)
        assert not any(t.done() for t in tasks[:2]), "the match ended before the kill"
    moves_before = bx.actions + by.actions
    nodes["b"].proc.kill()  # SIGKILL: nothing of node B's shutdown runs
    nodes["b"].proc.wait()
    await asyncio.wait_for(asyncio.gather(*tasks), 90)

    # Both bots finished the match, once each, on the same outcome.
    assert len(bx.ends) == 1 and len(by.ends) == 1
    assert bx.ends[0]["match_id"] == by.ends[0]["match_id"] == match_id
    assert bx.ends[0]["outcome"] == by.ends[0]["outcome"]
    assert bx.actions + by.actions > moves_before  # it went on after the kill
    assert by.conn.reconnects >= 1 and node_of(by.conn) in ("a", "c")
    assert bx.starts >= 2  # A's seat was re-sent the match by its new host

    # Stored once, over, with its whole log and that outcome.
    store = PostgresStore(dsn)
    try:
        rows = [r for r in store.list_matches(limit=100) if r.id == match_id]
        assert len(rows) == 1
        row = store.get_match(match_id)
        assert row is not None and row.status == "over"
        assert row.outcome == bx.ends[0]["outcome"]
        assert row.moves >= moves_before // 2 and row.log
        game = registry.get(row.game)
        final, _ = MatchRunner.resumed(
            row.id, game, [SeatInfo(s["name"], s["kind"]) for s in row.seats], row.options,
            row.seed, row.log, 0.0)
        assert final.is_over
    finally:
        store.close()

    # The spectator saw the end, and never a card hidden all match long, nor the seed.
    assert watched[-1]["type"] == "match_end"
    secrets = spy.secrets_of(final, None)
    assert secrets.cards, "the end state hides no card: the check would check nothing"
    for message in watched:
        leak = spy.find_leak(message, secrets, "json")
        assert leak is None, f"{leak}: {message}"

    # Nobody hosts it any more.
    r = redis.Redis.from_url(redis_url)
    assert not r.exists(f"arena:match:{match_id}")
    assert not any(r.xlen(k) for k in r.scan_iter("arena:jobs:*"))
    for conn in (x, y, z):
        await conn.close()
