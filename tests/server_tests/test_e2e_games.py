"""The real games over a real server: complete Battle Line, Chexers and Barca matches over JSON
and msgpack, with a spectator (no Barca message carries the match's seed); and the leak test
over many seeded Battle Line matches."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from engine.rng import Rng, seed_from_text
from protocol import Limits
from server.app import ArenaServer
from server.storage import SqliteStore
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient, play_random


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
async def test_two_bots_play_complete_battleline_matches(server: ArenaServer,
                                                         encoding: str) -> None:
    a = await account_client(server, "bl-a", encoding=encoding)
    b = await account_client(server, "bl-b", encoding=encoding)
    watcher = await WsClient.open(server.ws_url, encoding)
    await watcher.hello(name="watcher")
    for round_ in range(2):
        match_id = await challenge_match(a, [b], "battleline")
        ref = await watcher.send({"type": "spectate", "match_id": match_id})
        start = await watcher.expect_reply(ref)
        assert start["your_seat"] is None and "hand" not in start["view"]
        ends = await asyncio.gather(play_random(a, match_id, 10 + round_),
                                    play_random(b, match_id, 20 + round_),
                                    watcher.expect("match_end", match_id=match_id, timeout=30))
        outcome = ends[0]["outcome"]
        assert ends[1]["outcome"] == ends[2]["outcome"] == outcome
        assert sorted(outcome["ranks"]) in ([0, 1], [0, 0])
        assert outcome["reason"] not in ("void", "timeout", "forfeit")
        # the spectator saw every step of it, numbered without gaps
        seqs = [m["seq"] for m in watcher.received
                if m["type"] == "events" and m["match_id"] == match_id]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    await asyncio.to_thread(server.store.flush)
    rows = [r for r in server.store.list_matches(game="battleline") if r.status == "over"]
    assert len(rows) == 2 and all(r.log for r in rows)


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
async def test_three_bots_play_a_complete_chexers_match(server: ArenaServer,
                                                        encoding: str) -> None:
    bots = [await account_client(server, f"cx-{n}", encoding=encoding) for n in range(3)]
    match_id = await challenge_match(bots[0], bots[1:], "chexers")
    ends = await asyncio.gather(*(play_random(c, match_id, n) for n, c in enumerate(bots)))
    outcome = ends[0]["outcome"]
    assert all(e["outcome"] == outcome for e in ends)
    assert len(outcome["ranks"]) == 3 and 0 in outcome["ranks"]
    ref = await bots[0].send({"type": "get_replay", "match_id": match_id})
    replay = await bots[0].expect_reply(ref)
    assert replay["status"] == "over" and len(replay["log"]) == len(replay["steps"]) > 0


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
async def test_two_bots_play_a_complete_barca_match(server: ArenaServer, encoding: str) -> None:
    a = await account_client(server, "ba-a", encoding=encoding)
    b = await account_client(server, "ba-b", encoding=encoding)
    watcher = await WsClient.open(server.ws_url, encoding)
    await watcher.hello(name="watcher")
    match_id = await challenge_match(a, [b], "barca")
    live = server.find_match(match_id)
    assert live is not None
    seed = live.runner.match.seed
    ref = await watcher.send({"type": "spectate", "match_id": match_id})
    start = await watcher.expect_reply(ref)
    assert start["your_seat"] is None
    assert start["view"]["bpn"] == "4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 w 0"
    ends = await asyncio.gather(play_random(a, match_id, 3), play_random(b, match_id, 4),
                                watcher.expect("match_end", match_id=match_id, timeout=60))
    outcome = ends[0]["outcome"]
    assert ends[1]["outcome"] == ends[2]["outcome"] == outcome
    assert outcome["reason"] in ("holes", "claim", "fivefold", "ply_cap")
    ref = await a.send({"type": "get_replay", "match_id": match_id})
    replay = await a.expect_reply(ref)
    assert replay["status"] == "over" and len(replay["log"]) == len(replay["steps"]) > 0
    # Barca hides nothing but the match's seed, which reaches no seat and no spectator.
    for client in (a, b, watcher):
        assert client.received
        for message in client.received:
            assert seed not in strings_and_ints(message)[1], message
            assert str(seed) not in json.dumps(message), message


# ---- the leak test ---------------------------------------------------------------------------


def hidden_from(state: dict[str, Any], viewer: int | None) -> set[str]:
    """Cards ``viewer`` must not learn now: seat 0's hand (both hands for a spectator) less
    what the viewer saw go into it, and every undrawn deck card (Scout-returned cards too,
    unless the viewer returned them)."""
    hidden = set(state["decks"]["troop"]) | set(state["decks"]["tactics"])
    for deck in ("troop", "tactics"):
        hidden |= {card for card, by in state["tops"][deck] if by != viewer}
    if viewer is None:
        return hidden | set(state["hands"][0]) | set(state["hands"][1])
    return hidden | (set(state["hands"][0]) - set(state["known"][viewer]))


def strings_and_ints(value: Any) -> tuple[set[str], set[int]]:
    strings: set[str] = set()
    ints: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            strings.update(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            strings.add(item)
        elif isinstance(item, int) and not isinstance(item, bool):
            ints.add(item)
    return strings, ints


class LeakChecker:
    """Checks every message a watcher received since the last check against the state of
    the match at this moment."""

    def __init__(self, client: WsClient, viewer: int | None, seed: int, since: int) -> None:
        self.client = client
        self.viewer = viewer
        self.seed = seed
        self.checked = since
        self.messages = 0

    def check(self, state: dict[str, Any]) -> None:
        hidden = hidden_from(state, self.viewer)
        for message in self.client.received[self.checked:]:
            strings, ints = strings_and_ints(message)
            leaked = strings & hidden
            assert not leaked, f"{message['type']} to {self.viewer} leaks {leaked}: {message}"
            assert self.seed not in ints and str(self.seed) not in json.dumps(message), message
            self.messages += 1
        self.checked = len(self.client.received)


async def caught_up(client: WsClient, match_id: str, seq: int) -> None:
    await client.wait_for(lambda m: m.get("match_id") == match_id and (
        (m["type"] == "events" and m["seq"] >= seq) or m["type"] == "match_end"))


async def test_no_hidden_card_or_seed_reaches_seat_1_or_a_spectator(tmp_path: Path) -> None:
    seeds = (seed_from_text(f"leak-{n}") >> 1 for n in itertools.count())
    store = SqliteStore(tmp_path / "leak.sqlite3")
    # Seat 1 and the spectator also ask for replays and misbehave, many times a second:
    # lift the flood limit, which is not what this test is about.
    server = ArenaServer(store, seeds=lambda: next(seeds),
                         limits=Limits(rate_per_s=10_000, burst=10_000,
                                       account_rate_per_s=10_000, account_burst=10_000,
                                       address_rate_per_s=10_000, address_burst=10_000,
                                       guests_rate_per_s=10_000, guests_burst=10_000))
    await server.start("127.0.0.1", 0)
    try:
        a = await account_client(server, "seat-zero")
        b = await account_client(server, "seat-one", encoding="msgpack")
        watcher = await WsClient.open(server.ws_url)
        await watcher.hello(name="spy")
        total = 0
        for n in range(20):
            total += await leak_match(server, a, b, watcher, n)
        assert total > 2000  # thousands of messages were inspected
    finally:
        await server.close()
        store.close()


async def leak_match(server: ArenaServer, a: WsClient, b: WsClient, watcher: WsClient,
                     n: int) -> int:
    marks = len(b.received), len(watcher.received)
    match_id = await challenge_match(a, [b], "battleline")
    live = server.find_match(match_id)
    assert live is not None
    runner = live.runner
    ref = await watcher.send({"type": "spectate", "match_id": match_id})
    await watcher.expect_reply(ref)
    checkers = [LeakChecker(b, 1, runner.match.seed, marks[0]),
                LeakChecker(watcher, None, runner.match.seed, marks[1])]
    for checker in checkers:
        checker.check(runner.state)
    rng = Rng(n)
    clients = (a, b)
    steps = 0
    while not runner.is_over:
        (seat, request_id), = [(s, runner.pending_request_id(s)) for s in (0, 1)
                               if runner.pending_request_id(s)]
        request = await clients[seat].expect("request", request_id=request_id)
        if seat == 0 and steps % 17 == 5:
            # seat 1 misbehaves: out of turn, and a stale id; its errors are checked too
            await b.send({"type": "action", "match_id": match_id, "request_id": request_id,
                          "action": request["legal_actions"][0]})
            await b.expect("error", code="not_your_turn")
        if seat == 1 and steps % 13 == 3:
            await b.send({"type": "action", "match_id": match_id, "request_id": "0" * 24,
                          "action": request["legal_actions"][0]})
            await b.expect("error", code="stale_request")
        before = runner.seq
        legal = request["legal_actions"]
        await clients[seat].send({"type": "action", "match_id": match_id,
                                  "request_id": request_id,
                                  "action": legal[rng.below(len(legal))]})
        await clients[seat].wait_for(lambda m, before=before: m.get("match_id") == match_id
                                     and (m["type"] == "match_end"
                                          or (m["type"] == "events" and m["seq"] > before)))
        assert runner.seq > before or runner.is_over
        for checker in checkers:
            await caught_up(checker.client, match_id, runner.seq)
        if runner.pending_request_id(1) is not None:
            pending = runner.pending_request_id(1)
            await b.wait_for(lambda m, rid=pending: m.get("request_id") == rid
                             and m["type"] == "request")
        if steps % 10 == 0 and not runner.is_over:
            for checker in checkers:
                ref = await checker.client.send({"type": "get_replay", "match_id": match_id})
                replay = await checker.client.expect_reply(ref)
                assert replay["status"] == "live" and "log" not in replay
        for checker in checkers:
            checker.check(runner.state)
        steps += 1
    for client in (b, watcher):
        await client.expect("match_end", match_id=match_id)
    for checker in checkers:
        checker.check(runner.state)
    await a.expect("match_end", match_id=match_id)
    for client in (a, b, watcher):
        client.discard_unread()
    return sum(checker.messages for checker in checkers)
