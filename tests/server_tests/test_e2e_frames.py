"""The server's input path at the websocket level: messages are handled where websockets
parses them (server.wsadapter.ArenaWebSocket), in the order each client sent them, whether
they came in fragments, were pipelined behind a handler that waits, or arrived before the
server attached its handler. Each test checks that another match on the server plays on."""

from __future__ import annotations

import asyncio
import json

import msgpack
from websockets.frames import Frame, Opcode

from server.app import BACKLOG_MESSAGES, ArenaServer
from tests.server_tests.test_e2e_errors import assert_finished, background_match
from tests.server_tests.wsclient import WsClient


async def test_a_fragmented_message_is_reassembled(server: ArenaServer) -> None:
    task, _ = await background_match(server, "bg")
    client = await WsClient.open(server.ws_url)
    await client.hello()
    # websockets sends an iterable as one message in several frames (text, then continuations)
    await client.ws.send(['{"type":', '"ping",', '"id":', '41}'])
    assert (await client.expect_reply(41))["type"] == "pong"
    packed = msgpack.packb({"type": "ping", "id": 42})
    binary = await WsClient.open(server.ws_url, "msgpack")
    await binary.hello()
    await binary.ws.send([packed[:5], packed[5:9], packed[9:]])  # binary, then continuations
    assert (await binary.expect_reply(42))["type"] == "pong"
    await assert_finished(task)
    await client.close()
    await binary.close()


async def test_invalid_utf8_in_a_text_frame_closes_with_1007(server: ArenaServer) -> None:
    task, _ = await background_match(server, "bg")
    client = await WsClient.open(server.ws_url)
    await client.hello()
    client.ws.protocol.send_frame(Frame(Opcode.TEXT, b'{"type":"ping","pad":"\xff\xfe"}'))
    client.ws.send_data()
    await asyncio.wait_for(client.ws.wait_closed(), 5)
    assert client.ws.close_code == 1007
    await assert_finished(task)


async def test_pipelined_messages_behind_a_waiting_hello_keep_their_order(
        server: ArenaServer) -> None:
    """A hello with an account token waits for the store; everything sent right behind it
    (more than the backlog bound, so reading pauses and resumes) is answered after the
    welcome, in order."""
    task, _ = await background_match(server, "bg")
    token = await asyncio.to_thread(server.store.create_account, "pipeliner", "bot")
    client = await WsClient.open(server.ws_url)
    count = BACKLOG_MESSAGES * 2 + 5
    frames = [json.dumps({"type": "hello", "protocol": 1, "id": "h", "token": token})]
    frames += [json.dumps({"type": "ping", "id": n}) for n in range(count)]
    for frame in frames:  # no awaiting replies in between: all in flight at once
        await client.send_raw(frame)
    welcome = await client.recv()
    assert welcome["type"] == "welcome" and welcome["ref"] == "h"
    assert welcome["account"]["name"] == "pipeliner"
    refs = [(await client.recv())["ref"] for _ in range(count)]
    assert refs == list(range(count))
    await assert_finished(task)
    await client.close()


async def test_messages_sent_with_the_handshake_are_not_lost(server: ArenaServer) -> None:
    """A client that writes as early as it can, right after the upgrade (possibly before
    the server's handler has attached): every message is answered, in order."""
    client = await WsClient.open(server.ws_url)
    for n in range(5):
        await client.send_raw(json.dumps({"type": "list_games", "id": n}))  # before hello
    await client.send_raw('{"type":"hello","protocol":1,"id":"h"}')
    await client.send_raw('{"type":"ping","id":"after"}')
    refused = [await client.recv() for _ in range(5)]
    assert [(m["code"], m["ref"]) for m in refused] == [("unauthorized", n) for n in range(5)]
    assert (await client.recv())["type"] == "welcome"
    assert (await client.recv())["ref"] == "after"
    await client.close()
