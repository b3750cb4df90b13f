"""The server's ``arena`` subcommands: account, replay, and run (the main job, as a real
subprocess with real house bot processes)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
from pathlib import Path

import pytest

from engine import registry
from engine.match import play, random_policy
from engine.rng import Rng
from server.storage import MatchRow, SqliteStore
from tests.server_tests.wsclient import WsClient, play_random
from tools.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_account_create_prints_a_token_that_logs_in(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "a.sqlite3")
    assert main(["account", "create", "robo", "--kind", "bot", "--db", db]) == 0
    token = capsys.readouterr().out.strip().splitlines()[-1]
    assert main(["account", "create", "robo", "--kind", "bot", "--db", db]) == 1
    assert main(["account", "list", "--db", db]) == 0
    assert re.search(r"^robo\s+bot\s", capsys.readouterr().out, re.M)
    store = SqliteStore(db)
    try:
        assert store.account_for_token(token).name == "robo"  # type: ignore[union-attr]
    finally:
        store.close()


def test_replay_prints_a_finished_match_and_exports_json_without_seed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = registry.get("battleline")
    seed = 8_765_432_123_456_789
    match = play(game, [random_policy(Rng(1)), random_policy(Rng(2))], seed=seed)
    db = str(tmp_path / "r.sqlite3")
    store = SqliteStore(db)
    record = match.record()
    store.save_match(MatchRow(
        id="m1", game="battleline", options=match.options, num_seats=2, seed=seed,
        seats=[{"seat": 0, "name": "ann", "kind": "bot"}, {"seat": 1, "name": "bob",
                                                           "kind": "human"}],
        log=record["log"], outcome=record["outcome"], status="over", moves=len(match.log)))
    store.save_match(MatchRow(id="m2", game="battleline", options=match.options, num_seats=2,
                              seed=1, seats=[], status="live"))
    store.close()
    assert main(["replay", "m1", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "Battle Line — match m1" in out and "ann (north)" in out
    assert f"result: {record['outcome']['reason']}" in out
    assert str(seed) not in out
    assert main(["replay", "m1", "--db", db, "--json"]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["record"]["log"] == record["log"] and str(seed) not in json.dumps(exported)
    assert main(["replay", "m2", "--db", db]) == 1   # live: secret
    assert main(["replay", "zz", "--db", db]) == 1


async def test_arena_run_serves_with_house_bot_processes_and_stops_cleanly(
        tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tools.cli", "run", "--port", "0",
        "--db", str(tmp_path / "run.sqlite3"), "--log-level", "warning",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env,
        cwd=str(tmp_path))
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        found = re.search(r"serving on http://127\.0\.0\.1:(\d+) — (ws://\S+/ws)", line)
        assert found, line
        ws_url = found.group(2)
        for game, seats in (("battleline", 2), ("chexers", 3)):
            client = await WsClient.open(ws_url, "msgpack")
            await client.hello(name="visitor")
            for _ in range(100):  # the bot processes take a moment to connect
                ref = await client.send({"type": "play_bot", "game": game})
                start = await client.expect_reply(ref)
                if start["type"] == "match_start":
                    break
                assert start["code"] == "not_found"
                await asyncio.sleep(0.2)
            assert [s["kind"] for s in start["seats"]][1:] == ["bot"] * (seats - 1)
            assert all(s["name"].startswith("house-") for s in start["seats"][1:])
            end = await play_random(client, start["match_id"], 5)
            assert len(end["outcome"]["ranks"]) == seats
            await client.close()
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), 20)
    assert code == 0
    store = SqliteStore(tmp_path / "run.sqlite3")
    try:
        assert {a.name for a in store.list_accounts()} >= {"house-random-1", "house-random-2",
                                                          "house-maxn-1", "house-mp-mix-1"}
        assert {m.game for m in store.list_matches(status="over")} == {"battleline", "chexers"}
    finally:
        store.close()
