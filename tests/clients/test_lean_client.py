"""Lean delivery through the client library: ``connect(..., lean=True)`` and
``BotRunner(..., lean=True)`` against the real server. The server sends no events frames
to a lean session, yet its stream, and a bot's ``on_events`` hook, see every events message
of its seat, in order, each before the request that followed it."""

from __future__ import annotations

import asyncio
from typing import Any

from bots.random_bot import RandomBot
from clients.connection import connect
from clients.runner import BotRunner
from server.app import ArenaServer
from tests.clients.test_e2e_real_server import FAST, start_runner, token_for


class CountingBot(RandomBot):
    """A random bot that notes the seq of every events message its hook is handed."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed=seed)
        self.seqs: dict[str, list[int]] = {}

    def on_events(self, message: dict[str, Any]) -> None:
        self.seqs.setdefault(message["match_id"], []).append(message["seq"])


async def test_a_lean_client_sees_every_events_message_before_its_request(
        arena: ArenaServer) -> None:
    bot = CountingBot(seed=3)
    runner = BotRunner(bot, arena.ws_url, games=["battleline"], lean=True, matches=1,
                       token=await token_for(arena, "lean-random"), encoding="msgpack",
                       reconnect=FAST)
    task = await start_runner(runner)
    assert runner.conn.welcome is not None and runner.conn.welcome["lean"] is True
    async with await connect(arena.ws_url, token=await token_for(arena, "ann", "human"),
                             lean=True, reconnect=FAST) as conn:
        assert conn.welcome is not None and conn.welcome["lean"] is True
        start = await conn.play_bot("battleline", bot="lean-random", seat=0)
        match_id = start["match_id"]
        player, seqs, last_seen = RandomBot(seed=4), [], 0
        while True:
            message = await conn.next_message(timeout=30)
            if message.get("match_id") != match_id:
                continue
            assert "events" not in message or message["type"] == "events"
            if message["type"] == "events":
                seqs.append(message["seq"])
                assert set(message) == {"type", "match_id", "seq", "events", "clocks_ms"}
            elif message["type"] == "request":
                # Every event up to now came before this request.
                last_seen = len(seqs)
                await conn.act(message, player.choose(message))
            elif message["type"] == "match_end":
                break
    stats = await asyncio.wait_for(task, 30)
    assert stats.matches_finished == 1 and stats.errors == 0
    steps = arena.recent[match_id].runner.seq
    assert seqs == list(range(1, steps + 1)) and last_seen < steps
    assert bot.seqs[match_id] == seqs  # the runner's hook, from its own requests
