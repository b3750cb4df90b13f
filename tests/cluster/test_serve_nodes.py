"""``arena serve --nodes N``: the supervisor runs N nodes on one port, replaces one that dies,
and stops them all on SIGTERM; and the set-ups it refuses."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from websockets.exceptions import InvalidMessage

from clients.connection import NO_RECONNECT, Connection, connect
from tests.cluster.test_three_nodes import node_of
from tools.services import PostgresServer, RedisServer, free_port

ROOT = Path(__file__).resolve().parents[2]
ROOMY = ["--limit", "address_rate_per_s=100000", "--limit", "address_burst=100000"]
"""Every client of these tests comes from 127.0.0.1, and finding the nodes takes many."""


def arena(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "tools.cli", "serve", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})


async def nodes_seen(url: str, want: int, tries: int = 200) -> set[str]:
    """The node ids that connections to ``url`` land on, until ``want`` are seen."""
    seen: set[str] = set()
    for _ in range(tries):
        try:
            conn = await connect(url, reconnect=NO_RECONNECT, open_timeout=2)
        except (OSError, InvalidMessage, TimeoutError):  # a node that is going, or gone
            await asyncio.sleep(0.1)
            continue
        seen.add(node_of(conn))
        await conn.close()
        if len(seen) >= want:
            break
    return seen


async def test_two_nodes_on_one_port(postgres: PostgresServer,
                                     redis_server: RedisServer) -> None:
    dsn = postgres.create_database("serve_nodes")
    port = free_port()
    proc = arena("--nodes", "2", "--port", str(port), "--db", dsn, "--redis",
                 redis_server.url, "--cluster-prefix", "servenodes:", "--node-id", "sv",
                 "--log-level", "warning", *ROOMY)
    url = f"ws://127.0.0.1:{port}/ws"
    try:
        assert await nodes_seen(url, 2) == {"sv-0", "sv-1"}
        # Two guests on whichever nodes they land play a match to the end.
        one = await connect(url, name="one")
        two = await connect(url, name="two")
        for conn in (one, two):
            await conn.seek("battleline")

        async def play(conn: Connection) -> dict[str, Any]:
            async for message in conn:
                if message["type"] == "request":
                    await conn.act(message, message["legal_actions"][0])
                elif message["type"] == "match_end":
                    return dict(message)
            raise AssertionError("no match_end")

        ends = await asyncio.wait_for(asyncio.gather(play(one), play(two)), 60)
        assert ends[0]["outcome"] == ends[1]["outcome"]
        await one.close()
        await two.close()
        # A node that dies is replaced (a new node id joins) while the other serves on.
        children = [int(pid) for pid in subprocess.run(
            ["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()]
        assert len(children) == 2
        os.kill(children[0], signal.SIGKILL)
        seen: set[str] = set()
        for _ in range(100):
            seen |= await nodes_seen(url, 2)
            if any(node.endswith(".1") for node in seen):
                break
            await asyncio.sleep(0.1)
        assert any(node.endswith(".1") for node in seen), seen
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, out
    assert "2 nodes on ws://127.0.0.1" in out and "exited with" in out
    left = subprocess.run(["pgrep", "-f", f"--port {port} "], capture_output=True, text=True)
    assert left.stdout.strip() == "", "a node outlived its supervisor"


def test_set_ups_that_cannot_work_are_refused(tmp_path: Path) -> None:
    for args, why in ((["--nodes", "2"], "--nodes needs --redis"),
                      (["--redis", "redis://127.0.0.1:1/0", "--db", str(tmp_path / "a.db")],
                       "through PostgreSQL")):
        done = subprocess.run([sys.executable, "-m", "tools.cli", "serve", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and why in done.stderr, done.stderr
