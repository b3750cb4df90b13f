"""Duplicate pairs over a real server (server/pairs.py): one ``challenge`` with
``duplicate: true`` makes two matches of one deal, seats swapped, started together; each names
its pair; the pair's result arrives once both have ended; the record of a match whose twin is
still live stays sealed; a seat's frames of one match carry nothing of the other; a restart
in the middle of a pair resumes it; what cannot be a pair is refused with a reason."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from engine import registry
from engine.core import State, canonical_json
from engine.match import actions_of
from engine.rng import Rng
from server.app import ArenaServer
from server.lobby import LobbyError, check_duplicate
from server.storage import SqliteStore
from tests.server_tests.helpers import account_client
from tests.server_tests.test_e2e_basic import http_get
from tests.server_tests.wsclient import WsClient


async def duplicate_challenge(challenger: WsClient, other: WsClient, game: str,
                              options: dict[str, Any] | None = None
                              ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Challenge ``other`` to an untimed duplicate pair; both accept. Returns each client's
    two ``match_start`` messages, game 1's first."""
    name = other.welcome["account"]["name"]  # type: ignore[index]
    ref = await challenger.send({"type": "challenge", "accounts": [name], "game": game,
                                 "options": options or {}, "duplicate": True})
    sent = await challenger.expect_reply(ref)
    assert sent["type"] == "challenge_sent", sent
    invite = await other.expect("challenge", challenge_id=sent["challenge_id"])
    assert invite["duplicate"] is True
    ref = await other.send({"type": "accept", "challenge_id": invite["challenge_id"]})
    assert (await other.expect_reply(ref))["type"] == "ok"
    starts = []
    for client in (challenger, other):
        mine = [await client.expect("match_start"), await client.expect("match_start")]
        starts.append(sorted(mine, key=lambda s: s["pair"]["game"]))
    return starts[0], starts[1]


async def play(client: WsClient, match_ids: set[str], rng: Rng) -> dict[str, dict[str, Any]]:
    """Answer every request of ``match_ids`` at random until each has ended (messages of
    other matches stay unread); returns each one's ``match_end``."""
    ends: dict[str, dict[str, Any]] = {}
    while set(ends) != match_ids:
        message = await client.expect_where(
            lambda m: m.get("match_id") in match_ids
            and m["type"] in ("request", "match_end", "error"))
        if message["type"] == "error":
            raise AssertionError(f"unexpected error: {message}")
        if message["type"] == "match_end":
            ends[message["match_id"]] = message
            continue
        legal = message["legal_actions"]
        await client.send({"type": "action", "match_id": message["match_id"],
                           "request_id": message["request_id"],
                           "action": legal[rng.below(len(legal))]})
    return ends


def draws(log: list[dict[str, Any]], options: dict[str, Any]) -> dict[str, list[Any]]:
    """A Battle Line log's chance outcomes by where they came from: the deal, then each
    deck's draws in order."""
    game = registry.get("battleline")
    state: State = game.initial_state(2, game.normalize_options(options))
    out: dict[str, list[Any]] = {"deal": [], "troop": [], "tactics": []}
    for entry in log:
        if "chance" in entry:
            out["deal" if state["phase"] == "deal" else state["pending"]].append(
                entry["chance"])
        state = game.apply(state, actions_of(entry)).state
    return out


def what_a_seat_may_see(log: list[dict[str, Any]], seat: int) -> tuple[set[str], set[str]]:
    """Every view ``seat`` has of the Battle Line match of ``log``, and every event as
    rendered for it, as canonical JSON."""
    game = registry.get("battleline")
    state: State = game.initial_state(2, game.normalize_options({}))
    views = {canonical_json(game.view(state, seat))}
    events: set[str] = set()
    for entry in log:
        transition = game.apply(state, actions_of(entry))
        state = transition.state
        views.add(canonical_json(game.view(state, seat)))
        events.update(canonical_json(e.render(seat)) for e in transition.events)
    return views, events


