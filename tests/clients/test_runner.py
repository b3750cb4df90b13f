"""clients.runner.BotRunner and the random bot against the in-test fake server."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import structlog
from arena_fake import LEGAL, FakeArena

from bots import registry as bots
from bots.random_bot import RandomBot
from clients.connection import ReconnectPolicy
from clients.runner import BotRunner
from tools import cli

FAST = ReconnectPolicy(initial_delay=0.01, max_delay=0.05, max_attempts=5)


class Recorder:
    """A bot that plays n=3 and records every hook call."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.calls: list[str] = []

    def choose(self, request: dict[str, Any]) -> Any:
        self.requests.append(request)
        return {"n": 3}

    def on_match_start(self, message: dict[str, Any]) -> None:
        self.calls.append("start")

    def on_events(self, message: dict[str, Any]) -> None:
        self.calls.append("events")

    def on_match_end(self, message: dict[str, Any]) -> None:
        self.calls.append("end")


async def test_autoplay_runner_answers_every_request_with_its_request_id() -> None:
    bot = Recorder()
    async with FakeArena(turns=3) as arena:
        runner = BotRunner(bot, arena.url, games=["count"], matches=1, reconnect=FAST)
        stats = await asyncio.wait_for(runner.run(), 10)
    assert stats.matches_started == stats.matches_finished == 1
    assert stats.actions == 3 and stats.errors == 0
    assert stats.ranks() == [0]
    autoplay = [m for m in arena.received if m["type"] == "autoplay"]
    # The offer names the bot (by default its class) and version: list_bots shows them.
    assert autoplay == [{"type": "autoplay", "id": autoplay[0]["id"], "games": ["count"],
                         "max_matches": 1, "bot": "Recorder", "version": "1"}]
    actions = [m for m in arena.received if m["type"] == "action"]
    assert [a["request_id"] for a in actions] == [r["request_id"] for r in bot.requests]
    assert bot.calls == ["start", "events", "events", "events", "end"]


async def test_seek_mode_keeps_max_matches_going_and_stops_after_matches() -> None:
    async with FakeArena(turns=2) as arena:
        runner = BotRunner(RandomBot(seed=3), arena.url, games=["count", "count"],
                           mode="seek", max_matches=2, matches=3, encoding="msgpack",
                           reconnect=FAST)
        stats = await asyncio.wait_for(runner.run(), 10)
    assert stats.matches_finished == 3 and stats.actions == 6
    seeks = [m for m in arena.received if m["type"] == "seek"]
    assert len(seeks) == 3  # never more seeks than matches wanted
    assert len(arena.finished) == 3


async def test_runner_survives_a_forced_disconnect_and_answers_the_resent_request() -> None:
    bot = Recorder()
    async with FakeArena(turns=3, drop_after_actions={2}) as arena:
        runner = BotRunner(bot, arena.url, games=["count"], matches=1, reconnect=FAST)
        stats = await asyncio.wait_for(runner.run(), 10)
    assert stats.matches_finished == 1 and stats.reconnects == 1
    assert stats.ranks() == [0]
    actions = [m for m in arena.received if m["type"] == "action"]
    # the second answer was lost with the connection and sent again for the same request
    assert len(actions) == 4
    assert actions[1]["request_id"] == actions[2]["request_id"]
    assert len([m for m in arena.received if m["type"] == "autoplay"]) == 1  # resumed


class Broken:
    def __init__(self) -> None:
        self.n = 0

    def choose(self, request: dict[str, Any]) -> Any:
        self.n += 1
        if self.n == 1:
            raise RuntimeError("bug in the bot")
        return {"n": 99}  # well formed, never legal


async def test_bot_failures_and_illegal_answers_fall_back_to_a_legal_action() -> None:
    async with FakeArena(turns=2) as arena:
        runner = BotRunner(Broken(), arena.url, games=["count"], matches=1, reconnect=FAST,
                           seed=1)
        stats = await asyncio.wait_for(runner.run(), 10)
    assert stats.matches_finished == 1
    assert stats.errors == 1  # the illegal answer
    assert stats.fallbacks == 2  # the crash and the refused answer
    actions = [m["action"] for m in arena.received if m["type"] == "action"]
    assert actions[0] in LEGAL and actions[1] == {"n": 99} and actions[2] in LEGAL


