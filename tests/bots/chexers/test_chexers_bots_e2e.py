"""End to end: Chexers search bots as ordinary clients (the bot runner ``arena bot`` uses)
against the real server on 127.0.0.1, with a clock, seated by a human client's play_bot."""

from __future__ import annotations

import asyncio

from bots import registry as bots
from bots.chexers import MaxnBot, MPMixBot
from clients.runner import BotRunner
from server.app import ArenaServer
from tests.bots.recording import FAST, Recording, play_as_visitor, until_offered


async def test_maxn_and_mp_mix_play_a_clocked_match_as_house_bots(arena: ArenaServer) -> None:
    players = {"house-maxn": Recording(bots.create("maxn", seed=1)),
               "house-mp-mix": Recording(bots.create("mp-mix", seed=2))}
    assert isinstance(players["house-maxn"].bot, MaxnBot)
    assert isinstance(players["house-mp-mix"].bot, MPMixBot)
    runners = [BotRunner(bot, arena.ws_url, games=["chexers"], matches=1, reconnect=FAST,
                         token=await asyncio.to_thread(arena.store.create_account, name, "bot",
                                                         house=True))
               for name, bot in players.items()]
    tasks = [asyncio.ensure_future(r.run()) for r in runners]
    await until_offered(*runners)
    start, end = await play_as_visitor(arena.ws_url, "chexers", seed=3)
    assert {s["name"] for s in start["seats"][1:]} == set(players)
    results = await asyncio.wait_for(asyncio.gather(*tasks), 60)
    assert all(s.matches_finished == 1 and s.errors == 0 and s.fallbacks == 0
               for s in results)
    assert end["outcome"]["reason"] != "timeout" and len(end["outcome"]["ranks"]) == 3
    for recording in players.values():
        assert recording.requests and all(r["clock_ms"] is not None and r["clock_ms"] > 0
                                          for r in recording.requests)
        assert recording.bot.last is not None
