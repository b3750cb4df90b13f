"""Match chat: two channels per match, the players' and the spectators'.

A ``chat {match_id, text}`` from a session that holds a seat goes to the **players'** channel:
every session seated in that match. One from a spectator goes to the **spectators'**
channel: every session watching it. The channels never mix: a spectator never receives a
players' line (the players may discuss their hidden hands) and a player never receives a
spectators' line (spectators may discuss the players' hands, the public view, or a bot's
weakness). A session holding a seat is a player, even if it also watches.

Each line is delivered as a ``chat_line`` (the sender's own copy is the direct reply and
carries ``ref``). Lines are plain text, at most :data:`MAX_CHAT_CHARS` characters after
trimming, never empty; each session may send :data:`CHAT_LINES` lines per
:data:`CHAT_WINDOW_S` seconds in one match (``rate_limited`` with ``retry_after`` beyond
that). Chat works while a match is live and after it ended, while the server still keeps it
(so the players can agree on a rematch). Lines are not stored and not replayed: a client sees
the lines sent while it is in the match.

``mute {match_id, account}`` is kept by the server, per session: from then on the muting
session receives no line of that account in any match (``"muted": false`` undoes it). Its
own lines still reach everyone else. Nothing of a mute is stored.
"""

from __future__ import annotations

import collections
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from server.hub import Handler
from server.lobby import LobbyError
from server.sessions import Session
from server.storage import utc_now

if TYPE_CHECKING:
    from server.connection import Connection
    from server.live import LiveMatch

MAX_CHAT_CHARS = 500
"""The longest line, in characters after trimming; a longer one is refused ``too_large``."""
CHAT_LINES = 5
"""Lines one session may send to one match's chat per :data:`CHAT_WINDOW_S`."""
CHAT_WINDOW_S = 10.0
"""The window of the chat's rate limit, in seconds."""
_KEPT_WINDOWS = 4096
"""Rate windows kept before the stale ones are dropped."""

PLAYERS = "players"
SPECTATORS = "spectators"


class Tables(Protocol):
    """What chat needs of the server: its live and recent matches, its message handlers
    and its clock."""

    def find_match(self, match_id: str) -> LiveMatch | None: ...
    def add_handlers(self, handlers: Mapping[str, Handler]) -> None: ...
    def now(self) -> float: ...


def channel_of(match: LiveMatch, session: Session) -> str | None:
    """The channel ``session`` speaks and hears in ``match``: ``players`` for a seat,
    ``spectators`` for a watcher, ``None`` for neither."""
    if session in match.seating:
        return PLAYERS
    if session in match.spectators:
        return SPECTATORS
    return None


class MatchChat:
    """The ``chat`` and ``mute`` handlers; registers itself with the server."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        # (resume token, match id) -> when its last lines were sent, oldest first
        self._sent: dict[tuple[str, str], collections.deque[float]] = {}
        self._muted: weakref.WeakKeyDictionary[Session, set[str]] = \
            weakref.WeakKeyDictionary()
        tables.add_handlers({"chat": self.chat, "mute": self.mute})

    def muted_by(self, session: Session) -> frozenset[str]:
        """The accounts ``session`` muted."""
        return frozenset(self._muted.get(session, ()))

    def _match_of(self, session: Session, msg: dict[str, Any]) -> tuple[LiveMatch, str]:
        match = self.tables.find_match(msg["match_id"])
        channel = None if match is None else channel_of(match, session)
        if match is None or channel is None:
            raise LobbyError("not_found", "you neither play nor watch a match with that id")
        return match, channel

    def chat(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        match, channel = self._match_of(session, msg)
        text = msg["text"].strip()
        if not text:
            conn.protocol.error("bad_request", "an empty chat line", to=msg, field="text")
            return
        if len(text) > MAX_CHAT_CHARS:
            conn.protocol.error("too_large", f"a chat line holds at most {MAX_CHAT_CHARS} "
                                             "characters", to=msg, field="text",
                                limit=MAX_CHAT_CHARS)
            return
        wait = self._spend(session, match.match_id)
        if wait > 0:
            conn.protocol.error("rate_limited", f"at most {CHAT_LINES} chat lines per "
                                f"{CHAT_WINDOW_S:g} s in one match", to=msg,
                                retry_after=round(wait, 3), budget="chat",
                                lines=CHAT_LINES, per_s=CHAT_WINDOW_S)
            return
        line = {"type": "chat_line", "match_id": match.match_id, "channel": channel,
                "from": session.name, "text": text, "at": utc_now()}
        conn.protocol.reply(msg, line)
        hearers = dict.fromkeys(match.seating) if channel == PLAYERS else match.spectators
        for other in list(hearers):
            if other is not session and session.name not in self._muted.get(other, ()):
                other.send(line)

    def _spend(self, session: Session, match_id: str) -> float:
        """Count a line of ``session`` in ``match_id``: 0 when it may be sent, else the
        seconds until it may."""
        now = self.tables.now()
        key = (session.token, match_id)
        window = self._sent.get(key)
        if window is None:
            if len(self._sent) >= _KEPT_WINDOWS:
                self._forget_stale(now)
            window = self._sent[key] = collections.deque()
        while window and window[0] <= now - CHAT_WINDOW_S:
            window.popleft()
        if len(window) >= CHAT_LINES:
            return window[0] + CHAT_WINDOW_S - now
        window.append(now)
        return 0.0

    def _forget_stale(self, now: float) -> None:
        for key in [k for k, w in self._sent.items() if not w or w[-1] <= now - CHAT_WINDOW_S]:
            del self._sent[key]

    def mute(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        self._match_of(session, msg)
        account = msg["account"]
        if msg.get("muted", True):
            self._muted.setdefault(session, set()).add(account)
        else:
            self._muted.get(session, set()).discard(account)
        conn.protocol.reply(msg, {"type": "ok"})
