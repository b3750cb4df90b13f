"""Who receives a match's messages on this server: the sessions in its seats and its
spectators.

A :class:`~server.runner.MatchRunner` says what to send to whom, as ``(recipient, message)``
pairs (a seat number, or ``None`` for every spectator); :meth:`Audience.deliver` sends them.
It is the delivery half of a live match: a match run elsewhere (a worker process, another
node) hands its runner's output to the audience of the node that holds the connections.
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

    def seats_of(self, session: Session) -> list[int]:
        return [seat for seat, s in enumerate(self.seating) if s is session]

    def wanting_views(self) -> frozenset[int | None]:
        """The recipients that asked for views with their events (``hello.views``): the
        seats whose session did, and ``None`` (the spectators' copy) if any watcher did."""
        wanted: set[int | None] = {seat for seat, s in enumerate(self.seating) if s.views}
        if any(s.views for s in self.spectators):
            wanted.add(None)
        return frozenset(wanted)

    def deliver(self, out: list[Outgoing], ref_for: tuple[Session, Any] | None = None,
                reply: str = "match_start") -> None:
        """Send each message to its seat's session, or to every spectator (encoded once for
        all of them; an ``events`` copy with a view once more without it, for the spectators
        that did not ask for views). ``ref_for``: ``(session, ref)`` — that session's first
        message of type ``reply`` carries ``ref``: it answers the message with that id
        (``match_start`` a ``play_bot`` or ``accept``, ``match_end`` a ``resign``)."""
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
            if ref_for is not None and ref_for[0] is session and message["type"] == reply:
                if ref_for[1] is not None:  # a message without an id gets no ref
                    message = {**message, "ref": ref_for[1]}
                ref_for = None
            session.send(message)

    def resync(self, session: Session, out: list[Outgoing], ref: Any = None) -> None:
        """Send a spectator's resync (``out``, all addressed to spectators) to ``session``
        only; its ``match_start`` carries ``ref`` when given."""
        for recipient, message in out:
            assert recipient is None
            if ref is not None and message["type"] == "match_start":
                message = {**message, "ref": ref}
            session.send(message)
