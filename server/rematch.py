"""Rematches: once a match is over, its seats may play it again with the seats moved on.

``rematch {match_id}`` from a session seated in a finished match offers (or accepts) a
rematch: the offer is recorded for its seats, and every seated session is told
(``rematch_offered``, naming the seats that have offered so far). When every seat has
offered, a new match of the same spec (game, options, clock, seat count) starts at once,
each player one seat on: seat ``i``'s player takes seat ``i + 1`` and the last seat's takes
seat 0 (two seats swap). Everyone gets its ``match_start`` as for any match.

An offer lapses when a seated session declines (``decline_rematch``) or disconnects: the
other seats get ``rematch_declined`` with ``reason`` ``declined`` or ``left``, and the next
``rematch`` starts a new offer. A match is rematched once: a ``rematch`` after that is
``bad_request`` (``details.rematch`` names the new match). Nothing here is stored: offers
live as long as the server keeps the finished match (and forgets it).
"""

from __future__ import annotations

import collections
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from server.hub import Handler
from server.lobby import LobbyError, MatchSpec
from server.sessions import Session

if TYPE_CHECKING:
    from server.connection import Connection
    from server.live import LiveMatch

_KEPT_REMATCHES = 1000
"""Finished matches whose rematch is remembered (to say it started already)."""


class Tables(Protocol):
    """What rematches need of the server."""

    def find_match(self, match_id: str) -> LiveMatch | None: ...
    def start_match(self, spec: MatchSpec, seating: list[Session]) -> LiveMatch: ...
    def add_handlers(self, handlers: Mapping[str, Handler]) -> None: ...


def spec_of(match: LiveMatch) -> MatchSpec:
    """The spec ``match`` was started from; rebuilt from its runner for a match resumed
    after a restart (which keeps its game, options, clock and seats)."""
    if match.spec is not None:
        return match.spec
    runner = match.runner
    return MatchSpec(runner.game.info.name, dict(runner.options), runner.clock,
                     runner.num_seats)


def rotated(seating: list[Session]) -> list[Session]:
    """Everyone one seat on: seat ``i``'s session takes seat ``i + 1``, the last seat's
    takes seat 0."""
    return seating[-1:] + seating[:-1]


class Rematches:
    """The ``rematch`` and ``decline_rematch`` handlers; registers itself with the server.
    The server calls :meth:`left` when a session's connection is lost."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.offers: dict[str, dict[int, Session]] = {}     # match id -> seat -> who offered
        self.started: collections.OrderedDict[str, str] = collections.OrderedDict()
        tables.add_handlers({"rematch": self.rematch, "decline_rematch": self.decline})

    def _seated(self, session: Session, msg: dict[str, Any]) -> tuple[LiveMatch, list[int]]:
        match = self.tables.find_match(msg["match_id"])
        seats = [] if match is None else match.seats_of(session)
        if match is None or not seats:
            raise LobbyError("not_found", "you hold no seat in a match with that id")
        return match, seats

    def rematch(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        match, seats = self._seated(session, msg)
        if not match.is_over:
            raise LobbyError("bad_request", "the match is not over: a rematch is offered "
                                            "once it ends")
        if match.pair is not None:
            raise LobbyError("bad_request", "a match of a duplicate pair has no rematch: "
                                            "challenge again with duplicate", reason="pair")
        again = self.started.get(match.match_id)
        if again is not None:
            conn.protocol.error("bad_request", "this match's rematch has started already",
                                to=msg, rematch=again)
            return
        offer = self.offers.setdefault(match.match_id, {})
        for seat in seats:
            offer[seat] = session
        conn.protocol.reply(msg, {"type": "ok"})
        conn.flush()
        if len(offer) < len(match.seating):
            self._tell(match, {"type": "rematch_offered", "match_id": match.match_id,
                               "by": session.name, "seats": sorted(offer)})
            return
        del self.offers[match.match_id]
        new = self.tables.start_match(spec_of(match), rotated(list(match.seating)))
        self.started[match.match_id] = new.match_id
        while len(self.started) > _KEPT_REMATCHES:
            self.started.popitem(last=False)

    def decline(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        match, _ = self._seated(session, msg)
        if match.match_id not in self.offers:
            raise LobbyError("not_found", "no rematch is offered for that match")
        conn.protocol.reply(msg, {"type": "ok"})
        self._lapse(match, session, "declined")

    def left(self, session: Session) -> None:
        """``session``'s connection is lost: the offers of its matches lapse."""
        for match_id in list(self.offers):
            match = self.tables.find_match(match_id)
            if match is None:
                del self.offers[match_id]
            elif session in match.seating:
                self._lapse(match, session, "left")

    def _lapse(self, match: LiveMatch, session: Session, reason: str) -> None:
        del self.offers[match.match_id]
        self._tell(match, {"type": "rematch_declined", "match_id": match.match_id,
                           "by": session.name, "reason": reason}, but=session)

    @staticmethod
    def _tell(match: LiveMatch, message: dict[str, Any], but: Session | None = None) -> None:
        for seated in dict.fromkeys(match.seating):
            if seated is not but:
                seated.send(message)
