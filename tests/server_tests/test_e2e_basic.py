"""End to end on a real server with real websocket clients, using the tiny test games."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from typing import Any

from server.app import ArenaServer
from tests.server_tests.wsclient import WsClient, play_random


async def bot(server: ArenaServer, name: str, games: list[str], encoding: str = "json",
              max_matches: int = 1) -> WsClient:
    token = server.store.create_account(name, "bot")
    client = await WsClient.open(server.ws_url, encoding)
    welcome = await client.hello(token=token)
    assert welcome["account"] == {"name": name, "kind": "bot"}
    ref = await client.send({"type": "autoplay", "games": games, "max_matches": max_matches})
    assert (await client.expect_reply(ref))["type"] == "ok"
    return client


async def test_hello_welcome_ping_and_games(server: ArenaServer) -> None:
    client = await WsClient.open(server.ws_url)
    welcome = await client.hello(name="zed")
    assert welcome["type"] == "welcome" and welcome["account"]["kind"] == "guest"
    assert welcome["account"]["name"].startswith("zed#") and welcome["encoding"] == "json"
    ref = await client.send({"type": "ping"})
    assert (await client.expect_reply(ref))["type"] == "pong"
    ref = await client.send({"type": "list_games"})
    games = (await client.expect_reply(ref))["games"]
    assert {"race", "duel"} <= {g["name"] for g in games}
    await client.close()


async def test_play_bot_race_with_a_spectator_over_json_and_msgpack(server: ArenaServer
                                                                    ) -> None:
    house = await bot(server, "house", ["race"], "msgpack")
    human = await WsClient.open(server.ws_url, "json")
    await human.hello(name="hum")
    ref = await human.send({"type": "play_bot", "game": "race", "seats": 3,
                            "options": {"target": 15}})
    start = await human.expect_reply(ref)
    assert start["type"] == "match_start" and start["your_seat"] == 0
    match_id = start["match_id"]
    assert [s["name"] for s in start["seats"]] == [start["seats"][0]["name"], "house"]
    watcher = await WsClient.open(server.ws_url, "msgpack")
    await watcher.hello()
    ref = await watcher.send({"type": "spectate", "match_id": match_id})
    assert (await watcher.expect_reply(ref))["your_seat"] is None
    ends = await asyncio.gather(play_random(human, match_id, 1),
                                play_random(house, match_id, 2),
                                watcher.expect("match_end", match_id=match_id))
    assert ends[0]["outcome"] == ends[1]["outcome"] == ends[2]["outcome"]
    assert ends[0]["outcome"]["reason"] == "target"
    ref = await watcher.send({"type": "list_matches"})
    listed = (await watcher.expect_reply(ref))["matches"]
    assert any(m["match_id"] == match_id and m["status"] == "over" for m in listed)
    ref = await watcher.send({"type": "get_replay", "match_id": match_id})
    replay = await watcher.expect_reply(ref)
    assert replay["status"] == "over" and replay["log"] and "seed" not in replay
    server.store.flush()
    row = server.store.get_match(match_id)
    assert row is not None and row.status == "over" and row.outcome == ends[0]["outcome"]
    for c in (house, human, watcher):
        await c.close()


async def test_replays_are_shared_but_never_stale(server: ArenaServer) -> None:
    """A replay is built once per step of its match and shared between the clients that ask
    (each reply with its own ref, in its own encoding): it grows with the match, and once
    the match is over it is the finished record, not the live one asked for before."""
    house = await bot(server, "house", ["race"])
    human = await WsClient.open(server.ws_url)
    await human.hello(name="hum")
    ref = await human.send({"type": "play_bot", "game": "race", "options": {"target": 6}})
    match_id = (await human.expect_reply(ref))["match_id"]
    viewers = [await WsClient.open(server.ws_url, encoding) for encoding in ("json", "msgpack")]
    for viewer in viewers:
        await viewer.hello()

    async def replays() -> list[dict[str, Any]]:
        got = []
        for viewer in viewers:
            ref = await viewer.send({"type": "get_replay", "match_id": match_id, "id": ref_id})
            got.append(await viewer.expect_reply(ref))
        assert all(r["ref"] == ref_id for r in got)
        assert got[0] == got[1]
        return got

    async def move(client: WsClient) -> None:
        request = await client.expect("request", match_id=match_id)
        await client.send({"type": "action", "match_id": match_id,
                           "request_id": request["request_id"], "action": {"add": 1}})
        await client.expect("events", match_id=match_id)

    ref_id: Any = "first"
    before = (await replays())[0]
    assert before["status"] == "live" and "log" not in before
    await move(human)
    ref_id = 2
    after = (await replays())[0]
    assert len(after["steps"]) == len(before["steps"]) + 1
    await asyncio.gather(play_random(human, match_id, 1), play_random(house, match_id, 2))
    ref_id = 3
    final = (await replays())[0]
    assert final["status"] == "over" and final["log"] and final["outcome"] is not None
    for client in (house, human, *viewers):
        await client.close()


async def test_spectators_who_leave_and_return_see_every_step_while_watching(
        server: ArenaServer) -> None:
    """The server renders no spectators' copy of a step while nobody watches; whoever watches
    still gets every step, numbered without gaps, from the state they were given."""
    house = await bot(server, "house", ["race"])
    human = await WsClient.open(server.ws_url)
    await human.hello(name="hum")
    ref = await human.send({"type": "play_bot", "game": "race", "options": {"target": 40}})
    match_id = (await human.expect_reply(ref))["match_id"]

    async def move(client: WsClient) -> None:
        request = await client.expect("request", match_id=match_id)
        await client.send({"type": "action", "match_id": match_id,
                           "request_id": request["request_id"], "action": {"add": 1}})

    async def watch(client: WsClient) -> int:
        ref = await client.send({"type": "spectate", "match_id": match_id})
        return int((await client.expect_reply(ref))["seq"])

    async def seqs(client: WsClient, n: int) -> list[int]:
        return [(await client.expect("events", match_id=match_id))["seq"] for _ in range(n)]

    async def leave(client: WsClient) -> None:
        ref = await client.send({"type": "leave", "match_id": match_id})
        assert (await client.expect_reply(ref))["type"] == "ok"

    runner = server.live[match_id].runner
    assert runner.spectated is False
    a, b = await WsClient.open(server.ws_url), await WsClient.open(server.ws_url)
    for watcher in (a, b):
        await watcher.hello()
    seq = await watch(a)
    assert await watch(b) == seq and runner.spectated
    await move(human)
    await move(house)
    assert await seqs(a, 2) == await seqs(b, 2) == [seq + 1, seq + 2]
    await leave(a)
    left_at = len(a.received)
    await move(human)
    assert await seqs(b, 1) == [seq + 3]
    ref = await a.send({"type": "ping"})
    await a.expect_reply(ref)  # anything sent to a after it left would have come first
    assert not [m for m in a.received[left_at:] if m["type"] == "events"]
    await leave(b)
    assert runner.spectated is False
    await move(house)  # nobody watches this step
    assert await watch(a) == seq + 4
    await move(human)
    assert await seqs(a, 1) == [seq + 5]
    for c in (house, human, a, b):
        await c.close()


def http_get(server: ArenaServer, path: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(server.http_url + path, timeout=5) as response:
            body = response.read().decode()
            kind = response.headers["Content-Type"]
            return response.status, json.loads(body) if "json" in kind else body
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read().decode())


async def test_http_routes_on_the_same_port(server: ArenaServer) -> None:
    status, page = await asyncio.to_thread(http_get, server, "/")
    assert status == 200 and "Tabletop Arena" in page and server.ws_url in page
    status, health = await asyncio.to_thread(http_get, server, "/healthz")
    assert status == 200 and health["ok"] is True
    status, games = await asyncio.to_thread(http_get, server, "/api/games")
    assert "race" in {g["name"] for g in games["games"]}
    status, body = await asyncio.to_thread(http_get, server, "/api/matches/nope")
    assert status == 404
    status, body = await asyncio.to_thread(http_get, server, "/elsewhere")
    assert status == 404


async def test_http_match_record_only_once_the_match_is_over(server: ArenaServer) -> None:
    a = await WsClient.open(server.ws_url)
    b = await WsClient.open(server.ws_url)
    await a.hello(name="ha")
    await b.hello(name="hb")
    for client in (a, b):
        await client.send({"type": "seek", "game": "duel"})
    match_id = (await a.expect("match_start"))["match_id"]
    await b.expect("match_start")
    live = server.find_match(match_id)
    assert live is not None
    status, body = await asyncio.to_thread(http_get, server, f"/api/matches/{match_id}")
    assert status == 200 and body["match"]["status"] == "live" and "record" not in body
    assert str(live.runner.match.seed) not in json.dumps(body)
    # public facts only: no view, no log, no seed
    assert set(body["match"]) == {"match_id", "game", "seats", "status", "started_at", "moves",
                                  "spectators", "outcome"}
    await asyncio.gather(play_random(a, match_id, 1), play_random(b, match_id, 2))
    status, body = await asyncio.to_thread(http_get, server, f"/api/matches/{match_id}")
    assert body["match"]["status"] == "over" and len(body["record"]["log"]) == 4
    assert "seed" not in body["record"] and str(live.runner.match.seed) not in json.dumps(body)
    status, listing = await asyncio.to_thread(http_get, server, "/api/matches")
    assert [m["match_id"] for m in listing["matches"]].count(match_id) == 1
