"""The one choke point where a match becomes a message for one viewer.

Every outbound message that carries anything of a match — its views, its events, its legal
actions, its errors about actions, its outcome, its replay — is built by :func:`render_for`,
for one seat or for a spectator (``viewer=None``). Nothing else in ``server/`` calls
``game.view`` or ``Event.render``. That is what makes "hidden information never reaches
another seat" a property of one function instead of a habit of many (boardgame.io's issue
history is the catalogue of what happens otherwise).

Contract of what a viewer gets:

* ``match_start`` / ``request`` / ``match_end``: ``game.view(state, viewer)`` only; a
  ``request`` also the seat's legal actions or action space (and, where a missed deadline
  plays one, its default action); a ``match_start`` of a simultaneous game also which seats
  have committed to the current turn, and the viewer's own commitment (never another's).
* ``events``: each event's public data, merged with its private part for ``viewer`` only;
  with ``views=True`` (the viewer asked for views in ``hello``) also ``view``, the viewer's
  view after those events.
* ``replay``: of a live match, only the public (spectator) renders of the events so far; of a
  finished match the full record (log of actions included) **minus the seed**. A finished
  match that is *sealed* (one of a duplicate pair whose twin is still live: its log would
  show the twin's deck) replays like a live one.
* A match of a duplicate pair says so in its ``match_start``, ``match_end`` and ``replay``
  (``pair``: the pair's id, which game of it this is, the twin's match id). With
  ``views=True`` every step also carries the spectator's view after it (and, once the match
  is over and only for games with hidden information, every seat's view: the log that
  derives them is public by then).
* The RNG seed is never read here. The action log of a live match is read only to re-derive
  the spectator's views of a live replay; it is sent only once the match is over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from engine.core import Event, Game, Outcome, State
from engine.match import LogEntry, actions_of, request_fields
from server.clocks import Clock

Kind = Literal["match_start", "request", "events", "match_end", "replay", "error"]


@dataclass(frozen=True)
class SeatInfo:
    """Who sits in a seat: an account name and its kind (``human``/``bot``/``guest``)."""

    name: str
    kind: str

    def to_json(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, "name": self.name, "kind": self.kind}


@dataclass(frozen=True)
class EventBatch:
    """The events of one step of a live match, numbered by ``seq`` (1, 2, …);
    ``log_length`` is how many log entries the match had after them (a replay's views are
    re-derived from it, so a live match keeps no old state)."""

    seq: int
    events: tuple[Event, ...]
    log_length: int = 0


class Renderable(Protocol):
    """What :func:`render_for` reads from a live or finished match (the runner provides it)."""

    # Read-only members (properties), so plain attributes of narrower types satisfy them.
    @property
    def match_id(self) -> str: ...

    @property
    def game(self) -> Game: ...

    @property
    def options(self) -> Mapping[str, Any]: ...

    @property
    def seats(self) -> Sequence[SeatInfo]: ...

    @property
    def clock(self) -> Clock | None: ...

    @property
    def status(self) -> str:
        """``live``, ``over`` or ``void``."""
        ...

    @property
    def state(self) -> State: ...

    @property
    def seq(self) -> int: ...

    @property
    def history(self) -> Sequence[EventBatch]: ...

    @property
    def outcome(self) -> Outcome | None: ...

    @property
    def start_state(self) -> State:
        """The state before the first step (before the deal)."""
        ...

    @property
    def log(self) -> Sequence[LogEntry]:
        """The actions applied so far: read here only to re-derive public views."""
        ...

    def legal_actions(self, seat: int) -> list[Any]: ...

    def action_space(self, seat: int) -> dict[str, Any] | None:
        """The seat's action space (games with ``GameInfo.actions == "space"``)."""
        ...

    def committed(self) -> tuple[int, ...]:
        """Seats whose action to the current simultaneous decision is in."""
        ...

    def commitment(self, seat: int) -> Any:
        """What ``seat`` committed to the current simultaneous decision, if anything."""
        ...

    @property
    def pair(self) -> Mapping[str, Any] | None:
        """One of a duplicate pair: ``{"id", "game", "twin"}``; else ``None``."""
        ...

    @property
    def sealed(self) -> bool:
        """Its record is secret even once over (its duplicate twin is still live)."""
        ...

    def finished_record(self) -> dict[str, Any]:
        """The record without the seed; only called once the match is over and unsealed."""
        ...


