"""Ratings for people end to end (:mod:`server.people`): rated seeks pair with rated seeks
only, a rated match moves both ratings by the OpenSkill update and says so in match_end, a
casual one changes nothing, guests and bots are refused, a second report of a match changes
nothing, and profiles and the people's leaderboard show what was stored."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from server.app import ArenaServer
from server.ratings import INITIAL, Rating, rate
from server.storage import SqliteStore
from tests.server_tests.helpers import account_client
from tests.server_tests.wsclient import WsClient


async def person(server: ArenaServer, name: str) -> WsClient:
    return await account_client(server, name, "human")


async def rated_match(a: WsClient, b: WsClient, game: str = "race",
                      rated: bool = True) -> str:
    """``a`` challenges ``b`` (rated unless told), ``b`` accepts; the match id."""
    name = b.welcome["account"]["name"]  # type: ignore[index]
    ref = await a.send({"type": "challenge", "accounts": [name], "game": game,
                        "rated": rated})
    sent = await a.expect_reply(ref)
    assert sent["type"] == "challenge_sent", sent
    invite = await b.expect("challenge", challenge_id=sent["challenge_id"])
    assert invite.get("rated", False) is rated
    ref = await b.send({"type": "accept", "challenge_id": sent["challenge_id"]})
    assert (await b.expect_reply(ref))["type"] == "ok"
    starts = [await c.expect("match_start") for c in (a, b)]
    return str(starts[0]["match_id"])


async def resign(loser: WsClient, winner: WsClient, match_id: str
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
    """``loser`` resigns; both match_end messages (loser's first)."""
    ref = await loser.send({"type": "resign", "match_id": match_id})
    lost = await loser.expect_reply(ref)
    won = await winner.expect("match_end", match_id=match_id)
    return lost, won


def as_rating(value: dict[str, float]) -> Rating:
    return Rating(value["mu"], value["sigma"])


async def test_rated_seeks_pair_only_with_rated_seeks_and_both_ratings_move(
        server: ArenaServer) -> None:
    ann, bob, cy = [await person(server, n) for n in ("ann", "bob", "cy")]
    ref = await ann.send({"type": "seek", "game": "race", "rated": True})
    assert (await ann.expect_reply(ref))["type"] == "seeking"
    ref = await bob.send({"type": "seek", "game": "race"})  # casual: not paired with ann
    casual = await bob.expect_reply(ref)
    assert casual["type"] == "seeking"
    ref = await cy.send({"type": "seek", "game": "race", "rated": True})
    await cy.expect_reply(ref)
    starts = {c: await c.expect("match_start") for c in (ann, cy)}
    match_id = starts[ann]["match_id"]
    assert starts[cy]["match_id"] == match_id
    names = [s["name"] for s in starts[ann]["seats"]]
    assert sorted(names) == ["ann", "cy"]
    ended = await resign(ann, cy, match_id)
    for end in ended:
        assert end["outcome"]["reason"] == "resignation"
        seat_of_ann = names.index("ann")
        ranks = end["outcome"]["ranks"]
        expected = rate([INITIAL, INITIAL], ranks)
        assert [r["account"] for r in end["ratings"]] == names
        assert [as_rating(r["before"]) for r in end["ratings"]] == [INITIAL, INITIAL]
        assert [as_rating(r["after"]) for r in end["ratings"]] == expected
        assert ranks[seat_of_ann] == 1
    after = {r["account"]: as_rating(r["after"]) for r in ended[0]["ratings"]}
    assert after["cy"].mu > INITIAL.mu > after["ann"].mu
    # bob's casual seek is still waiting: nobody rated was paired with it
    assert not any(m["type"] == "match_start" for m in bob.received)
    ref = await bob.send({"type": "cancel_seek", "seek_id": casual["seek_id"]})
    assert (await bob.expect_reply(ref))["type"] == "ok"

    # the next rated match starts from the ratings the last one left
    match_id = await rated_match(ann, cy)
    lost, _ = await resign(cy, ann, match_id)
    before = {r["account"]: as_rating(r["before"]) for r in lost["ratings"]}
    assert before == after
    expected = rate([after["ann"], after["cy"]], [0, 1])
    assert [as_rating(r["after"]) for r in lost["ratings"]] == expected

    # a rematch of a rated match is rated too (the seats swapped)
    for client in (ann, cy):
        ref = await client.send({"type": "rematch", "match_id": match_id})
        assert (await client.expect_reply(ref))["type"] == "ok"
    again = (await ann.expect("match_start"))["match_id"]
    await cy.expect("match_start", match_id=again)
    lost, _ = await resign(ann, cy, again)
    assert [r["account"] for r in lost["ratings"]] == ["cy", "ann"]
    assert {r["account"]: as_rating(r["before"]) for r in lost["ratings"]} == dict(
        zip(["ann", "cy"], expected, strict=True))


async def test_casual_play_changes_no_rating_and_guests_and_bots_cannot_play_rated(
        server: ArenaServer) -> None:
    ann, bob = await person(server, "ann"), await person(server, "bob")
    match_id = await rated_match(ann, bob, rated=False)
    lost, won = await resign(ann, bob, match_id)
    assert "ratings" not in lost and "ratings" not in won

    guest = await WsClient.open(server.ws_url)
    await guest.hello(name="zoe")
    bot = await account_client(server, "robo", "bot")
    for client in (guest, bot):
        ref = await client.send({"type": "seek", "game": "race", "rated": True})
        assert (await client.expect_reply(ref))["code"] == "unauthorized"
        ref = await client.send({"type": "challenge", "accounts": ["ann"], "game": "race",
                                 "rated": True})
        assert (await client.expect_reply(ref))["code"] == "unauthorized"
    # a person may invite a bot to a rated match, but the bot cannot accept it
    ref = await ann.send({"type": "challenge", "accounts": ["robo"], "game": "race",
                          "rated": True})
    sent = await ann.expect_reply(ref)
    ref = await bot.send({"type": "accept", "challenge_id": sent["challenge_id"]})
    assert (await bot.expect_reply(ref))["code"] == "unauthorized"
    ref = await ann.send({"type": "seek", "game": "race", "rated": "yes"})
    assert (await ann.expect_reply(ref))["code"] == "malformed"  # (the schema says bool)

    people = server.store.person_ratings()
    await asyncio.to_thread(people.flush)
    assert people.ratings_of("ann") == [] and people.ratings_of("bob") == []
    assert people.live_rated() == [] and people.history("ann") == []


async def test_a_match_is_rated_once_and_a_void_one_not_at_all(server: ArenaServer) -> None:
    ann, bob = await person(server, "ann"), await person(server, "bob")
    match_id = await rated_match(ann, bob)
    await resign(bob, ann, match_id)
    people = server.store.person_ratings()
    await asyncio.to_thread(people.flush)
    stored = people.ratings_for("race", ["ann", "bob"])
    # A second report of the same match (a node that resumed it, a repeated callback):
    # nothing changes, here or in the store.
    handle = server.find_match(match_id)
    assert handle is not None
    server.people.match_ended(handle)
    row = await asyncio.to_thread(people.rated_match, match_id)
    assert row is not None and row.status == "rated"
    server.people.rated_ids.clear()  # as on another node, which never rated it...
    server.people.live[match_id] = row  # ...and took the match over while it was live
    server.people.match_ended(handle)  # it computes a result: the store keeps the first
    await asyncio.to_thread(people.flush)
    assert people.ratings_for("race", ["ann", "bob"]) == stored
    assert [p["match_id"] for p in people.history("ann")] == [match_id]

    # a server fault voids a rated match: stored void, no rating changes
    match_id = await rated_match(ann, bob, game="faulty")
    for n in range(3):
        client = (ann, bob)[n % 2]
        request = await client.expect("request", match_id=match_id)
        await client.send({"type": "action", "match_id": match_id,
                           "request_id": request["request_id"], "action": {"add": 1}})
    end = await ann.expect("match_end", match_id=match_id)
    assert end["outcome"]["reason"] == "void" and "ratings" not in end
    await asyncio.to_thread(people.flush)
    row = people.rated_match(match_id)
    assert row is not None and row.status == "void"
    assert people.ratings_for("race", ["ann", "bob"]) == stored
    assert people.ratings_of("ann")[0].games == 1


async def test_profiles_and_the_people_leaderboard(server: ArenaServer) -> None:
    ann, bob, cy = [await person(server, n) for n in ("ann", "bob", "cy")]
    first = await rated_match(ann, bob)
    await resign(bob, ann, first)           # ann beats bob
    second = await rated_match(cy, bob)
    await resign(bob, cy, second)           # cy beats bob
    third = await rated_match(ann, cy)
    await resign(cy, ann, third)            # ann beats cy
    casual = await rated_match(ann, bob, rated=False)
    await resign(ann, bob, casual)          # casual: bob wins, unrated

    ref = await bob.send({"type": "get_profile", "account": "ann"})
    profile = await bob.expect_reply(ref)
    assert (profile["type"], profile["account"], profile["kind"]) == ("profile", "ann", "human")
    (race,) = profile["ratings"]
    assert (race["game"], race["games"], race["wins"], race["losses"]) == ("race", 2, 2, 0)
    assert [p["match_id"] for p in profile["history"]] == [first, third]
    assert profile["history"][-1]["mu"] == race["mu"]
    assert [p["rank"] for p in profile["history"]] == [0, 0]
    matches = profile["matches"]
    assert [m["match_id"] for m in matches] == [casual, third, first]
    assert [m["rated"] for m in matches] == [False, True, True]
    assert [m["result"] for m in matches] == ["loss", "win", "win"]
    assert matches[0]["winners"] == ["bob"] and matches[0]["outcome"]["reason"] == "resignation"
    ref = await bob.send({"type": "get_profile", "account": "ann", "game": "duel",
                          "limit": 1})
    limited = await bob.expect_reply(ref)
    assert limited["history"] == [] and len(limited["matches"]) == 1
    ref = await bob.send({"type": "get_profile", "account": "nobody"})
    assert (await bob.expect_reply(ref))["code"] == "not_found"

    ref = await bob.send({"type": "get_people_leaderboard", "game": "race"})
    board = await bob.expect_reply(ref)
    assert [e["account"] for e in board["entries"]] == ["ann", "cy", "bob"]
    assert [e["rank"] for e in board["entries"]] == [1, 2, 3]
    ordinals = [e["ordinal"] for e in board["entries"]]
    assert ordinals == sorted(ordinals, reverse=True)
    ref = await bob.send({"type": "get_people_leaderboard", "game": "nope"})
    assert (await bob.expect_reply(ref))["code"] == "not_found"


async def test_a_rated_match_resumed_after_a_restart_is_rated_there_once(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite3"
    store = SqliteStore(db)
    first = ArenaServer(store)
    await first.start("127.0.0.1", 0)
    stays, leaves = await person(first, "stays"), await person(first, "leaves")
    cut = await rated_match(stays, leaves)
    await first.close()
    store.close()
    # Also a rated match an earlier server left live that nothing can resume: void.
    store = SqliteStore(db)
    store.person_ratings().save_start("gone", "race", ["stays", "leaves"], "t0")
    store.flush()
    second = ArenaServer(store, grace_s=0.3)  # "leaves" never comes back: it forfeits
    await second.start("127.0.0.1", 0)
    try:
        back = await WsClient.open(second.ws_url)
        token = await asyncio.to_thread(store.rotate_token, "stays")
        await back.hello(token=token)
        await back.expect("match_start", match_id=cut)
        end = await back.expect("match_end", match_id=cut, timeout=10)
        assert end["outcome"] == {"ranks": [0, 1], "reason": "forfeit"}
        assert [as_rating(r["after"]) for r in end["ratings"]] == rate([INITIAL, INITIAL],
                                                                       [0, 1])
        second.people.match_ended(second.find_match(cut))  # type: ignore[arg-type]
    finally:
        await second.close()
    people = store.person_ratings()
    row, gone = people.rated_match(cut), people.rated_match("gone")
    assert row is not None and row.status == "rated" and row.ranks == [0, 1]
    assert gone is not None and (gone.status, gone.reason) == ("void", "interrupted")
    assert [r.games for r in people.ratings_of("stays")] == [1]
    store.close()


async def test_a_tournament_seeds_people_by_their_rating_for_its_game(
        server: ArenaServer) -> None:
    ann, bob = [await person(server, n) for n in ("ann", "bob")]
    match_id = await rated_match(ann, bob)
    lost, _ = await resign(bob, ann, match_id)
    after = {r["account"]: as_rating(r["after"]) for r in lost["ratings"]}
    ref = await ann.send({"type": "tournament_create", "game": "race", "format": "swiss",
                          "rounds": 1})
    made = await ann.expect_reply(ref)
    assert made["type"] == "tournament", made
    tid = made["tournament_id"]
    for client in (ann, bob):
        ref = await client.send({"type": "tournament_join", "tournament_id": tid})
        joined = await client.expect_reply(ref)
        assert joined["type"] == "tournament", joined
    seeds = {e["name"]: e["rating"] for e in joined["entrants"]}
    assert seeds == {"ann": after["ann"].ordinal, "bob": after["bob"].ordinal}
    assert seeds["ann"] > seeds["bob"]