async def test_a_duplicate_pair_deals_one_deal_twice_with_the_seats_swapped(
        server: ArenaServer) -> None:
    ann = await account_client(server, "ann", "human")
    bob = await account_client(server, "bob")
    watcher = await account_client(server, "watcher", "human")
    (ann1, ann2), (bob1, bob2) = await duplicate_challenge(ann, bob, "battleline")
    first, second = ann1["match_id"], ann2["match_id"]
    pair_id = ann1["pair"]["id"]
    assert ann1["pair"] == {"id": pair_id, "game": 1, "twin": second}
    assert ann2["pair"] == {"id": pair_id, "game": 2, "twin": first}
    assert (bob1["match_id"], bob2["match_id"]) == (first, second)
    assert [ann1["your_seat"], ann2["your_seat"], bob1["your_seat"], bob2["your_seat"]] == \
        [0, 1, 1, 0]
    assert [s["name"] for s in ann2["seats"]] == ["bob", "ann"]
    # The same opening hand for each seat: ann's in game 1 is bob's in game 2.
    assert ann1["view"]["hand"] == bob2["view"]["hand"]
    assert bob1["view"]["hand"] == ann2["view"]["hand"]
    assert ann1["view"]["hand"] != bob1["view"]["hand"]
    listed = {m["match_id"]: m for m in server.match_summaries("battleline")}
    assert listed[first]["pair"] == ann1["pair"] and listed[second]["pair"] == ann2["pair"]

    # Game 1 is played to its end while game 2 waits (untimed): game 1 is sealed meanwhile.
    ends = await asyncio.gather(play(ann, {first}, Rng(1)), play(bob, {first}, Rng(2)))
    assert ends[0][first]["pair"] == ann1["pair"]
    ref = await watcher.send({"type": "get_replay", "match_id": first})
    sealed = await watcher.expect_reply(ref)
    assert sealed["status"] == "over" and sealed["pair"] == ann1["pair"]
    assert "log" not in sealed and all("actions" not in s for s in sealed["steps"])
    assert sealed["outcome"] == ends[0][first]["outcome"]
    status, body = await asyncio.to_thread(http_get, server, f"/api/matches/{first}")
    assert status == 200 and "record" not in body and body["match"]["pair"]["twin"] == second

    ends = await asyncio.gather(play(ann, {second}, Rng(3)), play(bob, {second}, Rng(4)))
    outcomes = [ends[0][second]["outcome"]]
    for client in (ann, bob):
        done = await client.expect("pair_end", pair_id=pair_id)
        assert done["matches"] == [first, second] and done["players"] == ["ann", "bob"]
        assert done["status"] == "over" and done["game"] == "battleline"
        assert done["outcomes"][1] == outcomes[0]
    def worth(ranks: list[int], seat: int) -> float:  # a game won 1, drawn ½
        return 0.5 if ranks[0] == ranks[1] else float(ranks[seat] < ranks[1 - seat])

    o1, o2 = done["outcomes"]
    points_ann = worth(o1["ranks"], 0) + worth(o2["ranks"], 1)
    assert done["points"] == [points_ann, 2 - points_ann]
    assert done["ranks"] == ([0, 0] if points_ann == 1 else
                             [0, 1] if points_ann > 1 else [1, 0])

    # Unsealed: the whole record; every draw of either deck came in the same order.
    ref = await watcher.send({"type": "get_replay", "match_id": first})
    assert "log" in await watcher.expect_reply(ref)
    await server.flush_store()
    rows = [server.store.get_match(m) for m in (first, second)]
    assert all(r is not None and r.chance == "deck" and r.status == "over" for r in rows)
    logs = [r.log for r in rows if r is not None]
    assert rows[0] is not None and rows[0].pair == ann1["pair"]
    one, two = draws(logs[0], {}), draws(logs[1], {})
    assert one["deal"] == two["deal"] and len(one["deal"]) == 14
    for deck in ("troop", "tactics"):
        shorter = min(len(one[deck]), len(two[deck]))
        assert one[deck][:shorter] == two[deck][:shorter]
    assert len(one["troop"]) + len(two["troop"]) > 0

    # What each seat was sent about a match is that match's, never its twin's.
    for client, seats in ((ann, (0, 1)), (bob, (1, 0))):
        for match_id, log, seat in zip((first, second), logs, seats, strict=True):
            views, events = what_a_seat_may_see(log, seat)
            frames = [m for m in client.received if m.get("match_id") == match_id]
            assert len(frames) > 20
            for frame in frames:
                if "view" in frame and frame["type"] != "replay":
                    assert canonical_json(frame["view"]) in views, frame["type"]
                for event in frame.get("events", []) if frame["type"] == "events" else []:
                    assert canonical_json(event) in events, event


