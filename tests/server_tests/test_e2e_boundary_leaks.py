"""The leak test for Boundary's hidden plans, over a real server: in many seeded matches, from
the moment one seat's plan is in until the other seat's is, nothing that seat or a spectator
receives depends on that plan: only ``committed`` (the ready flag) arrives, and a seat or
spectator that reconnects meanwhile gets the very view it had and the ready flag, never the
plan. Over JSON and msgpack; the plan is revealed to everyone in the resolution afterwards."""

from __future__ import annotations

from typing import Any

import pytest

from engine import spaces
from engine.rng import Rng
from server.app import ArenaServer
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient

MATCHES = 6
TURNS = 4


def is_resolution(message: dict[str, Any]) -> bool:
    return message["type"] == "events" and any(e["type"] == "resolution"
                                               for e in message["events"])


def window(received: list[dict[str, Any]], start: int, match_id: str) -> list[dict[str, Any]]:
    """This match's messages from ``start`` up to (not including) the next resolution."""
    out = []
    for message in received[start:]:
        if message.get("match_id") != match_id:
            continue
        if is_resolution(message):
            break
        out.append(message)
    return out


async def reconnect(client: WsClient, encoding: str, server: ArenaServer) -> WsClient:
    """Drop ``client``'s connection and resume its session on a new one."""
    session = client.welcome["session"]  # type: ignore[index]
    client.ws.transport.abort()
    back = await WsClient.open(server.ws_url, encoding)
    welcome = await back.hello(resume=session)
    assert welcome["type"] == "welcome"
    return back


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
async def test_a_committed_plan_reaches_nobody_before_the_resolution(
        server: ArenaServer, encoding: str) -> None:
    rng = Rng(2113)
    for n in range(MATCHES):
        first_seat = n % 2                      # who plans first alternates
        seats = [await account_client(server, f"lk-{encoding}-{n}-{s}", encoding=encoding,
                                      views=bool(s)) for s in (0, 1)]
        watcher = await WsClient.open(server.ws_url, encoding)
        await watcher.hello(name=f"watcher-{n}", views=True)
        match_id = await challenge_match(seats[0], seats[1:], "boundary",
                                         options={"turn_limit": TURNS})
        await watcher.expect_reply(await watcher.send({"type": "spectate",
                                                       "match_id": match_id}))
        for turn in range(TURNS):
            requests = [await c.expect("request", match_id=match_id) for c in seats]
            early, late = first_seat, 1 - first_seat
            # A plan that moves every piece: something to leak if anything leaked.
            secret = spaces.sample(requests[early]["action_space"], rng, include=1)
            marks = [len(c.received) for c in seats] + [len(watcher.received)]
            await seats[early].send({"type": "action", "match_id": match_id,
                                     "request_id": requests[early]["request_id"],
                                     "action": secret})
            await seats[early].expect_where(lambda m: m["type"] == "events" and any(
                e["type"] == "committed" for e in m["events"]))
            for client in (seats[late], watcher):
                await client.wait_for(lambda m: m["type"] == "events" and any(
                    e["type"] == "committed" for e in m["events"]))
            if turn == 1:
                # The late seat, and on even matches the spectator, reconnect mid-planning.
                seats[late] = await reconnect(seats[late], encoding, server)
                start = await seats[late].expect("match_start", match_id=match_id)
                assert start["committed"] == [early] and "commitment" not in start
                assert start["view"] == requests[late]["view"]
                again = await seats[late].expect("request", match_id=match_id)
                assert again["request_id"] == requests[late]["request_id"]
                assert again["action_space"] == requests[late]["action_space"]
                marks[late] = 0
                if n % 2 == 0:
                    watcher = await reconnect(watcher, encoding, server)
                    resent = await watcher.expect("match_start", match_id=match_id)
                    assert resent["committed"] == [early] and "commitment" not in resent
                    marks[2] = 0
            for who, client in ((f"seat {late}", seats[late]), ("spectator", watcher)):
                seen = window(client.received, marks[late if who != "spectator" else 2],
                              match_id)
                for message in seen:
                    if message["type"] == "events":
                        events = [e for e in message["events"] if e["type"] != "reconnected"
                                  and e["type"] != "disconnected"]
                        assert events in ([], [{"type": "committed", "seat": early}]), \
                            (who, message)
                        assert "view" not in message or message["view"] == \
                            requests[late]["view"], (who, "a view changed before resolution")
                    elif message["type"] == "match_start":
                        assert message["view"] == requests[late]["view"]
                        assert "commitment" not in message
                    else:
                        assert message["type"] == "request", (who, message)
                        assert message["view"] == requests[late]["view"]
            await seats[late].send({"type": "action", "match_id": match_id,
                                    "request_id": requests[late]["request_id"],
                                    "action": {"turn": turn, "moves": {}}})
            for client in (*seats, watcher):
                step = await client.expect_where(
                    lambda m, match=match_id: is_resolution(m) and m["match_id"] == match)
                (resolution,) = [e for e in step["events"] if e["type"] == "resolution"]
                assert resolution["plans"][early] == secret["moves"]   # revealed now
            first_seat = 1 - first_seat
        for client in (*seats, watcher):
            end = await client.expect("match_end", match_id=match_id)
            assert end["outcome"]["reason"] in ("turn_limit", "treasures", "elimination")
            await client.close()


async def test_a_seat_that_reconnects_after_planning_gets_its_own_plan_back(
        server: ArenaServer) -> None:
    blue = await account_client(server, "own-blue")
    red = await account_client(server, "own-red")
    match_id = await challenge_match(blue, [red], "boundary")
    request = await blue.expect("request", match_id=match_id)
    mine = spaces.sample(request["action_space"], Rng(7), include=1)
    await blue.send({"type": "action", "match_id": match_id,
                     "request_id": request["request_id"], "action": mine})
    await blue.expect_where(lambda m: m["type"] == "events" and m["events"][0]["type"]
                            == "committed")
    back = await reconnect(blue, "json", server)
    start = await back.expect("match_start", match_id=match_id)
    assert start["committed"] == [0] and start["commitment"] == mine
    red_request = await red.expect("request", match_id=match_id)
    await red.send({"type": "action", "match_id": match_id,
                    "request_id": red_request["request_id"],
                    "action": {"turn": 0, "moves": {}}})
    step = await back.expect_where(is_resolution)
    assert next(e for e in step["events"] if e["type"] == "resolution")["plans"][0] == \
        mine["moves"]
