"""Boundary over a real server: both seats plan at once from their requests' action spaces, a
plan is acknowledged to its own seat while the other seat and spectators learn only that it
is in (``committed``), the turn resolves when both are in (or at the deadline, with the empty
plan), and every bad plan gets the typed error naming its rule while the match goes on."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine import spaces
from engine.rng import Rng
from server.app import ArenaServer
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient, play_random


def plan(request: dict[str, Any], moves: dict[str, list[int]] | None = None,
         turn: int | None = None) -> dict[str, Any]:
    return {"turn": request["view"]["turn"] if turn is None else turn, "moves": moves or {}}


async def act(client: WsClient, match_id: str, request: dict[str, Any], action: Any) -> Any:
    return await client.send({"type": "action", "match_id": match_id,
                              "request_id": request["request_id"], "action": action})


async def refused(client: WsClient, match_id: str, request: dict[str, Any],
                  action: Any) -> dict[str, Any]:
    err = await client.expect_reply(await act(client, match_id, request, action))
    assert err["type"] == "error" and err["match_id"] == match_id, err
    return err


async def next_events(client: WsClient, match_id: str, kind: str) -> dict[str, Any]:
    """The next ``events`` message of the match with an event of type ``kind``."""
    return await client.expect_where(lambda m: m["type"] == "events"
                                     and m["match_id"] == match_id
                                     and any(e["type"] == kind for e in m["events"]))


def own_piece(request: dict[str, Any]) -> dict[str, Any]:
    seat = request["seat"]
    return next(p for p in request["view"]["pieces"] if p["team"] == seat)


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
async def test_a_simultaneous_turn_acknowledges_each_plan_and_reveals_both_after(
        server: ArenaServer, encoding: str) -> None:
    blue = await account_client(server, f"blue-{encoding}", encoding=encoding, views=True)
    red = await account_client(server, f"red-{encoding}", encoding=encoding)
    watcher = await WsClient.open(server.ws_url, encoding)
    await watcher.hello(name="watcher")
    match_id = await challenge_match(blue, [red], "boundary")
    await watcher.expect_reply(await watcher.send({"type": "spectate", "match_id": match_id}))
    requests = [await blue.expect("request", match_id=match_id),
                await red.expect("request", match_id=match_id)]
    for seat, request in enumerate(requests):
        # Both seats are asked at once; each request describes its space, not a list.
        assert "legal_actions" not in request and request["seat"] == seat
        assert request["default_action"] == {"turn": 0, "moves": {}}
        space = request["action_space"]
        entries = space["fields"]["moves"]["entries"]
        own = [str(p["id"]) for p in request["view"]["pieces"] if p["team"] == seat]
        assert sorted(entries, key=int) == own
        assert all(e["radius"] == 40 for e in entries.values())
    piece = own_piece(requests[0])
    secret = plan(requests[0], {str(piece["id"]): [piece["x"] + 9, piece["y"] + 7]})
    await act(blue, match_id, requests[0], secret)
    ack = await next_events(blue, match_id, "committed")
    assert ack["events"] == [{"type": "committed", "seat": 0, "action": secret}]
    assert "view" in ack   # blue asked for views
    for other in (red, watcher):
        ready = await next_events(other, match_id, "committed")
        assert ready["events"] == [{"type": "committed", "seat": 0}]
    # A second plan for the same turn is refused; the first one stands.
    err = await refused(blue, match_id, requests[0], plan(requests[0]))
    assert err["code"] == "illegal_action" and err["details"]["rule"] == "already_committed"
    await act(red, match_id, requests[1], plan(requests[1]))
    for client in (blue, red, watcher):
        step = await next_events(client, match_id, "resolution")
        (resolution,) = [e for e in step["events"] if e["type"] == "resolution"]
        assert resolution["plans"] == [secret["moves"], {}] and resolution["turn"] == 0
        assert resolution["walks"] == [[piece["id"], piece["x"], piece["y"],
                                        piece["x"] + 9, piece["y"] + 7]]
    nxt = await blue.expect("request", match_id=match_id)
    assert nxt["view"]["turn"] == 1 and nxt["view"]["last"]["plans"][0] == secret["moves"]
    moved = next(p for p in nxt["view"]["pieces"] if p["id"] == piece["id"])
    assert (moved["x"], moved["y"]) == (piece["x"] + 9, piece["y"] + 7)
    # Nothing blue planned was sent to red or the watcher before red's plan was in.
    first_resolution = next(i for i, m in enumerate(red.received) if m["type"] == "events"
                            and any(e["type"] == "resolution" for e in m["events"]))
    before = str(red.received[:first_resolution]) + str(watcher.received)
    assert str(piece["x"] + 9) + ", " + str(piece["y"] + 7) not in before.split("resolution")[0]


async def test_every_bad_plan_gets_a_typed_error_and_the_match_goes_on(
        server: ArenaServer) -> None:
    blue = await account_client(server, "blue-bad")
    red = await account_client(server, "red-bad")
    match_id = await challenge_match(blue, [red], "boundary")
    request = await blue.expect("request", match_id=match_id)
    mine = own_piece(request)
    theirs = next(p for p in request["view"]["pieces"] if p["team"] == 1)
    pid, x, y = str(mine["id"]), mine["x"], mine["y"]
    illegal = {
        "not_your_piece": plan(request, {str(theirs["id"]): [theirs["x"], theirs["y"]]}),
        "out_of_reach": plan(request, {pid: [x + 41, y] if x + 41 < 800 else [x - 41, y]}),
        "off_field": plan(request, {pid: [x, 800]}),
        "stale_turn": plan(request, {pid: [x, y]}, turn=5),
    }
    for rule, action in illegal.items():
        err = await refused(blue, match_id, request, action)
        assert err["code"] == "illegal_action", (rule, err)
        assert err["details"]["rule"] == rule, err
        assert err["request_id"] == request["request_id"]
    malformed: list[Any] = [{"turn": 0}, {"turn": 0, "moves": {pid: [x + 0.5, y]}},
                            {"turn": 0, "moves": {"x": [1, 2]}}, "stay", None, [1, 2],
                            {"turn": "0", "moves": {}}]
    for bad in malformed:
        err = await refused(blue, match_id, request, bad)
        assert err["code"] == "malformed_action", (bad, err)
    stale = dict(request, request_id="not-the-open-one")
    err = await refused(blue, match_id, stale, plan(request))
    assert err["code"] == "stale_request"
    # The request stayed open through all of it: a good plan is accepted.
    good = plan(request, {pid: [x + 10, y] if x + 10 < 800 else [x - 10, y]})
    await act(blue, match_id, request, good)
    ack = await next_events(blue, match_id, "committed")
    assert ack["events"][0] == {"type": "committed", "seat": 0, "action": good}
    red_request = await red.expect("request", match_id=match_id)
    await act(red, match_id, red_request, plan(red_request))
    assert (await blue.expect("request", match_id=match_id))["view"]["turn"] == 1


async def test_a_missed_deadline_plays_the_empty_plan_and_the_match_goes_on(
        server: ArenaServer) -> None:
    blue = await account_client(server, "blue-slow")
    red = await account_client(server, "red-fast")
    match_id = await challenge_match(blue, [red], "boundary", clock={"decision_ms": 400})
    blue_request = await blue.expect("request", match_id=match_id)
    assert 0 < blue_request["deadline_ms"] <= 400
    red_request = await red.expect("request", match_id=match_id)
    mine = own_piece(red_request)
    moves = {str(mine["id"]): [mine["x"], mine["y"] + 5 if mine["y"] < 700 else mine["y"] - 5]}
    await act(red, match_id, red_request, plan(red_request, moves))
    # Blue never answers: at the deadline its empty plan is committed and the turn resolves.
    step = await next_events(blue, match_id, "resolution")
    timeout = next(e for e in step["events"] if e["type"] == "timeout")
    assert timeout["default"] is True and timeout["action"] == {"turn": 0, "moves": {}}
    resolution = next(e for e in step["events"] if e["type"] == "resolution")
    assert resolution["plans"] == [{}, moves]
    again = await blue.expect("request", match_id=match_id)
    assert again["view"]["turn"] == 1 and again["request_id"] != blue_request["request_id"]
    # The late answer to the old request is stale; the match is live and goes on.
    err = await refused(blue, match_id, blue_request, plan(blue_request))
    assert err["code"] == "stale_request"
    live = server.find_match(match_id)
    assert live is not None and live.runner.status == "live"


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
async def test_random_clients_play_whole_boundary_matches_from_the_request_alone(
        server: ArenaServer, encoding: str) -> None:
    a = await account_client(server, f"bd-a-{encoding}", encoding=encoding)
    b = await account_client(server, f"bd-b-{encoding}", encoding=encoding)
    match_id = await challenge_match(a, [b], "boundary", options={"turn_limit": 30})
    ends = await asyncio.gather(play_random(a, match_id, 1), play_random(b, match_id, 2))
    outcome = ends[0]["outcome"]
    assert ends[1]["outcome"] == outcome
    assert outcome["reason"] in ("treasures", "elimination", "turn_limit")
    ref = await a.send({"type": "get_replay", "match_id": match_id})
    replay = await a.expect_reply(ref)
    assert replay["status"] == "over" and "seed" not in str(replay.keys())
    assert list(replay["log"][0]) == ["chance"] and set(replay["log"][1]) == {"0", "1"}


def sample_plan(request: dict[str, Any], rng: Rng) -> Any:
    return spaces.sample(request["action_space"], rng)
