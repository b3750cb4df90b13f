"""End to end: the random bot runner and the client library against the real server
(``server.app.ArenaServer`` on 127.0.0.1 port 0, SQLite in tmp_path), on the real games."""

from __future__ import annotations

import asyncio
from typing import Any

from bots.random_bot import RandomBot
from clients.connection import Connection, ReconnectPolicy, connect
from clients.runner import BotRunner
from server.app import ArenaServer

FAST = ReconnectPolicy(initial_delay=0.02, max_delay=0.2, max_attempts=10)


async def token_for(server: ArenaServer, name: str, kind: str = "bot") -> str:
    return await asyncio.to_thread(server.store.create_account, name, kind)


async def start_runner(runner: BotRunner) -> asyncio.Task[Any]:
    """Start a runner and wait until its autoplay offer is registered by the server."""
    task = asyncio.ensure_future(runner.run())
    for _ in range(500):
        if runner.conn.connected and runner._session_offered is not None:  # noqa: SLF001
            await asyncio.sleep(0.05)  # the autoplay reply is on its way
            return task
        await asyncio.sleep(0.01)
    raise AssertionError("runner did not connect")


async def play_out(conn: Connection, bot: RandomBot, match_id: str,
                   drop_after: int | None = None) -> dict[str, Any]:
    """Answer every request of ``match_id`` with ``bot`` until match_end; optionally kill
    the socket after ``drop_after`` answers (the client must resume)."""
    answered = 0
    seqs: list[int] = []
    while True:
        message = await conn.next_message(timeout=30)
        if message.get("match_id") != match_id:
            continue
        if message["type"] == "events":
            seqs.append(message["seq"])
        elif message["type"] == "request":
            if conn.session.is_pending(message):
                await conn.act(message, bot.choose(message))
                answered += 1
                if drop_after is not None and answered == drop_after:
                    assert conn._ws is not None  # noqa: SLF001
                    conn._ws.transport.abort()  # noqa: SLF001 - a brutal network failure
        elif message["type"] == "match_end":
            assert seqs == sorted(set(seqs)), "events arrive in seq order, no duplicates"
            return message


async def test_random_bot_runner_plays_battleline_against_a_client(arena: ArenaServer) -> None:
    runner = BotRunner(RandomBot(seed=1), arena.ws_url, games=["battleline"],
                       token=await token_for(arena, "random-bl"), matches=1, reconnect=FAST)
    task = await start_runner(runner)
    async with await connect(arena.ws_url, name="ann", encoding="msgpack",
                             reconnect=FAST) as conn:
        start = await conn.play_bot("battleline", bot="random-bl", seat=0)
        assert start["your_seat"] == 0 and start["status"] == "live"
        assert [s["name"] for s in start["seats"]][1] == "random-bl"
        end = await play_out(conn, RandomBot(seed=2), start["match_id"], drop_after=3)
        assert conn.reconnects == 1  # resumed mid-match and finished it
        replay = await conn.get_replay(start["match_id"])
    stats = await asyncio.wait_for(task, 30)
    assert stats.matches_finished == 1 and stats.errors == 0
    assert stats.results[0][2] == end["outcome"]
    assert sorted(end["outcome"]["ranks"]) in ([0, 0], [0, 1])
    assert replay["status"] == "over" and len(replay["steps"]) > 0
    assert "seed" not in replay


async def test_three_random_bots_play_chexers_over_json_and_msgpack(
        arena: ArenaServer) -> None:
    runners = [
        BotRunner(RandomBot(seed=i), arena.ws_url, games=["chexers"],
                  token=await token_for(arena, f"random-{i}"), matches=1,
                  encoding="msgpack" if i else "json", reconnect=FAST)
        for i in range(2)]
    tasks = [await start_runner(r) for r in runners]
    async with await connect(arena.ws_url, token=await token_for(arena, "cx-client"),
                             reconnect=FAST) as conn:
        start = await conn.play_bot("chexers", seat=2)
        assert start["your_seat"] == 2
        assert {s["name"] for s in start["seats"]} == {"random-0", "random-1", "cx-client"}
        end = await play_out(conn, RandomBot(seed=9), start["match_id"])
    results = await asyncio.wait_for(asyncio.gather(*tasks), 60)
    assert [s.matches_finished for s in results] == [1, 1]
    assert all(s.errors == 0 and s.actions > 0 for s in results)
    assert len(end["outcome"]["ranks"]) == 3
    assert end["outcome"]["reason"] in ("exits", "repetition", "turn_limit")


async def test_arena_bot_seek_mode_pairs_two_runners(arena: ArenaServer) -> None:
    runners = [
        BotRunner(RandomBot(seed=i), arena.ws_url, games=["battleline"], mode="seek",
                  token=await token_for(arena, f"seeker-{i}"), matches=2,
                  reconnect=FAST)
        for i in range(2)]
    results = await asyncio.wait_for(asyncio.gather(*(r.run() for r in runners)), 60)
    assert [s.matches_finished for s in results] == [2, 2]
    # both sides saw the same matches end the same way
    assert sorted(m for m, _, _ in results[0].results) == \
        sorted(m for m, _, _ in results[1].results)


async def test_one_house_bot_can_hold_two_seats_of_a_match(arena: ArenaServer) -> None:
    runner = BotRunner(RandomBot(seed=4), arena.ws_url, games=["chexers"],
                       token=await token_for(arena, "solo"), matches=1, reconnect=FAST)
    task = await start_runner(runner)
    async with await connect(arena.ws_url, name="zoe", reconnect=FAST) as conn:
        start = await conn.play_bot("chexers", bot="solo", seat=0)
        assert [s["name"] for s in start["seats"]] == [start["seats"][0]["name"], "solo", "solo"]
        await play_out(conn, RandomBot(seed=5), start["match_id"])
    stats = await asyncio.wait_for(task, 60)
    assert stats.matches_finished == 1 and stats.errors == 0
    assert stats.actions > 0
