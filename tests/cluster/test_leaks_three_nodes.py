"""The socket spy of ``tests/server_tests/test_spy_sockets.py`` over three nodes: two seats
on nodes ``a`` and ``b`` (the match is hosted on ``b``: the seat of ``a`` gets its frames over
Redis) and a spectator on ``c`` (all of its frames cross Redis), JSON and msgpack, every one
asking for views. Every message each receives is searched for what its viewer may not know
at that moment, taken from the host's runner, in lock step."""

from __future__ import annotations

import random
from typing import Any

import pytest

from server.app import ArenaServer
from tests.server_tests.test_spy_sockets import OPTIONS, act_until_over, check, settle
from tests.server_tests.wsclient import WsClient


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
@pytest.mark.parametrize("game", ["battleline", "boundary"])
async def test_no_leak_across_nodes(three_nodes: list[ArenaServer], game: str,
                                    encoding: str) -> None:
    a, b, c = three_nodes
    rng = random.Random(f"nodes-{game}-{encoding}")
    players = []
    for node, name in ((a, "north"), (b, "south")):
        client = await WsClient.open(node.ws_url, encoding)
        await client.hello(name=name, views=True)
        players.append(client)
    for client in players:
        ref = await client.send({"type": "seek", "game": game, "options": OPTIONS[game]})
        assert (await client.expect_reply(ref))["type"] == "seeking"
    starts = [await client.expect("match_start") for client in players]
    match_id = starts[0]["match_id"]
    assert b.live.get(match_id) is not None and match_id not in a.live  # hosted on b
    runner = b.live[match_id].runner
    seats = [players[i] for i in sorted((0, 1), key=lambda i: starts[i]["your_seat"])]
    for seat, client in enumerate(seats):
        for message in client.received:
            if message.get("match_id") == match_id:
                check(runner, seat, message, encoding)
    watcher = await WsClient.open(c.ws_url, encoding)
    await watcher.hello(name="watcher", views=True)
    ref = await watcher.send({"type": "spectate", "match_id": match_id})
    start = await watcher.wait_for(lambda m: m.get("ref") == ref)
    assert start["type"] == "match_start" and start["seq"] == runner.seq
    clients = [*seats, watcher]
    requests: dict[int, dict[str, Any]] = {}
    checked = await settle(runner, clients, requests, encoding)
    checked += await act_until_over(runner, match_id, seats, clients, requests, encoding,
                                    rng)
    assert checked > 40
    for client in clients:
        await client.close()
