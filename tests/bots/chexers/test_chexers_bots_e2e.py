"""End to end: Chexers search bots as ordinary clients (the bot runner ``arena bot`` uses)
against the real server on 127.0.0.1, with a clock, seated by a human client's play_bot."""

from __future__ import annotations

import asyncio

from bots import registry as bots
from bots.chexers import MaxnBot, MPMixBot
from bots.random_bot import RandomBot
from clients.connection import connect
from clients.runner import BotRunner
from server.app import ArenaServer
from tests.bots.recording import FAST, Recording


async def test_maxn_and_mp_mix_play_a_clocked_match_as_house_bots(arena: ArenaServer) -> None:
    players = {"house-maxn": Recording(bots.create("maxn", seed=1)),
               "house-mp-mix": Recording(bots.create("mp-mix", seed=2))}
    assert isinstance(players["house-maxn"].bot, MaxnBot)
    assert isinstance(players["house-mp-mix"].bot, MPMixBot)
    runners = [BotRunner(bot, arena.ws_url, games=["chexers"], matches=1, reconnect=FAST,
                         token=await asyncio.to_thread(arena.store.create_account, name, "bot"))
               for name, bot in players.items()]
    tasks = [asyncio.ensure_future(r.run()) for r in runners]
    for _ in range(500):
        if all(r._session_offered is not None for r in runners):  # noqa: SLF001
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    me = RandomBot(seed=3)
    async with await connect(arena.ws_url, name="visitor", reconnect=FAST) as conn:
        start = await conn.play_bot("chexers", seat=0,
                                    clock={"initial_ms": 60_000, "increment_ms": 1_000})
        assert {s["name"] for s in start["seats"][1:]} == set(players)
        while True:
            message = await conn.next_message(timeout=60)
            if message.get("match_id") != start["match_id"]:
                continue
            if message["type"] == "request" and conn.session.is_pending(message):
                await conn.act(message, me.choose(message))
            elif message["type"] == "match_end":
                end = message
                break
    results = await asyncio.wait_for(asyncio.gather(*tasks), 60)
    assert all(s.matches_finished == 1 and s.errors == 0 and s.fallbacks == 0
               for s in results)
    assert end["outcome"]["reason"] != "timeout" and len(end["outcome"]["ranks"]) == 3
    for recording in players.values():
        assert recording.requests and all(r["clock_ms"] is not None and r["clock_ms"] > 0
                                          for r in recording.requests)
        assert recording.bot.last is not None
