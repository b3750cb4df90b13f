"""Typed errors, timeouts, resume, slow clients, server faults — each while another match on
the same server plays on to completion."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import msgpack

from protocol import Limits
from server.app import ArenaServer
from server.storage import SqliteStore
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient, play_random


async def background_match(server: ArenaServer, tag: str) -> tuple[asyncio.Task, str]:
    """Start a long race between two fresh bots; returns the task that plays it out."""
    a = await account_client(server, f"{tag}-a", encoding="msgpack")
    b = await account_client(server, f"{tag}-b")
    match_id = await challenge_match(a, [b], "race", {"target": 400})

    async def play() -> list[dict]:
        return list(await asyncio.gather(play_random(a, match_id, 1),
                                         play_random(b, match_id, 2)))
    return asyncio.create_task(play()), match_id


async def assert_finished(task: asyncio.Task) -> None:
    ends = await asyncio.wait_for(task, 60)
    assert ends[0]["outcome"] == ends[1]["outcome"]
    assert ends[0]["outcome"]["reason"] == "target"


async def test_protocol_errors_are_typed_and_others_play_on(server: ArenaServer) -> None:
    task, _ = await background_match(server, "bg")
    bad = await WsClient.open(server.ws_url)
    # before hello: anything else is unauthorized
    await bad.send({"type": "list_games"})
    assert (await bad.expect("error"))["code"] == "unauthorized"
    # wrong version
    ref = await bad.send({"type": "hello", "protocol": 2})
    err = await bad.expect_reply(ref)
    assert err["code"] == "unsupported_version" and err["details"]["supported"] == [1]
    assert (await bad.hello())["type"] == "welcome"
    await bad.send_raw("{not json")
    assert (await bad.expect("error"))["code"] == "malformed"
    await bad.send_raw("[1, 2]")
    assert (await bad.expect("error"))["code"] == "malformed"
    await bad.send_raw(msgpack.packb({"type": 5}))
    assert (await bad.expect("error"))["code"] == "malformed"
    ref = await bad.send({"type": "teleport"})
    err = await bad.expect_reply(ref)
    assert err["code"] == "unknown_type"
    await bad.send_raw('{"type":"ping","pad":"' + "x" * 70_000 + '"}')
    assert (await bad.expect("error"))["code"] == "too_large"
    ref = await bad.send({"type": "spectate", "match_id": "nope"})
    assert (await bad.expect_reply(ref))["code"] == "not_found"
    ref = await bad.send({"type": "play_bot", "game": "race", "options": {"colour": 1}})
    assert (await bad.expect_reply(ref))["code"] in ("bad_request", "not_found")
    ref = await bad.send({"type": "seek", "game": "race", "seats": 9})
    assert (await bad.expect_reply(ref))["code"] == "bad_request"
    # the connection survived all of it
    ref = await bad.send({"type": "ping"})
    assert (await bad.expect_reply(ref))["type"] == "pong"
    await assert_finished(task)
    await bad.close()


async def test_a_frame_above_one_mib_closes_with_1009(server: ArenaServer) -> None:
    task, _ = await background_match(server, "bg")
    big = await WsClient.open(server.ws_url, max_size=None)
    await big.hello()
    await big.send_raw("x" * (1 << 20) + "x")
    await asyncio.wait_for(big.ws.wait_closed(), 5)
    assert big.ws.close_code == 1009
    await assert_finished(task)


async def test_stale_request_and_out_of_turn_actions(server: ArenaServer) -> None:
    task, _ = await background_match(server, "bg")
    a = await account_client(server, "ann")
    b = await account_client(server, "bob")
    c = await account_client(server, "cid")
    match_id = await challenge_match(a, [b, c], "race", {"target": 50})
    first = await a.expect("request", match_id=match_id)
    # seat 1 acts while seat 0 must: not your turn
    ref = await b.send({"type": "action", "match_id": match_id, "request_id": "made-up",
                        "action": {"add": 1}})
    err = await b.expect_reply(ref)
    assert err["code"] == "not_your_turn" and err["match_id"] == match_id
    # a spectator acting: not your turn either
    ref = await a.send({"type": "action", "match_id": match_id,
                        "request_id": first["request_id"], "action": {"add": 7}})
    err = await a.expect_reply(ref)
    assert err["code"] == "illegal_action" and err["details"]["rule"] == "add_range"
    ref = await a.send({"type": "action", "match_id": match_id,
                        "request_id": first["request_id"], "action": {"jump": 1}})
    assert (await a.expect_reply(ref))["code"] == "malformed_action"
    await a.send({"type": "action", "match_id": match_id, "request_id": first["request_id"],
                  "action": {"add": 1}})
    for client in (b, c):
        request = await client.expect("request", match_id=match_id)
        await client.send({"type": "action", "match_id": match_id,
                           "request_id": request["request_id"], "action": {"add": 1}})
    second = await a.expect("request", match_id=match_id)
    assert second["request_id"] != first["request_id"]
    ref = await a.send({"type": "action", "match_id": match_id,
                        "request_id": first["request_id"], "action": {"add": 1}})
    err = await a.expect_reply(ref)
    assert err["code"] == "stale_request" and err["request_id"] == first["request_id"]
    # the right id still works afterwards
    await a.send({"type": "action", "match_id": match_id,
                  "request_id": second["request_id"], "action": {"add": 2}})
    assert (await b.expect("request", match_id=match_id))["view"]["count"] == 5
    await assert_finished(task)


async def test_a_bot_that_stops_answering_loses_on_time(server: ArenaServer) -> None:
    task, _ = await background_match(server, "bg")
    a = await account_client(server, "quick")
    b = await account_client(server, "silent")
    match_id = await challenge_match(a, [b], "race", {"target": 40},
                                     clock={"initial_ms": 1000, "increment_ms": 50})
    request = await a.expect("request", match_id=match_id)
    assert request["clock_ms"] == 1000
    await a.send({"type": "action", "match_id": match_id,
                  "request_id": request["request_id"], "action": {"add": 1}})
    request = await b.expect("request", match_id=match_id)
    # b says nothing from here on
    end = await a.expect("match_end", match_id=match_id, timeout=5)
    assert end["outcome"] == {"ranks": [0, 1], "reason": "timeout"}
    assert (await b.expect("match_end", match_id=match_id))["outcome"] == end["outcome"]
    late = await b.send({"type": "action", "match_id": match_id,
                         "request_id": request["request_id"], "action": {"add": 1}})
    assert (await b.expect_reply(late))["code"] == "not_your_turn"
    await assert_finished(task)


async def test_a_bot_disconnects_resumes_and_finishes(server: ArenaServer) -> None:
    a = await account_client(server, "steady")
    b = await account_client(server, "flaky", encoding="msgpack")
    match_id = await challenge_match(a, [b], "race", {"target": 30})
    session = b.welcome["session"]  # type: ignore[index]
    # play a few moves, then drop b's connection while it owes an action
    for _ in range(3):
        for client in (a, b):
            request = await client.expect("request", match_id=match_id)
            await client.send({"type": "action", "match_id": match_id,
                               "request_id": request["request_id"], "action": {"add": 1}})
    request = await a.expect("request", match_id=match_id)
    await a.send({"type": "action", "match_id": match_id,
                  "request_id": request["request_id"], "action": {"add": 1}})
    owed = await b.expect("request", match_id=match_id)
    b.ws.transport.abort()   # the network goes away; no close handshake
    notice = await a.expect_where(lambda m: m["type"] == "events" and m["events"][0]["type"]
                                  == "disconnected")
    assert notice["events"] == [{"type": "disconnected", "seat": 1}]
    back = await WsClient.open(server.ws_url, "msgpack")
    welcome = await back.hello(resume=session)
    assert welcome["type"] == "welcome" and welcome["account"]["name"] == "flaky"
    start = await back.expect("match_start", match_id=match_id)
    assert start["your_seat"] == 1 and start["view"]["count"] == 7
    again = await back.expect("request", match_id=match_id)
    assert again["request_id"] == owed["request_id"]
    notice = await a.expect_where(lambda m: m["type"] == "events" and m["events"][0]["type"]
                                  == "reconnected")
    assert notice["events"] == [{"type": "reconnected", "seat": 1}]
    await back.send({"type": "action", "match_id": match_id,
                     "request_id": again["request_id"], "action": {"add": 2}})
    ends = await asyncio.gather(play_random(a, match_id, 3), play_random(back, match_id, 4))
    assert ends[0]["outcome"]["reason"] == "target"
    # an unknown resume token is refused, and the connection may say hello again
    other = await WsClient.open(server.ws_url)
    assert (await other.hello(resume="bogus"))["code"] == "unauthorized"
    assert (await other.hello())["type"] == "welcome"


async def test_a_seat_that_never_returns_forfeits(store: SqliteStore) -> None:
    server = ArenaServer(store, grace_s=0.3)
    await server.start("127.0.0.1", 0)
    try:
        a = await account_client(server, "stay")
        b = await account_client(server, "gone")
        match_id = await challenge_match(a, [b], "race")
        await b.close()
        end = await a.expect("match_end", match_id=match_id, timeout=5)
        assert end["outcome"] == {"ranks": [0, 1], "reason": "forfeit"}
    finally:
        await server.close()


async def test_an_engine_fault_voids_one_match_only(server: ArenaServer) -> None:
    task, _ = await background_match(server, "bg")
    a = await account_client(server, "f-a")
    b = await account_client(server, "f-b")
    match_id = await challenge_match(a, [b], "faulty")
    for client in (a, b, a):
        request = await client.expect("request", match_id=match_id)
        await client.send({"type": "action", "match_id": match_id,
                           "request_id": request["request_id"], "action": {"add": 1}})
    for client in (a, b):
        assert (await client.expect("error", match_id=match_id))["code"] == "internal"
        end = await client.expect("match_end", match_id=match_id)
        assert end["outcome"]["reason"] == "void"
    await asyncio.to_thread(server.store.flush)
    row = server.store.get_match(match_id)
    assert row is not None and row.status == "void"
    await assert_finished(task)


def raw_ws_socket(port: int) -> socket.socket:
    """A TCP socket with a tiny receive buffer, for a client that will stop reading."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.setblocking(False)
    return sock


