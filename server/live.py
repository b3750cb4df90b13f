"""A live match on the server: a :class:`~server.runner.MatchRunner` driven on the event
loop, its output handed to an :class:`~server.audience.Audience` and its progress to a
:class:`~server.recorder.MatchRecorder`.

The runner decides (sans-I/O); the audience delivers; the recorder persists. This class only
pumps between them: it passes the loop's clock as ``now``, hands each step's
``(recipient, message)`` pairs to the audience, arms one timer at the runner's next deadline,
tells the runner which recipients asked for views (:meth:`LiveMatch.refresh_views`),
and tells the recorder and the server when the match ends. The server and its services see
the match through the accessors here (the hub's :class:`~server.hub.MatchHandle`), never
through the runner.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

import structlog

from engine.core import Outcome
from server.audience import Audience
from server.lobby import MatchSpec
from server.recorder import MatchRecorder
from server.render import SeatInfo
from server.runner import MatchRunner, Outgoing
from server.sessions import Session
from server.storage import utc_now

log = structlog.get_logger("arena.match")

# Fire a hair after the deadline: the loop may run a timer up to its clock resolution early.
_TIMER_SLACK_S = 0.001


class LiveMatch:
    def __init__(self, runner: MatchRunner, audience: Audience, recorder: MatchRecorder,
                 on_end: Callable[[LiveMatch], None]) -> None:
        self.runner = runner
        self.audience = audience
        self.recorder = recorder
        # The audience's own list and set (never replaced), read here on every action.
        self.seating = audience.seating
        self.spectators = audience.spectators
        self._deliver = audience.deliver
        self.started_at = utc_now()
        self.ended_at: str | None = None
        self._on_end = on_end
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None
        self.frozen = False  # the server is stopping: timers stay off
        # The live state last handed to the store, and whether a seat came back since (the
        # server persists both with the match's progress).
        self.stored_state: dict[str, Any] | None = None
        self.reseated = False
        self._frozen_state: dict[str, Any] | None = None
        self._seats_json: list[dict[str, Any]] | None = None
        self.log = log.bind(match_id=runner.match_id, game=runner.game.info.name)
        # The spec it was started from (the server sets it; None for a match resumed after a
        # restart): a rematch plays the same spec again.
        self.spec: MatchSpec | None = None
        # Called once as the match ends, before its match_end is sent: fields to add to
        # every match_end (a rated match's rating changes, server.people), or None.
        self.end_fields: Callable[[LiveMatch], Mapping[str, Any] | None] | None = None
        runner.spectated = False  # no spectator yet: no spectators' copy of the events

    # ---- what the server and its services read ---------------------------------------------

    @property
    def match_id(self) -> str:
        return self.runner.match_id

    @property
    def game(self) -> str:
        return self.runner.game.info.name

    @property
    def status(self) -> str:
        """``live``, ``over`` or ``void``."""
        return self.runner.status

    @property
    def is_over(self) -> bool:
        return self.runner.is_over

    @property
    def outcome(self) -> Outcome | None:
        return self.runner.outcome

    @property
    def moves(self) -> int:
        """Seat actions applied so far."""
        return self.runner.moves

    def now(self) -> float:
        return self._loop.time()

    def seats_of(self, session: Session) -> list[int]:
        return self.audience.seats_of(session)

    def rename_seat(self, old: SeatInfo, new: SeatInfo) -> None:
        """Seats held by ``old`` are ``new``'s from now on (a guest's finished match, claimed
        by the account it signed up as)."""
        runner = self.runner
        if old in runner.seats:
            runner.seats = [new if info == old else info for info in runner.seats]
            self._seats_json = None

    def summary(self) -> dict[str, Any]:
        """Public facts (the protocol's MatchSummary, plus a few more fields)."""
        runner = self.runner
        if self._seats_json is None:  # who sits where never changes
            self._seats_json = [info.to_json(s) for s, info in enumerate(runner.seats)]
        out = {"match_id": runner.match_id, "game": runner.game.info.name,
               "seats": self._seats_json,
               "status": "live" if runner.status == "live" else "over",
               "started_at": self.started_at, "moves": runner.moves,
               "spectators": len(self.spectators),
               "outcome": runner.outcome.to_json()
               if runner.is_over and runner.outcome is not None else None}
        if runner.pair is not None:
            out["pair"] = dict(runner.pair)
        return out

    @property
    def pair(self) -> dict[str, Any] | None:
        """One of a duplicate pair (:mod:`server.pairs`): ``{"id", "game", "twin"}``."""
        return self.runner.pair

    @property
    def sealed(self) -> bool:
        """Over or not, its record is secret: it is one of a duplicate pair whose twin is
        still live (:attr:`MatchRunner.sealed`)."""
        return self.runner.sealed

    def replay(self, views: bool = False) -> dict[str, Any]:
        """The ``replay`` message (for spectators: no hidden information, no seed);
        ``views``: with each step's view, for a client that asked for views."""
        return self.runner.replay(views=views)

    def finished_record(self) -> dict[str, Any]:
        return self.runner.finished_record()

    def unpersisted(self) -> list[tuple[str, int, dict[str, Any]]]:
        """See :meth:`MatchRecorder.unpersisted`."""
        return self.recorder.unpersisted()

    def live_state(self) -> dict[str, Any]:
        """What a restarted server needs beyond the log to resume this match (stored, never
        sent): each seat's bank now (when the server began to stop, once it has), and the
        hash of each seated session's resume token."""
        if self._frozen_state is not None:
            return self._frozen_state
        return {"clocks_ms": self.runner.clocks_ms(self.now()),
                "resume": [session.resume_hash for session in self.seating]}

    # ---- driving ---------------------------------------------------------------------------

    def start(self, ref_for: tuple[Session, Any] | None = None) -> None:
        self.stored_state = self.live_state()
        self.recorder.started(self.started_at, self.stored_state)
        self.log.info("match_start", seats=[s.name for s in self.seating])
        self.refresh_views()
        out = self.runner.start(self.now())
        self._after(out, ref_for)
        for session in dict.fromkeys(self.seating):
            if not session.connected:
                self.seat_away(session)

    def resume(self, out: list[Outgoing]) -> None:
        """Drive a match rebuilt after a restart (:func:`server.resume.resume_match`) with
        ``out``, what its runner had to send: its seats are away until claimed (their grace
        runs from now), its clocks run for the open decisions."""
        self.recorder.resumed()
        self.log.info("match_resumed", seats=[s.name for s in self.seating],
                      moves=self.runner.moves)
        self.refresh_views()
        self._after(out)
        for session in dict.fromkeys(self.seating):
            if not session.connected:
                self.seat_away(session)

    def freeze(self) -> None:
        """The server is stopping: no timer of this match fires any more (nobody times out
        or forfeits while the server goes down; a restarted server resumes the match)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._frozen_state = self.live_state()
        self.frozen = True

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

    def resign(self, session: Session, ref: Any = None) -> None:
        """``session`` gives up (its first seat); its ``match_end`` carries ``ref``."""
        out: list[Outgoing] = []
        for seat in self.seats_of(session)[:1]:
            out = self.runner.resign(seat, self.now())
        self._after(out, (session, ref), reply="match_end")

    def seat_away(self, session: Session) -> None:
        out: list[Outgoing] = []
        for seat in self.seats_of(session):
            out.extend(self.runner.disconnected(seat, self.now()))
        self._after(out)

    def seat_back(self, session: Session) -> None:
        self.refresh_views()  # the new hello may have asked otherwise
        self.reseated = True  # a restored seat's session has a new token: store its hash
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
        self.audience.resync(session, self.runner.resync(None, self.now()), ref)

    def leave(self, session: Session) -> None:
        self.spectators.discard(session)
        self.runner.spectated = bool(self.spectators)
        session.watching.discard(self.match_id)
        self.refresh_views()

    def refresh_views(self) -> None:
        """Tell the runner which recipients want views with their events: the seats whose
        session asked in ``hello``, and the spectators' copy (``None``) if any watcher did."""
        self.runner.views_for = self.audience.wanting_views()

    def void(self, reason: str) -> None:
        """A server fault around this match: end it void, tell everyone."""
        self.log.error("match_void", reason=reason)
        self._after(self.runner.void(self.now()))

    def abort(self, admin: str, reason: str) -> None:
        """An admin's ``abort_match``: end it void (unrated), outcome reason ``aborted``."""
        self.log.warning("match_aborted", admin=admin, reason=reason)
        self._after(self.runner.void(self.now(), None, reason="aborted"))

    def _on_timer(self) -> None:
        self._timer = None
        try:
            self._after(self.runner.tick(self.now()))
        except Exception:
            self.log.exception("timer_failed")
            self.void("timer failure")

    # ---- pumping ---------------------------------------------------------------------------

    def _after(self, out: list[Outgoing], ref_for: tuple[Session, Any] | None = None,
               reply: str = "match_start") -> None:
        runner = self.runner
        if runner.is_over and self.ended_at is None and self.end_fields is not None:
            extra = self.end_fields(self) or {}  # (rated: every seat's rating change)
            for _, message in out if extra else ():
                if message.get("type") == "match_end":
                    message.update(extra)
        self._deliver(out, ref_for, reply)
        self._arm_timer()
        if runner.is_over and self.ended_at is None:
            self._finish()

    def _arm_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.frozen:
            return
        deadline = self.runner.next_deadline()
        if deadline is not None:
            self._timer = self._loop.call_at(deadline + _TIMER_SLACK_S, self._on_timer)

    def _finish(self) -> None:
        runner = self.runner
        self.ended_at = utc_now()
        outcome = runner.outcome
        self.recorder.finished(self.ended_at)
        self.log.info("match_end", status=runner.status,
                      outcome=None if outcome is None else outcome.to_json(),
                      moves=runner.moves)
        self._on_end(self)
