"""Faults on a real server's ladder: a bot that crashes mid-match or runs out of time loses
and the match is rated; a match broken by a server fault is void and unrated; a server
restarted mid-ladder keeps every rating and all history, and resumes what it cut off."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ladder_helpers import Arena, arena, open_arena

from protocol.codec import validate_server_message
from server.clocks import Clock
from server.ladder import GameLadder, LadderSettings
from server.ratings import INITIAL
from tests.server_tests.wsclient import WsClient


def race(clock: Clock) -> LadderSettings:
    return LadderSettings(games={"race": GameLadder("race", 2, clock, pair_cap_per_hour=10_000)},
                          interval_s=0.1, seed=7)


async def raw_bot(a: Arena, name: str, game: str = "race") -> WsClient:
    """A hand-driven ladder bot on a plain websocket."""
    token = await asyncio.to_thread(a.store.create_account, name, "bot")
    client = await WsClient.open(a.server.ws_url)
    assert (await client.hello(token=token))["type"] == "welcome"
    ref = await client.send({"type": "ladder_join", "game": game, "bot": name, "version": "1",
                             "max_matches": 1})
    joined = await client.expect_reply(ref)
    validate_server_message(joined)
    assert joined["type"] == "ladder_joined", joined
    return client


async def until(predicate: Any, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out waiting"
        await asyncio.sleep(0.02)


def standing(a: Arena, account: str) -> dict[str, Any]:
    (entry,) = [e for e in a.server.ladder.leaderboard("race") if e["account"] == account]
    return entry


async def row_of(a: Arena, match_id: str) -> Any:
    store = a.server.ladder.store
    assert store is not None
    await asyncio.to_thread(a.store.flush)
    (row,) = [m for m in await asyncio.to_thread(store.matches) if m.match_id == match_id]
    return row


async def test_a_bot_that_crashes_mid_match_loses_and_the_match_is_rated(tmp_path: Path
                                                                         ) -> None:
    async with arena(tmp_path / "a.sqlite3", race(Clock(10_000, 100)), grace_s=0.3) as a:
        await a.add_bot("steady", "random", "race", seed=1)
        crasher = await raw_bot(a, "crasher")
        start = await crasher.expect("match_start")
        match_id = start["match_id"]
        await crasher.expect("request", match_id=match_id)
        crasher.ws.transport.abort()  # the process died: no close frame, nothing more
        await until(lambda: a.server.ladder.rated_matches >= 1)
        row = await row_of(a, match_id)
        seat = start["your_seat"]
        assert row.status == "rated" and row.reason == "forfeit"
        assert row.ranks[seat] == 1 and row.ranks[1 - seat] == 0
        crashed, steady = standing(a, "crasher"), standing(a, "steady")
        assert (crashed["losses"], crashed["games"]) == (1, 1)
        assert (steady["wins"], steady["games"]) == (1, 1)
        assert crashed["mu"] < INITIAL.mu < steady["mu"]
        assert crashed["online"] is False
        await asyncio.sleep(0.3)
        assert a.server.ladder.started_matches == 1  # a crashed bot is not paired again


async def test_a_bot_that_runs_out_of_time_loses(tmp_path: Path) -> None:
    async with arena(tmp_path / "a.sqlite3", race(Clock(300, 0))) as a:
        await a.add_bot("steady", "random", "race", seed=1)
        staller = await raw_bot(a, "staller")
        start = await staller.expect("match_start")
        end = await staller.expect("match_end", match_id=start["match_id"])
        assert end["outcome"]["reason"] == "timeout"
        await until(lambda: a.server.ladder.rated_matches >= 1)
        row = await row_of(a, start["match_id"])
        assert row.status == "rated" and row.ranks[start["your_seat"]] == 1
        assert standing(a, "staller")["losses"] >= 1
        await staller.close()


async def test_a_match_broken_by_a_server_fault_is_void_and_unrated(tmp_path: Path) -> None:
    settings = LadderSettings(
        games={"faulty": GameLadder("faulty", 2, Clock(5_000, 100), pair_cap_per_hour=10_000)},
        interval_s=0.1, seed=7)
    async with arena(tmp_path / "a.sqlite3", settings) as a:
        await a.add_bot("ann", "random", "faulty", seed=1)
        await a.add_bot("bob", "random", "faulty", seed=2)
        ladder = a.server.ladder
        await until(lambda: ladder.void_matches >= 3)
        assert ladder.rated_matches == 0
        for entry in ladder.leaderboard("faulty"):
            assert entry["games"] == 0
            assert (entry["mu"], entry["sigma"]) == (INITIAL.mu, INITIAL.sigma)
        await a.stop_bots()
        matches = await ladder.recent_matches("faulty")
        ended = [m for m in matches if m["status"] != "live"]
        assert len(ended) >= 3 and {m["status"] for m in ended} == {"void"}
        assert all(s["rank"] is None and s["ordinal_after"] is None
                   for m in ended for s in m["seats"])
        stored = await asyncio.to_thread(a.store.get_match, ended[0]["match_id"])
        assert stored is not None and stored.status == "void"


async def test_a_restart_mid_ladder_keeps_ratings_and_history(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    settings = race(Clock(60_000, 100))
    a = await open_arena(path, settings, grace_s=60.0)
    await a.add_bot("ann", "random", "race", seed=1)
    await a.add_bot("bob", "random", "race", seed=2)
    await a.add_bot("cy", "random", "race", seed=3)
    # A bot that never answers: its match is certainly live when the server stops.
    staller = await raw_bot(a, "staller")
    stalled = await staller.expect("match_start")
    await a.wait_rated(12, timeout=30)
    ladder = a.server.ladder
    assert stalled["match_id"] in ladder.live

    await a.server.close()  # mid-ladder: matches under way are cut off
    board = [{k: v for k, v in e.items() if k != "online"} for e in ladder.leaderboard("race")]
    seq, rated = ladder.book.seq, ladder.rated_matches
    history = {e["account"]: await ladder.rating_history(ladder.resolve(
        "race", e["account"], e["bot"], e["version"])) for e in board}
    await a.stop_bots()
    await staller.close()
    a.store.close()

    b = await open_arena(path, settings)
    try:
        again = b.server.ladder
        assert [{k: v for k, v in e.items() if k != "online"}
                for e in again.leaderboard("race")] == board
        for account, before in history.items():
            entry = next(e for e in board if e["account"] == account)
            after = await again.rating_history(again.resolve(
                "race", account, entry["bot"], entry["version"]))
            assert after == before
            assert len(after["points"]) == entry["games"]
        # The cut match is resumed: live, its seats away until their grace runs out.
        row = await row_of(b, stalled["match_id"])
        assert row.status == "live" and stalled["match_id"] in again.live
        stored = await asyncio.to_thread(b.store.get_match, stalled["match_id"])
        assert stored is not None and stored.status == "live"
        assert again.book.seq == seq and rated >= 12

        # the ladder goes on from where it was
        await b.add_bot("ann", "random", "race", seed=4)
        await b.add_bot("bob", "random", "race", seed=5)
        await b.wait_rated(3, timeout=30)
        assert again.book.seq >= seq + 3
        ann = next(e for e in again.leaderboard("race") if e["account"] == "ann")
        old = next(e for e in board if e["account"] == "ann")
        assert ann["games"] > old["games"]
        # Nobody came back for the staller's seat: it forfeited, and the match is rated.
        for _ in range(200):
            row = await row_of(b, stalled["match_id"])
            if row.status != "live":
                break
            await asyncio.sleep(0.1)
        assert (row.status, row.reason) == ("rated", "forfeit")
    finally:
        await b.close()
        b.store.close()
