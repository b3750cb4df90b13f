"""One websocket connection: frames in as they are parsed, a bounded, coalescing output path.

Input. :class:`ArenaWebSocket` is websockets' server connection with one change: a complete
data message (text or binary, reassembled if it came in fragments) is handed to a callback
right where websockets parses it, in ``data_received``, instead of being queued for a task
that calls ``recv()``. The server handles a bot's action there and then: no queue, no task
wake-up, no extra turn of the event loop per message. Everything else (the handshake, control
frames, keepalive pings, the close handshake, size limits) stays websockets' own.

Output. :meth:`Connection.send` never waits. It encodes through the connection's
:class:`protocol.ServerSession`, frames the result (a server's frames are unmasked: a 2-10
byte header in front of the payload) and schedules one write for the end of the current
event-loop iteration: everything a step of a match produces for this client (its events and
its next request, say) leaves in a single ``transport.write``, one system call.

What the kernel does not take at once waits in the transport's buffer. When that buffer holds
more than ``max_bytes``, or more than ``max_messages`` messages have been written since it was
last empty, the client is not keeping up: it is dropped (close 1013, "try again later")
instead of being buffered without limit, and nothing else on the server waits for it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import struct
from collections.abc import Callable, Mapping
from typing import Any

import structlog
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode, Frame, Opcode
from websockets.protocol import State

from protocol import EncodedMessage, ServerSession

CLOSE_TRY_AGAIN_LATER = 1013
DEFAULT_MAX_MESSAGES = 256
DEFAULT_MAX_BYTES = 4 << 20

log = structlog.get_logger("arena.connection")

Message = str | bytes
"""A complete data message: ``str`` from a text frame, ``bytes`` from a binary one."""


class ArenaWebSocket(ServerConnection):
    """websockets' server connection, handing each complete data message to
    :attr:`on_message` as soon as it is parsed (see the module docstring). Messages parsed
    before the server attached its callback are kept and handed over by :meth:`attach`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_message: Callable[[Message], None] | None = None
        self._early: list[Message] = []
        self._fragments: list[bytes] = []
        self._fragmented_text = False

    def attach(self, on_message: Callable[[Message], None]) -> None:
        """From now on every data message goes to ``on_message``, starting with any that
        arrived before this call."""
        self.on_message = on_message
        early, self._early = self._early, []
        for message in early:
            on_message(message)

    def process_event(self, event: Any) -> None:
        if self.request is None or not isinstance(event, Frame):
            super().process_event(event)  # the handshake request
            return
        opcode = event.opcode
        if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
            if event.fin:
                self._deliver(event.data, opcode is Opcode.TEXT)
            else:
                self._fragments = [bytes(event.data)]
                self._fragmented_text = opcode is Opcode.TEXT
        elif opcode is Opcode.CONT:
            # websockets' parser checks the order of fragments and the size of the whole.
            self._fragments.append(bytes(event.data))
            if event.fin:
                data, self._fragments = b"".join(self._fragments), []
                self._deliver(data, self._fragmented_text)
        else:
            super().process_event(event)  # control frames: pong acknowledgements

    def _deliver(self, data: bytes | bytearray | memoryview, text: bool) -> None:
        message: Message
        if text:
            try:
                message = bytes(data).decode()  # (bytes() of a bytes object is that object)
            except UnicodeDecodeError:
                # RFC 6455 §8.1: a text message that is not UTF-8 fails the connection.
                self.protocol.fail(CloseCode.INVALID_DATA, "invalid UTF-8 in a text frame")
                self.send_data()
                return
        else:
            message = bytes(data)
        if self.on_message is None:
            self._early.append(message)
        else:
            self.on_message(message)


_TEXT = 0x81    # FIN + text opcode
_BINARY = 0x82  # FIN + binary opcode
_HEADER_16 = struct.Struct("!BBH")
_HEADER_64 = struct.Struct("!BBQ")


def frame_header(first: int, size: int) -> bytes:
    """The header of one unmasked websocket frame (RFC 6455 §5.2) with a ``size``-byte
    payload, as a server sends it; ``first`` is FIN plus the opcode."""
    if size < 126:
        return bytes((first, size))
    if size < 65536:
        return _HEADER_16.pack(first, 126, size)
    return _HEADER_64.pack(first, 127, size)


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

    def __init__(self, ws: ServerConnection, session: ServerSession, conn_id: str, *,
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
        if self.ws.protocol.state is not State.OPEN:
            return  # closing: websockets finishes the close handshake, nothing more to say
        out = self._out
        for frame in frames:
            first, payload = (_TEXT, frame.encode()) if isinstance(frame, str) else (_BINARY, frame)
            out.append(frame_header(first, len(payload)))
            out.append(payload)
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
        if self.closed or not out or self.ws.protocol.state is not State.OPEN:
            return  # nothing may follow a close frame (websockets writes its own frames)
        transport = self.ws.transport
        transport.write(b"".join(out))
        buffered = transport.get_write_buffer_size()
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
        if not self.reading_paused and self.ws.transport is not None:
            self.reading_paused = True
            with contextlib.suppress(Exception):
                self.ws.transport.pause_reading()

    def resume_reading(self) -> None:
        if self.reading_paused:
            self.reading_paused = False
            with contextlib.suppress(Exception):
                self.ws.transport.resume_reading()

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
            if self.ws.transport is not None and not self.ws.transport.is_closing():
                with contextlib.suppress(Exception):
                    self.ws.transport.abort()
