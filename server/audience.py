"""Who receives a match's messages on this server: the sessions in its seats and its
spectators.

A :class:`~server.runner.MatchRunner` says what to send to whom, as ``(recipient, message)``
pairs (a seat number, or ``None`` for every spectator); :meth:`Audience.deliver` sends them.
It is the delivery half of a live match: a match run elsewhere (a worker process, another
node) hands its runner's output to the audience of the node that holds the connections.

Lean delivery (``hello.lean``, PROTOCOL.md "Lean delivery"): the ``events`` messages for a
seat whose session asked for it are not sent. Each is held here, per seat, as an event batch
(its ``seq``, ``events`` and ``clocks_ms``), and the seat's next ``request`` or ``match_end``
carries the batches held so far (its field ``events``): a lean bot gets one frame per
decision, and the server encodes and writes one message where it wrote two or three. A
``match_start`` to the seat (the resync after a resume) drops what is held: it carries the
whole state, those events included. For every other session the lean path costs one
attribute read per message.
"""

from __future__ import annotations

from typing import Any

from protocol import EncodedMessage
from server.render import without_view
from server.runner import Outgoing
from server.sessions import Session


class Audience:
    """The seated sessions (``seating[i]`` holds seat ``i``; one session may hold several
    seats) and the spectators of one match."""

    def __init__(self, seating: list[Session]) -> None:
        self.seating = seating
        self.spectators: set[Session] = set()
        # Lean seats: seat -> the event batches held for its next request or match_end.
        self.held: dict[int, list[dict[str, Any]]] = {}

    def seats_of(self, session: Session) -> list[int]:
        return [seat for seat, s in enumerate(self.seating) if s is session]

    def wanting_views(self) -> frozenset[int | None]:
        """The recipients that asked for views with their events (``hello.views``): the
        seats whose session did (unless it is lean: its events ride in requests, which
        carry the view already), and ``None`` (the spectators' copy) if any watcher did."""
        wanted: set[int | None] = {seat for seat, s in enumerate(self.seating)
                                   if s.views and not s.lean}
        if any(s.views for s in self.spectators):
            wanted.add(None)
        return frozenset(wanted)

    def deliver(self, out: list[Outgoing], ref_for: tuple[Session, Any] | None = None,
                reply: str = "match_start") -> None:
        """Send each message to its seat's session, or to every spectator (encoded once for
        all of them; an ``events`` copy with a view once more without it, for the spectators
        that did not ask for views). ``ref_for``: ``(session, ref)`` — that session's first
        message of type ``reply`` carries ``ref``: it answers the message with that id
        (``match_start`` a ``play_bot`` or ``accept``, ``match_end`` a ``resign``). A lean
        seat's ``events`` wait for its next ``request`` or ``match_end`` (module
        docstring)."""
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
            if session.lean and not self._lean(recipient, message):
                continue
            if ref_for is not None and ref_for[0] is session and message["type"] == reply:
                if ref_for[1] is not None:  # a message without an id gets no ref
                    message = {**message, "ref": ref_for[1]}
                ref_for = None
            session.send(message)

    def _lean(self, seat: int, message: dict[str, Any]) -> bool:
        """Lean delivery to ``seat``: hold an ``events`` message (``False``: nothing to send
        now); hand what is held to a ``request`` or ``match_end`` (in place: the runner
        renders every message for one recipient); drop it at a ``match_start``."""
        kind = message["type"]
        if kind == "events":
            batch = {"seq": message["seq"], "events": message["events"],
                     "clocks_ms": message["clocks_ms"]}
            held = self.held.get(seat)
            if held is None:
                self.held[seat] = [batch]
            else:
                held.append(batch)
            return False
        if kind == "request" or kind == "match_end":
            held = self.held.pop(seat, None)
            if held is not None:
                message["events"] = held
        elif kind == "match_start":
            self.held.pop(seat, None)
        return True

    def resync(self, session: Session, out: list[Outgoing], ref: Any = None) -> None:
        """Send a spectator's resync (``out``, all addressed to spectators) to ``session``
        only; its ``match_start`` carries ``ref`` when given."""
        for recipient, message in out:
            assert recipient is None
            if ref is not None and message["type"] == "match_start":
                message = {**message, "ref": ref}
            session.send(message)
