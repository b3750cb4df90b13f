"""The websocket relay between a bot under check and the server: it records every message
both ways, and can rewrite what the server sends (to inject a message) or cut a connection
(as a network failure would). One upstream connection per bot connection, with the same
subprotocol."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.typing import Subprotocol

from protocol import decode, encode, encoding_of, select_subprotocol
from protocol.messages import SUBPROTOCOL_OF_ENCODING, SUBPROTOCOLS


@dataclass
class Record:
    """One message through the relay. ``to_bot``: server → bot; else bot → server."""

    conn: int
    to_bot: bool
    at: float
    message: dict[str, Any]
    injected: bool = False


class Relay:
    """A websocket relay between the bot and the server that records every message and can
    inject a message or cut the connection. One upstream connection per bot connection, with
    the same subprotocol."""

    def __init__(self, upstream_url: str) -> None:
        self.upstream_url = upstream_url
        self.records: list[Record] = []
        self.connections = 0
        self.url = ""
        self._server: Server | None = None
        self._links: dict[int, tuple[ServerConnection, ClientConnection]] = {}
        # Called with each server → bot message; returns the messages to deliver instead.
        self.rewrite: Callable[[int, dict[str, Any]], list[tuple[dict[str, Any], bool]]] | None \
            = None
        # Called with each server → bot message as it arrives, before it is delivered (what
        # the server's state was when it sent a request, for judging the answer).
        self.observe: Callable[[int, dict[str, Any]], None] | None = None
        # Called with each bot → server message once recorded; the seconds to hold it back
        # while later ones pass (what a loaded machine can do to the checker's own side, as
        # the tests stand it in).
        self.hold: Callable[[int, dict[str, Any]], float] | None = None

    async def start(self) -> None:
        self._server = await serve(
            self._handle, "127.0.0.1", 0, compression=None, max_size=None,
            subprotocols=[Subprotocol(s) for s in SUBPROTOCOLS],
            select_subprotocol=lambda _conn, offered: (
                None if (chosen := select_subprotocol(list(offered))) is None
                else Subprotocol(chosen)))
        host, port = next(iter(self._server.sockets)).getsockname()[:2]
        self.url = f"ws://{host}:{port}/ws"

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(3):
                    await self._server.wait_closed()

    def cut(self, conn: int) -> None:
        """Cut connection ``conn`` like a network failure: the bot's socket is aborted (no
        close frame) and the server sees its side closed."""
        link = self._links.pop(conn, None)
        if link is None:
            return
        bot_ws, up_ws = link
        bot_ws.transport.abort()
        asyncio.ensure_future(up_ws.close())

    def is_open(self, conn: int) -> bool:
        return conn in self._links

    async def _handle(self, bot_ws: ServerConnection) -> None:
        self.connections += 1
        conn = self.connections
        subprotocol = bot_ws.subprotocol
        encoding = encoding_of(subprotocol)
        try:
            up_ws = await connect(
                self.upstream_url, compression=None, max_size=None,
                subprotocols=[Subprotocol(SUBPROTOCOL_OF_ENCODING[encoding])]
                if subprotocol else None)
        except OSError:
            await bot_ws.close(1011, "upstream unavailable")
            return
        self._links[conn] = (bot_ws, up_ws)

        async def bot_to_server() -> None:
            held: set[asyncio.Task[None]] = set()

            async def later(seconds: float, frame: str | bytes) -> None:
                await asyncio.sleep(seconds)
                with contextlib.suppress(Exception):
                    await up_ws.send(frame)

            async for frame in bot_ws:
                message = self._record(conn, False, frame)
                if self.hold is not None and (seconds := self.hold(conn, message)) > 0:
                    task = asyncio.ensure_future(later(seconds, frame))
                    held.add(task)
                    task.add_done_callback(held.discard)
                    continue
                await up_ws.send(frame)

        async def server_to_bot() -> None:
            async for frame in up_ws:
                message = _decode(frame)
                if message is not None and self.observe is not None:
                    self.observe(conn, message)
                if message is None or self.rewrite is None:
                    self._record(conn, True, frame)
                    await bot_ws.send(frame)
                    continue
                for out, injected in self.rewrite(conn, message):
                    self.records.append(Record(conn, True, time.monotonic(), out, injected))
                    await bot_ws.send(encode(out, encoding))

        pumps = [asyncio.ensure_future(bot_to_server()), asyncio.ensure_future(server_to_bot())]
        try:
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pump in pumps:
                pump.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)
            self._links.pop(conn, None)
            with contextlib.suppress(Exception):
                await up_ws.close()
            with contextlib.suppress(Exception):
                await bot_ws.close()

    def _record(self, conn: int, to_bot: bool, frame: str | bytes) -> dict[str, Any]:
        message = _decode(frame)
        if message is None:
            message = {"type": "<undecodable frame>", "frame": repr(frame[:200])}
        self.records.append(Record(conn, to_bot, time.monotonic(), message))
        return message

    # ---- queries ------------------------------------------------------------------------------

    def sent_by_bot(self, kind: str, since: int = 0) -> list[Record]:
        return [r for r in self.records[since:] if not r.to_bot and r.message.get("type") == kind]

    def to_bot(self, kind: str, since: int = 0) -> list[Record]:
        return [r for r in self.records[since:] if r.to_bot and r.message.get("type") == kind]


def _decode(frame: str | bytes) -> dict[str, Any] | None:
    try:
        return decode(frame)
    except Exception:
        return None
