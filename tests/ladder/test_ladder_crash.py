"""A real ``kill -9`` of the server in the middle of a busy ladder, then a graceful stop.

``arena serve`` runs as its own process on a real SQLite file; bots on the client library
(real websockets, reconnecting as any bot would) keep ≥ 50 Battle Line ladder matches live.
The server is killed with SIGKILL and started again on the same port: every match that was
live is resumed and finishes (nobody forfeits or times out, nothing is void), every result
rated before the crash is still there, no match is rated twice, and ``arena ladder rerate``
recomputes the very ratings the server stored. Then a SIGTERM: the server stops at once,
saving every live match, and the next start resumes them too.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import socket
import sqlite3
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from clients.runner import BotRunner
from server.storage import SqliteStore

ROOT = Path(__file__).resolve().parents[2]
BOTS = 30
MATCHES_EACH = 4
LIVE_AT_CRASH = 50
END_REASONS_NOT_WANTED = {"forfeit", "timeout", "void", "interrupted"}


class SlowRandom:
    """A random legal action after a short think, so that matches last a few seconds."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    async def choose(self, request: dict[str, Any]) -> Any:
        await asyncio.sleep(0.03)
        legal = request["legal_actions"]
        return legal[self.rng.randrange(len(legal))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def start_server(db: Path, port: int) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tools.cli", "serve", "--port", str(port), "--db", str(db),
        "--log-level", "warning", cwd=ROOT, stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), 30)
    assert b"serving on" in line, line
    return process


def health(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as reply:
        return dict(json.loads(reply.read()))


def ladder_rows(db: Path) -> dict[str, tuple[str, str | None]]:
    """match id -> (ladder status, reason), read as any other process would."""
    conn = sqlite3.connect(db)
    try:
        return {m: (s, r) for m, s, r in conn.execute(
            "SELECT match_id, status, reason FROM ladder_matches")}
    finally:
        conn.close()


async def wait_until(check: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not await asyncio.to_thread(check):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.2)


async def test_a_killed_server_resumes_every_live_ladder_match(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite3"
    store = SqliteStore(db)
    tokens = [store.create_account(f"bot{n}", "bot") for n in range(BOTS)]
    store.close()
    port = free_port()
    server = await start_server(db, port)
    runners = [BotRunner(SlowRandom(n), f"ws://127.0.0.1:{port}/ws", games=["battleline"],
                         token=token, mode="ladder", max_matches=MATCHES_EACH,
                         ladder_bot="slow", encoding="msgpack" if n % 2 else "json")
               for n, token in enumerate(tokens)]
    running = [asyncio.create_task(r.run()) for r in runners]
    try:
        deadline = time.monotonic() + 90
        while True:
            await wait_until(lambda: health(port)["live_matches"] >= LIVE_AT_CRASH,
                             deadline - time.monotonic(), f"{LIVE_AT_CRASH} live ladder matches")
            await asyncio.sleep(0.7)  # past one persist interval: the latest actions are stored
            # Matches end all the time: crash only while enough are still live (a loaded
            # machine can see a few end during the wait).
            if health(port)["live_matches"] >= LIVE_AT_CRASH:
                break
        server.kill()  # SIGKILL: no clean-up of any kind
        await server.wait()
        before = ladder_rows(db)
        cut = {m for m, (status, _) in before.items() if status == "live"}
        rated_before = {m for m, (status, _) in before.items() if status == "rated"}
        assert len(cut) >= LIVE_AT_CRASH

        server = await start_server(db, port)
        await wait_until(lambda: all(ladder_rows(db)[m][0] != "live" for m in cut), 120,
                         "every cut match to finish")
        after = ladder_rows(db)
        assert {m: after[m] for m in cut if after[m][0] != "rated"} == {}
        assert not {after[m][1] for m in cut} & END_REASONS_NOT_WANTED
        assert {m for m in rated_before if after[m][0] != "rated"} == set()

        # A graceful stop in the middle of the next matches: quick, and nobody loses.
        await wait_until(lambda: health(port)["live_matches"] >= 10, 60, "new live matches")
        began = time.monotonic()
        server.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(server.wait(), 30) == 0
        stop_s = time.monotonic() - began
        stopped = {m for m, (status, _) in ladder_rows(db).items() if status == "live"}
        assert stopped
        server = await start_server(db, port)
        await wait_until(lambda: all(ladder_rows(db)[m][0] != "live" for m in stopped), 120,
                         "every stopped match to finish")
        final = ladder_rows(db)
        assert {m: final[m] for m in stopped if final[m][0] != "rated"} == {}
        assert not {final[m][1] for m in stopped} & END_REASONS_NOT_WANTED
    finally:
        for runner in runners:
            runner.stop()
        await asyncio.gather(*running, return_exceptions=True)
        if server.returncode is None:
            server.send_signal(signal.SIGTERM)
            await asyncio.wait_for(server.wait(), 30)
    print(f"graceful stop took {stop_s:.2f} s")

    conn = sqlite3.connect(db)
    try:
        # Each rated match rated once: one history point per seat, distinct seq numbers.
        per_match = dict(conn.execute(
            "SELECT match_id, COUNT(*) FROM ladder_history GROUP BY match_id").fetchall())
        rated = [m for (m,) in conn.execute(
            "SELECT match_id FROM ladder_matches WHERE status='rated'")]
        seqs = [s for (s,) in conn.execute(
            "SELECT seq FROM ladder_matches WHERE status='rated'")]
        assert set(per_match.values()) == {2} and set(per_match) == set(rated)
        assert len(set(seqs)) == len(seqs) == len(rated)
        # The match rows agree with the ladder's: every rated match is over.
        statuses = dict(conn.execute("SELECT id, status FROM matches").fetchall())
        assert {statuses[m] for m in rated} == {"over"}
    finally:
        conn.close()

    rerate = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tools.cli", "ladder", "rerate", "--db", str(db), cwd=ROOT,
        stdout=asyncio.subprocess.PIPE)
    out, _ = await rerate.communicate()
    assert rerate.returncode == 0
    drift = re.search(rb"largest change of a stored rating: mu (\S+), sigma (\S+)", out)
    assert drift is not None, out
    assert float(drift.group(1)) < 1e-9 and float(drift.group(2)) < 1e-9, out
    assert f"rerated {len(rated)} results".encode() in out
