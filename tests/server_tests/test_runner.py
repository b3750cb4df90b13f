"""The sans-I/O match runner: request ids, typed errors, clocks with an injected ``now``,
hidden simultaneous commitments, resign, disconnect grace, server faults."""

from __future__ import annotations

import itertools
import json
from typing import Any

from engine.rng import Rng
from server.clocks import Clock
from server.render import SeatInfo
from server.runner import MatchRunner, Outgoing
from tests.server_tests.minigames import DUEL, FAULTY, RACE

SEATS2 = [SeatInfo("ann", "bot"), SeatInfo("bob", "bot")]
SEATS3 = [*SEATS2, SeatInfo("cid", "human")]


def ids() -> Any:
    counter = itertools.count(1)
    return lambda: f"r{next(counter)}"


def of(out: list[Outgoing], recipient: int | None, kind: str) -> list[dict[str, Any]]:
    return [m for r, m in out if r == recipient and m["type"] == kind]


def request_for(out: list[Outgoing], seat: int) -> dict[str, Any]:
    (req,) = of(out, seat, "request")
    return req


def test_start_sends_match_start_to_every_seat_and_spectators_then_one_request() -> None:
    runner = MatchRunner("m1", RACE, SEATS2, request_ids=ids())
    out = runner.start(0.0)
    assert [m["your_seat"] for _, m in out if m["type"] == "match_start"] == [0, 1, None]
    assert [r for r, m in out if m["type"] == "request"] == [0]
    req = request_for(out, 0)
    assert req["request_id"] == "r1" and req["legal_actions"] == [{"add": 1}, {"add": 2}]
    assert req["clock_ms"] is None


def test_default_request_ids_are_fresh_and_long() -> None:
    runner = MatchRunner("m1", RACE, SEATS2)
    first = request_for(runner.start(0.0), 0)["request_id"]
    second = request_for(runner.receive_action(0, first, {"add": 1}, 1.0), 1)["request_id"]
    assert first != second and len(first) >= 24 and len(second) >= 24


def test_typed_errors_stale_not_your_turn_malformed_illegal() -> None:
    runner = MatchRunner("m1", RACE, SEATS3, request_ids=ids())
    runner.start(0.0)
    out = runner.receive_action(1, "r1", {"add": 1}, 0.1, ref=7)
    assert out == [(1, out[0][1])] and out[0][1]["code"] == "not_your_turn"
    assert out[0][1]["ref"] == 7
    (_, err), = runner.receive_action(0, "nope", {"add": 1}, 0.1)
    assert err["code"] == "stale_request" and err["request_id"] == "nope"
    (_, err), = runner.receive_action(0, "r1", {"add": "x"}, 0.1)
    assert err["code"] == "malformed_action" and err["details"]["field"] == "add"
    (_, err), = runner.receive_action(0, "r1", {"add": 3}, 0.1)
    assert err["code"] == "illegal_action" and err["details"]["rule"] == "add_range"
    # The request is still open after errors: the same id now succeeds.
    out = runner.receive_action(0, "r1", {"add": 2}, 0.2)
    assert request_for(out, 1)["request_id"] == "r2"
    out = runner.receive_action(1, "r2", {"add": 2}, 0.3)
    out = runner.receive_action(2, "r3", {"add": 2}, 0.4)
    # seat 0 has a new open request (r4); its old id r1 is stale now.
    (_, err), = runner.receive_action(0, "r1", {"add": 1}, 0.5)
    assert err["code"] == "stale_request"


def test_events_are_numbered_and_reach_everyone() -> None:
    runner = MatchRunner("m1", RACE, SEATS2, request_ids=ids())
    runner.start(0.0)
    out = runner.receive_action(0, "r1", {"add": 2}, 0.1)
    events = [(r, m) for r, m in out if m["type"] == "events"]
    assert [r for r, _ in events] == [0, 1, None]
    assert {m["seq"] for _, m in events} == {1}
    assert events[0][1]["events"] == [{"type": "added", "seat": 0, "add": 2, "count": 2}]


