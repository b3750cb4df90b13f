"""A real server takes generated junk on a few connections and keeps serving everyone: it
never answers ``internal``, every error is documented and shows no internals, and afterwards
two ordinary clients still get ``pong`` and play a match to its end."""

from __future__ import annotations

import asyncio
import itertools

from websockets.exceptions import ConnectionClosed

from protocol.errors import ERROR_CODES
from server.app import ArenaServer
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient, play_random
from tools.bench.fuzz import CLOSE_CODES, FrameGenerator, check_reply

FRAMES_PER_CONNECTION = 150
SERVER_CODES = frozenset(ERROR_CODES) - {"internal"}


async def fuzz_connection(server: ArenaServer, encoding: str, seed: int, welcomed: bool
                          ) -> list[str]:
    """Send generated frames, then a ping; return the error codes seen up to its pong (or
    up to a documented close)."""
    client = await WsClient.open(server.ws_url, encoding)
    if welcomed:
        await client.hello()
    frames = FrameGenerator(seed)
    codes: list[str] = []
    try:
        for frame in itertools.islice(frames, FRAMES_PER_CONNECTION):
            await client.send_raw(frame)
        # Then a ping, as a polite client sends it: the server may still be working through
        # the flood (reading it pause after pause) and refuse the ping; then it waits the
        # retry_after it was told and asks again.
        await asyncio.sleep(2.5)
        ref = await client.send({"type": "ping", "id": "last-0"})
        for _ in range(10_000):
            frame = await asyncio.wait_for(client.ws.recv(), 10.0)
            message = check_reply(frame, "msgpack" if encoding == "msgpack" else "json",
                                  SERVER_CODES)
            if message["type"] == "error":
                codes.append(message["code"])
                if message["code"] == "rate_limited" and message.get("ref") == ref:
                    await asyncio.sleep(message["retry_after"])
                    ref = await client.send({"type": "ping", "id": f"last-{len(codes)}"})
            if message["type"] == "pong" and message.get("ref") == ref:
                break
    except ConnectionClosed as closed:
        assert closed.rcvd is not None and closed.rcvd.code in CLOSE_CODES, closed
    await client.close()
    return codes


async def test_a_server_fed_generated_frames_keeps_serving(server: ArenaServer) -> None:
    results = await asyncio.gather(
        fuzz_connection(server, "json", 1, True), fuzz_connection(server, "msgpack", 2, True),
        fuzz_connection(server, "json", 3, False))
    codes = [code for result in results for code in result]
    assert "internal" not in codes
    assert {"malformed", "unknown_type"} <= set(codes), codes
    # Everyone else is still served: a ping, then a whole match. (Every client of this test
    # comes from 127.0.0.1, whose shared budget the fuzzers spent: first wait until it is
    # whole again, burst / rate = 2 s, as a client refused with retry_after would.)
    await asyncio.sleep(2.0)
    first = await account_client(server, "after1")
    second = await account_client(server, "after2")
    ref = await first.send({"type": "ping"})
    assert (await first.expect_reply(ref))["type"] == "pong"
    match_id = await challenge_match(first, [second], "race", {"target": 10})
    ends = await asyncio.gather(play_random(first, match_id, 1), play_random(second, match_id, 2))
    assert ends[0]["outcome"] == ends[1]["outcome"]
    await first.close()
    await second.close()