async def test_a_slow_client_is_dropped_without_harming_others(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "slow.sqlite3")
    # Budgets large enough for 90 replays at once: this is about reading, not rate.
    unlimited = Limits(rate_per_s=10_000, burst=10_000, address_rate_per_s=10_000,
                       address_burst=10_000, guests_rate_per_s=10_000, guests_burst=10_000)
    server = ArenaServer(store, send_queue_messages=64, send_queue_bytes=256 * 1024,
                         limits=unlimited)
    await server.start("127.0.0.1", 0)
    try:
        # a finished match with a long replay to ask for
        a = await account_client(server, "r-a")
        b = await account_client(server, "r-b")
        # Replays of ~100 KB each: 90 of them overflow the kernel's socket buffer (up to
        # 4 MiB, autotuned) and then the server's own bound.
        done = await challenge_match(a, [b], "race", {"target": 1500})
        await asyncio.gather(play_random(a, done, 1), play_random(b, done, 2))
        task, _ = await background_match(server, "bg")
        slow = await WsClient.open(server.ws_url, sock=raw_ws_socket(server.port))
        await slow.hello()
        before = len(server.connections)
        slow.ws.transport.pause_reading()   # from now on this client reads nothing
        for _ in range(90):
            await slow.send({"type": "get_replay", "match_id": done})
        for _ in range(100):
            if len(server.connections) < before:
                break
            await asyncio.sleep(0.05)
        assert len(server.connections) == before - 1
        await assert_finished(task)
    finally:
        await server.close()
        store.close()


