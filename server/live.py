"""A live match on the server: a :class:`~server.runner.MatchRunner` plus delivery, a timer
and persistence.

The runner decides; this class only pumps: it passes the loop's clock as ``now``, delivers
each ``(recipient, message)`` pair to the seat's session or to every spectator (a spectator
message is encoded once for all of them; an ``events`` copy with a view once more without
it, for spectators that did not ask for views), tells the runner who asked for views, arms
one timer at the runner's next deadline, and queues the match's progress to the store after
every step.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import structlog

from protocol import EncodedMessage
from server.render import without_view
from server.runner import MatchRunner, Outgoing
from server.sessions import Session
from server.storage import MatchRow, Store, utc_now

log = structlog.get_logger("arena.match")

# Fire a hair after the deadline: the loop may run a timer up to its clock resolution early.
_TIMER_SLACK_S = 0.001


class LiveMatch:
    def __init__(self, runner: MatchRunner, seating: list[Session], store: Store,
                 on_end: Callable[[LiveMatch], None]) -> None:
        self.runner = runner
        self.seating = seating
        self.store = store
        self.spectators: set[Session] = set()
        self.started_at = utc_now()
        self.ended_at: str | None = None
        self._on_end = on_end
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None
        self._persisted = 0  # log entries already handed to the store
        self.log = log.bind(match_id=runner.match_id, game=runner.game.info.name)
        runner.spectated = False  # no spectator yet: no spectators' copy of the events

    @property
    def match_id(self) -> str:
        return self.runner.match_id

    def now(self) -> float:
        return self._loop.time()

    def seats_of(self, session: Session) -> list[int]:
        return [seat for seat, s in enumerate(self.seating) if s is session]

    def summary(self) -> dict[str, Any]:
        """Public facts (the protocol's MatchSummary, plus a few more fields)."""
        runner = self.runner
        return {"match_id": runner.match_id, "game": runner.game.info.name,
                "seats": [info.to_json(s) for s, info in enumerate(runner.seats)],
                "status": "live" if runner.status == "live" else "over",
                "started_at": self.started_at, "moves": runner.moves,
                "spectators": len(self.spectators),
                "outcome": runner.outcome.to_json()
                if runner.is_over and runner.outcome is not None else None}

    # ---- driving ---------------------------------------------------------------------------

    def start(self, ref_for: tuple[Session, Any] | None = None) -> None:
        runner = self.runner
        record = runner.full_record()
        self.store.save_match(MatchRow(
            id=runner.match_id, game=runner.game.info.name, options=dict(runner.options),
            num_seats=runner.num_seats, seed=runner.match.seed,
            seats=[info.to_json(s) for s, info in enumerate(runner.seats)],
            clock=None if runner.clock is None else runner.clock.to_json(),
            start=record["start"], created_at=self.started_at))
        self.log.info("match_start", seats=[s.name for s in self.seating])
        self.refresh_views()
        out = runner.start(self.now())
        self._after(out, ref_for)
        for session in dict.fromkeys(self.seating):
            if not session.connected:
                self.seat_away(session)

    def action(self, session: Session, message: dict[str, Any]) -> bool:
        """A seat's ``action`` message. The seat is the one whose open request it names
        (a session may hold several seats), else its first seat. Returns whether the action
        was taken (applied, or committed on a simultaneous turn)."""
        request_id = message.get("request_id")
        seating = self.seating
        if seating.count(session) == 1:  # the usual case: one seat per session
            seat = seating.index(session)
        else:
            seats = self.seats_of(session)
            seat = next((s for s in seats if self.runner.pending_request_id(s) == request_id),
                        seats[0])
        runner = self.runner
        moves = runner.moves
        now = self.now()
        out = runner.receive_action(seat, request_id, message.get("action"), now,
                                    ref=message.get("id"), requests_later=True)
        self._deliver(out, None)
        # The acting client's answer (its events, or an error) leaves now; the next seat's
        # request, which takes longer to build, follows in this loop turn's writes.
        if session.connection is not None:
            session.connection.write_now()
        self._after(runner.render_requests(now))
        return runner.moves > moves  # applied (an error for it leaves the count as it was)

    def resign(self, session: Session) -> None:
        out: list[Outgoing] = []
        for seat in self.seats_of(session)[:1]:
            out = self.runner.resign(seat, self.now())
        self._after(out)

    def seat_away(self, session: Session) -> None:
        out: list[Outgoing] = []
        for seat in self.seats_of(session):
            out.extend(self.runner.disconnected(seat, self.now()))
        self._after(out)

    def seat_back(self, session: Session) -> None:
        self.refresh_views()  # the new hello may have asked otherwise
        out: list[Outgoing] = []
        for seat in self.seats_of(session):
            out.extend(self.runner.reconnected(seat, self.now()))
        self._after(out)

    def spectate(self, session: Session, ref: Any = None) -> None:
        self.spectators.add(session)
        self.runner.spectated = True
        session.watching.add(self.match_id)
        self.resync_spectator(session, ref)

    def resync_spectator(self, session: Session, ref: Any = None) -> None:
        self.refresh_views()
        for recipient, message in self.runner.resync(None, self.now()):
            assert recipient is None
            if ref is not None and message["type"] == "match_start":
                message = {**message, "ref": ref}
            session.send(message)

    def leave(self, session: Session) -> None:
        self.spectators.discard(session)
        self.runner.spectated = bool(self.spectators)
        session.watching.discard(self.match_id)
        self.refresh_views()

    def refresh_views(self) -> None:
        """Tell the runner which recipients want views with their events: the seats whose
        session asked in ``hello``, and the spectators' copy (``None``) if any watcher did."""
        wanted: set[int | None] = {seat for seat, s in enumerate(self.seating) if s.views}
        if any(s.views for s in self.spectators):
            wanted.add(None)
        self.runner.views_for = frozenset(wanted)

    def void(self, reason: str) -> None:
        """A server fault around this match: end it void, tell everyone."""
        self.log.error("match_void", reason=reason)
        self._after(self.runner.void(self.now()))

    def _on_timer(self) -> None:
        self._timer = None
        try:
            self._after(self.runner.tick(self.now()))
        except Exception:
            self.log.exception("timer_failed")
            self.void("timer failure")

    # ---- pumping ---------------------------------------------------------------------------

    def _after(self, out: list[Outgoing], ref_for: tuple[Session, Any] | None = None) -> None:
        self._deliver(out, ref_for)
        runner = self.runner
        self._arm_timer()
        if runner.is_over and self.ended_at is None:
            self._finish()

    def unpersisted(self) -> list[tuple[str, int, dict[str, Any]]]:
        """Log entries not yet handed to the store, ``(match_id, index, entry)`` each; they
        count as handed over once returned (the server batches them for all matches)."""
        log = self.runner.match.log
        start, self._persisted = self._persisted, len(log)
        return [(self.match_id, index, log[index]) for index in range(start, len(log))]

    def _deliver(self, out: list[Outgoing], ref_for: tuple[Session, Any] | None) -> None:
        for recipient, message in out:
            if recipient is None:
                if self.spectators:
                    shared = EncodedMessage(message)
                    plain = (EncodedMessage(without_view(message))
                             if message["type"] == "events" and "view" in message else shared)
                    for session in self.spectators:
                        session.send(shared if session.views else plain)
                continue
            session = self.seating[recipient]
            if ref_for is not None and ref_for[0] is session and message["type"] == "match_start":
                message = {**message, "ref": ref_for[1]}
                ref_for = None
            session.send(message)

    def _arm_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadline = self.runner.next_deadline()
        if deadline is not None:
            self._timer = self._loop.call_at(deadline + _TIMER_SLACK_S, self._on_timer)

    def _finish(self) -> None:
        runner = self.runner
        self.ended_at = utc_now()
        outcome = runner.outcome
        self.store.update_match(self.match_id, log=runner.match.log, moves=runner.moves,
                                status=runner.status,
                                outcome=None if outcome is None else outcome.to_json(),
                                ended_at=self.ended_at)
        self.log.info("match_end", status=runner.status,
                      outcome=None if outcome is None else outcome.to_json(),
                      moves=runner.moves)
        self._on_end(self)
