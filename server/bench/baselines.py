"""The two yardsticks of ``arena bench server``: a bare echo and a bare relay.

Both are plain ``websockets`` servers on 127.0.0.1 (port 0) with no game logic, run in the
bench process exactly like the arena server, and driven by the same load generator process
(:mod:`server.bench.server_load`, modes ``echo`` and ``relay``):

* **echo**: every frame a client sends comes straight back. Its round trip is the floor a
  server round trip is compared with (the issue's goal: at most twice the echo).
* **relay**: connections are paired in arrival order (the first of a pair is seat 0); each
  frame is decoded with the protocol codec, wrapped as a ``move`` for the other seat and
  encoded again (``/json`` or ``/msgpack`` in the URL path picks the codec). That is a match
  server minus the rules, rendering and bookkeeping: its moves per second are the ceiling a
  server is compared with (the goal: at least half the relay with 500 matches).

:func:`move_message` is the move both modes carry: the same shape and size as an ``action``
message of a Battle Line match.
"""

from __future__ import annotations

import contextlib
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from protocol import decode, encode
from protocol.messages import Encoding


def move_message(index: int) -> dict[str, Any]:
    """A move-sized client message (like an ``action`` of a Battle Line match)."""
    return {"type": "action", "match_id": "m-3f9a1c0d7e2b",
            "request_id": f"{index:024x}",
            "action": {"type": "play", "card": f"{index % 10}r", "flag": index % 9 + 1}}


async def start_echo() -> tuple[Server, str]:
    """A bare echo server; returns it and its ``ws://`` URL."""

    async def handler(ws: ServerConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in ws:
                await ws.send(frame)

    server = await serve(handler, "127.0.0.1", 0, compression=None, max_queue=None)
    port = next(iter(server.sockets)).getsockname()[1]
    return server, f"ws://127.0.0.1:{port}"


class _Relay:
    """Pairs connections in arrival order and forwards each decoded move to the other seat."""

    def __init__(self) -> None:
        self.waiting: ServerConnection | None = None
        self.peer: dict[ServerConnection, ServerConnection] = {}

    async def handler(self, ws: ServerConnection) -> None:
        encoding: Encoding = "msgpack" if ws.request is not None and \
            ws.request.path.endswith("msgpack") else "json"
        if self.waiting is None or self.waiting.state.name != "OPEN":
            self.waiting = ws
            seat = 0
        else:
            other, self.waiting = self.waiting, None
            self.peer[ws], self.peer[other] = other, ws
            seat = 1
        try:
            await ws.send(encode({"type": "paired", "seat": seat}, encoding))
            if seat == 1:
                await self.peer[ws].send(encode({"type": "paired", "seat": 0, "start": True},
                                                encoding))
            async for frame in ws:
                message = decode(frame)
                peer = self.peer.get(ws)
                if peer is None:
                    continue
                forward = {"type": "move", "match_id": message.get("match_id"),
                           "seat": 1 - seat, "action": message.get("action")}
                with contextlib.suppress(ConnectionClosed):
                    await peer.send(encode(forward, encoding))
        except ConnectionClosed:
            pass
        finally:
            self.peer.pop(ws, None)
            if self.waiting is ws:
                self.waiting = None


async def start_relay() -> tuple[Server, str]:
    """A bare relay server; returns it and its ``ws://`` URL (append ``/json`` or
    ``/msgpack``)."""
    relay = _Relay()
    server = await serve(relay.handler, "127.0.0.1", 0, compression=None, max_queue=None)
    port = next(iter(server.sockets)).getsockname()[1]
    return server, f"ws://127.0.0.1:{port}"
