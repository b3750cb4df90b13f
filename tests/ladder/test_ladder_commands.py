"""``arena ladder show/rerate``, ``arena bot --ladder`` and ``arena bench ladder``: the
commands around the ladder, on real files, a real server and real processes."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from ladder_helpers import arena

from server.clocks import Clock
from server.ladder import GameLadder, LadderSettings
from server.storage import SqliteStore
from tools import cli

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = LadderSettings(
    games={"race": GameLadder("race", 2, Clock(5_000, 100), pair_cap_per_hour=10_000),
           "battleline": GameLadder("battleline", 2, Clock(20_000, 500),
                                    pair_cap_per_hour=10_000)},
    interval_s=0.1, min_games=3, seed=2)


async def test_show_and_rerate_read_what_the_server_wrote(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "arena.sqlite3"
    async with arena(db, SETTINGS) as a:
        await a.add_bot("ann", "random", "race", seed=1, max_matches=2)
        await a.add_bot("bob", "random", "race", seed=2, max_matches=2)
        await a.add_bot("cy", "random", "race", seed=3)
        await a.wait_rated(15, timeout=30)
        await a.stop_bots()
        live_board = a.server.ladder.leaderboard("race")

    assert cli.main(["ladder", "show", "race", "--db", str(db), "--json",
                     "--min-games", "3"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["entries"] == [{k: v for k, v in e.items() if k != "online"}
                                for e in live_board]

    assert cli.main(["ladder", "rerate", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "largest change of a stored rating: mu 0, sigma 0" in out
    rated = sum(e["games"] for e in live_board) // 2
    assert f"rerated {rated} results" in out

    assert cli.main(["ladder", "show", "race", "--db", str(db)]) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0] == "race ladder"
    assert live_board[0]["account"] in table.splitlines()[3]

    # a raw result edited by hand (say, a match found to be rigged, voided): rerate
    # recomputes everything without it
    store = SqliteStore(db)
    try:
        (first,) = store.query("SELECT match_id FROM ladder_matches WHERE seq=1")
        store.write_later(lambda conn: conn.execute(
            "UPDATE ladder_matches SET status='void', seq=NULL WHERE match_id=?", first))
        store.flush()
    finally:
        store.close()
    assert cli.main(["ladder", "rerate", "--db", str(db)]) == 0
    assert f"rerated {rated - 1} results (1 void" in capsys.readouterr().out
    store = SqliteStore(db)
    try:
        book = store.ladder().load_book()
    finally:
        store.close()
    assert sum(s.games for s in book.standings.values()) == 2 * (rated - 1)


async def test_arena_bot_joins_a_ladder_from_the_command_line(tmp_path: Path) -> None:
    async with arena(tmp_path / "arena.sqlite3", SETTINGS) as a:
        await a.add_bot("house", "random", "battleline", seed=1)
        token = await asyncio.to_thread(a.store.create_account, "cli-bot", "bot")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tools.cli", "bot", "random", "--ladder", "battleline",
            "--bot-name", "rando", "--version", "7", "--max-matches", "2", "--matches", "3",
            f"--token={token}", "--server", a.server.ws_url, "--log-level", "warning",
            "--no-reconnect", stdout=asyncio.subprocess.PIPE, env=env)
        out, _ = await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode == 0
        assert json.loads(out)["matches"] == 3
        (entry,) = [e for e in a.server.ladder.leaderboard("battleline")
                    if e["account"] == "cli-bot"]
        assert (entry["bot"], entry["version"]) == ("rando", "7")
        assert entry["games"] >= 3


def test_bench_ladder_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "ladder", "--bots", "4", "--repeat", "1", "--seconds", "0.02",
                     "--warmup", "0", "--server-seconds", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    names = [r["name"] for r in report["results"]]
    assert names == ["rating update, 2 seats", "rating update, 3 seats",
                     "ladder book rate, 2 seats", "ladder book rate, 3 seats",
                     "pairing round, 4 bots, 2 seats", "pairing round, 4 bots, 3 seats",
                     "ladder matches, 4 quick bots, battleline"]
    assert all(r["median"] > 0 for r in report["results"][:-1])
    server = report["results"][-1]["details"]  # warm-up included, so some match was rated
    assert server["rated"] >= 1 and server["void"] == 0
