"""The ladder finds the known strength order, on a real server with real bots.

Battle Line: two random bots, the greedy baseline and Deep Barca; Chexers: random, greedy and
paranoid search. Every bot is an ordinary client (the client library's bot runner, ladder
mode) connected over the socket; the server's scheduler pairs them on both ladders at once.
After a bounded number of rated matches the leaderboard must list the bots in their known
order of strength, no bot may ever have played more matches at once than it declared, and
every bot must have sat in every seat about equally often.

The known order is given in *tiers*: bots in one tier are too close for a bounded test to
tell apart reliably, bots of different tiers are far apart. Measured head to head, in
process, outside the ladder: Deep Barca beats greedy in 33 of 60 Battle Line games (55%),
both beat random practically always; in Chexers with random in the third seat, paranoid
wins 64% of the games won by paranoid or greedy (23 vs 13 of 36) and random almost never
wins. A 55% or 64% edge needs hundreds of matches before a ladder ranks it right with high
probability, so those pairs share a tier; their order shows in ``arena ladder run``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ladder_helpers import Arena, arena

from clients import bots
from server.ladder import GameLadder, LadderSettings
from server.render import Clock

BATTLELINE_MATCHES = int(os.environ.get("LADDER_TEST_BATTLELINE_MATCHES", "40"))
CHEXERS_MATCHES = int(os.environ.get("LADDER_TEST_CHEXERS_MATCHES", "24"))
SEED = int(os.environ.get("LADDER_TEST_SEED", "1"))


def bot_name(registered: str, fallback: str) -> str:
    """The registry name once the bot is registered, its module path until then."""
    return registered if registered in bots.names() else fallback


class Untimed:
    """Searches at its fixed depth whatever the clock says (the ladder's clock is generous;
    a budget from it would only make the test slow)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def choose(self, request: Mapping[str, Any]) -> Any:
        return self.bot.choose({**request, "clock_ms": None})


SETTINGS = LadderSettings(
    games={"battleline": GameLadder("battleline", 2, Clock(60_000, 1_000), window=2,
                                    pair_cap_per_hour=10_000),
           "chexers": GameLadder("chexers", 3, Clock(60_000, 1_000),
                                 pair_cap_per_hour=10_000)},
    interval_s=0.2, min_games=5, seed=SEED)

# (account, bot, ladder name, max matches at once, tier) — weakest tier first
BATTLELINE = [
    ("bl-random-1", "random", "random", 2, 0),
    ("bl-random-2", "random", "random", 1, 0),
    ("bl-greedy", "bots.battleline.greedy:GreedyBot", "greedy", 2, 1),
    ("bl-deep-barca", bot_name("deep-barca", "bots.battleline.deep_barca:DeepBarca"),
     "deep-barca", 1, 1),
]
CHEXERS = [
    ("cx-random", "random", "random", 2, 0),
    ("cx-greedy", "greedy", "greedy", 1, 1),
    ("cx-paranoid", "paranoid", "paranoid", 2, 1),
]


async def start_all(a: Arena) -> None:
    for n, (account, bot, name, slots, _) in enumerate(BATTLELINE):
        await a.add_bot(account, bot, "battleline", bot_name=name, max_matches=slots,
                        seed=SEED * 100 + n)
    for n, (account, bot, name, slots, _) in enumerate(CHEXERS):
        await a.add_bot(account, Untimed(bots.create(bot, seed=SEED * 100 + n)), "chexers",
                        bot_name=name, max_matches=slots)


async def play_out(a: Arena, targets: dict[str, int], timeout: float) -> None:
    """Until each ladder has rated its target number of matches; a ladder that got there
    is left by its bots (so the other ladder gets the CPU), then its matches play out."""
    ladder = a.server.ladder
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout

    def rated(game: str) -> int:
        return sum(e["games"] for e in ladder.leaderboard(game)) // ladder.ladder_for(
            game).num_seats

    pending = dict(targets)
    while pending or ladder.live:
        assert loop.time() < deadline, {game: rated(game) for game in targets}
        for game in [g for g in pending if rated(g) >= pending[g]]:
            del pending[game]
            for b in a.bots:
                if game in b.runner.games:
                    await b.runner.conn.ladder_leave(game)
        for b in a.bots:
            if b.task is not None and b.task.done():
                b.task.result()
        await asyncio.sleep(0.1)


async def test_the_leaderboard_finds_the_known_order(tmp_path: Path) -> None:
    async with arena(tmp_path / "ladder.sqlite3", SETTINGS) as a:
        await start_all(a)
        await play_out(a, {"battleline": BATTLELINE_MATCHES, "chexers": CHEXERS_MATCHES},
                       timeout=300)
        await a.stop_bots()
        ladder = a.server.ladder

        for game, lineup in (("battleline", BATTLELINE), ("chexers", CHEXERS)):
            board = ladder.leaderboard(game)
            tier = {account: t for account, *_, t in lineup}
            tiers_by_rank = [tier[e["account"]] for e in reversed(board)]  # weakest first
            standings = [(e["account"], round(e["ordinal"], 2), e["wins"], e["games"])
                         for e in board]
            assert tiers_by_rank == sorted(tiers_by_rank), (game, standings)
            assert all(e["games"] >= 5 for e in board), (game, standings)

            # seats: every bot in every seat about equally often (started matches)
            seats = ladder.ladder_for(game).num_seats
            for entity_id, standing in ladder.book.standings.items():
                if ladder.book.entities[entity_id].game != game:
                    continue
                counts = (standing.seat_counts + [0] * seats)[:seats]
                assert sum(counts) == standing.started
                assert max(counts) - min(counts) <= 2, (entity_id, counts)

        # no bot ever played more matches at once than it declared
        assert a.peaks, "bots were tracked"
        for account, (peak, declared) in a.peaks.items():
            assert 1 <= peak <= declared, (account, peak, declared)
