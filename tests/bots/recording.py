"""What the bots' end-to-end tests share: a quick reconnect policy, a recording bot, waiting
for house bots to offer themselves, and a visitor who plays them with random answers."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from bots.random_bot import RandomBot
from clients.connection import ReconnectPolicy, connect
from clients.runner import BotRunner

FAST = ReconnectPolicy(initial_delay=0.02, max_delay=0.2, max_attempts=10)


class Recording:
    """Wraps a bot and keeps the requests it answered (to check what the seat was sent)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.requests: list[Mapping[str, Any]] = []

    def choose(self, request: Mapping[str, Any]) -> Any:
        self.requests.append(request)
        return self.bot.choose(request)


async def until_offered(*runners: BotRunner) -> None:
    """Wait (up to 5 s) until every runner's bot has offered itself to the server."""
    for _ in range(500):
        if all(r._session_offered is not None for r in runners):  # noqa: SLF001
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)


async def play_as_visitor(ws_url: str, game: str, *, seed: int, bot: str | None = None
                          ) -> tuple[dict[str, Any], dict[str, Any]]:
    """A guest asks for a clocked match against the house bot(s) in seat 0, answers every
    request with a random legal action, and returns the ``match_start`` and ``match_end``."""
    me = RandomBot(seed=seed)
    async with await connect(ws_url, name="visitor", reconnect=FAST) as conn:
        start = await conn.play_bot(game, bot=bot, seat=0,
                                    clock={"initial_ms": 60_000, "increment_ms": 1_000})
        while True:
            message = await conn.next_message(timeout=60)
            if message.get("match_id") != start["match_id"]:
                continue
            if message["type"] == "request" and conn.session.is_pending(message):
                await conn.act(message, me.choose(message))
            elif message["type"] == "match_end":
                return start, message
