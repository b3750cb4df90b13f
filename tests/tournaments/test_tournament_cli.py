"""``arena tournament`` against a real server: an admin runs a round robin of house bots
from the command line (create, enter the bots, start, wait), then shows it as text and as
the JSON export; a refusal is one line on stderr and exit status 1."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bots.random_bot import RandomBot
from clients.runner import BotRunner
from server.app import ArenaServer
from server.logs import configure_logging
from server.storage import SqliteStore
from tests.bots.recording import FAST, until_offered
from tools.cli import build_parser
from tools.commands.tournament import run_action

configure_logging("warning")


@pytest.fixture
async def arena(tmp_path: Path) -> AsyncIterator[ArenaServer]:
    store = SqliteStore(tmp_path / "arena.sqlite3")
    server = ArenaServer(store)
    await server.start("127.0.0.1", 0)
    yield server
    await server.close()
    store.close()


async def cli(*argv: str) -> int:
    return await run_action(build_parser().parse_args(["tournament", *argv]))


async def test_an_operator_runs_a_round_robin_of_house_bots(
        arena: ArenaServer, capsys: pytest.CaptureFixture[str]) -> None:
    names = [f"house-random-{i}" for i in (1, 2, 3)]
    runners = [BotRunner(RandomBot(seed=i), arena.ws_url, games=["battleline"],
                         reconnect=FAST,
                         token=await asyncio.to_thread(arena.store.create_account, name,
                                                       "bot", house=True))
               for i, name in enumerate(names)]
    tasks = [asyncio.ensure_future(r.run()) for r in runners]
    try:
        await until_offered(*runners)
        admin = await asyncio.to_thread(arena.store.create_account, "root", "admin")
        server = ["--server", arena.ws_url, "--token", admin]
        assert await cli("create", "--game", "battleline", "--format", "round_robin",
                         "--name", "House cup", "--clock", "null", "--enter",
                         ",".join(names), "--start", "--wait", *server) == 0
        out = capsys.readouterr().out
        tid = out.split()[1]
        assert "House cup — battleline, round robin, round 3 of 3, over" in out
        assert all(name in out for name in names)

        assert await cli("show", tid, "--json", *server) == 0
        export = json.loads(capsys.readouterr().out)
        assert export["status"] == "over" and len(export["pairings"]) == 3
        assert export["clock"] is None
        assert sum(s["points"] for s in export["standings"]) == 3
        assert await cli("list", "--server", arena.ws_url) == 0
        assert tid in capsys.readouterr().out

        assert await cli("join", tid, *server) == 1
        assert "bad_request (started)" in capsys.readouterr().err
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
