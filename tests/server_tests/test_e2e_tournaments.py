"""Tournaments end to end: a real server on 127.0.0.1, house bots as real clients (the bot
runner ``arena bot`` uses, each with an autoplay offer), people as websocket clients.

* a Swiss of 8 house bots (random players) over 5 rounds of Battle Line: no repeat
  pairing, and standings equal to a recomputation from what the store holds (each
  pairing's result checked against its stored match);
* a round robin of three-seat Chexers between four greedy bots: every group of three plays
  once, each bot once in each seat;
* bad input, each a typed error with ``details.reason``, nothing stored that should not be;
  a forfeit; and ``tournament_show`` after a restart.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bots import registry as bot_registry
from bots.random_bot import RandomBot
from clients.runner import BotRunner
from server.app import ArenaServer
from server.storage import SqliteStore
from server.tournaments import game_points
from tests.bots.recording import FAST, until_offered
from tests.server_tests.helpers import account_client
from tests.server_tests.wsclient import WsClient, play_random

CLOCK = {"initial_ms": 20_000, "increment_ms": 0}


@pytest.fixture
async def runners() -> AsyncIterator[list[asyncio.Task[Any]]]:
    tasks: list[asyncio.Task[Any]] = []
    yield tasks
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def house_bots(server: ArenaServer, tasks: list[asyncio.Task[Any]], game: str,
                     bots: list[tuple[str, Any]]) -> list[str]:
    """Connect each bot as a house bot offering ``game``; their account names."""
    made = []
    for name, bot in bots:
        token = await asyncio.to_thread(server.store.create_account, name, "bot", house=True)
        made.append(BotRunner(bot, server.ws_url, games=[game], token=token, reconnect=FAST))
    tasks.extend(asyncio.ensure_future(r.run()) for r in made)
    await until_offered(*made)
    return [name for name, _ in bots]


async def ask(client: WsClient, message: dict[str, Any]) -> dict[str, Any]:
    return await client.expect_reply(await client.send(message))


async def run_to_the_end(admin: WsClient, game: str, entrants: list[str],
                         **create: Any) -> dict[str, Any]:
    """The admin creates a tournament, enters the bots, starts it; its final state."""
    made = await ask(admin, {"type": "tournament_create", "game": game, "clock": CLOCK,
                             **create})
    assert made["type"] == "tournament" and made["status"] == "open", made
    tid = made["tournament_id"]
    for name in entrants:
        joined = await ask(admin, {"type": "tournament_join", "tournament_id": tid,
                                   "account": name})
        assert joined["type"] == "tournament", joined
    started = await ask(admin, {"type": "tournament_start", "tournament_id": tid})
    assert started["status"] == "running" and started["round"] == 1, started
    return await admin.expect_where(
        lambda m: m["type"] == "tournament" and m["status"] == "over", timeout=60)


def recompute(state: dict[str, Any], stored_matches: dict[str, Any]) -> dict[str, float]:
    """Points per entrant from the stored results alone, each game's ranks taken from its
    stored match (byes score 1)."""
    points = {e["name"]: 0.0 for e in state["entrants"]}
    for p in state["pairings"]:
        if p["status"] == "bye":
            points[p["seats"][0]] += 1
            continue
        row = stored_matches[p["match_id"]]
        assert [s["name"] for s in row.seats] == p["seats"]
        assert row.status == "over" and list(row.outcome["ranks"]) == p["ranks"]
        for name, got in zip(p["seats"], game_points(row.outcome["ranks"]), strict=True):
            points[name] += got
    return points


async def test_a_swiss_of_eight_house_bots_over_five_rounds(
        server: ArenaServer, runners: list[asyncio.Task[Any]], tmp_path: Path) -> None:
    names = await house_bots(server, runners, "battleline",
                             [(f"house-r{i}", RandomBot(seed=i)) for i in range(8)])
    admin = await account_client(server, "root", "admin")
    final = await run_to_the_end(admin, "battleline", names, format="swiss", rounds=5,
                                 name="Friday Swiss")
    pairings = final["pairings"]
    assert final["round"] == 5 and len(pairings) == 20
    assert all(p["status"] == "over" and len(p["seats"]) == 2 for p in pairings)
    met = [frozenset(p["seats"]) for p in pairings]
    assert len(set(met)) == 20, "a repeat pairing"
    for r in range(1, 6):
        seated = [n for p in pairings if p["round"] == r for n in p["seats"]]
        assert sorted(seated) == sorted(names)

    # The standings are what the stored results give.
    await server.flush_store()
    rows = await asyncio.to_thread(
        lambda: {p["match_id"]: server.store.get_match(p["match_id"]) for p in pairings})
    points = recompute(final, rows)
    assert {s["name"]: s["points"] for s in final["standings"]} == points
    assert sum(points.values()) == 20
    stored = await asyncio.to_thread(server.store.tournaments().load, final["tournament_id"])
    assert stored is not None
    assert [s.to_json() for s in stored.standings()] == final["standings"]
    by_name = {s["name"]: s for s in final["standings"]}
    for name, standing in by_name.items():  # Buchholz: the sum of the opponents' points
        opponents = [n for p in pairings if name in p["seats"] for n in p["seats"]
                     if n != name]
        assert standing["buchholz"] == pytest.approx(sum(points[o] for o in opponents))
    order = [(-s["points"], -s["buchholz"], -s["sonneborn_berger"]) for s in final["standings"]]
    assert order == sorted(order)

    # The HTTP export is the same state.
    status, body = await server.tournaments.http_get(
        f"/api/tournaments/{final['tournament_id']}")
    assert status == 200 and body == {k: v for k, v in final.items() if k not in ("type", "ref")}


async def test_a_round_robin_of_three_seat_chexers(
        server: ArenaServer, runners: list[asyncio.Task[Any]]) -> None:
    names = await house_bots(server, runners, "chexers",
                             [(f"house-g{i}", bot_registry.create("greedy", seed=i))
                              for i in range(4)])
    admin = await account_client(server, "root", "admin")
    final = await run_to_the_end(admin, "chexers", names, format="round_robin")
    assert final["num_seats"] == 3 and final["rounds"] == 4
    groups = [frozenset(p["seats"]) for p in final["pairings"]]
    assert sorted(map(sorted, groups)) == sorted(
        map(sorted, map(frozenset, itertools.combinations(names, 3))))
    for name in names:  # seats rotated: each bot once in each seat
        assert sorted(p["seats"].index(name) for p in final["pairings"]
                      if name in p["seats"]) == [0, 1, 2]
    assert all(p["status"] == "over" for p in final["pairings"])
    assert sum(s["points"] for s in final["standings"]) == pytest.approx(4 * 1.5)


async def test_bad_input_is_refused_with_typed_errors_and_nothing_stored(
        server: ArenaServer, tmp_path: Path) -> None:
    ann = await account_client(server, "ann", "human")
    bob = await account_client(server, "bob", "human")
    guest = await WsClient.open(server.ws_url)
    await guest.hello(name="visitor")

    async def refused(client: WsClient, message: dict[str, Any], code: str, reason: str
                      ) -> None:
        reply = await ask(client, message)
        assert reply["type"] == "error", reply
        assert (reply["code"], reply["details"]["reason"]) == (code, reason), reply

    swiss = {"type": "tournament_create", "game": "race", "format": "swiss", "rounds": 1,
             "clock": CLOCK}
    await refused(guest, swiss, "unauthorized", "guest")
    await refused(ann, {**swiss, "game": "nope"}, "not_found", "game")
    await refused(ann, {**swiss, "format": "knockout"}, "bad_request", "format")
    await refused(ann, {**swiss, "game": "chexers"}, "bad_request", "seats")
    await refused(ann, {**swiss, "seats": 3}, "bad_request", "seats")
    await refused(ann, {k: v for k, v in swiss.items() if k != "rounds"}, "bad_request",
                  "rounds")
    await refused(ann, {**swiss, "options": {"target": "far"}}, "bad_request", "options")
    await refused(ann, {"type": "tournament_show", "tournament_id": "nope"}, "not_found",
                  "tournament")

    made = await ask(ann, swiss)
    tid = made["tournament_id"]
    join = {"type": "tournament_join", "tournament_id": tid}
    await refused(guest, join, "unauthorized", "guest")
    assert (await ask(ann, join))["entrant_count"] == 1
    await refused(ann, join, "bad_request", "joined")
    await refused(ann, {"type": "tournament_start", "tournament_id": tid}, "bad_request",
                  "too_few")
    await refused(ann, {**join, "account": "house-nobody"}, "not_found", "bot")
    assert (await ask(bob, join))["entrant_count"] == 2
    await refused(bob, {"type": "tournament_start", "tournament_id": tid}, "unauthorized",
                  "not_creator")
    await refused(bob, {**join, "account": "ann"}, "unauthorized", "not_creator")

    # bob is away when round 1 must start: he forfeits it (and the one round is the last).
    await bob.close()
    await server.flush_store()
    for _ in range(200):
        if not server.sessions.online("bob"):
            break
        await asyncio.sleep(0.01)
    started = await ask(ann, {"type": "tournament_start", "tournament_id": tid})
    assert started["status"] == "running"
    final = await ann.expect_where(lambda m: m["type"] == "tournament"
                                   and m["status"] == "over")
    (pairing,) = final["pairings"]
    assert pairing["status"] == "forfeit" and pairing["match_id"] is None
    assert {s["name"]: s["points"] for s in final["standings"]} == {"ann": 1.0, "bob": 0.0}

    carl = await account_client(server, "carl", "human")
    await refused(carl, join, "bad_request", "started")
    await refused(ann, {"type": "tournament_leave", "tournament_id": tid}, "bad_request",
                  "started")

    # Only the one tournament, with its two entrants, was stored.
    await server.flush_store()
    store = server.store.tournaments()
    assert await asyncio.to_thread(store.list_ids) == [tid]
    listed = await ask(carl, {"type": "list_tournaments"})
    assert [t["tournament_id"] for t in listed["tournaments"]] == [tid]
    stored = await asyncio.to_thread(store.load, tid)
    assert stored is not None and list(stored.entrants) == ["ann", "bob"]

    # A restarted server shows it as it was.
    again = ArenaServer(SqliteStore(tmp_path / "arena.sqlite3"))
    await again.start("127.0.0.1", 0)
    try:
        viewer = await WsClient.open(again.ws_url)
        await viewer.hello(name="viewer")
        shown = await ask(viewer, {"type": "tournament_show", "tournament_id": tid})
        assert {k: v for k, v in shown.items() if k != "ref"} == {
            k: v for k, v in final.items() if k != "ref"}
        await viewer.close()
    finally:
        await again.close()
        again.store.close()
    for client in (ann, carl, guest):
        await client.close()


async def test_a_running_tournament_goes_on_after_a_restart(tmp_path: Path) -> None:
    """The server stops with a tournament's game live; the next server resumes the match,
    takes the tournament back, and records the result when the players finish it."""
    path = tmp_path / "restart.sqlite3"
    store = SqliteStore(path)
    server = ArenaServer(store)
    await server.start("127.0.0.1", 0)
    tokens = {name: await asyncio.to_thread(store.create_account, name, "human")
              for name in ("ann", "bob")}
    clients = {}
    for name, token in tokens.items():
        clients[name] = await WsClient.open(server.ws_url)
        await clients[name].hello(token=token)
    made = await ask(clients["ann"], {"type": "tournament_create", "game": "race",
                                      "format": "swiss", "rounds": 1, "clock": None})
    tid = made["tournament_id"]
    for client in clients.values():
        await ask(client, {"type": "tournament_join", "tournament_id": tid})
    started = await ask(clients["ann"], {"type": "tournament_start", "tournament_id": tid})
    match_id = started["pairings"][0]["match_id"]
    assert started["pairings"][0]["status"] == "live" and match_id
    for client in clients.values():
        await client.close()
    await server.close()
    store.close()

    store = SqliteStore(path)
    server = ArenaServer(store)
    await server.start("127.0.0.1", 0)
    try:
        for name, token in tokens.items():
            clients[name] = await WsClient.open(server.ws_url)
            await clients[name].hello(token=token)
        shown = await ask(clients["ann"], {"type": "tournament_show", "tournament_id": tid})
        assert shown["status"] == "running" and shown["pairings"][0]["status"] == "live"
        ends = await asyncio.gather(*(play_random(c, match_id, seed)
                                      for seed, c in enumerate(clients.values())))
        final = await clients["ann"].expect_where(
            lambda m: m["type"] == "tournament" and m["status"] == "over")
        (pairing,) = final["pairings"]
        assert pairing["status"] == "over" and pairing["ranks"] == ends[0]["outcome"]["ranks"]
        assert sorted(s["points"] for s in final["standings"]) == [0.0, 1.0]
    finally:
        for client in clients.values():
            await client.close()
        await server.close()
        store.close()
