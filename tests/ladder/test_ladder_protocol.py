"""The ladder over the protocol and HTTP, on a real server: joining (versions, seeding,
refusals), pairing, leaving, the leaderboard, rating history, recent matches with replays,
and ``GET /api/ladder/<game>``. Every server message is checked against the schema."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from ladder_helpers import arena

from clients.connection import ArenaError, connect
from protocol.codec import validate_server_message
from server.app import ArenaServer
from server.clocks import Clock
from server.ladder import GameLadder, LadderSettings
from tests.server_tests.wsclient import WsClient

SETTINGS = LadderSettings(
    games={"race": GameLadder("race", 2, Clock(5_000, 100), pair_cap_per_hour=10_000)},
    interval_s=0.1, min_games=5, seed=3)


class Perfect:
    """Race to 10 by adding 1 or 2: leave the rest a multiple of 3 and never lose."""

    def choose(self, request: dict[str, Any]) -> Any:
        view = request["view"]
        for action in request["legal_actions"]:
            if (view["target"] - view["count"] - action["add"]) % 3 == 0:
                return action
        return request["legal_actions"][0]


def http_get(server: ArenaServer, path: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(server.http_url + path, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def account(server: ArenaServer, name: str) -> WsClient:
    token = await asyncio.to_thread(server.store.create_account, name, "bot")
    client = await WsClient.open(server.ws_url)
    assert (await client.hello(token=token))["type"] == "welcome"
    return client


async def ask(client: WsClient, message: dict[str, Any]) -> dict[str, Any]:
    reply = await client.expect_reply(await client.send(message))
    validate_server_message(reply)
    return reply


async def test_join_refusals_and_the_joined_reply(tmp_path: Path) -> None:
    async with arena(tmp_path / "a.sqlite3", SETTINGS) as a:
        guest = await WsClient.open(a.server.ws_url)
        await guest.hello(name="zoe")
        refused = await ask(guest, {"type": "ladder_join", "game": "race", "bot": "b",
                                    "version": "1", "max_matches": 1})
        assert refused["code"] == "unauthorized"
        ann = await account(a.server, "ann")
        for message, code in (
                ({"game": "battleline"}, "not_found"),      # no ladder configured for it
                ({"seed_from_version": "0.9"}, "not_found"),
                ({"bot": " "}, "bad_request"),
                ({"max_matches": 0}, "malformed")):
            reply = await ask(ann, {"type": "ladder_join", "game": "race", "bot": "b",
                                    "version": "1", "max_matches": 1, **message})
            assert reply["type"] == "error" and reply["code"] == code, (message, reply)
        joined = await ask(ann, {"type": "ladder_join", "game": "race", "bot": "b",
                                 "version": "1", "max_matches": 2})
        assert joined["type"] == "ladder_joined"
        assert (joined["account"], joined["bot"], joined["version"], joined["new"],
                joined["max_matches"]) == ("ann", "b", "1", True, 2)
        assert joined["entry"]["games"] == 0 and joined["entry"]["provisional"]
        again = await ask(ann, {"type": "ladder_join", "game": "race", "bot": "b",
                                "version": "1", "max_matches": 1})
        assert again["new"] is False
        assert (await ask(ann, {"type": "ladder_leave", "game": "race"}))["type"] == "ok"
        gone = await ask(ann, {"type": "ladder_leave", "game": "race"})
        assert gone["code"] == "not_found"
        board = await ask(ann, {"type": "get_leaderboard", "game": "nope"})
        assert board["code"] == "not_found"
        for client in (guest, ann):
            await client.close()


async def test_rated_matches_history_replays_and_http(tmp_path: Path) -> None:
    async with arena(tmp_path / "a.sqlite3", SETTINGS) as a:
        await a.add_bot("ann", Perfect(), "race", max_matches=2, bot_name="perfect")
        await a.add_bot("bob", "random", "race", max_matches=2, seed=1)
        await a.add_bot("cy", "random", "race", seed=2)
        await a.wait_rated(24, timeout=60)
        await a.stop_bots()

        viewer = await connect(a.server.ws_url, name="viewer")
        try:
            board = await viewer.get_leaderboard("race")
            assert [e["rank"] for e in board] == [1, 2, 3]
            # perfect wins every match but those where a lucky first move leaves it lost
            assert board[0]["bot"] == "perfect" and board[0]["wins"] > 3 * board[0]["losses"]
            assert all(e["ordinal"] < board[0]["ordinal"] for e in board[1:])
            total = sum(e["games"] for e in board)
            assert total == 2 * a.server.ladder.rated_matches
            assert not board[0]["provisional"]

            history = await viewer.get_rating_history("race", "perfect")
            assert (history["account"], history["version"]) == ("ann", "1")
            points = history["points"]
            assert len(points) == board[0]["games"]
            assert points[-1]["mu"] == board[0]["mu"]
            assert [p["seq"] for p in points] == sorted(p["seq"] for p in points)
            assert sum(p["rank"] == 0 for p in points) == board[0]["wins"]
            with pytest.raises(ArenaError) as ambiguous:  # bob and cy both run "random"
                await viewer.get_rating_history("race", "random")
            assert ambiguous.value.code == "bad_request"
            bobs = await viewer.get_rating_history("race", "random", account="bob")
            assert bobs["points"]

            matches = await viewer.list_ladder_matches("race", limit=5)
            assert len(matches) == 5
            rated = [m for m in matches if m["status"] == "rated"]
            assert rated
            seat = rated[0]["seats"][0]
            assert seat["rank"] in (0, 1) and seat["ordinal_after"] is not None
            queries: list[tuple[str, dict[str, Any]]] = [
                ("get_leaderboard", {}), ("list_ladder_matches", {}),
                ("get_rating_history", {"bot": "perfect", "limit": 3})]
            for kind, fields in queries:
                whole = await viewer.request(kind, game="race", **fields)
                validate_server_message(whole)  # every field as the schema says
            assert len(whole["points"]) == 3 and whole["points"] == points[-3:]
            replay = await viewer.get_replay(rated[0]["match_id"])
            assert replay["type"] == "replay" and replay["outcome"]["ranks"] == [
                s["rank"] for s in rated[0]["seats"]]
            assert "seed" not in replay
        finally:
            await viewer.close()

        status, body = await asyncio.to_thread(http_get, a.server, "/api/ladder/race")
        assert status == 200
        assert body["leaderboard"] == [{**e} for e in board]
        assert body["num_seats"] == 2 and body["clock"] == {"initial_ms": 5000,
                                                             "increment_ms": 100}
        assert len(body["matches"]) == 20
        status, listing = await asyncio.to_thread(http_get, a.server, "/api/ladder")
        assert status == 200 and [g["game"] for g in listing["ladders"]] == ["race"]
        status, hist = await asyncio.to_thread(http_get, a.server,
                                               "/api/ladder/race/ann/perfect/1")
        assert status == 200 and hist["points"] == points
        status, missing = await asyncio.to_thread(http_get, a.server, "/api/ladder/chess")
        assert status == 404 and missing["error"] == "not_found"


async def test_a_new_version_is_a_new_entity_seeded_from_the_old(tmp_path: Path) -> None:
    async with arena(tmp_path / "a.sqlite3", SETTINGS) as a:
        await a.add_bot("ann", Perfect(), "race", bot_name="perfect", version="1")
        await a.add_bot("bob", "random", "race", seed=1)
        await a.wait_rated(10, timeout=60)
        await a.stop_bots()
        v1 = a.server.ladder.leaderboard("race")[0]
        assert (v1["bot"], v1["version"]) == ("perfect", "1")

        ann = await account(a.server, "ann2")  # another account: its own bot names
        await ann.close()
        token = await asyncio.to_thread(a.store.rotate_token, "ann")
        client = await WsClient.open(a.server.ws_url)
        await client.hello(token=token)
        seeded = await ask(client, {"type": "ladder_join", "game": "race", "bot": "perfect",
                                    "version": "2", "max_matches": 1,
                                    "seed_from_version": "1"})
        assert seeded["new"] is True and seeded["seeded_from"] == "1"
        assert seeded["entry"]["mu"] == v1["mu"] and seeded["entry"]["games"] == 0
        fresh = await ask(client, {"type": "ladder_join", "game": "race", "bot": "perfect",
                                   "version": "3", "max_matches": 1})
        assert fresh["entry"]["mu"] == 25.0 and fresh["seeded_from"] is None
        versions = {(e["version"], e["games"]) for e in a.server.ladder.leaderboard("race")
                    if e["bot"] == "perfect"}
        assert versions == {("1", v1["games"]), ("2", 0), ("3", 0)}
        latest = await ask(client, {"type": "get_rating_history", "game": "race",
                                    "bot": "perfect"})
        assert latest["version"] == "3" and latest["points"] == []
        await client.close()


async def test_leaving_stops_the_pairing(tmp_path: Path) -> None:
    async with arena(tmp_path / "a.sqlite3", SETTINGS) as a:
        await a.add_bot("ann", "random", "race", seed=1)
        bob = await a.add_bot("bob", "random", "race", seed=2)
        await a.wait_rated(3, timeout=30)
        await bob.runner.conn.ladder_leave("race")
        await asyncio.sleep(0.3)  # a match under way is played out
        rated = a.server.ladder.rated_matches
        await asyncio.sleep(0.5)
        assert a.server.ladder.rated_matches == rated
        assert not a.server.ladder.live
