"""The ladder keeps its books through the store interface, whatever the backend: on a real
server with real bots, the results, ratings and history land in the store's ladder sub-store,
and a new server on the same store starts from them. (Before one storage interface, a store
that was not SQLite kept the ladder in memory only, and its history and match list were
empty.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from ladder_helpers import open_arena

from server.clocks import Clock
from server.ladder import GameLadder, LadderSettings
from tests.storage.contract import BACKENDS

SETTINGS = LadderSettings(
    games={"race": GameLadder("race", 2, Clock(5_000, 100), pair_cap_per_hour=10_000)},
    interval_s=0.1, min_games=2, seed=5)


def without_online(board: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: v for k, v in entry.items() if k != "online"} for entry in board]


@pytest.mark.parametrize("backend", sorted(BACKENDS))
async def test_the_ladder_keeps_its_books_in_any_store(tmp_path: Path, backend: str) -> None:
    store = BACKENDS[backend](tmp_path)
    try:
        first = await open_arena(tmp_path / "unused", SETTINGS, store=store)
        try:
            await first.add_bot("ann", "random", "race", seed=1)
            await first.add_bot("bob", "random", "race", seed=2)
            await first.wait_rated(6, timeout=60)
            await first.stop_bots()
            ladder = first.server.ladder
            board = without_online(ladder.leaderboard("race"))
            recent = await ladder.recent_matches("race", 50)
            ann = ladder.resolve("race", "ann", "random", "1")
            history = await ladder.rating_history(ann)
        finally:
            await first.close()
        rated = [m for m in recent if m["status"] == "rated"]
        assert len(rated) == ladder.rated_matches >= 6
        assert len(history["points"]) == next(
            e["games"] for e in board if e["account"] == "ann")
        assert store.ladder().matches(status="rated")[0].match_id == rated[0]["match_id"]

        again = await open_arena(tmp_path / "unused", SETTINGS, store=store)
        try:
            assert without_online(again.server.ladder.leaderboard("race")) == board
            assert await again.server.ladder.rating_history(ann) == history
        finally:
            await again.close()
    finally:
        store.close()
