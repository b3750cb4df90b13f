"""End to end: the Barca agent as an ordinary client (the bot runner ``arena bot`` uses)
against the real server on 127.0.0.1, with a clock, seated by a human client's play_bot."""

from __future__ import annotations

import asyncio

from bots import registry as bots
from bots.barca import BarcaBot
from clients.runner import BotRunner
from server.app import ArenaServer
from tests.bots.recording import FAST, Recording, play_as_visitor, until_offered


async def test_barca_agent_plays_a_clocked_match_as_a_house_bot(arena: ArenaServer) -> None:
    house = Recording(bots.create("barca", seed=1, depth=2))
    assert isinstance(house.bot, BarcaBot)
    runner = BotRunner(house, arena.ws_url, games=["barca"], matches=1, reconnect=FAST,
                       token=await asyncio.to_thread(arena.store.create_account, "house-barca",
                                                     "bot", house=True))
    task = asyncio.ensure_future(runner.run())
    await until_offered(runner)
    start, end = await play_as_visitor(arena.ws_url, "barca", seed=3)
    assert [s["name"] for s in start["seats"][1:]] == ["house-barca"]
    result = await asyncio.wait_for(task, 60)
    assert result.matches_finished == 1 and result.errors == 0 and result.fallbacks == 0
    assert end["outcome"]["reason"] != "timeout" and len(end["outcome"]["ranks"]) == 2
    assert house.requests and house.bot.last is not None
