"""Plain HTTP on the websocket port (websockets' ``process_request`` hook).

Routes (GET only; each response closes its connection):

* ``/ws``                 — the websocket endpoint (handed on to the handshake)
* ``/``                   — the web client (``clients/web/index.html``); its files at
  ``/<name>.js``, ``/<name>.css``, ``/<name>.svg`` (one flat folder, no build step)
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
import re
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from protocol.messages import WS_PATH
from server.games import available_games

if TYPE_CHECKING:
    from server.app import ArenaServer

WEB_ROOT = Path(__file__).resolve().parent.parent / "clients" / "web"
"""The browser client's files. Found by path, not imported: ``server/`` may not import
``clients/`` (DESIGN.md's arrows); the two packages sit side by side in a checkout, an
editable install and a wheel alike."""

_WEB_FILE = re.compile(r"^/([a-z0-9][a-z0-9_-]*\.(js|css|html|svg|ico))$")
_WEB_TYPES = {"js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
              "html": "text/html; charset=utf-8", "svg": "image/svg+xml",
              "ico": "image/x-icon"}
# The page talks only to its own origin (the websocket included) and runs only its own files.
_WEB_CSP = ("default-src 'self'; connect-src 'self'; img-src 'self' data:; "
            "style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; "
            "frame-ancestors 'none'")

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


def _web_file(connection: ServerConnection, name: str, kind: str, ws_url: str = ""
              ) -> Response | None:
    """A file of the web client, or ``None`` when there is no such file. In ``index.html``
    the token ``__WS_URL__`` becomes this server's websocket address (for readers without
    JavaScript; the page itself connects to its own origin)."""
    path = WEB_ROOT / name
    try:
        body = path.read_bytes()
    except OSError:
        return None
    if name == "index.html":
        body = body.replace(b"__WS_URL__", ws_url.encode())
    response = connection.respond(200, "")
    response.body = body
    del response.headers["Content-Length"]
    response.headers["Content-Length"] = str(len(body))
    _content_type(response, _WEB_TYPES[kind])
    # Served from the working tree: a reload must see an edited file (no build step, no
    # fingerprinted names to bust a cache with).
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Content-Security-Policy"] = _WEB_CSP
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
        page = await asyncio.to_thread(_web_file, connection, "index.html", "html",
                                       server.ws_url)
        if page is not None:
            return page
        response = connection.respond(200, PLACEHOLDER_PAGE.format(ws_url=server.ws_url))
        return _content_type(response, "text/html; charset=utf-8")
    web = _WEB_FILE.match(path)
    if web is not None:
        asset = await asyncio.to_thread(_web_file, connection, web.group(1), web.group(2))
        if asset is not None:
            return asset
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
        found = server.find_match(match_id)
        if found is not None:
            if not found.runner.is_over:
                return _json(connection, {"match": found.summary()})
            return _json(connection, {"match": found.summary(),
                                      "record": found.runner.finished_record()})
        row = await asyncio.to_thread(server.store.get_match, match_id)
        if row is None:
            return _error(connection, HTTPStatus.NOT_FOUND, "no such match")
        if row.status == "live":
            return _json(connection, {"match": row.summary()})
        return _json(connection, {"match": row.summary(), "record": row.record()})
    return _error(connection, HTTPStatus.NOT_FOUND, f"nothing at {path}")
