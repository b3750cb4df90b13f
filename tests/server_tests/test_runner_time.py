"""The runner's time contract (sans-I/O, explicit ``now``): per-decision deadlines besides bank
and increment, what each request says about its deadline, and what an expired deadline means
for the game: a loss (Battle Line, Chexers, the race minigame) or the game's default action
(the test-only Goofspiel: its lowest card), applied like the seat's own action."""

from __future__ import annotations

import itertools
from typing import Any

from engine import registry
from engine.core import Action, State
from server.clocks import Clock
from server.render import SeatInfo
from server.runner import MatchRunner, Outgoing
from tests.games.goofspiel import Goofspiel
from tests.server_tests.minigames import RACE

SEATS2 = [SeatInfo("ann", "bot"), SeatInfo("bob", "bot")]
GOOF = Goofspiel()


def ids() -> Any:
    counter = itertools.count(1)
    return lambda: f"r{next(counter)}"


def of(out: list[Outgoing], recipient: int | None, kind: str) -> list[dict[str, Any]]:
    return [m for r, m in out if r == recipient and m["type"] == kind]


def events_of(out: list[Outgoing], recipient: int | None) -> list[dict[str, Any]]:
    return [e for m in of(out, recipient, "events") for e in m["events"]]


def goofspiel(clock: Clock, cards: int = 3) -> tuple[MatchRunner, list[Outgoing]]:
    runner = MatchRunner("g1", GOOF, SEATS2, {"cards": cards}, seed=4, clock=clock,
                         request_ids=ids())
    return runner, runner.start(0.0)


def test_requests_say_how_long_the_seat_has_to_answer() -> None:
    runner, out = goofspiel(Clock(decision_ms=1_500))
    for seat in (0, 1):
        (req,) = of(out, seat, "request")
        assert req["deadline_ms"] == 1_500 and req["clock_ms"] is None  # no bank to show
    assert of(out, 0, "match_start")[0]["clock"] == {"decision_ms": 1_500}
    assert of(out, 0, "match_start")[0]["clocks_ms"] is None
    assert runner.next_deadline() == 1.5
    # A resync re-sends the same request with the time that is left.
    (_, again), = [(r, m) for r, m in runner.resync(1, 0.5) if m["type"] == "request"]
    assert again["request_id"] == of(out, 1, "request")[0]["request_id"]
    assert again["deadline_ms"] == 1_000


def test_an_untimed_request_has_no_deadline() -> None:
    runner = MatchRunner("m1", RACE, SEATS2, request_ids=ids())
    (req,) = of(runner.start(0.0), 0, "request")
    assert req["deadline_ms"] is None and req["clock_ms"] is None


def test_a_simultaneous_default_is_committed_hidden_and_revealed_with_the_other_bid() -> None:
    runner, out = goofspiel(Clock(1_000, 500))
    # Round 1: seat 0 answers at once, seat 1 slowly: seat 0 has more time left in round 2.
    runner.receive_action(0, runner.pending_request_id(0), {"bid": 3}, 0.1)
    out = runner.receive_action(1, runner.pending_request_id(1), {"bid": 3}, 0.9)
    assert runner.clocks_ms(0.9) == [1_400, 600]
    hand = of(out, 1, "request")[0]["view"]["hand"]
    # Seat 1 misses its deadline first: its default is committed, nobody else learns it.
    assert runner.next_deadline() == 1.5
    out = runner.tick(1.5)
    public = {"type": "timeout", "seats": [1], "default": True}
    assert events_of(out, 1) == [{**public, "action": {"bid": min(hand)}},
                                 {"type": "committed", "seat": 1,
                                  "action": {"bid": min(hand)}}]
    assert events_of(out, 0) == [public, {"type": "committed", "seat": 1}]
    assert events_of(out, None) == [public, {"type": "committed", "seat": 1}]
    assert of(out, 0, "request") == [] and of(out, 1, "request") == []
    assert runner.pending_request_id(1) is None and runner.legal_actions(1) == []
    # Seat 0 is still on its own deadline and answers in time: the bids are revealed.
    assert runner.next_deadline() == 2.3 and runner.tick(2.2) == []
    out = runner.receive_action(0, runner.pending_request_id(0), {"bid": 2}, 2.0)
    (reveal,) = [e for e in events_of(out, None) if e["type"] == "reveal"]
    assert reveal["bids"] == [2, min(hand)]
    assert runner.match.log[-2] == {"0": {"bid": 2}, "1": {"bid": min(hand)}}


def test_a_late_answer_after_the_default_is_refused() -> None:
    runner, out = goofspiel(Clock(decision_ms=1_000))
    stale = of(out, 0, "request")[0]["request_id"]
    runner.receive_action(1, runner.pending_request_id(1), {"bid": 2}, 0.2)
    out = runner.receive_action(0, stale, {"bid": 3}, 1.2)  # the timer had not fired yet
    timeout, reveal, *_ = events_of(out, 0)
    assert timeout == {"type": "timeout", "seats": [0], "default": True, "action": {"bid": 1}}
    assert reveal["type"] == "reveal" and reveal["bids"] == [1, 2]
    (error,) = of(out, 0, "error")
    assert error["code"] == "stale_request"
    assert runner.status == "live" and runner.moves == 2


