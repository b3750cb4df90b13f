"""Plain HTTP on the websocket port (websockets' ``process_request`` hook).

Routes (GET only; each response closes its connection):

* ``/ws``                 — the websocket endpoint (handed on to the handshake)
* ``/``                   — a placeholder page until the web client lands
* ``/healthz``            — ``{"ok": true, ...}`` with a few counters
* ``/api/games``          — every game's static info
* ``/api/matches``        — live matches, then finished ones from storage (newest first)
* ``/api/matches/<id>``   — a live match: its public summary only; a finished match: its
  summary and its replay record (actions included, never the seed)
* ``/api/ladder``         — the bot ladders; ``/api/ladder/<game>``: leaderboard and recent
  matches; ``/api/ladder/<game>/<account>/<bot>/<version>``: one bot version's rating history
"""

from __future__ import annotations

import asyncio
import json
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from protocol.messages import WS_PATH
from server.games import available_games

if TYPE_CHECKING:
    from server.app import ArenaServer

PLACEHOLDER_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tabletop Arena</title></head>
<body>
<h1>Tabletop Arena</h1>
<p>An open game server for strategy-game AIs. The web client is coming; meanwhile connect
a bot to <code>{ws_url}</code> (subprotocol <code>arena.v1.json</code> or
<code>arena.v1.msgpack</code>).</p>
<p>JSON: <a href="/api/games">/api/games</a> · <a href="/api/matches">/api/matches</a> ·
<a href="/healthz">/healthz</a></p>
</body></html>
"""


def _json(connection: ServerConnection, body: Any, status: int = 200) -> Response:
    response = connection.respond(status, json.dumps(body, separators=(",", ":")) + "\n")
    return _content_type(response, "application/json")


def _content_type(response: Response, value: str) -> Response:
    # websockets' Headers is a multi-dict: assigning would add a second Content-Type.
    del response.headers["Content-Type"]
    response.headers["Content-Type"] = value
    return response


def _error(connection: ServerConnection, status: HTTPStatus, message: str) -> Response:
    return _json(connection, {"error": status.phrase.lower().replace(" ", "_"),
                              "message": message}, status.value)


async def route(server: ArenaServer, connection: ServerConnection, request: Request
                ) -> Response | None:
    """The response for a plain HTTP request, or ``None`` to go on with the websocket
    handshake (only on :data:`WS_PATH`)."""
    path = request.path.split("?", 1)[0]
    if path == WS_PATH:
        return None
    if path == "/":
        response = connection.respond(200, PLACEHOLDER_PAGE.format(ws_url=server.ws_url))
        return _content_type(response, "text/html; charset=utf-8")
    if path == "/healthz":
        return _json(connection, {"ok": True, "version": server.version,
                                  "connections": len(server.connections),
                                  "sessions": len(server.sessions),
                                  "live_matches": len(server.live)})
    if path == "/api/games":
        return _json(connection, {"games": [g.info.to_json() for g in available_games()]})
    if path == "/api/matches":
        live = server.match_summaries()
        shown = {m["match_id"] for m in live}
        rows = await asyncio.to_thread(server.store.list_matches, limit=200)
        stored = [row.summary() for row in rows if row.id not in shown]
        return _json(connection, {"matches": live + stored})
    if path == "/api/ladder" or path.startswith("/api/ladder/"):
        status, body = await server.ladder.http_get(path)
        return _json(connection, body, status)
    if path.startswith("/api/matches/"):
        match_id = path[len("/api/matches/"):]
        live = server.find_match(match_id)
        if live is not None:
            if not live.runner.is_over:
                return _json(connection, {"match": live.summary()})
            return _json(connection, {"match": live.summary(),
                                      "record": live.runner.finished_record()})
        row = await asyncio.to_thread(server.store.get_match, match_id)
        if row is None:
            return _error(connection, HTTPStatus.NOT_FOUND, "no such match")
        if row.status == "live":
            return _json(connection, {"match": row.summary()})
        return _json(connection, {"match": row.summary(), "record": row.record()})
    return _error(connection, HTTPStatus.NOT_FOUND, f"nothing at {path}")
