"""websockets behind one adapter: the only module that depends on websockets' internals.

The server takes two short cuts past websockets' public API (see ``docs/performance.md``):

* **Input.** :class:`ArenaWebSocket` hands each complete data message (text or binary,
  reassembled if it came in fragments) to a callback right where websockets parses it,
  instead of queueing it for a task that calls ``recv()``: no queue, no task wake-up, no
  extra turn of the event loop per message. Everything else (the handshake, control frames,
  keepalive pings, the close handshake, size limits) stays websockets' own.
* **Output.** The server frames its messages itself (a server's frames are unmasked: a 2-10
  byte header in front of the payload, :func:`frame_into`) and writes every frame a client
  is due in one turn of the loop with one :meth:`ArenaWebSocket.write`.

What this relies on, beyond websockets' documented API (``tests/server_tests/test_wsadapter.py``
checks each against every websockets version ``pyproject.toml`` allows, see
``tests/server_tests/test_wsadapter_versions.py``):

1. ``websockets.asyncio.connection.Connection.data_received`` feeds the bytes to the
   sans-I/O protocol, then calls ``self.process_event(event)`` for each parsed event (the
   handshake request on a server, then frames). Overriding ``process_event`` sees every
   frame; data frames (TEXT, BINARY, CONT) are not passed on, so ``recv()`` is never usable
   on these connections. Control frames go on to websockets (it acknowledges pongs there).
2. ``ServerConnection.request`` is ``None`` until the handshake request was processed.
3. ``self.send_data()`` writes what the sans-I/O protocol has to send (after
   ``self.protocol.fail(...)``, the close frame).
4. ``self.transport`` is the asyncio transport, written to in order by websockets itself
   (``send_data`` writes synchronously): bytes written here between websockets' own writes
   arrive whole, in order. Nothing is written here once the protocol's state is not OPEN:
   a close frame must be the last frame.
5. The frame parser (``websockets.frames``) checks fragment order, control-frame rules and
   the ``max_size`` of a whole message before a frame reaches ``process_event``; oversized
   messages fail the connection with 1009 there.

The public sans-I/O names used (``Frame``, ``Opcode``, ``CloseCode``, ``State``) are
documented API.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.frames import CloseCode, Frame, Opcode
from websockets.protocol import State

Message = str | bytes
"""A complete data message: ``str`` from a text frame, ``bytes`` from a binary one."""

_TEXT = 0x81    # FIN + text opcode
_BINARY = 0x82  # FIN + binary opcode
_HEADER_16 = struct.Struct("!BBH")
_HEADER_64 = struct.Struct("!BBQ")
_OPEN = State.OPEN


class ArenaWebSocket(ServerConnection):
    """websockets' server connection, handing each complete data message to
    :attr:`on_message` as soon as it is parsed (see the module docstring). Messages parsed
    before the server attached its callback are kept and handed over by :meth:`attach`.

    Pass it to ``websockets.asyncio.server.serve(..., create_connection=ArenaWebSocket)``."""

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

    # ---- input (internals 1, 2, 3, 5) ------------------------------------------------------

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

    # ---- output and flow (internal 4) ------------------------------------------------------

    @property
    def is_open(self) -> bool:
        """Whether data frames may still be written (no close frame sent or received)."""
        return self.protocol.state is _OPEN

    def write(self, data: bytes) -> int:
        """Write frames built by :func:`frame_into` (call only while :attr:`is_open`);
        returns the bytes the transport still buffers (what the kernel did not take)."""
        transport = self.transport
        transport.write(data)
        return transport.get_write_buffer_size()

    def pause_reading(self) -> None:
        """Stop reading from the socket; TCP then pushes back on the peer."""
        if self.transport is not None:
            self.transport.pause_reading()

    def resume_reading(self) -> None:
        if self.transport is not None:
            self.transport.resume_reading()

    def abort(self) -> None:
        """Drop the TCP connection now, unless it is closing already."""
        if self.transport is not None and not self.transport.is_closing():
            self.transport.abort()


def frame_into(out: list[bytes], message: Message) -> None:
    """Append one unmasked, unfragmented websocket frame (RFC 6455 §5.2) carrying
    ``message`` to ``out``, as its header then its payload (a ``str`` goes as a text frame,
    ``bytes`` as a binary one)."""
    if isinstance(message, str):
        first, payload = _TEXT, message.encode()
    else:
        first, payload = _BINARY, message
    size = len(payload)
    if size < 126:
        out.append(bytes((first, size)))
    elif size < 65536:
        out.append(_HEADER_16.pack(first, 126, size))
    else:
        out.append(_HEADER_64.pack(first, 127, size))
    out.append(payload)
