"""Boundary on the ladder: its house bots — random, Greedy Treasure, Defensive Capture and the
adaptive agent — play rated matches as ordinary clients on a real server, every plan from the
request's action space; the leaderboard puts random last, and the stored records of rated
Boundary matches replay to their recorded outcomes (and carry no seed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ladder_helpers import arena

from engine import registry
from engine.match import replay
from server.clocks import Clock
from server.ladder import GameLadder, LadderSettings

SETTINGS = LadderSettings(
    games={"boundary": GameLadder("boundary", 2, Clock(60_000, 1_000),
                                  pair_cap_per_hour=10_000, patience_s=2.0)},
    interval_s=0.2, min_games=3, seed=5)


@pytest.mark.timeout(300)
async def test_boundary_ladder_rates_the_strategies_above_random(tmp_path: Path) -> None:
    async with arena(tmp_path / "ladder.sqlite3", SETTINGS) as a:
        await a.add_bot("bd-random", "random", "boundary", bot_name="random", max_matches=2,
                        seed=1)
        await a.add_bot("bd-gt", "greedy-treasure", "boundary", bot_name="greedy-treasure",
                        max_matches=2)
        await a.add_bot("bd-dc", "defensive-capture", "boundary",
                        bot_name="defensive-capture", max_matches=2)
        # Its lookahead capped at 0.2 s a turn (on the ladder's 60 s clock it would search
        # each turn to the end): still far above random, and the test is ~15 s (30%) quicker.
        await a.add_bot("bd-adaptive", "adaptive", "boundary", bot_name="adaptive",
                        max_matches=2, time_budget_s=0.2)
        await a.wait_rated(12, timeout=240)
        await a.stop_bots()
        board = a.server.ladder.leaderboard("boundary")
        standings = [(e["account"], round(e["ordinal"], 2), e["wins"], e["draws"], e["games"])
                     for e in board]
        assert {e["account"] for e in board} == {"bd-random", "bd-gt", "bd-dc", "bd-adaptive"}
        # Random last: no one rated below it. (Two bots that never met and lost all their
        # games to the same others tie exactly, in an order that says nothing of strength.)
        random_ordinal = next(e["ordinal"] for e in board if e["account"] == "bd-random")
        assert random_ordinal == min(e["ordinal"] for e in board), standings
        assert random_ordinal < max(e["ordinal"] for e in board), standings
        assert all(e["games"] >= 3 for e in board), standings

        game = registry.get("boundary")
        a.store.flush()
        finished = a.store.list_matches(status="over", game="boundary")
        assert len(finished) >= 12
        for summary in finished[:6]:
            row = a.store.get_match(summary.id)
            assert row is not None and row.outcome is not None
            record = row.record()
            assert record["log"][0].keys() == {"chance"}
            *_, (final, _) = replay(game, record)
            outcome = game.outcome(final)
            assert outcome is not None and outcome.to_json() == row.outcome
