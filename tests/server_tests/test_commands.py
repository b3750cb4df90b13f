"""The server's ``arena`` subcommands: account, replay, and run (the main job, as a real
subprocess with real house bot processes), and the house bots' processes and options."""

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
from tools.commands.run import (
    DEFAULT_HOUSE_BOTS,
    HOUSE_BOT_OPTIONS,
    HOUSE_GAMES,
    house_bots,
    house_processes,
)

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


def test_house_bot_processes_play_each_game_with_the_bot_its_name_means() -> None:
    """``greedy`` is a different bot per game: one process per bot, one account for all; the
    search agents play only their own game; every process of an account shares its token."""
    bots = house_bots(DEFAULT_HOUSE_BOTS)
    for bot in bots:
        bot.token = f"token-of-{bot.account}"
    processes = house_processes(bots, list(HOUSE_GAMES))
    played = {(p.account, p.bot, p.games) for p in processes}
    assert {("house-greedy-1", "greedy", ("battleline",)),
            ("house-greedy-1", "greedy", ("chexers",)),
            ("house-greedy-1", "greedy", ("barca",)),
            ("house-greedy-1", "greedy", ("boundary",)),
            ("house-barca-1", "barca", ("barca",)),
            ("house-deep-barca-1", "deep-barca", ("battleline",)),
            ("house-ismcts-1", "ismcts", ("battleline",)),
            ("house-maxn-1", "maxn", ("chexers",)),
            ("house-adaptive-1", "adaptive", ("boundary",)),
            ("house-defensive-capture-1", "defensive-capture", ("boundary",)),
            ("house-random-1", "random", ("battleline", "chexers", "barca", "boundary"))
            } <= played
    assert all(p.token == f"token-of-{p.account}" for p in processes)
    assert "barca" in HOUSE_GAMES and HOUSE_BOT_OPTIONS["barca"]["time_budget_s"] > 0


def test_arena_bot_passes_bot_options_and_refuses_bad_ones(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``--option`` reaches the bot's factory; a bad value stops before connecting."""
    assert main(["bot", "barca", "--game", "barca", "--option", "depth=0"]) == 2
    assert "depth must be an integer" in capsys.readouterr().err
    assert main(["bot", "barca", "--game", "barca", "--option", "time_budget_s=-1"]) == 2
    assert "time_budget_s must be positive" in capsys.readouterr().err


async def test_arena_run_serves_with_house_bot_processes_and_stops_cleanly(
        tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tools.cli", "run", "--port", "0",
        "--db", str(tmp_path / "run.sqlite3"), "--log-level", "warning",
        "--limit", "rate_per_s=77",
        # Off the ladders: 18 house bots playing 2 ladder matches each (ISMCTS, the Barca
        # agent, the adaptive agent …) filled both cores for minutes and slowed every other
        # test beside this one; the main job's ladder has its own test
        # (tests/ladder/test_main_job_ladder.py).
        "--ladder-matches", "0",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env,
        cwd=str(tmp_path))
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        found = re.search(r"serving on http://127\.0\.0\.1:(\d+) — (ws://\S+/ws)", line)
        assert found, line
        ws_url = found.group(2)
        client = await WsClient.open(ws_url)
        assert (await client.hello(name="visitor"))["limits"]["rate_per_s"] == 77  # --limit
        await client.close()
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
        # Barca: the greedy baseline plays a whole match; the agent (2 s a move) is seated.
        client = await WsClient.open(ws_url, "json")
        await client.hello(name="visitor")
        for bot in ("house-greedy-1", "house-barca-1"):
            for _ in range(100):
                ref = await client.send({"type": "play_bot", "game": "barca", "bot": bot})
                start = await client.expect_reply(ref)
                if start["type"] == "match_start":
                    break
                assert start["code"] == "not_found"
                await asyncio.sleep(0.2)
            assert [s["name"] for s in start["seats"]][1:] == [bot]
            if bot == "house-greedy-1":
                end = await play_random(client, start["match_id"], 6)
            else:
                await client.send({"type": "resign", "match_id": start["match_id"]})
                end = await client.expect("match_end", match_id=start["match_id"])
                assert end["outcome"]["reason"] == "resignation"
            assert len(end["outcome"]["ranks"]) == 2
        await client.close()
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), 20)
    assert code == 0
    store = SqliteStore(tmp_path / "run.sqlite3")
    try:
        assert {a.name for a in store.list_accounts()} >= {"house-random-1", "house-random-2",
                                                          "house-maxn-1", "house-mp-mix-1",
                                                          "house-barca-1", "house-greedy-1"}
        # (the matches played above, each stored over)
        assert {m.game for m in store.list_matches(status="over")} >= {"battleline", "chexers",
                                                                       "barca"}
    finally:
        store.close()
