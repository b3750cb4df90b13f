"""Barca on the ladder: the Barca agent, the greedy baseline and random play rated matches as
ordinary clients on a real server; the leaderboard puts random last, and the stored replays
of rated Barca matches replay to their recorded outcomes."""

from __future__ import annotations

from pathlib import Path

import pytest
from ladder_helpers import arena

from engine import registry
from engine.match import replay
from server.clocks import Clock
from server.ladder import GameLadder, LadderSettings

SETTINGS = LadderSettings(
    games={"barca": GameLadder("barca", 2, Clock(60_000, 1_000), pair_cap_per_hour=10_000,
                               patience_s=2.0)},
    interval_s=0.2, min_games=3, seed=4)


@pytest.mark.timeout(300)
async def test_barca_ladder_rates_the_agent_above_random(tmp_path: Path) -> None:
    async with arena(tmp_path / "ladder.sqlite3", SETTINGS) as a:
        await a.add_bot("bc-random", "random", "barca", bot_name="random", max_matches=2,
                        seed=1)
        await a.add_bot("bc-greedy", "greedy", "barca", bot_name="greedy", max_matches=2)
        await a.add_bot("bc-barca", "barca", "barca", bot_name="barca", max_matches=2,
                        depth=2)
        await a.wait_rated(12, timeout=240)
        await a.stop_bots()
        board = a.server.ladder.leaderboard("barca")
        standings = [(e["account"], round(e["ordinal"], 2), e["wins"], e["draws"], e["games"])
                     for e in board]
        assert {e["account"] for e in board} == {"bc-random", "bc-greedy", "bc-barca"}
        assert board[-1]["account"] == "bc-random", standings
        assert all(e["games"] >= 3 for e in board), standings

        # Finished Barca matches replay from their stored logs to their stored outcomes.
        game = registry.get("barca")
        a.store.flush()
        finished = a.store.list_matches(status="over", game="barca")
        assert len(finished) >= 12
        for summary in finished[:6]:
            row = a.store.get_match(summary.id)
            assert row is not None and row.outcome is not None
            *_, (final, _) = replay(game, row.record())
            outcome = game.outcome(final)
            assert outcome is not None and outcome.to_json() == row.outcome
