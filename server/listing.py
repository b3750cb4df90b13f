"""Pages of match summaries for ``list_matches``: cheap to serve, stable to page through.

Matches are listed newest first by the order they started in, live and finished alike.
A page ends with a cursor (the start number of its last match); the next page lists the
matches that started before it. A match that ends between two pages keeps its place, so
paging never repeats or skips one; matches that start meanwhile appear on a first page only.

The summaries are built at most once per ``ttl_s`` (a listing may be that old: its
``moves`` lag, a match may have ended): a flood of ``list_matches`` then costs slicing and
encoding one page each, not a summary of every match each.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from server.lobby import LobbyError

DEFAULT_TTL_S = 0.5


class Listed(Protocol):
    @property
    def match_id(self) -> str: ...

    def summary(self) -> dict[str, Any]: ...


class MatchListing:
    """The server tells it when a match starts (:meth:`started`) and when it is no longer
    listed (:meth:`forget`); :meth:`page` serves one page of ``matches()``."""

    def __init__(self, matches: Callable[[], Iterable[Listed]], ttl_s: float = DEFAULT_TTL_S
                 ) -> None:
        self._matches = matches
        self.ttl_s = ttl_s
        self._numbers = itertools.count(1)
        self._order: dict[str, int] = {}
        self._built_at = float("-inf")
        self._entries: list[tuple[int, dict[str, Any]]] = []   # newest first

    def started(self, match_id: str) -> None:
        self._order[match_id] = next(self._numbers)

    def forget(self, match_id: str) -> None:
        self._order.pop(match_id, None)

    def page(self, now: float, limit: int, game: str | None = None,
             cursor: str | None = None) -> tuple[list[dict[str, Any]], str | None]:
        """Up to ``limit`` summaries after ``cursor`` (of ``game``), and the cursor of the
        next page (``None``: there is none)."""
        after = self._parse(cursor)
        if now - self._built_at >= self.ttl_s:
            self._build(now)
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
        order = self._order
        entries = [(order.get(m.match_id, 0), m.summary()) for m in self._matches()]
        entries.sort(key=lambda entry: entry[0], reverse=True)
        self._entries = entries
        self._built_at = now

    @staticmethod
    def _parse(cursor: str | None) -> int:
        if cursor is None:
            return 1 << 62
        if not cursor.isdigit():
            raise LobbyError("bad_request", "cursor: not a cursor this server gave")
        return int(cursor)
