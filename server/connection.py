"""One websocket connection: the protocol session, a bounded outbound queue, a writer task.

:meth:`Connection.send` never waits: it encodes through the connection's
:class:`protocol.ServerSession` and appends the frames to a queue that a writer task drains
into the socket. When the queue holds more than ``max_messages`` frames or ``max_bytes``
bytes, the client is not keeping up: it is dropped (close 1013, "try again later") instead of
being buffered without limit, and nothing else on the server waits for it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Mapping
from typing import Any

import structlog
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from protocol import EncodedMessage, ServerSession
from protocol.codec import Frame

CLOSE_TRY_AGAIN_LATER = 1013
DEFAULT_MAX_MESSAGES = 256
DEFAULT_MAX_BYTES = 4 << 20

log = structlog.get_logger("arena.connection")


class Connection:
    """A connected client. The server's handlers call :meth:`send`; :meth:`run_writer` is
    the task that writes; :meth:`drop` ends the connection from the server side."""

    def __init__(self, ws: ServerConnection, session: ServerSession, conn_id: str, *,
                 max_messages: int = DEFAULT_MAX_MESSAGES,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.ws = ws
        self.protocol = session
        self.conn_id = conn_id
        self.max_messages = max_messages
        self.max_bytes = max_bytes
        self.log = log.bind(conn_id=conn_id)
        self.closed = False
        self.owner: Any = None  # the server.sessions.Session this connection speaks for
        self._queue: collections.deque[Frame] = collections.deque()
        self._queued_bytes = 0
        self._wake = asyncio.Event()
        self._closing: asyncio.Task[None] | None = None

    # ---- output ----------------------------------------------------------------------------

    def send(self, message: Mapping[str, Any] | EncodedMessage) -> None:
        """Queue one message (an :class:`EncodedMessage` is encoded once for everyone)."""
        if self.closed:
            return
        self.protocol.send(message)
        self.flush()

    def flush(self) -> None:
        """Move whatever the protocol session produced into the outbound queue."""
        frames = self.protocol.data_to_send()
        if self.closed or not frames:
            return
        for frame in frames:
            self._queue.append(frame)
            # Characters stand in for bytes of a text frame: exact enough for a limit, and
            # it spares encoding every frame twice.
            self._queued_bytes += len(frame)
        self._wake.set()
        if len(self._queue) > self.max_messages or self._queued_bytes > self.max_bytes:
            self.log.warning("slow_client_dropped", queued=len(self._queue),
                             queued_bytes=self._queued_bytes)
            self.drop(CLOSE_TRY_AGAIN_LATER, "too slow: outbound queue full")

    @property
    def queued(self) -> int:
        return len(self._queue)

    async def run_writer(self) -> None:
        """Write queued frames in order until the connection closes."""
        try:
            while not self.closed:
                if not self._queue:
                    self._wake.clear()
                    await self._wake.wait()
                    continue
                frame = self._queue.popleft()
                self._queued_bytes -= len(frame)
                await self.ws.send(frame)
        except ConnectionClosed:
            pass

    # ---- closing ---------------------------------------------------------------------------

    def drop(self, code: int, reason: str) -> None:
        """Close from the server side: stop sending, discard the queue, send a close frame,
        and abort the TCP connection if the peer does not complete the close in a second
        (a non-reading peer never would)."""
        if self.closed:
            return
        self.closed = True
        self._queue.clear()
        self._queued_bytes = 0
        self._wake.set()
        self._closing = asyncio.get_running_loop().create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        try:
            async with asyncio.timeout(1.0):
                await self.ws.close(code, reason)
        except (TimeoutError, ConnectionClosed, OSError):
            pass
        finally:
            if self.ws.transport is not None and not self.ws.transport.is_closing():
                with contextlib.suppress(Exception):
                    self.ws.transport.abort()
