"""One websocket connection: the protocol session and a bounded, coalescing output path.

:meth:`Connection.send` never waits. It encodes through the connection's
:class:`protocol.ServerSession`, frames the result with the websocket's own sans-I/O protocol
object, and schedules one write for the end of the current event-loop iteration: everything a
step of a match produces for this client (its events and its next request, say) leaves in a
single ``transport.write`` — one system call, no writer task, no per-frame await.

What the kernel does not take at once waits in the transport's buffer. When that buffer holds
more than ``max_bytes``, or more than ``max_messages`` messages have been written since it was
last empty, the client is not keeping up: it is dropped (close 1013, "try again later")
instead of being buffered without limit, and nothing else on the server waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any

import structlog
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from protocol import EncodedMessage, ServerSession

CLOSE_TRY_AGAIN_LATER = 1013
DEFAULT_MAX_MESSAGES = 256
DEFAULT_MAX_BYTES = 4 << 20

log = structlog.get_logger("arena.connection")


class Connection:
    """A connected client. The server's handlers call :meth:`send` (or let the protocol
    session produce frames and call :meth:`flush`); :meth:`drop` ends the connection from the
    server side."""

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
        self._loop = asyncio.get_running_loop()
        self._write_scheduled = False
        self._framed = 0        # messages framed since the last write
        self._backlog = 0       # messages written while the transport buffer was not empty
        self._closing: asyncio.Task[None] | None = None

    # ---- output ----------------------------------------------------------------------------

    def send(self, message: Mapping[str, Any] | EncodedMessage) -> None:
        """Send one message (an :class:`EncodedMessage` is encoded once for everyone)."""
        if self.closed:
            return
        self.protocol.send(message)
        self.flush()

    def flush(self) -> None:
        """Frame whatever the protocol session produced; the bytes leave at the end of this
        loop iteration, together with anything else framed for this client meanwhile."""
        frames = self.protocol.data_to_send()
        if self.closed or not frames:
            return
        ws_protocol = self.ws.protocol
        if ws_protocol.state is not State.OPEN:
            return  # closing: websockets finishes the close handshake, nothing more to say
        for frame in frames:
            if isinstance(frame, str):
                ws_protocol.send_text(frame.encode())
            else:
                ws_protocol.send_binary(frame)
        self._framed += len(frames)
        if not self._write_scheduled:
            self._write_scheduled = True
            self._loop.call_soon(self._write)

    def _write(self) -> None:
        """Hand every framed byte to the transport in one write, then enforce the bounds."""
        self._write_scheduled = False
        if self.closed:
            return
        framed, self._framed = self._framed, 0
        transport = self.ws.transport
        chunks = self.ws.protocol.data_to_send()
        if chunks and all(chunks):
            transport.write(chunks[0] if len(chunks) == 1 else b"".join(chunks))
        elif chunks:
            # An empty chunk asks for a half-close after the bytes before it: websockets'
            # own writer knows how (only ever after a close frame).
            for chunk in chunks:
                if chunk:
                    transport.write(chunk)
                elif transport.can_write_eof():
                    with contextlib.suppress(Exception):
                        transport.write_eof()
            return
        # (websockets writes pending frames itself whenever a frame arrives, so the bytes
        # may have left before this call: the bounds are checked either way.)
        buffered = transport.get_write_buffer_size()
        if buffered == 0:
            self._backlog = 0
            return
        self._backlog += framed
        if self._backlog > self.max_messages or buffered > self.max_bytes:
            self.log.warning("slow_client_dropped", queued=self._backlog,
                             queued_bytes=buffered)
            self.drop(CLOSE_TRY_AGAIN_LATER, "too slow: outbound queue full")

    # ---- closing ---------------------------------------------------------------------------

    def drop(self, code: int, reason: str) -> None:
        """Close from the server side: stop sending, send a close frame, and abort the TCP
        connection if the peer does not complete the close in a second (a non-reading peer
        never would)."""
        if self.closed:
            return
        self.closed = True
        self._closing = self._loop.create_task(self._close(code, reason))

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