def test_unwatched_steps_leave_out_the_spectators_copy() -> None:
    runner = MatchRunner("m1", RACE, SEATS2, request_ids=ids())
    runner.start(0.0)
    runner.spectated = False
    out = runner.receive_action(0, "r1", {"add": 2}, 0.1)
    assert [r for r, m in out if m["type"] == "events"] == [0, 1]
    # A spectator arrives: resync gives the state so far, and the next step's events follow.
    runner.spectated = True
    (_, start), = runner.resync(None, 0.15)
    assert start["seq"] == 1
    out = runner.receive_action(1, "r2", {"add": 1}, 0.2)
    (watched,) = of(out, None, "events")
    assert watched["seq"] == 2
    # The spectators' copy carries the same public events as a seat's.
    assert of(out, 0, "events")[0]["events"] == watched["events"]


def play_race_to_end(runner: MatchRunner, t: float = 0.0) -> list[Outgoing]:
    out = runner.start(t)
    while not runner.is_over:
        t += 0.01
        (seat,) = [r for r, m in out if m["type"] == "request"]
        assert seat is not None
        out = runner.receive_action(seat, runner.pending_request_id(seat), {"add": 2}, t)
    return out


def test_full_match_ends_with_outcome_for_all_viewers() -> None:
    runner = MatchRunner("m1", RACE, SEATS3, {"target": 7}, request_ids=ids())
    out = play_race_to_end(runner)
    ends = [(r, m) for r, m in out if m["type"] == "match_end"]
    assert [r for r, _ in ends] == [0, 1, 2, None]
    # 2+2+2 = 6, then seat 0 reaches 8 >= 7
    assert ends[0][1]["outcome"] == {"ranks": [0, 1, 1], "reason": "target"}
    assert runner.status == "over" and runner.moves == 4
    record = runner.finished_record()
    assert "seed" not in record and len(record["log"]) == 4
    assert runner.full_record()["seed"] == 0


def test_clock_bank_increment_and_timeout_with_injected_now() -> None:
    runner = MatchRunner("m1", RACE, SEATS2, clock=Clock(1000, 500), request_ids=ids())
    out = runner.start(10.0)
    assert request_for(out, 0)["clock_ms"] == 1000
    assert runner.next_deadline() == 11.0
    assert runner.tick(10.3) == []
    out = runner.receive_action(0, "r1", {"add": 1}, 10.4)   # 400 ms used, +500
    assert runner.clocks_ms(10.4) == [1100, 1000]
    assert request_for(out, 1)["clock_ms"] == 1000
    assert runner.next_deadline() == 11.4
    assert runner.clocks_ms(11.0) == [1100, 400]
    out = runner.tick(11.4)
    (end,) = of(out, None, "match_end")
    assert end["outcome"] == {"ranks": [0, 1], "reason": "timeout"}
    assert of(out, 0, "events")[0]["events"] == [{"type": "timeout", "seats": [1]}]
    assert runner.next_deadline() is None


def test_late_action_after_the_deadline_still_loses_on_time() -> None:
    runner = MatchRunner("m1", RACE, SEATS2, clock=Clock(1000, 0), request_ids=ids())
    runner.start(0.0)
    out = runner.receive_action(0, "r1", {"add": 1}, 1.5)   # timer had not fired yet
    assert of(out, 1, "match_end")[0]["outcome"]["reason"] == "timeout"
    assert runner.match.log == []


def test_three_seat_timeout_the_others_tie_first() -> None:
    runner = MatchRunner("m1", RACE, SEATS3, clock=Clock(500, 0), request_ids=ids())
    runner.start(0.0)
    runner.receive_action(0, "r1", {"add": 1}, 0.1)
    out = runner.tick(5.0)
    assert of(out, 2, "match_end")[0]["outcome"] == {"ranks": [0, 1, 0], "reason": "timeout"}


