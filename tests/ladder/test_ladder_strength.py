"""The ladder finds the known strength order, on a real server with real bots.

Battle Line: two random bots, the greedy baseline and Deep Barca; Chexers: random, greedy and
paranoid search. Every bot is an ordinary client (the client library's bot runner, ladder
mode) connected over the socket; the server's scheduler pairs them on both ladders at once.
After a bounded number of rated matches the leaderboard must list the bots in their known
order of strength, no bot may ever have played more matches at once than it declared, and
every bot must have sat in every seat about equally often.

The known order: random ≈ random < greedy < Deep Barca, and random < greedy < paranoid. Bots
in one tier (the two randoms) are equal in strength and may stand in either order.

What ``make test`` runs (about 20 s) checks the tiers that show after a few matches: random
below both greedy and Deep Barca on Battle Line, random below both greedy and paranoid on
Chexers (each close pair merged into one tier), over 40 Battle Line and 24 Chexers rated
matches, plus the capacity and seat checks. On seeds 1–12 every run passed: random won none of
its 25 Chexers matches (greedy won 5 or more of its) and stood 8 or more ordinal points under
greedy on Battle Line; a ladder that rated, ranked or paired wrongly fails it (with random put
in the top tier, it fails).

The full order, with the close pairs told apart, is a long run: ``LADDER_TEST_FULL_ORDER=1
.venv/bin/python -m pytest tests/ladder/test_ladder_strength.py`` (about 2 minutes; vary
``LADDER_TEST_SEED``). Greedy and Deep Barca, and greedy and paranoid, are the close pairs
(Deep Barca beat greedy in 55–80% of games while it was tuned, 152–38 in a 1,500-match
house-bot ladder run; paranoid won 64% of the Chexers games won by it or greedy), so that run
plays 200 Battle Line and 120 Chexers rated matches, with a rating window of 1 so the close
pair meets most — enough for the order to show reliably (checked on seeds 1, 2 and 3).
(``arena bench ladder`` measures the ladder's throughput with random bots only; it does not
check an order.) ``LADDER_TEST_BATTLELINE_MATCHES`` and ``LADDER_TEST_CHEXERS_MATCHES``
override the match counts of either run.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from ladder_helpers import Arena, arena

from bots import registry as bots
from server.clocks import Clock
from server.ladder import GameLadder, LadderSettings

# The tiers by default; LADDER_TEST_FULL_ORDER=1 tells the close pairs (greedy and Deep Barca,
# greedy and paranoid) apart too, and plays five times as many matches: the long run.
FULL_ORDER = os.environ.get("LADDER_TEST_FULL_ORDER", "0") == "1"
BATTLELINE_MATCHES = int(os.environ.get("LADDER_TEST_BATTLELINE_MATCHES",
                                        "200" if FULL_ORDER else "40"))
CHEXERS_MATCHES = int(os.environ.get("LADDER_TEST_CHEXERS_MATCHES",
                                     "120" if FULL_ORDER else "24"))
SEED = int(os.environ.get("LADDER_TEST_SEED", "1"))


class Untimed:
    """Searches at its fixed depth whatever the clock says (the ladder's clock is generous;
    a budget from it would only make the test slow)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def choose(self, request: Mapping[str, Any]) -> Any:
        return self.bot.choose({**request, "clock_ms": None})


SETTINGS = LadderSettings(
    # (window 1 for the full order: once placed, each bot meets the one nearest in rating,
    # waiting for it up to patience_s, so the close pair meets most often)
    games={"battleline": GameLadder("battleline", 2, Clock(60_000, 1_000),
                                    window=1 if FULL_ORDER else 2,
                                    pair_cap_per_hour=10_000, patience_s=3.0),
           "chexers": GameLadder("chexers", 3, Clock(60_000, 1_000),
                                 pair_cap_per_hour=10_000, patience_s=3.0)},
    interval_s=0.2, min_games=5, seed=SEED)

# (account, bot, ladder name, max matches at once, tier) — weakest tier first
BATTLELINE = [
    ("bl-random-1", "random", "random", 2, 0),
    ("bl-random-2", "random", "random", 1, 0),
    ("bl-greedy", "greedy", "greedy", 2, 1),  # the registry's greedy for Battle Line
    ("bl-deep-barca", "deep-barca", "deep-barca", 1, 2 if FULL_ORDER else 1),
]
CHEXERS = [
    ("cx-random", "random", "random", 2, 0),
    ("cx-greedy", "greedy", "greedy", 1, 1),
    ("cx-paranoid", "paranoid", "paranoid", 2, 2 if FULL_ORDER else 1),
]


async def start_all(a: Arena) -> None:
    for n, (account, bot, name, slots, _) in enumerate(BATTLELINE):
        await a.add_bot(account, bot, "battleline", bot_name=name, max_matches=slots,
                        seed=SEED * 100 + n)
    for n, (account, bot, name, slots, _) in enumerate(CHEXERS):
        await a.add_bot(account, Untimed(bots.create(bot, game="chexers", seed=SEED * 100 + n)),
                        "chexers",
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


@pytest.mark.timeout(600)
async def test_the_leaderboard_finds_the_known_order(tmp_path: Path) -> None:
    async with arena(tmp_path / "ladder.sqlite3", SETTINGS) as a:
        await start_all(a)
        await play_out(a, {"battleline": BATTLELINE_MATCHES, "chexers": CHEXERS_MATCHES},
                       timeout=540 if FULL_ORDER else 240)
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
            assert 0 < peak <= declared, (account, peak, declared)
