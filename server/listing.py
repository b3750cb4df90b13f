"""Pages of match summaries for ``list_matches``: cheap to serve, stable to page through.

Matches are listed newest first by the order they started in, live and finished alike.
A page ends with a cursor (the start number of its last match); the next page lists the
matches that started before it. A match that ends between two pages keeps its place, so
paging never repeats or skips one; matches that start meanwhile appear on a first page only.

The summaries are built at most once per ``ttl_s`` (a listing may be that old: its
``moves`` lag, a match may have ended), and each page asked for is encoded once until the
next build: a flood of ``list_matches`` then costs a few pages' encoding per ``ttl_s`` and a
copy of bytes per request, not a summary of every match each.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, Protocol

from protocol.codec import EncodedMessage
from server.lobby import LobbyError

DEFAULT_TTL_S = 0.5
CACHED_PAGES = 64
"""Encoded pages kept until the next build (pages beyond are encoded for each request)."""


class Listed(Protocol):
    @property
    def match_id(self) -> str: ...

    def summary(self) -> dict[str, Any]: ...


class MatchListing:
    """The server tells it when a match starts (:meth:`started`) and when it is no longer
    listed (:meth:`forget`); :meth:`message` serves one page of ``matches()``."""

    def __init__(self, matches: Callable[[], Iterable[Listed]], ttl_s: float = DEFAULT_TTL_S,
                 number: Callable[[dict[str, Any]], int] | None = None) -> None:
        """``number``: a match's place in the listing from its summary (default: the order
        :meth:`started` was told of them; the nodes of a cluster list by start time)."""
        self._matches = matches
        self._number = number
        self.ttl_s = ttl_s
        self._numbers = itertools.count(1)
        self._order: dict[str, int] = {}
        self._built_at = float("-inf")
        self._entries: list[tuple[int, dict[str, Any]]] = []   # newest first
        self._pages: dict[tuple[int, str | None, str | None], EncodedMessage] = {}

    def started(self, match_id: str) -> None:
        self._order[match_id] = next(self._numbers)

    def forget(self, match_id: str) -> None:
        self._order.pop(match_id, None)

    def message(self, now: float, limit: int, game: str | None = None,
                cursor: str | None = None) -> EncodedMessage:
        """The ``matches`` message of one page: up to ``limit`` summaries after ``cursor``
        (of ``game``) and the cursor of the next page (``None``: there is none); encoded
        once until the next build."""
        after = self._parse(cursor)
        if now - self._built_at >= self.ttl_s:
            self._build(now)
        key = (limit, game, cursor)
        cached = self._pages.get(key)
        if cached is None:
            matches, next_cursor = self._page(after, limit, game)
            cached = EncodedMessage({"type": "matches", "matches": matches,
                                     "next": next_cursor})
            if len(self._pages) < CACHED_PAGES:
                self._pages[key] = cached
        return cached

    def _page(self, after: int, limit: int, game: str | None
              ) -> tuple[list[dict[str, Any]], str | None]:
        out: list[dict[str, Any]] = []
        last = 0
        for number, summary in self._entries:
            if number >= after or (game is not None and summary["game"] != game):
                continue
            if len(out) == limit:
                return out, str(last)
            out.append(summary)
            last = number
        return out, None

    def _build(self, now: float) -> None:
        order, number = self._order, self._number
        if number is None:
            entries = [(order.get(m.match_id, 0), m.summary()) for m in self._matches()]
        else:
            entries = [(number(summary), summary)
                       for summary in (m.summary() for m in self._matches())]
        entries.sort(key=lambda entry: entry[0], reverse=True)
        self._entries = entries
        self._pages.clear()
        self._built_at = now

    @staticmethod
    def _parse(cursor: str | None) -> int:
        if cursor is None:
            return 1 << 62
        if not cursor.isdigit():
            raise LobbyError("bad_request", "cursor: not a cursor this server gave")
        return int(cursor)


def start_number(summary: dict[str, Any]) -> int:
    """A match's place by start time, the same on every node: its ``started_at`` in
    milliseconds since the epoch, then three digits from its id (matches started in the
    same millisecond)."""
    try:
        started = datetime.fromisoformat(str(summary["started_at"]).replace("Z", "+00:00"))
    except (KeyError, ValueError):
        return 0
    tie = int(str(summary.get("match_id", ""))[-3:] or "0", 16) % 1000
    return int(started.timestamp() * 1000) * 1000 + tie
