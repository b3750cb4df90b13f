"""The lobby end to end: seeks, challenges, autoplay capacity, spectating, listings, replays
from storage after a restart — and bots built on the clients/ library."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from clients import connect
from clients.runner import BotRunner
from server.app import ArenaServer
from server.storage import SqliteStore
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient, play_random


class FirstLegal:
    def choose(self, request: dict[str, Any]) -> Any:
        return request["legal_actions"][0]


async def guest(server: ArenaServer, name: str, encoding: str = "json") -> WsClient:
    client = await WsClient.open(server.ws_url, encoding)
    assert (await client.hello(name=name))["type"] == "welcome"
    return client


async def test_seekers_of_the_same_spec_are_paired(server: ArenaServer) -> None:
    a, b, c, d = [await guest(server, n) for n in "abcd"]
    ref = await a.send({"type": "seek", "game": "race", "seats": 3})
    first = await a.expect_reply(ref)
    assert first["type"] == "seeking"
    # a different spec does not pair with it; a cancelled seek is gone
    ref = await d.send({"type": "seek", "game": "race", "seats": 2})
    other = await d.expect_reply(ref)
    ref = await d.send({"type": "cancel_seek", "seek_id": other["seek_id"]})
    assert (await d.expect_reply(ref))["type"] == "ok"
    ref = await d.send({"type": "cancel_seek", "seek_id": other["seek_id"]})
    assert (await d.expect_reply(ref))["code"] == "not_found"
    for client in (b, c):
        ref = await client.send({"type": "seek", "game": "race", "seats": 3})
        assert (await client.expect_reply(ref))["type"] == "seeking"
    starts = [await client.expect("match_start") for client in (a, b, c)]
    assert len({s["match_id"] for s in starts}) == 1
    assert sorted(s["your_seat"] for s in starts) == [0, 1, 2]
    match_id = starts[0]["match_id"]
    ends = await asyncio.gather(*(play_random(x, match_id, n) for n, x in enumerate((a, b, c))))
    assert ends[0]["outcome"] == ends[2]["outcome"]


async def test_a_declined_challenge_tells_the_challenger(server: ArenaServer) -> None:
    a = await account_client(server, "asker")
    b = await account_client(server, "refuser")
    ref = await a.send({"type": "challenge", "accounts": ["nobody"], "game": "race"})
    assert (await a.expect_reply(ref))["code"] == "not_found"
    ref = await a.send({"type": "challenge", "accounts": ["refuser"], "game": "race"})
    challenge_id = (await a.expect_reply(ref))["challenge_id"]
    invite = await b.expect("challenge", challenge_id=challenge_id)
    assert invite["from"] == "asker" and invite["options"] == {"target": 10}
    ref = await b.send({"type": "decline", "challenge_id": challenge_id})
    assert (await b.expect_reply(ref))["type"] == "ok"
    declined = await a.expect("challenge_declined")
    assert declined == {"type": "challenge_declined", "challenge_id": challenge_id,
                        "by": "refuser"}
    ref = await b.send({"type": "accept", "challenge_id": challenge_id})
    assert (await b.expect_reply(ref))["code"] == "not_found"


async def test_autoplay_capacity_and_named_house_bots(server: ArenaServer) -> None:
    house = await account_client(server, "house-one", house=True)
    ref = await house.send({"type": "autoplay", "games": ["race"], "max_matches": 1})
    await house.expect_reply(ref)
    ref = await house.send({"type": "autoplay", "games": ["no-such-game"]})
    assert (await house.expect_reply(ref))["code"] == "not_found"
    player = await guest(server, "p")
    ref = await player.send({"type": "play_bot", "game": "duel"})
    assert (await player.expect_reply(ref))["code"] == "not_found"   # nobody plays duel
    ref = await player.send({"type": "play_bot", "game": "race", "bot": "someone-else"})
    assert (await player.expect_reply(ref))["code"] == "not_found"
    ref = await player.send({"type": "play_bot", "game": "race", "bot": "house-one",
                             "seat": 1})
    start = await player.expect_reply(ref)
    assert start["your_seat"] == 1 and start["seats"][0]["name"] == "house-one"
    # the bot is busy now (max_matches 1)
    second = await guest(server, "q")
    ref = await second.send({"type": "play_bot", "game": "race"})
    assert (await second.expect_reply(ref))["code"] == "not_found"
    await asyncio.gather(play_random(player, start["match_id"], 1),
                         play_random(house, start["match_id"], 2))
    ref = await second.send({"type": "play_bot", "game": "race"})
    assert (await second.expect_reply(ref))["type"] == "match_start"


async def test_spectate_leave_list_and_resign(server: ArenaServer) -> None:
    a = await account_client(server, "sa")
    b = await account_client(server, "sb")
    match_id = await challenge_match(a, [b], "duel")
    fan = await guest(server, "fan")
    ref = await fan.send({"type": "list_matches", "game": "duel"})
    listed = (await fan.expect_reply(ref))["matches"]
    assert [m["match_id"] for m in listed] == [match_id] and listed[0]["status"] == "live"
    ref = await fan.send({"type": "list_matches", "game": "race"})
    assert (await fan.expect_reply(ref))["matches"] == []
    ref = await fan.send({"type": "spectate", "match_id": match_id})
    start = await fan.expect_reply(ref)
    assert start["your_seat"] is None and "secret" not in start["view"]
    request = await a.expect("request", match_id=match_id)
    await a.send({"type": "action", "match_id": match_id,
                  "request_id": request["request_id"], "action": {"card": 2}})
    assert (await fan.expect("events"))["events"] == [{"type": "committed", "seat": 0}]
    ref = await fan.send({"type": "leave", "match_id": match_id})
    assert (await fan.expect_reply(ref))["type"] == "ok"
    ref = await b.send({"type": "resign", "match_id": match_id})
    end = await a.expect("match_end", match_id=match_id)
    assert end["outcome"] == {"ranks": [0, 1], "reason": "resignation"}
    ref = await fan.send({"type": "ping"})
    await fan.expect_reply(ref)
    assert not [m for m in fan.received if m["type"] == "match_end"]  # it had left


async def test_a_restart_without_resume_voids_live_matches_and_serves_finished_replays(
        tmp_path: Path) -> None:
    """``ArenaServer(resume=False)`` ends what an earlier server left live void (the
    default resumes it: tests/server_tests/test_resume.py); finished matches replay."""
    db = tmp_path / "restart.sqlite3"
    store = SqliteStore(db)
    first = ArenaServer(store)
    await first.start("127.0.0.1", 0)
    a = await account_client(first, "ra")
    b = await account_client(first, "rb")
    done = await challenge_match(a, [b], "race")
    await asyncio.gather(play_random(a, done, 1), play_random(b, done, 2))
    cut = await challenge_match(a, [b], "race", {"target": 99})
    request = await a.expect("request", match_id=cut)
    await a.send({"type": "action", "match_id": cut, "request_id": request["request_id"],
                  "action": {"add": 2}})
    await b.expect("request", match_id=cut)
    await first.close()
    store.close()

    store = SqliteStore(db)
    second = ArenaServer(store, resume=False)
    await second.start("127.0.0.1", 0)
    try:
        row = store.get_match(cut)
        assert row is not None and row.status == "void" and row.log == [{"0": {"add": 2}}]
        viewer = await guest(second, "late")
        ref = await viewer.send({"type": "get_replay", "match_id": done})
        replay = await viewer.expect_reply(ref)
        assert replay["status"] == "over" and replay["steps"] and "seed" not in replay
        ref = await viewer.send({"type": "get_replay", "match_id": "missing"})
        assert (await viewer.expect_reply(ref))["code"] == "not_found"
    finally:
        await second.close()
        store.close()


async def test_bots_on_the_clients_library_play_through_the_server(server: ArenaServer
                                                                   ) -> None:
    token = await asyncio.to_thread(server.store.create_account, "lib-bot", "bot")
    runner = BotRunner(FirstLegal(), server.ws_url, games=["battleline"], token=token,
                       encoding="msgpack", matches=2)
    running = asyncio.create_task(runner.run())
    player = await connect(server.ws_url, name="lib-human")
    try:
        for _ in range(2):
            for _ in range(50):
                try:
                    start = await player.play_bot("battleline", bot="lib-bot")
                    break
                except Exception:  # not seated yet: the runner is still connecting
                    await asyncio.sleep(0.05)
            match_id = start["match_id"]
            async for message in player:
                if message.get("match_id") != match_id:
                    continue
                if message["type"] == "request":
                    await player.act(message, message["legal_actions"][-1])
                elif message["type"] == "match_end":
                    break
        stats = await asyncio.wait_for(running, 30)
        assert stats.matches_finished == 2 and stats.errors == 0
    finally:
        await player.close()