def test_resign_and_after_the_end_actions_are_refused() -> None:
    runner = MatchRunner("m1", RACE, SEATS3, request_ids=ids())
    runner.start(0.0)
    out = runner.resign(2, 1.0)
    assert of(out, 0, "match_end")[0]["outcome"] == {"ranks": [0, 0, 1],
                                                     "reason": "resignation"}
    (_, err), = runner.receive_action(0, "r1", {"add": 1}, 1.1)
    assert err["code"] == "not_your_turn"
    assert runner.resign(0, 2.0) == []


def test_disconnect_grace_then_forfeit_and_reconnect_resends_the_same_request() -> None:
    runner = MatchRunner("m1", RACE, SEATS2, grace_s=30.0, request_ids=ids())
    runner.start(0.0)
    runner.disconnected(0, 1.0)
    assert runner.next_deadline() == 31.0
    out = runner.reconnected(0, 20.0)
    assert [m["type"] for r, m in out if r == 0] == ["events", "match_start", "request"]
    assert request_for(out, 0)["request_id"] == "r1"
    assert runner.next_deadline() is None
    runner.disconnected(1, 21.0)
    assert runner.tick(50.9) == []
    out = runner.tick(51.0)
    assert of(out, 0, "match_end")[0]["outcome"] == {"ranks": [0, 1], "reason": "forfeit"}


def test_simultaneous_commitments_stay_hidden_until_all_are_in() -> None:
    runner = MatchRunner("d1", DUEL, SEATS2, seed=5, request_ids=ids())
    out = runner.start(0.0)
    secrets = runner.state["secrets"]
    # Each seat sees its own secret, never the other's; spectators see neither.
    assert str(secrets[0]) in json.dumps([m for r, m in out if r == 0])
    assert str(secrets[1]) not in json.dumps([m for r, m in out if r == 0])
    assert not any(str(s) in json.dumps([m for r, m in out if r is None]) for s in secrets)
    assert request_for(out, 0)["request_id"] != request_for(out, 1)["request_id"]
    out = runner.receive_action(0, "r1", {"card": 3}, 0.1)
    # Only a "committed" event: seat 1 and spectators learn that seat 0 is ready, seat 0's
    # own copy acknowledges the card it committed.
    for recipient, message in out:
        assert message["type"] == "events"
        ack = {"action": {"card": 3}} if recipient == 0 else {}
        assert message["events"] == [{"type": "committed", "seat": 0, **ack}]
    assert runner.pending_request_id(0) is None and runner.pending_request_id(1) == "r2"
    # A second answer on the same turn is refused, naming the rule; the first one stands.
    for again in ({"card": 2}, {"card": 3}):
        (_, err), = runner.receive_action(0, "r1", again, 0.2)
        assert err["code"] == "illegal_action"
        assert err["details"]["rule"] == "already_committed"
    # Someone who never had a request here is simply not to act.
    (_, err), = runner.receive_action(0, "nope", {"card": 2}, 0.2)
    assert err["code"] == "illegal_action"
    (_, err), = runner.receive_action(1, "r2", {"card": 9}, 0.2)
    assert err["code"] == "malformed_action"
    out = runner.receive_action(1, "r2", {"card": 1}, 0.3)
    assert of(out, None, "events")[0]["events"][0]["cards"] == [3, 1]
    assert {request_for(out, s)["request_id"] for s in (0, 1)} == {"r3", "r4"}
    (_, err), = runner.receive_action(0, "r3", {"card": 3}, 0.4)
    assert err["code"] == "illegal_action" and err["details"]["rule"] == "card_not_in_hand"


def test_simultaneous_clocks_run_for_every_seat_that_owes_an_action() -> None:
    runner = MatchRunner("d1", DUEL, SEATS2, clock=Clock(1000, 0), request_ids=ids())
    runner.start(0.0)
    runner.receive_action(0, "r1", {"card": 1}, 0.2)
    assert runner.clocks_ms(0.5) == [800, 500]
    out = runner.tick(1.0)
    assert of(out, 0, "match_end")[0]["outcome"] == {"ranks": [0, 1], "reason": "timeout"}


