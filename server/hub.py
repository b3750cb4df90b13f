"""The hub: the narrow interface through which services plug into a server.

A service (the bot ladder; tournaments) starts matches, finds them, hears when
they end, answers protocol messages and serves HTTP JSON — through a :class:`Hub`, never
through the server object. :class:`server.app.ArenaServer` is the hub of one process; a
node of a cluster or a test may be another. A service is made from a hub (it registers its
handlers, routes and match-end callback there) and is then started and closed with the
server (:class:`Service`).

Nothing here imports :mod:`server.app`: the arrows go service → hub ← app, never back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from engine.core import Outcome
from server.http import Route
from server.lobby import MatchSpec
from server.sessions import Session, Sessions
from server.storage import Store

if TYPE_CHECKING:  # (a type only: an interface need not load websockets)
    from server.connection import Connection

Handler = Callable[["Connection", Session, dict[str, Any]], Awaitable[None] | None]
"""A protocol message handler: ``(connection, session, message)``. It answers through
``connection.protocol``; a :class:`server.lobby.LobbyError` it raises is answered as that
typed error. One that must wait (storage) returns an awaitable, and the connection's later
messages wait for it."""


class MatchHandle(Protocol):
    """What a service sees of a match (live or recently finished)."""

    @property
    def match_id(self) -> str: ...
    @property
    def started_at(self) -> str: ...
    @property
    def ended_at(self) -> str | None:
        """When the match ended (UTC, ISO 8601); ``None`` while it is live."""
    @property
    def status(self) -> str:
        """``live``, ``over`` (an outcome) or ``void`` (a server fault)."""
    @property
    def outcome(self) -> Outcome | None: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def sealed(self) -> bool:
        """Over or not, its record is secret for now: one of a duplicate pair whose twin
        is still live (:mod:`server.pairs`)."""

    def summary(self) -> dict[str, Any]:
        """Public facts: the protocol's ``MatchSummary``."""
    def finished_record(self) -> dict[str, Any]:
        """The replay record of a finished, unsealed match (never the seed)."""


MatchEnded = Callable[[MatchHandle], None]


class Hub(Protocol):
    """The server as services see it."""

    @property
    def sessions(self) -> Sessions:
        """The connected and recently connected sessions (to check one is still known)."""
    @property
    def store(self) -> Store:
        """The server's storage."""

    def known(self, session: Session) -> bool:
        """Whether ``session`` is still a session of this server (of this node, or a
        remote one it holds for another node of a cluster), not forgotten."""
    def start_match(self, spec: MatchSpec, seating: list[Session]) -> MatchHandle:
        """Create, persist and start a match; ``seating[i]`` takes seat ``i``. A match that
        faults while starting comes back already ended (its ``ended_at`` set), and its
        match-end callbacks have run before this returns."""
    def start_pair(self, spec: MatchSpec, seating: list[Session]
                   ) -> tuple[MatchHandle, MatchHandle]:
        """Create, persist and start a duplicate pair (:mod:`server.pairs`): two matches of
        ``spec`` (a two-seat game with chance) dealing one deal, ``seating`` in the first
        and swapped in the second. Only where :attr:`plays_pairs`."""
    @property
    def plays_pairs(self) -> bool:
        """Whether this hub starts duplicate pairs (a node of a cluster does not)."""
    def find_match(self, match_id: str) -> MatchHandle | None:
        """A live or recently finished match."""
    def match_summaries(self, game: str | None = None) -> list[dict[str, Any]]:
        """Live matches, then recently finished ones, newest first."""
    def on_match_end(self, callback: MatchEnded) -> None:
        """Call ``callback(match)`` whenever a match ends (over or void)."""
    def add_handlers(self, handlers: Mapping[str, Handler]) -> None:
        """Answer these client message types (the protocol session has validated each
        message against the schema first). A type may have one handler only."""
    def add_route(self, path: str, route: Route, *, subtree: bool = False) -> None:
        """Serve HTTP GET ``path`` (and with ``subtree``, every path below it) with
        ``route``. A path may have one route only."""


class Service(Protocol):
    """A service's lifecycle: started after the server listens, closed before it stops."""

    async def start(self) -> None: ...
    async def close(self) -> None: ...
