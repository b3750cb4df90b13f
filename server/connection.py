"""One websocket connection: messages in as they are parsed, a bounded, coalescing output
path.

Input. :class:`server.wsadapter.ArenaWebSocket` hands each complete data message to the
server right where websockets parses it (the server handles a bot's action there and then).

Output. :meth:`Connection.send` never waits. It encodes through the connection's
:class:`protocol.ServerSession`, frames the result (:func:`server.wsadapter.frame_into`) and
schedules one write for the end of the current event-loop iteration: everything a step of a
match produces for this client (its events and its next request, say) leaves in a single
``transport.write``, one system call.

What the kernel does not take at once waits in the transport's buffer. When that buffer holds
more than ``max_bytes``, or more than ``max_messages`` messages have been written since it was
last empty, the client is not keeping up: it is dropped (close 1013, "try again later")
instead of being buffered without limit, and nothing else on the server waits for it.

Everything that depends on websockets' internals is in :mod:`server.wsadapter`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Mapping
from typing import Any

import structlog
from websockets.exceptions import ConnectionClosed

from protocol import EncodedMessage, ServerSession
from server.wsadapter import ArenaWebSocket, Message, frame_into

CLOSE_TRY_AGAIN_LATER = 1013
DEFAULT_MAX_MESSAGES = 256
DEFAULT_MAX_BYTES = 4 << 20

log = structlog.get_logger("arena.connection")


class LoopTurn:
    """How many client messages the server has handled in the current event-loop turn.

    With many clients at once, one turn of the loop handles many messages and every client's
    frames wait for the turn's end, to leave in one write per client. When a message is the
    turn's first, the server is not that busy: its sender's answer may leave at once
    (:meth:`Connection.write_now`) without costing anybody a write."""

    def __init__(self) -> None:
        self.count = 0

    def message(self) -> None:
        if self.count == 0:
            asyncio.get_running_loop().call_soon(self._reset)
        self.count += 1

    def _reset(self) -> None:
        self.count = 0

    @property
    def quiet(self) -> bool:
        return self.count <= 1


class Connection:
    """A connected client. The server's handlers call :meth:`send` (or let the protocol
    session produce frames and call :meth:`flush`); :meth:`drop` ends the connection from the
    server side. The server's message pump keeps its own per-connection state here too
    (:attr:`backlog`, :attr:`busy`)."""

    def __init__(self, ws: ArenaWebSocket, session: ServerSession, conn_id: str, *,
                 max_messages: int = DEFAULT_MAX_MESSAGES,
                 max_bytes: int = DEFAULT_MAX_BYTES, turn: LoopTurn | None = None) -> None:
        self.ws = ws
        self.turn = turn or LoopTurn()
        self.protocol = session
        self.conn_id = conn_id
        self.max_messages = max_messages
        self.max_bytes = max_bytes
        self.log = log.bind(conn_id=conn_id)
        self.closed = False
        self.owner: Any = None  # the server.sessions.Session this connection speaks for
        # The message pump (server.app): while a handler awaits (a hello looking up its
        # token, a replay read from the store), later messages wait in ``backlog`` so that
        # they are handled in order; ``busy`` is the task working through them.
        self.backlog: collections.deque[Message] | None = None
        self.busy: asyncio.Task[None] | None = None
        self.reading_paused = False
        self._loop = asyncio.get_running_loop()
        self._out: list[bytes] = []  # per message framed: its header, then its payload
        self._write_scheduled = False
        self._written_unsent = 0  # messages written while the transport buffer was not empty
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
        if not self.ws.is_open:
            return  # closing: websockets finishes the close handshake, nothing more to say
        out = self._out
        for frame in frames:
            frame_into(out, frame)
        if not self._write_scheduled:
            self._write_scheduled = True
            self._loop.call_soon(self._write)

    def write_now(self) -> None:
        """Write what is framed for this client at once, not at the end of the loop turn,
        if the server is not busy this turn (see :class:`LoopTurn`)."""
        if self._out and self.turn.quiet:
            self._write()

    def _write(self) -> None:
        """Hand every framed byte to the transport in one write, then enforce the bounds."""
        self._write_scheduled = False
        out, self._out = self._out, []
        if self.closed or not out or not self.ws.is_open:
            return  # nothing may follow a close frame (websockets writes its own frames)
        buffered = self.ws.write(b"".join(out))
        if buffered == 0:
            self._written_unsent = 0
            return
        self._written_unsent += len(out) // 2
        if self._written_unsent > self.max_messages or buffered > self.max_bytes:
            self.log.warning("slow_client_dropped", queued=self._written_unsent,
                             queued_bytes=buffered)
            self.drop(CLOSE_TRY_AGAIN_LATER, "too slow: outbound queue full")

    # ---- input flow ------------------------------------------------------------------------

    def pause_reading(self) -> None:
        """Stop reading from the socket (the backlog is full); TCP pushes back on the peer."""
        if not self.reading_paused:
            self.reading_paused = True
            with contextlib.suppress(Exception):
                self.ws.pause_reading()

    def resume_reading(self) -> None:
        if self.reading_paused:
            self.reading_paused = False
            with contextlib.suppress(Exception):
                self.ws.resume_reading()

    # ---- closing ---------------------------------------------------------------------------

    def drop(self, code: int, reason: str) -> None:
        """Close from the server side: stop sending, send a close frame, and abort the TCP
        connection if the peer does not complete the close in a second (a non-reading peer
        never would)."""
        if self.closed:
            return
        self.closed = True
        self._out = []
        self.resume_reading()  # the close handshake needs the peer's close frame
        self._closing = self._loop.create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        try:
            async with asyncio.timeout(1.0):
                await self.ws.close(code, reason)
        except (TimeoutError, ConnectionClosed, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                self.ws.abort()