def test_replay_of_a_live_match_is_public_and_of_a_finished_one_has_no_seed() -> None:
    runner = MatchRunner("d1", DUEL, SEATS2, seed=123456789, request_ids=ids())
    runner.start(0.0)
    live = runner.replay()
    text = json.dumps(live)
    assert live["status"] == "live" and "log" not in live
    assert not any(str(s) in text for s in runner.state["secrets"])
    assert "123456789" not in text
    for t in range(3):
        runner.receive_action(0, runner.pending_request_id(0), {"card": t + 1}, 1.0 + t)
        runner.receive_action(1, runner.pending_request_id(1), {"card": 3 - t}, 1.0 + t)
    assert runner.is_over
    done = runner.replay()
    assert done["status"] == "over" and len(done["log"]) == 4 and "seed" not in done
    assert "123456789" not in json.dumps(done)
    assert done["outcome"]["reason"] == "points"
    assert [step["seq"] for step in done["steps"]] == [1, 2, 3, 4]


def test_engine_fault_voids_the_match_and_tells_every_seat() -> None:
    runner = MatchRunner("f1", FAULTY, SEATS2, request_ids=ids())
    runner.start(0.0)
    runner.receive_action(0, "r1", {"add": 1}, 0.1)
    runner.receive_action(1, "r2", {"add": 1}, 0.2)
    out = runner.receive_action(0, "r3", {"add": 1}, 0.3)
    assert runner.status == "void"
    assert [m["code"] for r, m in out if m["type"] == "error"] == ["internal", "internal"]
    assert of(out, None, "match_end")[0]["outcome"]["reason"] == "void"


def test_goofspiel_bids_stay_hidden_from_everyone_until_both_are_in() -> None:
    from tests.games.goofspiel import Goofspiel

    rng = Rng(3)
    runner = MatchRunner("g1", Goofspiel(), SEATS2, {"cards": 5}, seed=9, request_ids=ids())
    runner.start(0.0)
    rounds = 0
    while not runner.is_over:
        first, second = (0, 1) if rounds % 2 == 0 else (1, 0)
        bid = rng.choice(runner.legal_actions(first))
        out = runner.receive_action(first, runner.pending_request_id(first), bid, 1.0)
        # One "committed" event per viewer, and nothing else: no view, no request; only the
        # committing seat's copy names its bid.
        assert [(r, m["events"]) for r, m in out] == [
            (r, [{"type": "committed", "seat": first,
                  **({"action": bid} if r == first else {})}]) for r in (0, 1, None)]
        assert runner.legal_actions(first) == []
        reply = rng.choice(runner.legal_actions(second))
        out = runner.receive_action(second, runner.pending_request_id(second), reply, 1.0)
        assert any(m["type"] in ("events", "match_end") for _, m in out)
        rounds += 1
    assert rounds == 5 and runner.outcome is not None


def test_requests_later_splits_a_step_into_events_then_the_same_requests() -> None:
    """``requests_later`` sends nothing different: the events first, and the requests
    (already issued, clocks running) from render_requests; the same messages as one call."""
    from engine import registry
    game = registry.get("battleline")
    whole = MatchRunner("b1", game, SEATS2, seed=11, request_ids=ids(), clock=Clock(60_000, 0))
    split = MatchRunner("b1", game, SEATS2, seed=11, request_ids=ids(), clock=Clock(60_000, 0))
    rng = Rng(3)
    now = 0.0
    out_whole, out_split = whole.start(now), split.start(now)
    for _ in range(40):
        assert out_whole == out_split
        (seat, request), = [(r, m) for r, m in out_whole if m["type"] == "request"]
        assert seat is not None
        action = rng.choice(request["legal_actions"])
        now += 0.25
        out_whole = whole.receive_action(seat, request["request_id"], action, now)
        first = split.receive_action(seat, request["request_id"], action, now,
                                     requests_later=True)
        assert first and all(m["type"] != "request" for _, m in first)
        assert split.pending_request_id(1 - seat) == whole.pending_request_id(1 - seat)
        assert split.next_deadline() == whole.next_deadline()  # its clock already runs
        out_split = first + split.render_requests(now)
        assert split.render_requests(now) == []  # each request is rendered once
        if whole.is_over:
            break
    assert out_whole == out_split