async def test_a_restarted_bot_logs_in_with_its_token_and_gets_its_seat_back(
        server: ArenaServer) -> None:
    token = await asyncio.to_thread(server.store.create_account, "phoenix", "bot")
    a = await account_client(server, "keeper")
    b = await WsClient.open(server.ws_url)
    await b.hello(token=token)
    match_id = await challenge_match(a, [b], "race", {"target": 12})
    request = await a.expect("request", match_id=match_id)
    await a.send({"type": "action", "match_id": match_id,
                  "request_id": request["request_id"], "action": {"add": 1}})
    owed = await b.expect("request", match_id=match_id)
    b.ws.transport.abort()   # the bot process dies; its resume token dies with it
    reborn = await WsClient.open(server.ws_url)
    welcome = await reborn.hello(token=token, resume="from-a-previous-server-run")
    assert welcome["type"] == "welcome" and welcome["account"]["name"] == "phoenix"
    assert (await reborn.expect("match_start", match_id=match_id))["your_seat"] == 1
    again = await reborn.expect("request", match_id=match_id)
    assert again["request_id"] == owed["request_id"]
    ends = await asyncio.gather(play_random(a, match_id, 1),
                                play_random(reborn, match_id, 2, first=again))
    assert ends[0]["outcome"]["reason"] == "target"
    # a second login of the same account while the first is connected is a new session
    twin = await WsClient.open(server.ws_url)
    assert (await twin.hello(token=token))["session"] != welcome["session"]


async def test_lobby_and_ladder_errors_do_not_quote_what_the_client_sent(
        server: ArenaServer) -> None:
    """Names a client makes up (games, accounts, bots, versions) come back in no error text:
    the error says what is wrong, ``ref`` says about which message."""
    mark = "zz<script>mark"
    bot = await account_client(server, "quoting-bot")
    visitor = await WsClient.open(server.ws_url)
    await visitor.hello(name="visitor")
    asks: list[tuple[WsClient, dict[str, Any]]] = [
        (visitor, {"type": "seek", "game": mark}),
        (visitor, {"type": "play_bot", "game": mark}),
        (visitor, {"type": "play_bot", "game": "battleline", "bot": mark}),
        (visitor, {"type": "challenge", "accounts": [mark], "game": "battleline"}),
        (bot, {"type": "autoplay", "games": ["battleline", mark]}),
        (bot, {"type": "ladder_join", "game": mark, "bot": "b", "version": "1",
               "max_matches": 1}),
        (bot, {"type": "ladder_join", "game": "battleline", "bot": "b", "version": "2",
               "max_matches": 1, "seed_from_version": mark}),
        (visitor, {"type": "get_rating_history", "game": "battleline", "bot": mark}),
        (visitor, {"type": "get_replay", "match_id": mark}),
        (visitor, {"type": "spectate", "match_id": mark}),
    ]
    for client, message in asks:
        ref = await client.send(message)
        reply = await client.expect_reply(ref)
        assert reply["type"] == "error" and reply["code"] in ("not_found", "bad_request"), (
            message, reply)
        assert mark not in str(reply), (message, reply)
