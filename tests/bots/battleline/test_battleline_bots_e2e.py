"""End to end: Deep Barca, ISMCTS and the greedy baseline as ordinary clients (the bot runner that
``arena bot deep-barca`` uses) against the real server on 127.0.0.1, seated by a human
client's play_bot, with a clock."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bots import registry as bots
from bots.battleline.deep_barca import DeepBarca
from bots.battleline.greedy import GreedyBot
from bots.battleline.ismcts import IsmctsBot
from clients.runner import BotRunner
from server.app import ArenaServer
from tests.bots.recording import FAST, Recording, play_as_visitor, until_offered


async def play_against(arena: ArenaServer, account: str, bot: Any) -> dict[str, Any]:
    recording = Recording(bot)
    token = await asyncio.to_thread(arena.store.create_account, account, "bot",
                                    house=True)
    runner = BotRunner(recording, arena.ws_url, games=["battleline"], matches=1,
                       reconnect=FAST, token=token)
    task = asyncio.ensure_future(runner.run())
    await until_offered(runner)
    start, end = await play_as_visitor(arena.ws_url, "battleline", seed=4, bot=account)
    stats = await asyncio.wait_for(task, 60)
    assert stats.matches_finished == 1 and stats.errors == 0 and stats.fallbacks == 0
    assert recording.requests
    for request in recording.requests:
        # The bot saw its own seat's view and nothing of the other hand but its size.
        assert request["seat"] == 1 and request["view"]["seat"] == 1
        assert isinstance(request["view"]["hands"][0], dict)
    return end


KINDS = {"deep-barca": DeepBarca, "greedy": GreedyBot, "ismcts": IsmctsBot}


@pytest.mark.parametrize("name", sorted(KINDS))
async def test_battleline_bots_play_a_match_as_clients(arena: ArenaServer, name: str) -> None:
    bot = bots.create(name, seed=1, game="battleline")
    assert isinstance(bot, KINDS[name])
    end = await play_against(arena, f"house-{name}", bot)
    assert end["outcome"]["reason"] in ("five_flags", "breakthrough", "stalemate")
    assert len(end["outcome"]["ranks"]) == 2