class AsyncBot:
    async def choose(self, request: dict[str, Any]) -> Any:
        await asyncio.sleep(0)
        return request["legal_actions"][-1]


async def test_coroutine_bots_are_awaited() -> None:
    async with FakeArena(turns=2) as arena:
        stats = await asyncio.wait_for(
            BotRunner(AsyncBot(), arena.url, games=["count"], matches=2).run(), 10)
    assert stats.matches_finished == 2 and stats.ranks() == [0, 0]


def test_random_bot_is_seeded_and_only_picks_legal_actions() -> None:
    request = {"legal_actions": [{"type": "PASS"}, {"type": "EXIT", "from": [3, -1]},
                                 {"type": "MOVE", "from": [3, -1], "to": [2, -1]}]}
    a = [RandomBot(seed=7).choose(request) for _ in range(1)]
    first, second = RandomBot(seed=7), RandomBot(seed=7)
    picks = [first.choose(request) for _ in range(50)]
    assert picks == [second.choose(request) for _ in range(50)]
    assert all(p in request["legal_actions"] for p in picks)
    assert len({json.dumps(p) for p in picks}) == 3  # uses all of them
    assert a[0] == picks[0]
    with pytest.raises(ValueError):
        RandomBot().choose({"legal_actions": []})


def test_bot_registry() -> None:
    assert "random" in bots.names()
    assert isinstance(bots.create("random", seed=1), RandomBot)
    assert bots.get("bots.random_bot:RandomBot") is RandomBot
    with pytest.raises(bots.UnknownBot):
        bots.get("no-such-bot")
    with pytest.raises(bots.UnknownBot):
        bots.get("no.such.module:Bot")
    bots.register("test-recorder", Recorder)
    try:
        assert isinstance(bots.create("test-recorder"), Recorder)
        with pytest.raises(ValueError):
            bots.register("test-recorder", RandomBot)
    finally:
        bots.unregister("test-recorder")


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """``arena bot`` configures logging for the process (stderr as it is then); put the
    previous set-up back so later tests do not write to a closed capture."""
    saved = structlog.get_config()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    structlog.configure(**saved)
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture()
def arena_in_thread() -> Iterator[FakeArena]:
    """A fake server on its own event loop, for testing the synchronous ``arena`` CLI."""
    arena = FakeArena(turns=2)
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    stop: asyncio.Future[None] | None = None

    async def main() -> None:
        nonlocal stop
        stop = loop.create_future()
        async with arena:
            ready.set()
            await stop

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    assert ready.wait(5)
    yield arena
    loop.call_soon_threadsafe(lambda: None if stop is None else stop.set_result(None))
    thread.join(5)
    loop.close()


def test_arena_bot_command(arena_in_thread: FakeArena,
                           capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["bot", "random", "--game", "count", "--server", arena_in_thread.url,
                     "--token", "tok", "--encoding", "msgpack", "--matches", "2",
                     "--seed", "5", "--log-level", "warning"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["matches"] == 2 and summary["actions"] == 4 and summary["errors"] == 0
    assert arena_in_thread.subprotocols == ["arena.v1.msgpack"]


def test_arena_bot_command_refuses_unknown_bots_and_missing_games(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bot", "nope", "--game", "count"]) == 2
    assert "unknown bot" in capsys.readouterr().err
    assert cli.main(["bot", "random"]) == 2
    assert "at least one game" in capsys.readouterr().err


def test_arena_bot_command_reports_an_unreachable_server(
        capsys: pytest.CaptureFixture[str]) -> None:
    import socket
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert cli.main(["bot", "random", "--game", "count", "--no-reconnect",
                     "--server", f"ws://127.0.0.1:{port}/ws"]) == 1
    assert "cannot connect" in capsys.readouterr().err


async def test_stop_ends_an_unbounded_run() -> None:
    bot = Recorder()
    async with FakeArena(turns=1) as arena:
        runner = BotRunner(bot, arena.url, games=["count"], reconnect=FAST)
        bot.on_match_end = lambda message: runner.stop()  # type: ignore[method-assign]
        stats = await asyncio.wait_for(runner.run(), 10)
    assert stats.matches_finished == 1
    assert runner.conn.closed