async def test_play_bot_duplicate_plays_a_pair_against_one_house_bot(
        server: ArenaServer) -> None:
    """``play_bot`` with ``duplicate: true``: a pair against a house bot with room for both
    matches, the player in ``seat`` in game 1 and swapped in game 2, one ``pair_end``."""
    house = await account_client(server, "house-pairs", house=True)
    ref = await house.send({"type": "autoplay", "games": ["battleline"], "max_matches": 1})
    await house.expect_reply(ref)
    ann = await account_client(server, "ann", "human")
    ref = await ann.send({"type": "play_bot", "game": "battleline", "duplicate": True})
    refused = await ann.expect_reply(ref)       # one free slot: no room for a pair
    assert refused["code"] == "not_found" and "room for both" in refused["message"]
    ref = await house.send({"type": "autoplay", "games": ["battleline"], "max_matches": 2})
    await house.expect_reply(ref)
    ref = await ann.send({"type": "play_bot", "game": "battleline", "duplicate": True,
                          "bot": "house-pairs", "seat": 1})
    game1 = await ann.expect_reply(ref)
    game2 = await ann.expect("match_start")
    assert game1["pair"]["game"] == 1 and game2["pair"]["game"] == 2 and "ref" not in game2
    assert game1["pair"]["twin"] == game2["match_id"]
    assert (game1["your_seat"], game2["your_seat"]) == (1, 0)
    assert [s["name"] for s in game1["seats"]] == ["house-pairs", "ann"]
    bot_starts = [await house.expect("match_start"), await house.expect("match_start")]
    assert {m["match_id"] for m in bot_starts} == {game1["match_id"], game2["match_id"]}
    both = {game1["match_id"], game2["match_id"]}
    await asyncio.gather(play(ann, both, Rng(5)), play(house, both, Rng(6)))
    for client in (ann, house):
        done = await client.expect("pair_end", pair_id=game1["pair"]["id"])
        assert done["players"] == ["house-pairs", "ann"] and done["status"] == "over"
        assert sum(done["points"]) == 2
    # What cannot be a pair is refused as for a challenge.
    ref = await house.send({"type": "autoplay", "games": ["barca"], "max_matches": 2})
    await house.expect_reply(ref)
    ref = await ann.send({"type": "play_bot", "game": "barca", "duplicate": True})
    error = await ann.expect_reply(ref)
    assert error["code"] == "bad_request" and error["details"] == {"reason": "no_chance"}


async def test_a_player_away_when_its_pair_ends_gets_the_results_on_resume(
        server: ArenaServer) -> None:
    """A match that ends while a seat is away is no longer live to be re-sent: its
    ``match_end`` and the ``pair_end`` are kept for the session and sent when it resumes."""
    ann = await account_client(server, "ann", "human")
    bob = await account_client(server, "bob")
    (ann1, ann2), _ = await duplicate_challenge(ann, bob, "battleline")
    first, second = ann1["match_id"], ann2["match_id"]
    await asyncio.gather(play(ann, {first}, Rng(7)), play(bob, {first}, Rng(8)))
    session = bob.welcome["session"]  # type: ignore[index]
    await bob.close()
    await asyncio.sleep(0.2)   # the server sees bob go
    ref = await ann.send({"type": "resign", "match_id": second})
    end = await ann.expect("match_end", match_id=second)
    assert end["outcome"]["reason"] == "resignation"
    done = await ann.expect("pair_end", pair_id=ann1["pair"]["id"])
    back = await WsClient.open(server.ws_url)
    welcome = await back.hello(resume=session)
    assert welcome["type"] == "welcome" and welcome["account"]["name"] == "bob"
    missed_end = await back.expect("match_end", match_id=second)
    assert missed_end["outcome"] == end["outcome"]
    assert await back.expect("pair_end", pair_id=done["pair_id"]) == done
    # Sent once: a second resume gets neither again.
    await back.close()
    await asyncio.sleep(0.2)
    again = await WsClient.open(server.ws_url)
    await again.hello(resume=session)
    ref = await again.send({"type": "ping"})
    await again.expect_reply(ref)
    assert not [m for m in again.received if m["type"] in ("match_end", "pair_end")]


@pytest.mark.parametrize(("game", "options", "seats", "reason"), [
    ("chexers", {}, 3, "no_chance"),
    ("barca", {}, 2, "no_chance"),
])
async def test_what_cannot_be_a_pair_is_refused_with_a_reason(
        server: ArenaServer, game: str, options: dict[str, Any], seats: int,
        reason: str) -> None:
    players = [await account_client(server, f"p{n}", "human") for n in range(seats)]
    ref = await players[0].send({
        "type": "challenge", "game": game, "options": options, "duplicate": True,
        "accounts": [p.welcome["account"]["name"] for p in players[1:]]})  # type: ignore[index]
    error = await players[0].expect_reply(ref)
    assert error["type"] == "error" and error["code"] == "bad_request"
    assert error["details"] == {"reason": reason}


def test_a_pair_has_two_seats() -> None:
    # (no game registered has chance and more than two seats: the rule, directly)
    with pytest.raises(LobbyError) as refused:
        check_duplicate("bigdeal", True, 3, False)
    assert refused.value.code == "bad_request" and refused.value.details == {"reason": "seats"}


