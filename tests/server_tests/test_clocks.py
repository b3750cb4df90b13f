"""server/clocks.py: the clock a match is played under, and each seat's time (sans-I/O,
every call given its ``now`` in seconds)."""

from __future__ import annotations

from typing import Any

import pytest

from server.clocks import Clock, SeatClocks

# ---- Clock: the protocol's `clock` object ------------------------------------------------------


@pytest.mark.parametrize("data,clock", [
    (None, None),
    ({"initial_ms": 60_000, "increment_ms": 1_000}, Clock(60_000, 1_000)),
    ({"initial_ms": 60_000}, Clock(60_000, 0)),
    ({"decision_ms": 5_000}, Clock(decision_ms=5_000)),
    ({"initial_ms": 60_000, "increment_ms": 0, "decision_ms": 5_000},
     Clock(60_000, 0, decision_ms=5_000)),
    ({"initial_ms": 1, "increment_ms": 2, "decision_ms": 3, "colour": "red"}, Clock(1, 2, 3)),
])
def test_from_json_reads_every_valid_form(data: Any, clock: Clock | None) -> None:
    assert Clock.from_json(data) == clock


@pytest.mark.parametrize("clock", [
    Clock(60_000, 1_000), Clock(60_000), Clock(decision_ms=5_000), Clock(300_000, 2_000, 10_000)])
def test_to_json_round_trips(clock: Clock) -> None:
    assert Clock.from_json(clock.to_json()) == clock


def test_to_json_of_a_bank_is_the_wire_form_of_before() -> None:
    # Seeks are matched on the clock's JSON: a bank-only clock keeps its old spelling.
    assert Clock(60_000, 1_000).to_json() == {"initial_ms": 60_000, "increment_ms": 1_000}
    assert Clock(decision_ms=5_000).to_json() == {"decision_ms": 5_000}
    assert Clock(60_000, 0, 5_000).to_json() == {"initial_ms": 60_000, "increment_ms": 0,
                                                 "decision_ms": 5_000}


@pytest.mark.parametrize("data,message", [
    ("fast", "clock must be an object or null"),
    ({}, "clock needs initial_ms"),
    ({"increment_ms": 1_000}, "clock needs initial_ms"),
    ({"initial_ms": 0}, "clock.initial_ms must be a positive integer"),
    ({"initial_ms": -5}, "clock.initial_ms must be a positive integer"),
    ({"initial_ms": "60000"}, "clock.initial_ms must be an integer"),
    ({"initial_ms": 1.5}, "clock.initial_ms must be an integer"),
    ({"initial_ms": True}, "clock.initial_ms must be an integer"),
    ({"initial_ms": 60_000, "increment_ms": -1}, "clock.increment_ms must be a non-negative"),
    ({"initial_ms": 60_000, "decision_ms": 0}, "clock.decision_ms must be a positive integer"),
    ({"decision_ms": [5]}, "clock.decision_ms must be an integer"),
    ({"decision_ms": 5_000, "increment_ms": 500}, "clock.increment_ms needs clock.initial_ms"),
])
def test_from_json_names_what_is_wrong(data: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Clock.from_json(data)


def test_a_clock_built_in_code_is_checked_too() -> None:
    with pytest.raises(ValueError, match="clock needs"):
        Clock()
    with pytest.raises(ValueError, match="positive"):
        Clock(decision_ms=0)


# ---- SeatClocks: banks, deadlines, charging ----------------------------------------------------


def test_untimed_accepts_every_call_and_never_expires() -> None:
    clocks = SeatClocks(None, 2)
    clocks.start(0, 0.0)
    assert not clocks.running
    assert clocks.expired(1e9) == []
    assert clocks.next_deadline() is None
    assert clocks.banks_ms(5.0) is None and clocks.time_left_ms(0, 5.0) is None
    clocks.charge(0, 5.0)
    clocks.stop_all(6.0)


def test_a_bank_runs_while_a_seat_decides_and_gains_the_increment() -> None:
    clocks = SeatClocks(Clock(1_000, 500), 2)
    assert clocks.banks_ms(0.0) == [1_000, 1_000]
    clocks.start(0, 10.0)
    assert clocks.running
    assert clocks.next_deadline() == 11.0
    assert clocks.banks_ms(10.4) == [600, 1_000]
    assert clocks.time_left_ms(0, 10.4) == 600 and clocks.time_left_ms(1, 10.4) is None
    clocks.charge(0, 10.4)
    assert not clocks.running and clocks.next_deadline() is None
    assert clocks.banks_ms(99.0) == [1_100, 1_000]


def test_a_seat_expires_when_its_bank_is_spent() -> None:
    clocks = SeatClocks(Clock(1_000), 3)
    clocks.start(2, 0.0)
    clocks.start(1, 0.5)
    assert clocks.next_deadline() == 1.0
    assert clocks.expired(0.999) == []
    assert clocks.expired(1.0) == [2]
    assert clocks.expired(1.5) == [1, 2]


def test_a_per_decision_limit_alone_keeps_no_bank() -> None:
    clocks = SeatClocks(Clock(decision_ms=2_000), 2)
    assert clocks.banks_ms(0.0) is None
    clocks.start(0, 3.0)
    assert clocks.next_deadline() == 5.0
    assert clocks.time_left_ms(0, 4.25) == 750
    assert clocks.expired(4.99) == [] and clocks.expired(5.0) == [0]
    clocks.charge(0, 4.0)
    clocks.start(0, 10.0)  # every decision gets the whole limit again
    assert clocks.next_deadline() == 12.0


def test_with_a_bank_the_deadline_is_whichever_ends_first() -> None:
    clocks = SeatClocks(Clock(3_000, 0, decision_ms=2_000), 1)
    clocks.start(0, 0.0)
    assert clocks.next_deadline() == 2.0      # the limit, the bank holds more
    clocks.charge(0, 1.5)
    assert clocks.banks_ms(1.5) == [1_500]
    clocks.start(0, 10.0)
    assert clocks.next_deadline() == 11.5     # the bank, now smaller than the limit
    assert clocks.time_left_ms(0, 10.0) == 1_500


def test_charging_past_the_deadline_leaves_an_empty_bank_plus_the_increment() -> None:
    # What a seat whose default action was applied keeps: nothing but its increments.
    clocks = SeatClocks(Clock(1_000, 200), 1)
    clocks.start(0, 0.0)
    clocks.charge(0, 1.3)
    assert clocks.banks_ms(2.0) == [200]
    clocks.start(0, 2.0)
    assert clocks.next_deadline() == pytest.approx(2.2)


def test_stop_all_charges_running_time_without_increments() -> None:
    clocks = SeatClocks(Clock(1_000, 500), 2)
    clocks.start(0, 0.0)
    clocks.start(1, 0.0)
    clocks.stop_all(0.25)
    assert not clocks.running
    assert clocks.banks_ms(7.0) == [750, 750]
    clocks.stop_all(8.0)  # nothing left running: harmless
    assert clocks.banks_ms(9.0) == [750, 750]