def render_for(match: Renderable, viewer: int | None, kind: Kind, *,
               events: Sequence[Event] = (), seq: int | None = None,
               request_id: str | None = None, clocks_ms: Sequence[int] | None = None,
               deadline_ms: int | None = None,
               error: Mapping[str, Any] | None = None, ref: Any = None,
               views: bool = False) -> dict[str, Any]:
    """Build the ``kind`` message of ``match`` for ``viewer`` (a seat, or ``None`` for a
    spectator). The only function in ``server/`` that turns views and events into messages.

    * ``match_start``: ``clocks_ms`` the banks now.
    * ``request``: ``viewer`` must be a seat; ``request_id``, ``clocks_ms`` and the time
      the seat has left to answer (``deadline_ms``) given.
    * ``events``: ``events`` and their ``seq``; ``clocks_ms``; ``views``: add the viewer's
      view of the match now (after those events).
    * ``match_end``: the outcome and the final view.
    * ``replay``: see the module docstring; ``views``: every step's view.
    * ``error``: ``error`` = ``{"code", "message", "details"?}`` about ``viewer``'s own action;
      ``request_id`` echoes the action's id.
    """
    game = match.game
    if kind == "events":
        message = {"type": "events", "match_id": match.match_id,
                   "seq": match.seq if seq is None else seq,
                   "events": [event.render(viewer) for event in events],
                   "clocks_ms": None if clocks_ms is None else list(clocks_ms)}
        if views:
            message["view"] = game.view(match.state, viewer)
        return message
    if kind == "request":
        if viewer is None:
            raise ValueError("a request is always for a seat")
        choices = (match.action_space(viewer) if game.info.actions == "space"
                   else match.legal_actions(viewer))
        return {"type": "request", "match_id": match.match_id, "request_id": request_id,
                "seat": viewer, "view": game.view(match.state, viewer),
                **request_fields(game, match.state, viewer, choices),
                "clock_ms": None if clocks_ms is None else clocks_ms[viewer],
                "deadline_ms": deadline_ms}
    if kind == "match_start":
        message = {"type": "match_start", "match_id": match.match_id,
                   "game": game.info.name, "options": dict(match.options),
                   "seats": [info.to_json(s) for s, info in enumerate(match.seats)],
                   "your_seat": viewer,
                   "clock": None if match.clock is None else match.clock.to_json(),
                   "clocks_ms": None if clocks_ms is None else list(clocks_ms),
                   "view": game.view(match.state, viewer), "status": wire_status(match),
                   "seq": match.seq}
        if match.pair is not None:
            message["pair"] = dict(match.pair)
        if game.info.simultaneous:
            # Who is already in on the current simultaneous turn (never what), and the
            # viewer's own commitment to it: what a (re)joining client cannot see otherwise.
            committed = list(match.committed())
            message["committed"] = committed
            if viewer is not None and viewer in committed:
                message["commitment"] = match.commitment(viewer)
        return message
    if kind == "match_end":
        outcome = match.outcome
        message = {"type": "match_end", "match_id": match.match_id,
                   "outcome": None if outcome is None else outcome.to_json(),
                   "view": game.view(match.state, viewer), "status": wire_status(match)}
        if match.pair is not None:
            message["pair"] = dict(match.pair)
        return message
    if kind == "replay":
        return _render_replay(match, views)
    if kind == "error":
        if error is None:
            raise ValueError("an error message needs the error")
        out: dict[str, Any] = {"type": "error", "code": error["code"],
                               "message": error["message"], "match_id": match.match_id}
        if request_id is not None:
            out["request_id"] = request_id
        if error.get("details"):
            out["details"] = dict(error["details"])
        if ref is not None:
            out["ref"] = ref
        return out
    raise ValueError(f"unknown message kind {kind!r}")


def wire_status(match: Renderable) -> str:
    """The protocol knows ``live`` and ``over``; a void match is over (reason ``void``)."""
    return "live" if match.status == "live" else "over"


def without_view(message: Mapping[str, Any]) -> dict[str, Any]:
    """An ``events`` message as a viewer who did not ask for views gets it."""
    return {key: value for key, value in message.items() if key != "view"}


def _render_replay(match: Renderable, views: bool) -> dict[str, Any]:
    head: dict[str, Any] = {
        "type": "replay", "match_id": match.match_id, "game": match.game.info.name,
        "options": dict(match.options),
        "seats": [info.to_json(s) for s, info in enumerate(match.seats)],
        "status": wire_status(match),
    }
    if match.pair is not None:
        head["pair"] = dict(match.pair)
    if match.status == "live" or match.sealed:
        # Only what a spectator has seen: public renders of the events so far. Never the log.
        # (A sealed match is over: its outcome was public in its match_end.)
        outcome = match.outcome if match.status != "live" else None
        head["outcome"] = None if outcome is None else outcome.to_json()
        head["steps"] = [{"seq": batch.seq, "events": [e.render(None) for e in batch.events]}
                         for batch in match.history]
        if views:
            _add_live_views(match, head)
        return head
    record = match.finished_record()
    head.update(record_replay(match.game, record, views=views))
    return head