async def test_a_rated_pair_is_refused_and_a_pair_has_no_rematch(server: ArenaServer) -> None:
    ann = await account_client(server, "ann", "human")
    bob = await account_client(server, "bob", "human")
    ref = await ann.send({"type": "challenge", "accounts": ["bob"], "game": "battleline",
                          "duplicate": True, "rated": True})
    error = await ann.expect_reply(ref)
    assert (error["code"], error["details"]) == ("bad_request", {"reason": "rated"})
    (ann1, ann2), _ = await duplicate_challenge(ann, bob, "duel", {"rounds": 1})
    await asyncio.gather(play(ann, {ann1["match_id"], ann2["match_id"]}, Rng(5)),
                         play(bob, {ann1["match_id"], ann2["match_id"]}, Rng(6)))
    ref = await ann.send({"type": "rematch", "match_id": ann1["match_id"]})
    error = await ann.expect_reply(ref)
    assert (error["code"], error["details"]) == ("bad_request", {"reason": "pair"})


async def test_a_pair_cut_by_a_restart_resumes_and_ends_as_one(tmp_path: Path) -> None:
    """Game 1 ends, then the server stops with game 2 live: the new server resumes game 2
    (the same deck), keeps game 1 sealed until it ends, and sends the pair's result."""
    db = tmp_path / "arena.sqlite3"
    store = SqliteStore(db)
    first_server = ArenaServer(store)
    await first_server.start("127.0.0.1", 0)
    tokens = {name: await asyncio.to_thread(store.create_account, name, "bot")
              for name in ("ann", "bob")}
    clients = []
    for name in ("ann", "bob"):
        client = await WsClient.open(first_server.ws_url)
        await client.hello(token=tokens[name])
        clients.append(client)
    ann, bob = clients
    (ann1, ann2), _ = await duplicate_challenge(ann, bob, "duel", {"rounds": 3})
    first, second = ann1["match_id"], ann2["match_id"]
    await asyncio.gather(play(ann, {first}, Rng(7)), play(bob, {first}, Rng(8)))
    await first_server.close()
    store.close()
    await ann.close()
    await bob.close()

    store = SqliteStore(db)
    server = ArenaServer(store)
    await server.start("127.0.0.1", 0)
    try:
        row = store.get_match(second)
        assert row is not None and row.status == "live" and row.chance == "deck"
        assert row.pair == ann2["pair"]
        clients = []
        for name in ("ann", "bob"):
            client = await WsClient.open(server.ws_url)
            await client.hello(token=tokens[name])
            clients.append(client)
        ann, bob = clients
        again = await ann.expect("match_start", match_id=second)
        assert again["pair"] == ann2["pair"] and again["view"] == ann2["view"]
        ref = await ann.send({"type": "get_replay", "match_id": first})
        error = await ann.expect_reply(ref)
        assert (error["code"], error["details"]) == ("not_found", {"reason": "sealed"})
        await asyncio.gather(play(ann, {second}, Rng(9)), play(bob, {second}, Rng(10)))
        done = await bob.expect("pair_end", pair_id=ann1["pair"]["id"])
        assert done["status"] == "over" and done["matches"] == [first, second]
        assert sum(done["points"]) == 2
        ref = await ann.send({"type": "get_replay", "match_id": first})
        assert "log" in await ann.expect_reply(ref)
        await server.flush_store()
        logs = [store.get_match(m).log for m in (first, second)]  # type: ignore[union-attr]
        assert logs[0][0] == logs[1][0] and "chance" in logs[0][0]
    finally:
        await server.close()
        store.close()


async def test_a_pair_stopped_before_either_match_ended_resumes_both(tmp_path: Path
                                                                     ) -> None:
    db = tmp_path / "arena.sqlite3"
    store = SqliteStore(db)
    first_server = ArenaServer(store)
    await first_server.start("127.0.0.1", 0)
    tokens = [await asyncio.to_thread(store.create_account, name, "bot")
              for name in ("ann", "bob")]
    clients = []
    for token in tokens:
        client = await WsClient.open(first_server.ws_url)
        await client.hello(token=token)
        clients.append(client)
    (ann1, ann2), _ = await duplicate_challenge(clients[0], clients[1], "duel", {"rounds": 2})
    ids = {ann1["match_id"], ann2["match_id"]}
    await first_server.close()
    store.close()
    for client in clients:
        await client.close()

    store = SqliteStore(db)
    server = ArenaServer(store)
    await server.start("127.0.0.1", 0)
    try:
        assert set(server.live) == ids and all(server.live[m].sealed for m in ids)
        clients = []
        for token in tokens:
            client = await WsClient.open(server.ws_url)
            await client.hello(token=token)
            clients.append(client)
        starts = [await clients[0].expect("match_start") for _ in ids]
        assert {s["pair"]["id"] for s in starts} == {ann1["pair"]["id"]}
        await asyncio.gather(play(clients[0], ids, Rng(11)), play(clients[1], ids, Rng(12)))
        done = await clients[0].expect("pair_end")
        assert done["status"] == "over" and done["players"] == ["ann", "bob"]
        assert not any(server.find_match(m).sealed for m in ids)  # type: ignore[union-attr]
    finally:
        await server.close()
        store.close()
