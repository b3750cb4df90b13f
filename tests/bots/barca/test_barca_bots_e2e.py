"""End to end: the Barca agent as an ordinary client (the bot runner ``arena bot`` uses)
against the real server on 127.0.0.1, with a clock, seated by a human client's play_bot."""

from __future__ import annotations

import asyncio

from bots import registry as bots
from bots.barca import BarcaBot
from bots.random_bot import RandomBot
from clients.connection import connect
from clients.runner import BotRunner
from server.app import ArenaServer
from tests.bots.recording import FAST, Recording


async def test_barca_agent_plays_a_clocked_match_as_a_house_bot(arena: ArenaServer) -> None:
    house = Recording(bots.create("barca", seed=1, depth=2))
    assert isinstance(house.bot, BarcaBot)
    runner = BotRunner(house, arena.ws_url, games=["barca"], matches=1, reconnect=FAST,
                       token=await asyncio.to_thread(arena.store.create_account, "house-barca",
                                                     "bot"))
    task = asyncio.ensure_future(runner.run())
    for _ in range(500):
        if runner._session_offered is not None:  # noqa: SLF001
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    me = RandomBot(seed=3)
    async with await connect(arena.ws_url, name="visitor", reconnect=FAST) as conn:
        start = await conn.play_bot("barca", seat=0,
                                    clock={"initial_ms": 60_000, "increment_ms": 1_000})
        assert [s["name"] for s in start["seats"][1:]] == ["house-barca"]
        while True:
            message = await conn.next_message(timeout=60)
            if message.get("match_id") != start["match_id"]:
                continue
            if message["type"] == "request" and conn.session.is_pending(message):
                await conn.act(message, me.choose(message))
            elif message["type"] == "match_end":
                end = message
                break
    result = await asyncio.wait_for(task, 60)
    assert result.matches_finished == 1 and result.errors == 0 and result.fallbacks == 0
    assert end["outcome"]["reason"] != "timeout" and len(end["outcome"]["ranks"]) == 2
    assert house.requests and house.bot.last is not None