def test_both_seats_time_out_together_and_the_match_goes_on() -> None:
    runner, out = goofspiel(Clock(decision_ms=1_000))
    out = runner.tick(5.0)
    kinds = [e["type"] for e in events_of(out, None)]
    assert kinds[:3] == ["timeout", "committed", "reveal"]
    assert events_of(out, None)[0] == {"type": "timeout", "seats": [0, 1], "default": True}
    assert events_of(out, 0)[0]["action"] == {"bid": 1}
    # The next round's requests, each with a whole new decision limit.
    for seat in (0, 1):
        (req,) = of(out, seat, "request")
        assert req["deadline_ms"] == 1_000
    assert runner.next_deadline() == 6.0


def test_a_seat_that_never_answers_plays_its_lowest_card_to_the_end() -> None:
    runner, out = goofspiel(Clock(decision_ms=500), cards=5)
    now = 0.0
    while not runner.is_over:
        seat0 = runner.pending_request_id(0)
        if seat0 is not None:
            hand = runner.legal_actions(0)
            runner.receive_action(0, seat0, hand[-1], now + 0.1)  # seat 0 bids its highest
        now = runner.next_deadline() or now
        out = runner.tick(now)
    (end,) = of(out, None, "match_end")
    assert end["outcome"]["reason"] == "score"
    bids = [entry["1"] for entry in runner.match.log if "1" in entry]
    assert bids == [{"bid": k} for k in range(1, 6)]  # lowest first, every round
    assert runner.moves == 10


def test_per_decision_limit_with_a_bank_ends_whichever_comes_first() -> None:
    runner, out = goofspiel(Clock(2_000, 0, decision_ms=1_500))
    assert of(out, 0, "request")[0]["deadline_ms"] == 1_500
    assert of(out, 0, "request")[0]["clock_ms"] == 2_000
    runner.receive_action(1, runner.pending_request_id(1), {"bid": 1}, 0.25)
    out = runner.tick(1.5)  # seat 0 used its whole decision limit: default, bank charged
    assert runner.clocks_ms(1.5) == [500, 1_750]
    for seat, left in ((0, 500), (1, 1_500)):  # the bank is shorter than the limit for seat 0
        assert of(out, seat, "request")[0]["deadline_ms"] == left


def test_a_spent_bank_leaves_only_the_increment_per_decision() -> None:
    runner, out = goofspiel(Clock(1_000, 200))
    runner.receive_action(1, runner.pending_request_id(1), {"bid": 1}, 0.1)
    out = runner.tick(1.0)  # seat 0's bank is spent: its default is applied
    assert events_of(out, None)[0] == {"type": "timeout", "seats": [0], "default": True}
    (req,) = of(out, 0, "request")
    assert req["clock_ms"] == 200 and req["deadline_ms"] == 200
    assert runner.status == "live"


def test_a_timeout_is_still_a_loss_where_the_game_says_so() -> None:
    game = registry.get("battleline")
    assert game.info.timeout == "loss" and registry.get("chexers").info.timeout == "loss"
    runner = MatchRunner("b1", game, SEATS2, seed=3, clock=Clock(60_000, 0, decision_ms=2_000),
                         request_ids=ids())
    out = runner.start(0.0)
    assert of(out, 0, "request")[0]["deadline_ms"] == 2_000
    assert runner.next_deadline() == 2.0
    out = runner.tick(2.0)
    assert events_of(out, 1)[-1] == {"type": "timeout", "seats": [0]}
    (end,) = of(out, None, "match_end")
    assert end["outcome"] == {"ranks": [1, 0], "reason": "timeout"}


def test_a_pure_per_decision_limit_times_out_a_loss_game_too() -> None:
    runner = MatchRunner("m1", RACE, SEATS2, clock=Clock(decision_ms=300), request_ids=ids())
    runner.start(0.0)
    runner.receive_action(0, "r1", {"add": 1}, 0.29)
    assert runner.next_deadline() == 0.29 + 0.3
    out = runner.tick(0.6)
    assert of(out, 0, "match_end")[0]["outcome"] == {"ranks": [0, 1], "reason": "timeout"}


class BrokenDefault(Goofspiel):
    def default_action(self, state: State, seat: int) -> Action:
        return {"bid": 99}


def test_a_broken_default_action_voids_the_match_like_any_engine_fault() -> None:
    runner = MatchRunner("g1", BrokenDefault(), SEATS2, seed=1, clock=Clock(decision_ms=100),
                         request_ids=ids())
    runner.start(0.0)
    out = runner.tick(0.1)
    assert runner.status == "void"
    assert of(out, None, "match_end")[0]["outcome"]["reason"] == "void"
