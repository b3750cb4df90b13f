"""The JSON API of games and matches, served over plain HTTP through a hub's routes.

* ``/api/games``          — every game's static info
* ``/api/matches``        — live matches, then finished ones from storage (newest first),
  at most :data:`LIST_LIMIT` (the websocket's ``list_matches`` pages through all of them)
* ``/api/matches/<id>``   — a live match: its public summary only; a finished match: its
  summary and its replay record (actions included, never the seed) — unless it is one of a
  duplicate pair whose twin is still live (:mod:`server.pairs`): then its summary only

(``/healthz`` is the server's own; ``/api/ladder`` is the ladder's: see
:mod:`server.ladder`.)
"""

from __future__ import annotations

import asyncio
from http import HTTPStatus
from typing import Any

from server.games import available_games
from server.http import error_body
from server.hub import Hub

LIST_LIMIT = 200
"""Matches listed by ``/api/matches`` at most."""


class MatchApi:
    """``/api/games`` and ``/api/matches``; registers itself with the hub."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        hub.add_route("/api/games", self.games)
        hub.add_route("/api/matches", self.matches, subtree=True)

    async def games(self, path: str) -> tuple[int, Any]:
        return 200, {"games": [g.info.to_json() for g in available_games()]}

    async def matches(self, path: str) -> tuple[int, Any]:
        hub = self.hub
        if path == "/api/matches":
            live = hub.match_summaries()[:LIST_LIMIT]
            shown = {m["match_id"] for m in live}
            rows = await asyncio.to_thread(hub.store.list_matches, limit=LIST_LIMIT)
            matches = live + [row.summary() for row in rows if row.id not in shown]
            return 200, {"matches": matches[:LIST_LIMIT]}
        match_id = path[len("/api/matches/"):]
        found = hub.find_match(match_id)
        if found is not None:
            if not found.is_over or found.sealed:
                return 200, {"match": found.summary()}
            return 200, {"match": found.summary(), "record": found.finished_record()}
        row = await asyncio.to_thread(hub.store.get_match, match_id)
        if row is None:
            return error_body(HTTPStatus.NOT_FOUND, "no such match")
        twin = hub.find_match(str(row.pair["twin"])) if row.pair is not None else None
        if row.status == "live" or (twin is not None and not twin.is_over):
            return 200, {"match": row.summary()}
        return 200, {"match": row.summary(), "record": row.record()}