def _add_live_views(match: Renderable, head: dict[str, Any]) -> None:
    """The spectator's view before the first step and after each step of a live replay,
    re-derived from the start state and the log (nothing of the log itself is sent)."""
    game, log = match.game, match.log
    state, applied = match.start_state, 0
    head["start_view"] = game.view(state, None)
    for step, batch in zip(head["steps"], match.history, strict=True):
        while applied < batch.log_length:
            state = game.apply_unchecked(state, actions_of(log[applied])).state
            applied += 1
        step["view"] = game.view(state, None)


def _step_views(game: Game, state: State, num_seats: int, prefix: str = "") -> dict[str, Any]:
    """The views of a finished replay at one position: the spectator's, and every seat's
    for a game with hidden information (its whole log is public once it is over)."""
    out: dict[str, Any] = {f"{prefix}view": game.view(state, None)}
    if game.info.hidden_information:
        out[f"{prefix}seat_views"] = [game.view(state, seat) for seat in range(num_seats)]
    return out


def record_replay(game: Game, record: Mapping[str, Any], *, views: bool = False
                  ) -> dict[str, Any]:
    """The replay body of a finished match from its stored record (seed already absent):
    one step per log entry with the actions applied and the public events they caused;
    with ``views``, the views of each position too (see :func:`_step_views`).

    Re-derives the events by re-applying the log, so finished replays cost no storage."""
    if "seed" in record:
        raise ValueError("a record handed to a client must not carry the seed")
    steps: list[dict[str, Any]] = []
    num_seats = int(record["num_seats"])
    options = game.normalize_options(record.get("options"))
    state = record.get("start") or game.initial_state(num_seats, options)
    body: dict[str, Any] = {"outcome": record.get("outcome"), "num_seats": num_seats,
                            "start": record.get("start"),
                            "log": list(record.get("log") or []), "steps": steps}
    if views:
        body.update(_step_views(game, state, num_seats, "start_"))
    for index, entry in enumerate(record.get("log") or []):
        transition = game.apply_unchecked(state, actions_of(entry))
        state = transition.state
        step = {"seq": index + 1, "actions": entry,
                "events": [e.render(None) for e in transition.events]}
        if views:
            step.update(_step_views(game, state, num_seats))
        steps.append(step)
    return body


class StoredMatch:
    """A finished match read back from storage, shaped for :func:`render_for` (replays).

    ``record`` is the stored record **without** the seed; ``seats`` as stored; ``pair`` as
    stored (the caller refuses the replay of a match whose twin is still live: a stored
    match is never sealed here)."""

    sealed = False

    def __init__(self, match_id: str, game: Game, record: Mapping[str, Any],
                 seats: Sequence[Mapping[str, Any]], status: str,
                 clock: Clock | None = None, pair: Mapping[str, Any] | None = None) -> None:
        if "seed" in record:
            raise ValueError("a stored record handed to render_for must not carry the seed")
        self.match_id = match_id
        self.game = game
        self._record = dict(record)
        self.options = game.normalize_options(record.get("options"))
        self.seats = [SeatInfo(str(s["name"]), str(s["kind"])) for s in seats]
        self.clock = clock
        self.status = status
        self.pair = None if pair is None else dict(pair)
        outcome = record.get("outcome")
        self._outcome = None if outcome is None else Outcome.from_json(outcome)

    @property
    def state(self) -> State:
        raise RuntimeError("a stored match has no live state")

    @property
    def seq(self) -> int:
        return len(self._record.get("log") or [])

    @property
    def history(self) -> Sequence[EventBatch]:
        return ()

    @property
    def outcome(self) -> Outcome | None:
        return self._outcome

    @property
    def start_state(self) -> State:
        raise RuntimeError("a stored match replays from its record")

    @property
    def log(self) -> Sequence[LogEntry]:
        return list(self._record.get("log") or [])

    def legal_actions(self, seat: int) -> list[Any]:
        return []

    def action_space(self, seat: int) -> dict[str, Any] | None:
        return None

    def committed(self) -> tuple[int, ...]:
        return ()

    def commitment(self, seat: int) -> Any:
        return None

    def finished_record(self) -> dict[str, Any]:
        if self.status == "live":
            raise RuntimeError("the record of a live match is secret")
        return dict(self._record)
