"""The sans-I/O match runner: one live match between seats, with request ids and clocks.

It wraps :class:`engine.match.Match` and adds what a server needs around the rules: a fresh,
unguessable ``request_id`` per request, validation of submitted actions into typed protocol
errors, per-seat rendering of events (through :func:`server.render.render_for` only), clocks
(:mod:`server.clocks`: time banks with increments, per-decision deadlines), timeouts as the
game declares them (a loss, or the game's default action applied and the match goes on),
resignation, and disconnect grace with forfeits.

It never reads a clock and never touches a socket. The caller passes ``now`` (seconds, any
monotonic origin) into every call and delivers what comes back: a list of
``(recipient, message)`` pairs where ``recipient`` is a seat number or ``None`` meaning
"every spectator" (one message, rendered once, for all of them; a caller with nobody
watching sets ``runner.spectated = False`` and the steps' events for spectators are left
out, while ``match_start``, ``match_end`` and ``resync`` still render theirs). After each
call the caller asks :meth:`MatchRunner.next_deadline` and arranges for
:meth:`MatchRunner.tick` to be called then (a timer); calling ``tick`` early or late is
harmless.

Calling contract::

    runner = MatchRunner(match_id, game, seats, options, seed, clock=Clock(60_000, 1_000))
    runner.views_for = {0, None}                 # seat 0 and spectators asked for views
    out = runner.start(now)                      # match_start + first events + requests
    out = runner.receive_action(seat, request_id, action, now, ref=msg_id)
    out = runner.tick(now)                       # timeouts (loss or default) and forfeits
    out = runner.resign(seat, now)
    runner.disconnected(seat, now); out = runner.reconnected(seat, now)
    runner.resync(seat, now)                     # match_start + pending request, for a resume
    runner, out = MatchRunner.resumed(match_id, game, seats, options, seed, log, now,
                                      clock=..., banks_ms=...)  # after a server restart

A fault in the engine (any exception that is not one of its typed action errors) makes the
match *void*: every seat gets an ``internal`` error and a ``match_end`` with reason ``void``;
the caller keeps serving every other match.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence, Set
from typing import Any

from engine.core import (
    CHANCE,
    Action,
    EngineError,
    Event,
    Game,
    IllegalAction,
    MalformedAction,
    NotToAct,
    Outcome,
    State,
)
from engine.match import LogEntry, Match, actions_of
from server.clocks import Clock, SeatClocks
from server.render import EventBatch, SeatInfo, render_for

Recipient = int | None
Outgoing = tuple[Recipient, dict[str, Any]]

DEFAULT_GRACE_S = 30.0
log = logging.getLogger(__name__)


_ID_BYTES = 12
_random_pool = b""


def new_request_id() -> str:
    """96 random bits from the OS's CSPRNG (like ``secrets.token_hex(12)``): a request id
    another client cannot guess. The bits are read 4 KiB at a time, one system call per
    ~340 ids instead of one per request."""
    global _random_pool
    if len(_random_pool) < _ID_BYTES:
        _random_pool = os.urandom(4096)
    chunk, _random_pool = _random_pool[:_ID_BYTES], _random_pool[_ID_BYTES:]
    return chunk.hex()


class _LegalMemo:
    """The match's game, with ``legal_actions`` remembered for the current state.

    Each decision needs a seat's legal actions twice: in the ``request`` and again to check
    the answer (the engine's default ``check_action`` asks for them). The state is a value
    the match replaces, never changes, so its identity keys the memo; one state's lists are
    kept, per seat. The returned list is shared: callers must not change it. Games with their
    own ``check_action`` keep it as is."""

    def __init__(self, game: Game) -> None:
        self._game = game
        self._state: State | None = None
        self._legal: dict[int, list[Action]] = {}
        self._default_check = type(game).check_action is Game.check_action

    def __getattr__(self, name: str) -> Any:
        # Only reached for what the memo does not define: forward, and keep the (bound)
        # attribute so the next lookup is a plain one (the match asks several per step).
        value = getattr(self._game, name)
        setattr(self, name, value)
        return value

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state is not self._state:
            self._state, self._legal = state, {}
        legal = self._legal.get(seat)
        if legal is None:
            legal = self._legal[seat] = self._game.legal_actions(state, seat)
        return legal

    def check_action(self, state: State, seat: int, raw: Any) -> Action:
        if self._default_check:
            # The engine's own check, with this memo as ``self`` so it reads the memo.
            return Game.check_action(self, state, seat, raw)  # type: ignore[arg-type]
        return self._game.check_action(state, seat, raw)


def losing_outcome(num_seats: int, losers: Sequence[int], reason: str) -> Outcome:
    """``losers`` share the last rank, every other seat shares the first (for three seats
    the two others tie first). If every seat lost, it is a draw."""
    lost = set(losers)
    if len(lost) >= num_seats:
        return Outcome.draw(num_seats, reason)
    return Outcome(tuple(1 if s in lost else 0 for s in range(num_seats)), reason)


class MatchRunner:
    """One live match. See the module docstring for the calling contract."""

    def __init__(self, match_id: str, game: Game, seats: Sequence[SeatInfo],
                 options: Mapping[str, Any] | None = None, seed: int = 0, *,
                 clock: Clock | None = None, grace_s: float = DEFAULT_GRACE_S,
                 request_ids: Callable[[], str] = new_request_id,
                 start_state: State | None = None, chance: str = "rng",
                 pair: Mapping[str, Any] | None = None) -> None:
        """``chance``: how the match resolves chance (:data:`engine.match.CHANCE_MODES`);
        ``pair``: the match is one of a duplicate pair (:class:`server.pairs.PairInfo`'s
        wire form), and starts :attr:`sealed`."""
        self.match_id = match_id
        self.game = game
        self.seats = list(seats)
        self.num_seats = len(self.seats)
        self.match = Match(game, self.num_seats, options, seed, state=start_state,
                           chance=chance)
        self.pair: dict[str, Any] | None = None if pair is None else dict(pair)
        # A match of a pair whose twin is still live: its record (the log, which shows the
        # deck's order, the twin's deck too) is kept secret even once it is over; it
        # replays like a live match. The server unseals both when the pair is complete.
        self.sealed = pair is not None
        self.match.game = _LegalMemo(game)  # type: ignore[assignment]
        self.options = self.match.options
        self.clock = clock
        self.grace_s = grace_s
        self._new_request_id = request_ids
        self.status = "live"
        self._void_outcome: Outcome | None = None
        self._history: list[EventBatch] = []
        self._pending: dict[int, str] = {}          # seat -> its open request_id
        self._unrendered: list[int] = []            # seats whose new request is not sent yet
        self.clocks = SeatClocks(clock, self.num_seats)
        self._grace_until: dict[int, float] = {}    # disconnected seat -> forfeit time
        self.moves = 0                               # seat actions applied (commitments too)
        self.started = False
        # Whether anyone watches. While nobody does, the spectators' copy of each step's
        # events (recipient None) is left out; a spectator who joins gets the whole state
        # from resync() first. The driver sets it (LiveMatch, on spectate and leave).
        self.spectated = True
        # The recipients (seats, and None for the spectators' copy) whose events carry the
        # viewer's view. Empty by default: a view is rendered only for a viewer that asked
        # (hello.views), so bots pay nothing for it. The driver keeps it current.
        self.views_for: Set[Recipient] = frozenset()

    @classmethod
    def resumed(cls, match_id: str, game: Game, seats: Sequence[SeatInfo],
                options: Mapping[str, Any] | None, seed: int, log: Sequence[LogEntry],
                now: float, *, clock: Clock | None = None, banks_ms: Sequence[int] | None = None,
                grace_s: float = DEFAULT_GRACE_S, start_state: State | None = None,
                request_ids: Callable[[], str] = new_request_id, chance: str = "rng",
                pair: Mapping[str, Any] | None = None) -> tuple[MatchRunner,
                                                                list[Outgoing]]:
        """A match a stopped or crashed server left live, rebuilt from what it stored: the
        seed deals again and ``log``'s seat actions are taken again in order (each
        re-checked; the chance outcomes they lead to must be the logged ones), so the state,
        the move count and the public history (one batch of events per step; the clock
        and connection events of before are not kept) are as they were. Each seat's bank
        is ``banks_ms`` (the clocks at the last stored action); every decision open now
        gets a new ``request_id`` and a fresh deadline from ``now``. ``chance`` and ``pair``
        as the match was started with (a deck deals again the same). Returns the runner
        and what to send: nothing, or the ``match_end`` of a match whose last stored
        action ended it. Raises :class:`ValueError` if the log does not replay."""
        runner = cls(match_id, game, seats, options, seed, clock=clock, grace_s=grace_s,
                     request_ids=request_ids, start_state=start_state, chance=chance,
                     pair=pair)
        runner.started = True
        match = runner.match

        def record(events: list[Event]) -> None:
            if events:
                runner._history.append(EventBatch(runner.seq + 1, tuple(events),
                                                  len(match.log)))

        try:
            record(match.advance())
            for index, entry in enumerate(log):
                if len(match.log) > index:  # a chance entry: the deal redrawn must match
                    if match.log[index] != entry:
                        raise ValueError(f"log entry {index} replays as {match.log[index]}, "
                                         f"not {entry}")
                    continue
                for seat, action in sorted(actions_of(entry).items()):
                    if seat == CHANCE:
                        raise ValueError(f"log entry {index}: a chance outcome where a seat "
                                         "must act")
                    record(match.submit(seat, action))
                    runner.moves += 1
            # The deal drawn after the last stored action may not have been stored yet:
            # drawn again from the seed, it is the same.
            if match.log[:len(log)] != list(log) or any(
                    set(entry) != {"chance"} for entry in match.log[len(log):]):
                raise ValueError("the log does not replay to the same entries")
        except EngineError as exc:
            raise ValueError(f"a logged action is refused on replay: {exc}") from exc
        if banks_ms is not None:
            runner.clocks.restore_banks(list(banks_ms))
        if match.is_over:
            return runner, runner._finish(None, now, [])
        for seat in match.awaiting():
            runner._pending[seat] = runner._new_request_id()
            runner.clocks.start(seat, now)
        return runner, []

    # ---- what render_for reads ----------------------------------------------------------

    @property
    def state(self) -> State:
        return self.match.state

    @property
    def seq(self) -> int:
        return len(self._history)

    @property
    def history(self) -> Sequence[EventBatch]:
        return self._history

    @property
    def start_state(self) -> State:
        return self.match.start_state

    @property
    def log(self) -> Sequence[LogEntry]:
        return self.match.log

    @property
    def outcome(self) -> Outcome | None:
        return self._void_outcome or self.match.outcome

    def legal_actions(self, seat: int) -> list[Any]:
        return self.match.legal_actions(seat) if self.status == "live" else []

    def action_space(self, seat: int) -> dict[str, Any] | None:
        """The seat's action space, in a game that describes one (``None`` otherwise)."""
        return self.match.action_space(seat) if self.status == "live" else None

    def committed(self) -> tuple[int, ...]:
        """Seats whose action to the current simultaneous decision is in (public)."""
        return self.match.committed() if self.status == "live" else ()

    def commitment(self, seat: int) -> Any:
        """What ``seat`` committed to the current simultaneous decision (its own eyes only)."""
        return self.match.commitment(seat) if self.status == "live" else None

    def finished_record(self) -> dict[str, Any]:
        """The replay record without the seed. Only once the match is over, and unsealed:
        the log of a live match (or of a live match's twin) would reveal the deal."""
        if self.status == "live" or self.sealed:
            raise RuntimeError("the record of a live match (or of its twin) is secret")
        record = self.match.record()
        del record["seed"]
        record["outcome"] = None if self.outcome is None else self.outcome.to_json()
        return record

    def full_record(self) -> dict[str, Any]:
        """Everything, seed included: for storage only, never for a client."""
        record = self.match.record()
        record["outcome"] = None if self.outcome is None else self.outcome.to_json()
        return record

    # ---- queries --------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.status != "live"

    def pending_request_id(self, seat: int) -> str | None:
        return self._pending.get(seat)

    def clocks_ms(self, now: float) -> list[int] | None:
        """Each seat's remaining bank at ``now`` (running clocks included), or ``None``
        (untimed, or a clock with only a per-decision limit)."""
        return self.clocks.banks_ms(now)

    def next_deadline(self) -> float | None:
        """The earliest ``now`` at which :meth:`tick` has something to do, or ``None``."""
        if self.status != "live":
            return None
        times = list(self._grace_until.values())
        deadline = self.clocks.next_deadline()
        if deadline is not None:
            times.append(deadline)
        return min(times) if times else None

    # ---- driving --------------------------------------------------------------------------

    def start(self, now: float) -> list[Outgoing]:
        """Deal (resolve opening chance nodes), then ``match_start`` to every seat and the
        first requests."""
        if self.started:
            raise RuntimeError("match already started")
        self.started = True
        out: list[Outgoing] = []

        def body() -> None:
            events = self.match.advance()
            clocks = self.clocks_ms(now)
            for seat in range(self.num_seats):
                out.append((seat, render_for(self, seat, "match_start", clocks_ms=clocks)))
            out.append((None, render_for(self, None, "match_start", clocks_ms=clocks)))
            self._after_step(events, now, out)

        return self._guarded(body, out, now)

    def receive_action(self, seat: int, request_id: Any, action: Any, now: float,
                       ref: Any = None, *, requests_later: bool = False) -> list[Outgoing]:
        """``seat`` answers ``request_id`` with ``action``. On success: events to everyone,
        then the next requests or ``match_end``. Otherwise one typed error to ``seat``:
        ``not_your_turn`` (no open request for this seat), ``stale_request`` (another id),
        ``malformed_action``, ``illegal_action`` (``details.rule``).

        ``requests_later=True`` leaves the next requests out (their ids are issued and their
        clocks started all the same): the caller gets them from :meth:`render_requests`,
        after it has sent the events on their way. The seat that acted learns the result
        of its action without waiting for the next seat's view to be built."""
        out: list[Outgoing] = []
        if self.status != "live":
            return [self._error(seat, "not_your_turn", "the match is over", request_id, ref)]
        # A deadline that passed before the timer fired counts, whatever was sent: the seat
        # lost, or its default action was taken and this answer is stale.
        out.extend(self.tick(now))
        if self.status != "live":
            return out
        pending = self._pending.get(seat)
        if pending is None:
            if seat in self.match.committed():
                # A second answer on a simultaneous turn: the first one stands.
                return [*out, self._error(
                    seat, "illegal_action", "this seat's action for this turn is already in; "
                    "it cannot be changed or sent twice", request_id, ref,
                    {"rule": "already_committed"})]
            return [*out, self._error(seat, "not_your_turn", "this seat has no open request",
                                      request_id, ref)]
        if request_id != pending:
            return [*out, self._error(seat, "stale_request",
                                      "that request_id is not this seat's open request",
                                      request_id, ref)]

        def body() -> None:
            try:
                events = self.match.submit(seat, action)
            except NotToAct as exc:  # defensive: pending said otherwise
                out.append(self._error(seat, "not_your_turn", exc.message, request_id, ref))
                return
            except MalformedAction as exc:
                out.append(self._error(seat, "malformed_action", exc.message, request_id, ref,
                                       exc.details))
                return
            except IllegalAction as exc:
                out.append(self._error(seat, "illegal_action", exc.message, request_id, ref,
                                       {**exc.details, "rule": exc.rule}))
                return
            self.moves += 1
            del self._pending[seat]
            self.clocks.charge(seat, now)
            self._after_step(events, now, out, requests_later)

        return self._guarded(body, out, now)

    def render_requests(self, now: float) -> list[Outgoing]:
        """The requests a ``receive_action(..., requests_later=True)`` left out."""
        seats, self._unrendered = self._unrendered, []
        if not seats or self.status != "live":
            return []
        out: list[Outgoing] = []

        return self._guarded(lambda: self._render_requests(seats, now, out), out, now)

    def tick(self, now: float) -> list[Outgoing]:
        """Apply every timeout and forfeit due by ``now``.

        A seat past its deadline loses, or, in a game whose ``info.timeout`` is
        ``"default"``, gets the game's default action applied as if it had sent it (on a
        simultaneous turn: committed, hidden, like any other commitment) and the match goes
        on (a miss charges the bank like any decision: once it is spent the seat has only
        its increment per decision). Either way a ``timeout`` event names the seats
        first."""
        if self.status != "live" or not (self.clocks.running or self._grace_until):
            return []
        out: list[Outgoing] = []
        timed_out = self.clocks.expired(now)
        if timed_out:
            if self.game.info.timeout != "default":
                return self._finish(losing_outcome(self.num_seats, timed_out, "timeout"), now,
                                    [Event("timeout", {"seats": timed_out})])
            out = self._guarded(lambda: self._apply_defaults(timed_out, now, out), out, now)
            if self.status != "live":
                return out
        forfeited = [seat for seat, until in sorted(self._grace_until.items()) if now >= until]
        if forfeited:
            out.extend(self._finish(losing_outcome(self.num_seats, forfeited, "forfeit"), now,
                                    [Event("forfeit", {"seats": forfeited})]))
        return out

    def resign(self, seat: int, now: float) -> list[Outgoing]:
        """``seat`` gives up: it takes the last rank, the others share the first."""
        if self.status != "live":
            return []
        return self._finish(losing_outcome(self.num_seats, [seat], "resignation"), now,
                            [Event("resigned", {"seat": seat})])

    def disconnected(self, seat: int, now: float) -> list[Outgoing]:
        """``seat`` lost its connection: it forfeits unless :meth:`reconnected` within the
        grace period. Its clock, if running, keeps running."""
        if self.status != "live" or seat in self._grace_until:
            return []
        self._grace_until[seat] = now + self.grace_s
        return self._broadcast([Event("disconnected", {"seat": seat})], now)

    def reconnected(self, seat: int, now: float) -> list[Outgoing]:
        """``seat`` is back: its grace ends, and it is re-sent ``match_start`` and its open
        request (same ``request_id``)."""
        if self.status != "live":
            return self.resync(seat, now)
        out: list[Outgoing] = []
        if self._grace_until.pop(seat, None) is not None:
            out.extend(self._broadcast([Event("reconnected", {"seat": seat})], now))
        out.extend(self.resync(seat, now))
        return out

    def resync(self, viewer: int | None, now: float) -> list[Outgoing]:
        """What a (re)joining viewer needs: ``match_start`` with the current view and clocks,
        then its open request, or ``match_end`` if the match is over."""
        clocks = self.clocks_ms(now)
        out: list[Outgoing] = [(viewer, render_for(self, viewer, "match_start",
                                                   clocks_ms=clocks))]
        if self.status != "live":
            out.append((viewer, render_for(self, viewer, "match_end")))
        elif viewer is not None and viewer in self._pending:
            out.append((viewer, render_for(self, viewer, "request",
                                           request_id=self._pending[viewer], clocks_ms=clocks,
                                           deadline_ms=self.clocks.time_left_ms(viewer, now))))
        return out

    def replay(self, views: bool = False) -> dict[str, Any]:
        """The ``replay`` message (public events only while live); ``views``: with each
        step's view (for a client that asked for views)."""
        return render_for(self, None, "replay", views=views)

    def void(self, now: float, message: str | None = "internal server error",
             reason: str = "void") -> list[Outgoing]:
        """End the match as void: unrated, every seat and spectator told (``match_end``,
        outcome ``reason``). A server fault (the default) first sends each seat an
        ``internal`` error with ``message``; an admin's abort passes ``None`` and reason
        ``aborted``."""
        if self.status != "live":
            return []
        self.status = "void"
        self._void_outcome = Outcome.draw(self.num_seats, reason)
        self._pending.clear()
        self.clocks.stop_all(now)
        self._grace_until.clear()
        out: list[Outgoing] = []
        for seat in range(self.num_seats if message is not None else 0):
            out.append((seat, render_for(self, seat, "error",
                                         error={"code": "internal", "message": message})))
        out.extend(self._safe_match_end())
        return out

    # ---- internals ------------------------------------------------------------------------

    def _guarded(self, body: Callable[[], None], out: list[Outgoing], now: float
                 ) -> list[Outgoing]:
        try:
            body()
        except Exception:
            log.exception("match %s: engine fault, voiding the match", self.match_id)
            return self.void(now)
        return out

    def _after_step(self, events: list[Event], now: float, out: list[Outgoing],
                    requests_later: bool = False) -> None:
        """Send the step's events, then the next requests (or leave them for
        :meth:`render_requests`) or the end."""
        if events:
            out.extend(self._broadcast(events, now))
        if self.match.is_over:
            out.extend(self._finish(None, now, []))
            return
        new: list[int] = []
        for seat in self.match.awaiting():
            if seat in self._pending:
                continue  # still open from before (another seat of a simultaneous turn acted)
            self._pending[seat] = self._new_request_id()
            self.clocks.start(seat, now)
            new.append(seat)
        if requests_later:
            self._unrendered.extend(new)
        else:
            self._render_requests(new, now, out)

    def _apply_defaults(self, seats: Sequence[int], now: float, out: list[Outgoing]) -> None:
        """``seats`` missed their deadlines: take each one's default action for it. The
        ``timeout`` event says so to everyone; only the seat itself is told which action
        was taken for it (on a simultaneous turn it stays hidden from the others until the
        joint action is revealed)."""
        state = self.match.state
        defaults = {seat: self.game.default_action(state, seat) for seat in seats}
        events = [Event("timeout", {"seats": list(seats), "default": True},
                        {seat: {"action": action} for seat, action in defaults.items()})]
        for seat, action in defaults.items():
            del self._pending[seat]
            self.clocks.charge(seat, now)
            events.extend(self.match.submit(seat, action))
            self.moves += 1
        self._after_step(events, now, out)

    def _render_requests(self, seats: Sequence[int], now: float, out: list[Outgoing]) -> None:
        """The ``request`` of each of ``seats`` that still has one open."""
        clocks = self.clocks_ms(now)
        for seat in seats:
            if seat in self._pending:
                out.append((seat, render_for(self, seat, "request",
                                             request_id=self._pending[seat], clocks_ms=clocks,
                                             deadline_ms=self.clocks.time_left_ms(seat, now))))

    def _broadcast(self, events: Sequence[Event], now: float) -> list[Outgoing]:
        batch = EventBatch(self.seq + 1, tuple(events), len(self.match.log))
        self._history.append(batch)
        clocks = self.clocks_ms(now)
        views = self.views_for
        out: list[Outgoing] = [
            (seat, render_for(self, seat, "events", events=batch.events, seq=batch.seq,
                              clocks_ms=clocks, views=seat in views))
            for seat in range(self.num_seats)]
        if self.spectated:
            out.append((None, render_for(self, None, "events", events=batch.events,
                                         seq=batch.seq, clocks_ms=clocks,
                                         views=None in views)))
        return out

    def _finish(self, forced: Outcome | None, now: float, events: list[Event]
                ) -> list[Outgoing]:
        self.clocks.stop_all(now)
        if forced is not None:
            self.match.finish(forced)
        self.status = "over"
        self._pending.clear()
        self._grace_until.clear()
        out: list[Outgoing] = []
        if events:
            out.extend(self._broadcast(events, now))
        out.extend(self._safe_match_end())
        return out

    def _safe_match_end(self) -> list[Outgoing]:
        out: list[Outgoing] = []
        for viewer in [*range(self.num_seats), None]:
            try:
                out.append((viewer, render_for(self, viewer, "match_end")))
            except Exception:  # a broken view must not hide the result
                log.exception("match %s: cannot render the final view", self.match_id)
                out.append((viewer, {"type": "match_end", "match_id": self.match_id,
                                     "outcome": None if self.outcome is None
                                     else self.outcome.to_json(),
                                     "view": {}, "status": "over"}))
        return out

    def _error(self, seat: int, code: str, message: str, request_id: Any, ref: Any,
               details: Mapping[str, Any] | None = None) -> Outgoing:
        error: dict[str, Any] = {"code": code, "message": message}
        if details:
            error["details"] = dict(details)
        rid = request_id if isinstance(request_id, str) else None
        return (seat, render_for(self, seat, "error", error=error, request_id=rid, ref=ref))
