"""The time contract on a real server (localhost:0, real websocket clients): a per-decision
limit whose expiry takes the game's default action (the test-only Goofspiel: the lowest card)
and the match goes on to its end; in Battle Line a missed deadline is still a loss; clocks the
server cannot use are refused."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from engine import registry
from server.app import ArenaServer
from tests.games.goofspiel import GAME as GOOFSPIEL
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient, play_random


@pytest.fixture(autouse=True)
def goofspiel_registered() -> Iterator[None]:
    registry.register(GOOFSPIEL, replace=True)
    yield
    registry.unregister(GOOFSPIEL.info.name)


def events(client: WsClient, match_id: str) -> list[dict[str, Any]]:
    return [e for m in client.received if m["type"] == "events" and m["match_id"] == match_id
            for e in m["events"]]


async def test_a_silent_goofspiel_seat_plays_its_default_card_until_the_end(
        server: ArenaServer) -> None:
    a = await account_client(server, "bidder")
    b = await account_client(server, "silent")
    watcher = await WsClient.open(server.ws_url)
    await watcher.hello(name="watcher")
    ref = await a.send({"type": "list_games"})
    games = {g["name"]: g for g in (await a.expect_reply(ref))["games"]}
    assert games["goofspiel"]["timeout"] == "default"
    assert games["battleline"]["timeout"] == "loss"

    match_id = await challenge_match(a, [b], "goofspiel", {"cards": 4},
                                     clock={"decision_ms": 250})
    ref = await watcher.send({"type": "spectate", "match_id": match_id})
    await watcher.expect_reply(ref)
    first = await b.expect("request", match_id=match_id)
    assert first["deadline_ms"] == 250 and first["clock_ms"] is None
    # b says nothing from here on; a bids at random, every round, to the end.
    end, watched = await asyncio.gather(
        play_random(a, match_id, 5),
        watcher.expect("match_end", match_id=match_id, timeout=10))
    assert end["outcome"]["reason"] == "score" and watched["outcome"] == end["outcome"]
    assert (await b.expect("match_end", match_id=match_id))["outcome"] == end["outcome"]

    # Four rounds, four timeouts of seat 1; only seat 1's own copy names the card taken.
    timeouts = [e for e in events(b, match_id) if e["type"] == "timeout"]
    assert timeouts == [{"type": "timeout", "seats": [1], "default": True,
                         "action": {"bid": k}} for k in (1, 2, 3, 4)]
    for other in (a, watcher):
        assert [e for e in events(other, match_id) if e["type"] == "timeout"] == [
            {"type": "timeout", "seats": [1], "default": True}] * 4
    reveals = [e["bids"][1] for e in events(a, match_id) if e["type"] == "reveal"]
    assert reveals == [1, 2, 3, 4]

    # Its answer to the first request, long after the default was taken, is refused.
    late = await b.send({"type": "action", "match_id": match_id,
                         "request_id": first["request_id"], "action": {"bid": 4}})
    assert (await b.expect_reply(late))["code"] == "not_your_turn"
    await asyncio.to_thread(server.store.flush)
    row = server.store.get_match(match_id)
    assert row is not None and row.status == "over"
    assert [entry["1"] for entry in row.log if "1" in entry] == [{"bid": k} for k in range(1, 5)]


async def test_a_battleline_seat_past_its_decision_limit_still_loses(server: ArenaServer) -> None:
    a = await account_client(server, "slow-north")
    b = await account_client(server, "south")
    match_id = await challenge_match(a, [b], "battleline", clock={
        "initial_ms": 60_000, "increment_ms": 0, "decision_ms": 300})
    start = [m for m in a.received if m["type"] == "match_start"][-1]
    assert start["clock"] == {"initial_ms": 60_000, "increment_ms": 0, "decision_ms": 300}
    request = await a.expect("request", match_id=match_id)
    assert request["deadline_ms"] == 300 and request["clock_ms"] == 60_000
    end = await b.expect("match_end", match_id=match_id, timeout=5)  # a never answers
    assert end["outcome"] == {"ranks": [1, 0], "reason": "timeout"}
    assert {"type": "timeout", "seats": [0]} in events(b, match_id)


@pytest.mark.parametrize("clock,code,words", [
    ({"decision_ms": 0}, "bad_request", "clock.decision_ms must be a positive integer"),
    ({"initial_ms": 0, "increment_ms": 0}, "bad_request", "clock.initial_ms must be a positive"),
    ({"increment_ms": 500, "decision_ms": 1_000}, "malformed", "initial_ms"),
    ({}, "malformed", "initial_ms"),
])
async def test_a_clock_the_server_cannot_use_is_refused(server: ArenaServer, clock: Any,
                                                       code: str, words: str) -> None:
    a = await account_client(server, "seeker")
    ref = await a.send({"type": "seek", "game": "goofspiel", "clock": clock})
    error = await a.expect_reply(ref)
    assert error["type"] == "error" and error["code"] == code
    assert words in error["message"]
