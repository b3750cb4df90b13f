"""The spy of ``arena bench spy`` over lean seats: every message the runner sends goes
through the server's real :class:`server.audience.Audience`, some seats lean, so a lean
seat's events are searched where it gets them, inside its next request or match_end, with
what it may not know at that later moment. A short run over every game finds no leak, and
another seat's events planted in a lean seat's request are found."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from engine import registry
from engine.core import Game
from protocol.messages import Encoding
from server.audience import Audience
from server.runner import Outgoing
from server.sessions import Session
from tools.bench import spy

SHORT = {"battleline": 40, "boundary": 20}


class Collector:
    """A connection that keeps what it is sent."""

    closed = False

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


class LeanSpyMatch(spy.SpyMatch):
    """A spied match whose seats' messages are delivered by an audience first: lean seats
    get their events in their requests; what each seat receives is what is checked."""

    def __init__(self, game: Game, seed: int, encoding: Encoding, tally: spy.Tally,
                 chances: spy.Chances, match_id: str = "spy") -> None:
        super().__init__(game, seed, encoding, tally, chances, match_id)
        seats = self.runner.num_seats
        lean = random.Random(seed).sample(range(seats), random.Random(~seed).randint(1, seats))
        self.inbox = [Collector() for _ in range(seats)]
        sessions = [Session(token=f"t{n}", name=f"spy{n}", kind="bot", connection=conn,
                            lean=n in lean, views=True)
                    for n, conn in enumerate(self.inbox)]
        self.audience = Audience(sessions)
        self.runner.views_for = self.audience.wanting_views() | {None}
        self.lean = lean
        self.carried = 0

    def check(self, out: Sequence[Outgoing],
              secrets: dict[spy.Viewer, spy.Secrets] | None = None) -> bool:
        self.audience.deliver([(viewer, m) for viewer, m in out if viewer is not None])
        delivered: list[Outgoing] = [(viewer, m) for viewer, m in out if viewer is None]
        for seat, conn in enumerate(self.inbox):
            delivered.extend((seat, m) for m in conn.sent)
            self.carried += sum(len(m.get("events", ())) for m in conn.sent
                                if m["type"] != "events")
            if seat in self.lean:
                assert all(m["type"] != "events" for m in conn.sent)
            conn.sent.clear()
        return super().check(delivered, secrets)


def spy_lean(name: str, matches: int) -> tuple[spy.Tally, int]:
    game = registry.get(name)
    tally, chances, carried = spy.Tally(), spy.Chances(), 0
    for n, seed in enumerate(spy.match_seeds(1, matches)):
        match = LeanSpyMatch(game, seed, ("json", "msgpack")[n % 2], tally, chances, f"s{n}")
        ok = match.play()
        carried += match.carried
        if not ok:
            break
    return tally, carried


@pytest.mark.parametrize("name", registry.names())
def test_a_short_spy_run_over_lean_seats_finds_no_leak(name: str) -> None:
    matches = SHORT.get(name, 2)
    tally, carried = spy_lean(name, matches)
    assert [leak.report() for leak in tally.leaks] == []
    assert tally.matches == matches and tally.resyncs > 0 and carried > 0


def test_another_seats_events_in_a_lean_request_are_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    original = Audience._lean

    def leaky(self: Audience, seat: int, message: dict[str, Any]) -> bool:
        if message["type"] == "request":
            # Everything held for the other seats too: their private draws among it.
            for other, held in self.held.items():
                if other != seat:
                    self.held.setdefault(seat, []).extend(held)
        return original(self, seat, message)
    monkeypatch.setattr(Audience, "_lean", leaky)
    tally, _ = spy_lean("battleline", 5)
    assert tally.leaks and tally.leaks[0].message["type"] == "request"
    assert "hidden card" in tally.leaks[0].what
