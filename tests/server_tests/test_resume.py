"""Resuming live matches after a server stops or crashes (server/resume.py).

The runner rebuilt from a stored log is the runner that was (every game, at many points);
over a real server and a real SQLite file, a graceful stop and a new server give every seat
back its match — an account by logging in, a guest by its old resume token — with its
pending request, and the match plays on to a normal end; a seat nobody claims forfeits
after the grace; a stored match that no longer replays is ended void and the others still
resume. The crash of a whole ladder (``kill -9``) is tests/ladder/test_ladder_crash.py.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from bots.random_bot import random_answer
from engine import registry
from server.app import ArenaServer
from server.clocks import Clock
from server.render import SeatInfo
from server.runner import MatchRunner, Outgoing
from server.storage import SqliteStore
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient, play_random

GAMES = ("battleline", "chexers", "barca", "boundary")


def _requests(out: list[Outgoing]) -> dict[int, dict[str, Any]]:
    return {seat: message for seat, message in out
            if seat is not None and message["type"] == "request"}


def _comparable(request: dict[str, Any]) -> dict[str, Any]:
    """A request without what a resume renews (its id, the clocks)."""
    return {k: v for k, v in request.items()
            if k not in ("request_id", "clock_ms", "clocks_ms", "deadline_ms")}


@pytest.mark.parametrize("game_name", GAMES)
def test_a_runner_rebuilt_from_its_log_is_the_runner_that_was(game_name: str) -> None:
    """At random points of seeded random matches, the runner rebuilt from the stored log
    has the same state, views, requests (new ids), move count and public history; a
    simultaneous commitment not yet resolved is not in the log, and its seat is asked
    again."""
    game = registry.get(game_name)
    rng = random.Random(game_name)
    seats = [SeatInfo(f"p{n}", "bot") for n in range(game.info.min_seats)]
    checked = 0
    for seed in range(6):
        runner = MatchRunner(f"m{seed}", game, seats, None, seed, clock=Clock(60_000, 1_000))
        pending = _requests(runner.start(0.0))
        stop_at = rng.randrange(1, 60)
        for step in range(stop_at):
            if runner.is_over or not pending:
                break
            seat = sorted(pending)[0]
            request = pending.pop(seat)
            out = runner.receive_action(seat, request["request_id"],
                                        random_answer(request, rng), float(step))
            pending.update(_requests(out))
        record = runner.full_record()
        rebuilt, out = MatchRunner.resumed(
            runner.match_id, game, seats, record["options"], record["seed"], record["log"],
            100.0, clock=Clock(60_000, 1_000), banks_ms=runner.clocks_ms(100.0),
            start_state=record["start"])
        assert rebuilt.match.state == runner.match.state
        assert rebuilt.match.log == runner.match.log
        assert rebuilt.status == runner.status
        uncommitted = len(runner.match.committed())
        assert rebuilt.moves == runner.moves - uncommitted
        assert rebuilt.clocks_ms(100.0) == runner.clocks_ms(100.0)
        for viewer in [*range(len(seats)), None]:
            assert rebuilt.match.view(viewer) == runner.match.view(viewer)
        def public(runner: MatchRunner) -> list[list[Any]]:
            # (who committed first on a simultaneous turn is not in the log)
            batches = [[e for e in b.events if e.type != "committed"] for b in runner.history]
            return [b for b in batches if b]

        assert public(rebuilt) == public(runner)
        if runner.is_over:
            assert [m["type"] for _, m in out].count("match_end") == len(seats) + 1
            continue
        assert out == []
        for seat in rebuilt.match.awaiting():
            request_id = rebuilt.pending_request_id(seat)
            assert request_id and request_id != runner.pending_request_id(seat)
            (again,) = [m for _, m in rebuilt.resync(seat, 100.0) if m["type"] == "request"]
            assert again["request_id"] == request_id
            if seat not in runner.match.committed():  # (else its plan is asked for again)
                (before,) = [m for _, m in runner.resync(seat, 100.0)
                             if m["type"] == "request"]
                assert _comparable(again) == _comparable(before)
        checked += 1
    assert checked >= 3  # most stops fall in mid-match


def test_a_log_that_does_not_replay_is_refused() -> None:
    game = registry.get("race")
    seats = [SeatInfo("a", "bot"), SeatInfo("b", "bot")]
    with pytest.raises(ValueError, match="refused on replay"):
        MatchRunner.resumed("m", game, seats, None, 0, [{"0": {"add": 7}}], 0.0)
    with pytest.raises(ValueError, match="refused on replay"):
        MatchRunner.resumed("m", game, seats, None, 0, [{"1": {"add": 1}}], 0.0)


async def _restart(db: Path, **settings: Any) -> tuple[ArenaServer, SqliteStore]:
    store = SqliteStore(db)
    server = ArenaServer(store, **settings)
    await server.start("127.0.0.1", 0)
    return server, store


async def test_after_a_stop_every_seat_gets_its_match_back_and_it_plays_to_the_end(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite3"
    first, store = await _restart(db)
    token = await asyncio.to_thread(store.create_account, "acc", "bot")
    a = await WsClient.open(first.ws_url)
    await a.hello(token=token)
    b = await WsClient.open(first.ws_url)
    old_session = (await b.hello(name="visitor"))["session"]
    cut = await challenge_match(a, [b], "race", {"target": 40},
                                clock={"initial_ms": 600_000, "increment_ms": 0})
    request = await a.expect("request", match_id=cut)
    await a.send({"type": "action", "match_id": cut, "request_id": request["request_id"],
                  "action": {"add": 2}})
    before = await b.expect("request", match_id=cut)
    await first.close()  # a graceful stop: nobody forfeits, the clocks are saved
    store.close()
    await a.close()
    await b.close()

    second, store = await _restart(db)
    try:
        row = store.get_match(cut)
        assert row is not None and row.status == "live" and row.log == [{"0": {"add": 2}}]
        assert row.live_state is not None and len(row.live_state["clocks_ms"]) == 2
        # The guest, by its old resume token: a new session token, its match and request.
        b = await WsClient.open(second.ws_url)
        welcome = await b.hello(resume=old_session)
        assert welcome["type"] == "welcome" and welcome["session"] != old_session
        assert welcome["account"]["name"].startswith("visitor#")
        start = await b.expect("match_start", match_id=cut)
        assert start["your_seat"] == 1 and start["view"] == before["view"]
        again = await b.expect("request", match_id=cut)
        assert again["request_id"] != before["request_id"]
        assert again["legal_actions"] == before["legal_actions"]
        assert 0 < again["clock_ms"] <= 600_000 and start["clocks_ms"][0] <= 600_000
        # The account, by logging in.
        a = await WsClient.open(second.ws_url)
        await a.hello(token=token)
        assert (await a.expect("match_start", match_id=cut))["your_seat"] == 0
        ends = await asyncio.gather(play_random(a, cut, 1), play_random(b, cut, 2,
                                                                         first=again))
        assert ends[0]["outcome"] == ends[1]["outcome"]
        assert ends[0]["outcome"]["reason"] == "target"
    finally:
        await second.close()
    row = store.get_match(cut)
    store.close()
    assert row is not None and row.status == "over" and row.live_state is None
    assert row.log[0] == {"0": {"add": 2}} and len(row.log) > 1


async def test_a_seat_nobody_claims_forfeits_after_the_grace(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite3"
    first, store = await _restart(db)
    a = await account_client(first, "stays")
    b = await account_client(first, "leaves")
    cut = await challenge_match(a, [b], "race", {"target": 40})
    await a.expect("request", match_id=cut)
    await first.close()
    store.close()
    # "stays" logs in again (a new token for its account), "leaves" never comes back.
    second, store = await _restart(db, grace_s=0.3)
    try:
        back = await WsClient.open(second.ws_url)
        token = await asyncio.to_thread(store.rotate_token, "stays")
        await back.hello(token=token)
        await back.expect("match_start", match_id=cut)
        end = await back.expect("match_end", match_id=cut, timeout=10)
        assert end["outcome"] == {"ranks": [0, 1], "reason": "forfeit"}
    finally:
        await second.close()
        store.close()


async def test_a_match_that_no_longer_replays_is_void_and_the_others_resume(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite3"
    first, store = await _restart(db)
    a = await account_client(first, "a1")
    b = await account_client(first, "b1")
    good = await challenge_match(a, [b], "race", {"target": 40})
    bad = await challenge_match(a, [b], "race", {"target": 40})
    await first.close()
    # The bad match's stored log says seat 1 moved first: it cannot replay.
    store.append_actions([(bad, 0, {"1": {"add": 1}})], {bad: 1})
    store.close()
    second, store = await _restart(db)
    try:
        assert second.find_match(good) is not None and second.find_match(bad) is None
        row = store.get_match(bad)
        assert row is not None and row.status == "void" and row.live_state is None
        assert store.get_match(good).status == "live"  # type: ignore[union-attr]
    finally:
        await second.close()
        store.close()
