"""The websockets adapter (server/wsadapter.py) on its own: a bare websockets server whose
connections are :class:`ArenaWebSocket`, real websockets clients, loopback sockets.

Each test exercises one of the websockets internals the adapter relies on (its module
docstring lists them). ``test_wsadapter_versions.py`` runs this module again against every
websockets version ``pyproject.toml`` allows, in a subprocess with that version first on
``PYTHONPATH`` (and ``ARENA_EXPECT_WEBSOCKETS`` naming it).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import websockets
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed, ConnectionClosedOK
from websockets.frames import Frame, Opcode

from server.wsadapter import ArenaWebSocket, Message, frame_into

TIMEOUT = 5.0

Handler = Callable[[ArenaWebSocket], Awaitable[None]]


@contextlib.asynccontextmanager
async def adapter_server(handler: Handler, **options: Any) -> AsyncIterator[str]:
    """A websockets server on 127.0.0.1:0 whose connections are ArenaWebSockets; its URL."""

    async def serve_one(ws: ServerConnection) -> None:
        assert isinstance(ws, ArenaWebSocket)
        await handler(ws)

    server = await serve(serve_one, "127.0.0.1", 0, create_connection=ArenaWebSocket,
                         compression=None, **options)
    port = next(iter(server.sockets)).getsockname()[1]
    try:
        yield f"ws://127.0.0.1:{port}"
    finally:
        server.close()
        await server.wait_closed()


def write_all(ws: ArenaWebSocket, *messages: Message) -> int:
    """Frame ``messages`` with the adapter and write them in one write; the bytes the
    transport still buffers."""
    out: list[bytes] = []
    for message in messages:
        frame_into(out, message)
    return ws.write(b"".join(out))


def send_back(ws: ArenaWebSocket, message: Message) -> None:
    write_all(ws, message)


async def echo(ws: ArenaWebSocket) -> None:
    ws.attach(lambda message: send_back(ws, message))
    await ws.wait_closed()


async def client(url: str, **options: Any) -> ClientConnection:
    return await connect(url, compression=None, open_timeout=TIMEOUT, **options)


async def recv(ws: ClientConnection) -> Message:
    return await asyncio.wait_for(ws.recv(), TIMEOUT)


async def closed_code(ws: ClientConnection) -> int | None:
    """Read until the connection closes; the close code the client received."""
    with contextlib.suppress(ConnectionClosed):
        while True:
            await recv(ws)
    await asyncio.wait_for(ws.wait_closed(), TIMEOUT)
    code = ws.protocol.close_code  # (websockets 14.0 has no ClientConnection.close_code)
    return None if code is None else int(code)


def test_runs_the_expected_websockets() -> None:
    """Under test_wsadapter_versions.py, the version it installed is the one imported."""
    expected = os.environ.get("ARENA_EXPECT_WEBSOCKETS")
    assert expected is None or websockets.__version__ == expected, websockets.__version__


# ---- input ------------------------------------------------------------------------------------


async def test_whole_and_fragmented_messages_arrive_whole() -> None:
    async with adapter_server(echo) as url:
        ws = await client(url)
        await ws.send("plain")
        await ws.send(["frag", "mented ", "tëxt"])  # text, then continuations
        await ws.send(b"\x00bin")
        await ws.send([b"\x01\x02", b"", b"\x03"])  # binary, then continuations
        assert [await recv(ws) for _ in range(4)] == [
            "plain", "fragmented tëxt", b"\x00bin", b"\x01\x02\x03"]
        await ws.close()


async def test_a_multibyte_character_split_across_fragments_is_reassembled() -> None:
    encoded = "é€".encode()
    async with adapter_server(echo) as url:
        ws = await client(url)
        ws.protocol.send_frame(Frame(Opcode.TEXT, encoded[:1], fin=False))
        ws.protocol.send_frame(Frame(Opcode.CONT, encoded[1:4], fin=False))
        ws.protocol.send_frame(Frame(Opcode.CONT, encoded[4:]))
        ws.send_data()
        assert await recv(ws) == "é€"
        await ws.close()


async def test_messages_before_attach_are_kept_and_handed_over_in_order() -> None:
    seen: list[Message] = []
    early_count = asyncio.get_running_loop().create_future()

    async def late(ws: ArenaWebSocket) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while len(ws._early) < 3 and loop.time() < deadline:  # they arrive before attach
            await asyncio.sleep(0.005)
        early_count.set_result(len(ws._early))

        def on_message(message: Message) -> None:
            seen.append(message)
            send_back(ws, message)

        ws.attach(on_message)
        await ws.wait_closed()

    async with adapter_server(late) as url:
        ws = await client(url)
        await ws.send("one")
        await ws.send(b"two")
        await ws.send(["thr", "ee"])
        assert await asyncio.wait_for(early_count, TIMEOUT) == 3
        await ws.send("four")  # after attach: straight to the callback
        assert [await recv(ws) for _ in range(4)] == ["one", b"two", "three", "four"]
        assert seen == ["one", b"two", "three", "four"]
        await ws.close()


async def test_invalid_utf8_fails_the_connection_with_1007() -> None:
    got: list[Message] = []

    async def collect(ws: ArenaWebSocket) -> None:
        ws.attach(got.append)
        await ws.wait_closed()

    async with adapter_server(collect) as url:
        for frames in ([Frame(Opcode.TEXT, b"ok \xff\xfe")],
                       [Frame(Opcode.TEXT, b"ok \xc3", fin=False), Frame(Opcode.CONT, b"(")]):
            ws = await client(url)
            for frame in frames:
                ws.protocol.send_frame(frame)
            ws.send_data()
            assert await closed_code(ws) == 1007
        assert got == []


async def test_a_message_over_max_size_closes_with_1009() -> None:
    got: list[Message] = []

    async def collect(ws: ArenaWebSocket) -> None:
        ws.attach(got.append)
        await ws.wait_closed()

    async with adapter_server(collect, max_size=1024) as url:
        ws = await client(url)
        await ws.send("x" * 1024)  # at the limit: fine
        await ws.send(b"y" * 1025)
        assert await closed_code(ws) == 1009
        # The limit holds for the whole of a fragmented message, not per frame.
        ws = await client(url)
        await ws.send(["z" * 600, "z" * 600])
        assert await closed_code(ws) == 1009
    assert got == ["x" * 1024]


async def test_pings_both_ways_are_answered() -> None:
    """Control frames still reach websockets: the client's ping gets a pong, and the
    server's ping is acknowledged when the client's pong comes back."""
    acknowledged = asyncio.get_running_loop().create_future()

    async def pinger(ws: ArenaWebSocket) -> None:
        ws.attach(lambda message: None)
        pong = await ws.ping()
        acknowledged.set_result(await asyncio.wait_for(pong, TIMEOUT))
        await ws.wait_closed()

    async with adapter_server(pinger) as url:
        ws = await client(url)
        pong = await ws.ping()
        await asyncio.wait_for(pong, TIMEOUT)
        latency = await asyncio.wait_for(acknowledged, TIMEOUT)
        assert latency >= 0
        await ws.close()


# ---- output -----------------------------------------------------------------------------------


def test_frame_headers_follow_rfc_6455() -> None:
    def framed(message: Message) -> list[bytes]:
        out: list[bytes] = []
        frame_into(out, message)
        return out

    assert framed("") == [b"\x81\x00", b""]
    assert framed("é") == [b"\x81\x02", "é".encode()]
    assert framed(b"\x00" * 125)[0] == b"\x82\x7d"
    assert framed(b"\x00" * 126)[0] == b"\x82\x7e\x00\x7e"
    assert framed("a" * 65535)[0] == b"\x81\x7e\xff\xff"
    assert framed(b"\x00" * 65536)[0] == b"\x82\x7f" + (65536).to_bytes(8, "big")


async def test_frames_of_every_header_size_reach_a_client() -> None:
    sizes = [0, 1, 125, 126, 127, 65535, 65536, 70_000, 1 << 20]
    messages: list[Message] = []
    for size in sizes:
        messages += ["t" * size, bytes(range(256)) * (size // 256) + b"\x07" * (size % 256)]

    async def burst(ws: ArenaWebSocket) -> None:
        ws.attach(lambda message: None)
        assert ws.is_open
        buffered = write_all(ws, *messages)  # one write of every frame
        assert buffered >= 0
        await ws.wait_closed()

    async with adapter_server(burst) as url:
        ws = await client(url, max_size=None)
        assert [await recv(ws) for _ in messages] == messages
        await ws.close()


async def test_close_handshakes_from_either_side() -> None:
    after: list[bool] = []

    async def server_closes(ws: ArenaWebSocket) -> None:
        read = asyncio.get_running_loop().create_future()
        ws.attach(read.set_result)
        write_all(ws, "last words", b"\x00")
        await read  # (websockets 14.0's client drops what it holds unread at a close)
        await ws.close(1000, "bye")
        after.append(ws.is_open)

    async with adapter_server(server_closes) as url:
        ws = await client(url)
        assert [await recv(ws), await recv(ws)] == ["last words", b"\x00"]
        await ws.send("read them")
        with pytest.raises(ConnectionClosedOK):
            await recv(ws)
        assert (ws.protocol.close_code, ws.protocol.close_reason) == (1000, "bye")
    assert after == [False]

    codes: list[int | None] = []

    async def client_closes(ws: ArenaWebSocket) -> None:
        ws.attach(lambda message: send_back(ws, message))
        await ws.wait_closed()
        codes.append(ws.protocol.close_code)
        after.append(ws.is_open)

    async with adapter_server(client_closes) as url:
        ws = await client(url)
        await ws.send("hi")
        assert await recv(ws) == "hi"
        await ws.close(1001, "going away")
        await asyncio.wait_for(ws.wait_closed(), TIMEOUT)
        for _ in range(100):
            if codes:
                break
            await asyncio.sleep(0.01)
    assert codes == [1001] and after == [False, False]


# ---- flow -------------------------------------------------------------------------------------


async def test_paused_reading_holds_messages_until_resumed_and_abort_drops() -> None:
    got: list[Message] = []
    paused = asyncio.get_running_loop().create_future()
    resume = asyncio.get_running_loop().create_future()

    async def flow(ws: ArenaWebSocket) -> None:
        ws.attach(got.append)
        ws.pause_reading()
        paused.set_result(None)
        await resume
        ws.resume_reading()
        for _ in range(500):
            if got:
                break
            await asyncio.sleep(0.01)
        ws.abort()
        await ws.wait_closed()

    async with adapter_server(flow) as url:
        ws = await client(url)
        await asyncio.wait_for(paused, TIMEOUT)
        await ws.send("held")
        await asyncio.sleep(0.2)
        assert got == []  # not read while paused
        resume.set_result(None)
        assert await closed_code(ws) == 1006  # aborted: no close frame
        assert got == ["held"]
