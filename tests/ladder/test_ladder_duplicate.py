"""A ladder that plays duplicate pairs (server/pairs.py, GameLadder.duplicate) on a real
server: each pairing is two matches of one deal with the seats swapped, rated once as one
result when both have ended; a pair with a void match is unrated; a rerate recomputes the
same ratings from the raw rows; a bot with one free slot is never seated in a pair."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ladder_helpers import Arena, arena, open_arena
from test_ladder_faults import row_of, until

from engine.core import Outcome
from server.clocks import Clock
from server.ladder import GameLadder, LadderSettings
from server.pairs import pair_result, points_text
from tests.server_tests.helpers import account_client
from tests.server_tests.wsclient import WsClient


def duel(rounds: int) -> LadderSettings:
    ladder = GameLadder("duel", 2, Clock(20_000, 100), {"rounds": rounds},
                        pair_cap_per_hour=10_000, duplicate=True)
    return LadderSettings(games={"duel": ladder}, interval_s=0.1, seed=3)


async def pair_bot(a: Arena, name: str) -> WsClient:
    """A hand-driven bot on the duel ladder with room for one pair."""
    token = await asyncio.to_thread(a.store.create_account, name, "bot")
    client = await WsClient.open(a.server.ws_url)
    await client.hello(token=token)
    ref = await client.send({"type": "ladder_join", "game": "duel", "bot": name,
                             "version": "1", "max_matches": 2})
    assert (await client.expect_reply(ref))["type"] == "ladder_joined"
    return client


async def test_pairs_are_played_with_the_seats_swapped_and_rated_once(tmp_path: Path
                                                                      ) -> None:
    async with arena(tmp_path / "a.sqlite3", duel(3)) as a:
        await a.add_bot("ann", "random", "duel", seed=1, max_matches=2)
        await a.add_bot("bob", "random", "duel", seed=2, max_matches=2)
        lonely = await a.add_bot("cid", "random", "duel", seed=3, max_matches=1)
        await a.wait_rated(3, timeout=30)
        await a.stop_bots()
        ladder = a.server.ladder
        assert lonely.tracked.started == 0  # one free slot never holds a pair
        store = ladder.store
        assert store is not None
        await asyncio.to_thread(a.store.flush)
        every = store.matches()  # (a pair cut by the bots' stop is still live)
        assert ladder.started_matches == 2 * len(every)
        rows = [r for r in every if r.status == "rated"]
        assert len(rows) == ladder.rated_matches >= 3
        for row in rows:
            assert row.twin is not None
            matches = [a.store.get_match(m) for m in (row.match_id, row.twin)]
            first, second = matches
            assert first is not None and second is not None
            assert first.pair == {"id": first.pair["id"], "game": 1, "twin": row.twin}
            assert second.pair == {"id": first.pair["id"], "game": 2, "twin": row.match_id}
            assert [s["name"] for s in second.seats] == [s["name"] for s in first.seats][::-1]
            assert first.chance == second.chance == "deck"
            assert first.log[0] == second.log[0] and "chance" in first.log[0]
            assert first.outcome is not None and second.outcome is not None
            points, ranks = pair_result(Outcome.from_json(first.outcome),
                                        Outcome.from_json(second.outcome))
            assert row.ranks == list(ranks)
            assert row.reason == f"duplicate {points_text(points)}"
        entries = {e["account"]: e for e in ladder.leaderboard("duel")}
        assert entries["ann"]["games"] == entries["bob"]["games"] == len(rows)
        assert entries["cid"]["games"] == 0
        listed = await ladder.recent_matches("duel")
        assert all(m["twin"] for m in listed)
        before = {e: s.rating for e, s in ladder.book.standings.items()}
        book, _ = await asyncio.to_thread(store.rerate)
        assert {e: s.rating for e, s in book.standings.items()} == before
        assert {e: s.started for e, s in book.standings.items()} == \
            {e: s.started for e, s in ladder.book.standings.items()}


async def test_a_pair_with_a_match_aborted_is_void(tmp_path: Path) -> None:
    async with arena(tmp_path / "a.sqlite3", duel(1)) as a:
        admin = await account_client(a.server, "root", "admin")
        players = [await pair_bot(a, name) for name in ("ann", "bob")]
        starts = [[await p.expect("match_start"), await p.expect("match_start")]
                  for p in players]
        ids = sorted({s["match_id"] for s in starts[0]},
                     key=lambda m: next(s["pair"]["game"] for s in starts[0]
                                        if s["match_id"] == m))
        ref = await admin.send({"type": "abort_match", "match_id": ids[0]})
        assert (await admin.expect_reply(ref))["type"] == "ok"
        for player in players:  # game 2 is played to its end
            request = await player.expect("request", match_id=ids[1])
            await player.send({"type": "action", "match_id": ids[1],
                               "request_id": request["request_id"],
                               "action": request["legal_actions"][0]})
        for player in players:
            await player.expect("match_end", match_id=ids[1])
            done = await player.expect("pair_end")
            assert done["status"] == "void" and done["points"] is None
        await until(lambda: a.server.ladder.void_matches >= 1)
        row = await row_of(a, ids[0])
        assert (row.status, row.reason, row.twin) == ("void", "aborted", ids[1])
        assert a.server.ladder.rated_matches == 0
        assert all(e["games"] == 0 for e in a.server.ladder.leaderboard("duel"))


async def test_a_pair_cut_by_a_restart_is_taken_back_and_rated_once(tmp_path: Path) -> None:
    """Game 1 ends, the server stops with game 2 live: the next server resumes game 2, and
    rates the pair (game 1's result read back from the store) when it ends."""
    path = tmp_path / "a.sqlite3"
    a = await open_arena(path, duel(1), grace_s=60.0)
    players = [await pair_bot(a, name) for name in ("ann", "bob")]
    starts = [[await p.expect("match_start"), await p.expect("match_start")] for p in players]
    first, second = (next(s["match_id"] for s in starts[0] if s["pair"]["game"] == n)
                     for n in (1, 2))
    for player in players:
        request = await player.expect("request", match_id=first)
        await player.send({"type": "action", "match_id": first,
                           "request_id": request["request_id"],
                           "action": request["legal_actions"][0]})
    for player in players:
        await player.expect("match_end", match_id=first)
    await a.server.close()
    for player in players:
        await player.close()
    a.store.close()

    b = await open_arena(path, duel(1))
    try:
        assert b.server.ladder.live.keys() == {second}
        tokens = [await asyncio.to_thread(b.store.rotate_token, n) for n in ("ann", "bob")]
        clients = []
        for token in tokens:
            client = await WsClient.open(b.server.ws_url)
            await client.hello(token=token)
            clients.append(client)
        for client in clients:
            request = await client.expect("request", match_id=second)
            await client.send({"type": "action", "match_id": second,
                               "request_id": request["request_id"],
                               "action": request["legal_actions"][-1]})
        for client in clients:
            assert (await client.expect("pair_end"))["status"] == "over"
        await until(lambda: b.server.ladder.rated_matches == 1)
        row = await row_of(b, first)
        assert row.status == "rated" and row.twin == second
        assert all(e["games"] == 1 for e in b.server.ladder.leaderboard("duel"))
    finally:
        await b.close()
        b.store.close()
