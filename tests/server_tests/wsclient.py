"""A deliberately plain websocket test client: the `websockets` library, the protocol codec,
and a log of every message received (so tests can inspect everything a client was sent)."""

from __future__ import annotations

import asyncio
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from engine import spaces
from engine.rng import Rng
from protocol import decode, encode, validate_server_message
from protocol.messages import SUBPROTOCOL_OF_ENCODING

TIMEOUT = 10.0


class WsClient:
    def __init__(self, ws: ClientConnection, encoding: str) -> None:
        self.ws = ws
        self.encoding = encoding
        self.received: list[dict[str, Any]] = []   # every message, in order
        self._unread: list[dict[str, Any]] = []
        self._next_id = 0
        self.welcome: dict[str, Any] | None = None

    @classmethod
    async def open(cls, url: str, encoding: str = "json", **kwargs: Any) -> WsClient:
        ws = await connect(url, subprotocols=[SUBPROTOCOL_OF_ENCODING[encoding]],  # type: ignore[list-item]
                           compression=None, **kwargs)
        return cls(ws, encoding)

    async def send(self, message: dict[str, Any]) -> Any:
        """Send with a fresh ``id`` (unless one is given); returns the id."""
        if "id" not in message:
            self._next_id += 1
            message = {**message, "id": self._next_id}
        await self.ws.send(encode(message, self.encoding))  # type: ignore[arg-type]
        return message["id"]

    async def send_raw(self, frame: str | bytes) -> None:
        await self.ws.send(frame)

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        if self._unread:
            return self._unread.pop(0)
        frame = await asyncio.wait_for(self.ws.recv(), timeout)
        return self._decoded(frame)

    def _decoded(self, frame: str | bytes) -> dict[str, Any]:
        """Decode a frame; every server message must match the protocol's schema, and its
        frame type the negotiated encoding."""
        assert isinstance(frame, bytes) == (self.encoding == "msgpack"), frame[:80]
        message = decode(frame)
        validate_server_message(message)
        self.received.append(message)
        return message

    async def expect(self, type_: str, timeout: float = TIMEOUT, **fields: Any
                     ) -> dict[str, Any]:
        """The next message of ``type_`` (with the given field values); messages skipped on
        the way stay readable by later ``expect``/``recv`` calls."""
        return await self.expect_where(
            lambda m: m["type"] == type_ and all(m.get(k) == v for k, v in fields.items()),
            timeout)

    async def hello(self, **fields: Any) -> dict[str, Any]:
        ref = await self.send({"type": "hello", "protocol": 1, **fields})
        message = await self.expect_reply(ref)
        if message["type"] == "welcome":
            self.welcome = message
        return message

    async def expect_reply(self, ref: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        return await self.expect_where(lambda m: m.get("ref") == ref, timeout)

    async def expect_where(self, pred: Any, timeout: float = TIMEOUT, *,
                           consume: bool = True) -> dict[str, Any]:
        """The first message, unread ones first, for which ``pred`` holds. Others read on
        the way stay unread. ``consume=False`` leaves the match unread too."""
        for index, message in enumerate(self._unread):
            if pred(message):
                if consume:
                    del self._unread[index]
                return message
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise TimeoutError(f"no matching message within {timeout}s; unread: "
                                   f"{[m['type'] for m in self._unread][-20:]}")
            message = self._decoded(await asyncio.wait_for(self.ws.recv(), left))
            if pred(message):
                if not consume:
                    self._unread.append(message)
                return message
            self._unread.append(message)

    def discard_unread(self) -> None:
        self._unread.clear()

    async def wait_for(self, pred: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Like :meth:`expect_where`, but the message stays unread."""
        return await self.expect_where(pred, timeout, consume=False)

    async def close(self) -> None:
        await self.ws.close()


async def play_random(client: WsClient, match_id: str, seed: int, *,
                      max_messages: int = 100_000,
                      first: dict[str, Any] | None = None) -> dict[str, Any]:
    """Answer every request of ``match_id`` with a seeded random legal action (or a random
    value of its action space) until its ``match_end``; returns that message. ``first``: a
    request already read, answered first."""
    rng = Rng(seed)
    for _ in range(max_messages):
        message = first or await client.recv()
        first = None
        if message.get("match_id") != match_id:
            continue
        if message["type"] == "request":
            if "action_space" in message:
                action = spaces.sample(message["action_space"], rng)
            else:
                legal = message["legal_actions"]
                action = legal[rng.below(len(legal))]
            await client.send({"type": "action", "match_id": match_id,
                               "request_id": message["request_id"], "action": action})
        elif message["type"] == "match_end":
            return message
        elif message["type"] == "error":
            raise AssertionError(f"unexpected error while playing: {message}")
    raise AssertionError("match did not end")
