"""Plain HTTP on the websocket port (websockets' ``process_request`` hook).

This module serves what every server serves (GET only; each response closes its
connection):

* ``/ws``                 — the websocket endpoint (handed on to the handshake)
* ``/``                   — the web client (``clients/web/index.html``); its files at
  ``/<name>.js``, ``/<name>.css``, ``/<name>.svg`` (one flat folder, no build step)

and routes every other path to the :class:`Routes` that the server and its services
registered (``/healthz`` and ``/metrics`` by :mod:`server.app`; ``/api/games`` and
``/api/matches`` by :mod:`server.api`; ``/api/ladder`` by :mod:`server.ladder`). A route's
body is sent as JSON, or as it is when it is a :class:`RawBody` (``/metrics``: Prometheus
text). Anything else is a 404.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from protocol.messages import WS_PATH

Route = Callable[[str], Awaitable[tuple[int, Any]]]
"""A route: the request's path (query string removed) → ``(status, body)``; the body is
sent as JSON unless it is a :class:`RawBody`."""


@dataclass(frozen=True)
class RawBody:
    """A route's body sent as it is, with its ``Content-Type``."""

    content: bytes
    content_type: str

WEB_ROOT = Path(__file__).resolve().parent.parent / "clients" / "web"
"""The browser client's files. Found by path, not imported: ``server/`` may not import
``clients/`` (DESIGN.md's arrows); the two packages sit side by side in a checkout, an
editable install and a wheel alike."""

_WEB_FILE = re.compile(r"^/((?:games/)?[a-z0-9][a-z0-9_-]*\.(js|css|html|svg|ico))$")
GAME_MODULES_PATH = "/games/index.json"
"""The names of the web client's game modules (``clients/web/games/<game>.js``), listed from
the folder on each request: adding a game's module to the page is adding its file."""
_GAME_MODULE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
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


def _bytes(connection: ServerConnection, status: int, body: bytes, content_type: str
           ) -> Response:
    response = connection.respond(status, "")
    response.body = body
    del response.headers["Content-Length"]
    response.headers["Content-Length"] = str(len(body))
    return _content_type(response, content_type)


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
    response = _bytes(connection, 200, body, _WEB_TYPES[kind])
    # Served from the working tree: a reload must see an edited file (no build step, no
    # fingerprinted names to bust a cache with).
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Content-Security-Policy"] = _WEB_CSP
    return response


def game_modules() -> list[str]:
    """The games that have a module in ``clients/web/games/`` (sorted file stems)."""
    folder = WEB_ROOT / "games"
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.js") if _GAME_MODULE.match(p.stem))


def error_body(status: HTTPStatus, message: str) -> tuple[int, dict[str, Any]]:
    """An error response of a JSON route: ``{"error": "<status in snake case>", ...}``."""
    return status.value, {"error": status.phrase.lower().replace(" ", "_"), "message": message}


class Routes:
    """The JSON routes of one server: exact paths, and subtrees (a path and all below it)."""

    def __init__(self) -> None:
        self._exact: dict[str, Route] = {}
        self._subtrees: dict[str, Route] = {}

    def add(self, path: str, route: Route, *, subtree: bool = False) -> None:
        """Serve ``path`` (with ``subtree``, also ``path/…``) with ``route``; a path that
        already has a route is a programming error."""
        if path in self._exact or path in self._subtrees:
            raise ValueError(f"a route for {path} exists already")
        (self._subtrees if subtree else self._exact)[path] = route

    def find(self, path: str) -> Route | None:
        route = self._exact.get(path)
        if route is not None:
            return route
        for prefix, route in self._subtrees.items():
            if path == prefix or path.startswith(prefix + "/"):
                return route
        return None


async def respond(routes: Routes, connection: ServerConnection, request: Request,
                  ws_url: str) -> Response | None:
    """The response for a plain HTTP request, or ``None`` to go on with the websocket
    handshake (only on :data:`WS_PATH`). ``ws_url`` is the server's websocket address."""
    path = request.path.split("?", 1)[0]
    if path == WS_PATH:
        return None
    if path == "/":
        page = await asyncio.to_thread(_web_file, connection, "index.html", "html", ws_url)
        if page is not None:
            return page
        response = connection.respond(200, PLACEHOLDER_PAGE.format(ws_url=ws_url))
        return _content_type(response, "text/html; charset=utf-8")
    if path == GAME_MODULES_PATH:
        return _json(connection, await asyncio.to_thread(game_modules))
    web = _WEB_FILE.match(path)
    if web is not None:
        asset = await asyncio.to_thread(_web_file, connection, web.group(1), web.group(2))
        if asset is not None:
            return asset
    route = routes.find(path)
    status, body = (await route(path) if route is not None
                    else error_body(HTTPStatus.NOT_FOUND, f"nothing at {path}"))
    if isinstance(body, RawBody):
        return _bytes(connection, status, body.content, body.content_type)
    return _json(connection, body, status)
