"""Time control: the clock a match is played under, and each seat's time in it.

Sans-I/O: nothing here reads a clock. The caller (the match runner) passes ``now``, seconds
from any monotonic origin, into every call.

A :class:`Clock` has up to two limits, alone or together:

* a **bank** per seat (``initial_ms``) plus an ``increment_ms`` added after each of the
  seat's decisions (Fischer time);
* a **per-decision** limit (``decision_ms``): each decision must be answered within it,
  whatever the bank holds.

A decision's deadline is whichever of the two ends first. What an expired deadline means (a
loss, or the game's default action) is the game's business (``GameInfo.timeout``), not the
clock's: :class:`SeatClocks` only says which seats are past their deadline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

CLOCK_FIELDS = ("initial_ms", "increment_ms", "decision_ms")


@dataclass(frozen=True)
class Clock:
    """The protocol's ``clock``: a bank plus increment, a per-decision limit, or both (ms).

    ``Clock(60_000, 1_000)`` is a one-minute bank with one second added per decision;
    ``Clock(decision_ms=5_000)`` gives five seconds per decision and keeps no bank. Raises
    :class:`ValueError` when the values do not make a clock."""

    initial_ms: int | None = None
    increment_ms: int = 0
    decision_ms: int | None = None

    def __post_init__(self) -> None:
        if self.initial_ms is None and self.decision_ms is None:
            raise ValueError("clock needs initial_ms (a time bank), decision_ms "
                             "(a per-decision limit), or both")
        for key in CLOCK_FIELDS:
            value = getattr(self, key)
            if value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"clock.{key} must be an integer (milliseconds)")
            if value < 0 or (value == 0 and key != "increment_ms"):
                wanted = "non-negative" if key == "increment_ms" else "positive"
                raise ValueError(f"clock.{key} must be a {wanted} integer (milliseconds)")
        if self.initial_ms is None and self.increment_ms:
            raise ValueError("clock.increment_ms needs clock.initial_ms: an increment is "
                             "added to a time bank")

    @property
    def has_bank(self) -> bool:
        return self.initial_ms is not None

    def to_json(self) -> dict[str, int]:
        """The wire form: ``initial_ms`` and ``increment_ms`` when there is a bank,
        ``decision_ms`` when there is a per-decision limit. :meth:`from_json` reads it back."""
        out: dict[str, int] = {}
        if self.initial_ms is not None:
            out["initial_ms"] = self.initial_ms
            out["increment_ms"] = self.increment_ms
        if self.decision_ms is not None:
            out["decision_ms"] = self.decision_ms
        return out

    @classmethod
    def from_json(cls, data: Any) -> Clock | None:
        """``None`` (untimed) or a checked clock; raises :class:`ValueError` naming the
        field when malformed. ``increment_ms`` defaults to 0; unknown fields are ignored
        (the protocol's rule for every object)."""
        if data is None:
            return None
        if not isinstance(data, Mapping):
            raise ValueError("clock must be an object or null")
        increment = data.get("increment_ms")
        return cls(data.get("initial_ms"), 0 if increment is None else increment,
                   data.get("decision_ms"))


class SeatClocks:
    """Each seat's time in one match: its bank, and the deadline of its open decision.

    Calling contract: :meth:`start` when a seat is asked for a decision, :meth:`charge`
    when it has answered (or a default was applied for it), :meth:`stop_all` when the match
    ends. :meth:`next_deadline` is when to look again; :meth:`expired` says who is past
    its deadline then. ``clock=None`` (untimed) accepts every call and never expires."""

    def __init__(self, clock: Clock | None, num_seats: int) -> None:
        self.clock = clock
        bank = clock.initial_ms if clock is not None and clock.initial_ms is not None else 0
        self._bank_ms = [float(bank)] * num_seats
        self._since: dict[int, float] = {}     # seat -> when its open decision started
        self._limit_ms: dict[int, float] = {}  # seat -> how long that decision may take

    @property
    def running(self) -> bool:
        """Whether any seat's time is running (a timed decision is open)."""
        return bool(self._since)

    def start(self, seat: int, now: float) -> None:
        """``seat`` must decide from ``now``: its time runs until :meth:`charge`."""
        clock = self.clock
        if clock is None:
            return
        limits: list[float] = [clock.decision_ms] if clock.decision_ms is not None else []
        if clock.has_bank:
            limits.append(self._bank_ms[seat])
        self._since[seat] = now
        self._limit_ms[seat] = min(limits)

    def charge(self, seat: int, now: float) -> None:
        """``seat``'s decision is over: the time it took leaves its bank (never below zero:
        a seat whose bank is spent has only its increments), then the increment is added."""
        since = self._since.pop(seat, None)
        self._limit_ms.pop(seat, None)
        if since is None or self.clock is None:
            return
        spent = self._bank_ms[seat] - (now - since) * 1000.0
        self._bank_ms[seat] = max(0.0, spent) + self.clock.increment_ms

    def stop_all(self, now: float) -> None:
        """The match is over: every running time is charged, without increments."""
        for seat, since in self._since.items():
            self._bank_ms[seat] = max(0.0, self._bank_ms[seat] - (now - since) * 1000.0)
        self._since.clear()
        self._limit_ms.clear()

    def banks_ms(self, now: float) -> list[int] | None:
        """Each seat's bank at ``now`` (running time taken off), or ``None`` without a bank."""
        if self.clock is None or not self.clock.has_bank:
            return None
        return [self._bank_now(seat, now) for seat in range(len(self._bank_ms))]

    def restore_banks(self, banks_ms: list[int]) -> None:
        """Set each seat's bank (a resumed match: the banks as stored, from
        :meth:`banks_ms`); call before any decision is open."""
        if self.clock is None or not self.clock.has_bank:
            return
        if len(banks_ms) != len(self._bank_ms) or self._since:
            raise ValueError("banks for another seat count, or a decision is open")
        self._bank_ms = [float(max(0, int(bank))) for bank in banks_ms]

    def time_left_ms(self, seat: int, now: float) -> int | None:
        """How long ``seat`` still has to answer its open decision, or ``None`` (untimed,
        or no decision open)."""
        if seat not in self._since:
            return None
        return max(0, round(self._left_ms(seat, now)))

    def next_deadline(self) -> float | None:
        """The earliest deadline of an open decision, or ``None``."""
        return min((since + self._limit_ms[seat] / 1000.0 for seat, since in self._since.items()),
                   default=None)

    def expired(self, now: float) -> list[int]:
        """Seats whose open decision is past its deadline at ``now``, in seat order."""
        return sorted(seat for seat in self._since if self._left_ms(seat, now) <= 0)

    def _left_ms(self, seat: int, now: float) -> float:
        return self._limit_ms[seat] - (now - self._since[seat]) * 1000.0

    def _bank_now(self, seat: int, now: float) -> int:
        bank = self._bank_ms[seat]
        since = self._since.get(seat)
        if since is not None:
            bank -= (now - since) * 1000.0
        return max(0, round(bank))

