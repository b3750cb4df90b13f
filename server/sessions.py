"""Sessions: who a client is, outliving any one connection.

A :class:`Session` starts with a ``hello`` (an account's bearer token, or nothing for a
guest) and is named by a secret resume token sent in ``welcome``. It holds the session's
seats in live matches, the matches it watches, its seeks and its autoplay offer. When its
connection drops the session stays; a new connection that says ``hello {resume}`` takes it
over and the seats are re-attached. A disconnected session without live seats is forgotten
after the grace period.

A server that restarts resumes the live matches it stored (:mod:`server.resume`), and with
them their seated sessions, away (:meth:`Sessions.restore`): each is taken over by a
``hello`` with its old resume token (the store keeps only its SHA-256) or, for an account,
by logging in with the account's token. It comes back under a new resume token, and with
no offers (seeks, autoplay, ladder): the client makes them again.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Any


@dataclass
class AutoplayOffer:
    """A bot's offer to be seated automatically in matches of ``games``; ``bot`` and
    ``version`` are what the bot says it is (``autoplay.bot``/``version``), if it says."""

    games: frozenset[str]
    max_matches: int = 1
    bot: str | None = None
    version: str | None = None


KEPT_WHILE_AWAY = frozenset({"match_end", "pair_end"})
"""Messages an away session keeps for its resume: results it could not learn otherwise."""
MISSED_KEPT = 32


@dataclass(eq=False)
class Session:
    token: str
    name: str
    kind: str                      # "human" | "bot" | "admin" | "guest"
    connection: Any = None         # server.connection.Connection, or None while away
    seats: dict[str, list[int]] = field(default_factory=dict)   # match_id -> seats held
    watching: set[str] = field(default_factory=set)               # spectated match ids
    seeks: set[str] = field(default_factory=set)
    autoplay: AutoplayOffer | None = None
    away_since: float | None = None
    views: bool = False            # hello.views: events (and replays) carry views
    lean: bool = False             # hello.lean: its seats' events ride in their next request
    credential: str | None = None  # token_hash of the account token it logged in with
    restored_from: str | None = None  # restored after a restart: its old token's hash
    missed: list[dict[str, Any]] = field(default_factory=list)   # results sent while away

    @functools.cached_property
    def resume_hash(self) -> str:
        """The SHA-256 of the resume token (which never changes): what storage keeps."""
        return token_hash(self.token)

    @property
    def account(self) -> dict[str, str]:
        return {"name": self.name, "kind": self.kind}

    @property
    def connected(self) -> bool:
        return self.connection is not None and not self.connection.closed

    def send(self, message: Any) -> None:
        """Send to the current connection. While the session is away a message is dropped
        (what it misses is re-sent as a whole state on resume), except a result —
        ``match_end``, ``pair_end`` — which is kept (the last :data:`MISSED_KEPT`) and sent
        when it resumes (:meth:`resend_missed`): a match that ends while its seat is away is
        no longer live to be re-sent."""
        if self.connected:
            self.connection.send(message)
        elif isinstance(message, dict) and message.get("type") in KEPT_WHILE_AWAY:
            self.missed.append(message)
            del self.missed[:-MISSED_KEPT]

    def resend_missed(self) -> None:
        """Send the results kept while away (on resume)."""
        missed, self.missed = self.missed, []
        for message in missed:
            self.send(message)

    def free_autoplay_slots(self, game: str | None = None) -> int:
        """Matches the server may seat this session in now (of ``game``, if named): its
        autoplay capacity left, 0 while away or without an offer (for that game)."""
        offer = self.autoplay
        if offer is None or (game is not None and game not in offer.games) \
                or not self.connected:
            return 0
        return max(0, offer.max_matches - len(self.seats))

    def answers_to(self, bot: str) -> bool:
        """Whether ``play_bot.bot`` = ``bot`` names this session: its account name, or the
        bot name its autoplay offer gave."""
        return self.name == bot or (self.autoplay is not None and self.autoplay.bot == bot)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Sessions:
    """Every session by resume token, and by account name for challenges."""

    def __init__(self) -> None:
        self._by_token: dict[str, Session] = {}
        # Sessions restored after a restart, by the hash of the resume token they had.
        self._by_hash: dict[str, Session] = {}

    def create(self, name: str, kind: str) -> Session:
        session = Session(token=secrets.token_urlsafe(24), name=name, kind=kind)
        self._by_token[session.token] = session
        return session

    def get(self, token: str) -> Session | None:
        session = self._by_token.get(token)
        if session is None and self._by_hash:
            session = self._by_hash.get(token_hash(token))
        return session

    def adopt(self, token: str, name: str, kind: str) -> Session:
        """A session another node of the cluster gave out (its client resumes here after
        that node went away): kept under the same resume token."""
        session = self._by_token.get(token)
        if session is None:
            session = self._by_token[token] = Session(token=token, name=name, kind=kind)
        return session

    def restore(self, name: str, kind: str, resume_hash: str | None, now: float) -> Session:
        """The away session of a seat in a match resumed after a restart: the one already
        restored for ``resume_hash``, else a new one (claimable by that old token, or by
        logging in to the account), under a new resume token."""
        if resume_hash is not None:
            found = self._by_hash.get(resume_hash)
            if found is not None:
                return found
        session = self.create(name, kind)
        session.away_since = now
        if resume_hash is not None:
            self._by_hash[resume_hash] = session
            session.restored_from = resume_hash
        return session

    def claimed(self, session: Session) -> None:
        """``session`` has a connection again: its old resume token no longer names it."""
        if session.restored_from is not None:
            self._by_hash.pop(session.restored_from, None)
            session.restored_from = None

    def online(self, name: str) -> list[Session]:
        """Connected sessions of an account name."""
        return [s for s in self._by_token.values() if s.name == name and s.connected]

    def away_with_seats(self, name: str) -> Session | None:
        """The account's session that lost its connection most recently while holding
        seats in live matches, if any."""
        away = [s for s in self._by_token.values()
                if s.name == name and not s.connected and s.seats and s.kind != "guest"]
        return max(away, key=lambda s: s.away_since or 0.0, default=None)

    def of_account(self, name: str) -> list[Session]:
        """Every session of an account, connected or away."""
        return [s for s in self._by_token.values() if s.name == name and s.kind != "guest"]

    def forget(self, session: Session) -> None:
        """Forget a session now (its resume token stops working)."""
        self._by_token.pop(session.token, None)

    def all(self) -> list[Session]:
        return list(self._by_token.values())

    def forget_idle(self, now: float, grace_s: float) -> int:
        """Forget sessions away longer than ``grace_s`` that hold no seats."""
        stale = [t for t, s in self._by_token.items()
                 if s.away_since is not None and now - s.away_since >= grace_s and not s.seats]
        for token in stale:
            self.claimed(self._by_token.pop(token))
        return len(stale)

    def __len__(self) -> int:
        return len(self._by_token)
