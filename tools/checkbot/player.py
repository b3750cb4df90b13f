"""A scripted opponent for ``arena check-bot``: an ordinary client (JSON) that answers every
request with a random legal action (or a random value of its action space) and may resign on
cue."""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from engine import spaces
from protocol import decode, encode
from protocol.messages import SUBPROTOCOL_OF_ENCODING


class ScriptedPlayer:
    """An ordinary client that answers every request with a random legal action, or a random
    value of the request's action space. It may resign a match at its ``resign_at``-th
    request there; in a game of ``simultaneous`` turns it waits until another seat has
    committed to that turn, so that the bot has no request open when the match ends."""

    def __init__(self, ws: ClientConnection, name: str, rng: random.Random,
                 simultaneous: bool = False) -> None:
        self.ws = ws
        self.name = name
        self.rng = rng
        self.simultaneous = simultaneous
        self.ends: dict[str, dict[str, Any]] = {}     # match_id -> match_end
        self.starts: dict[str, dict[str, Any]] = {}   # match_id -> match_start
        self.replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.resign_at: dict[str, int] = {}           # match_id -> request number
        self._answered: dict[str, int] = {}
        self._resign_on_commit: set[str] = set()      # match_ids
        self._next_id = 0
        self._reader: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, url: str, token: str, name: str, rng: random.Random,
                   simultaneous: bool = False) -> ScriptedPlayer:
        ws = await connect(url, compression=None, max_size=None,
                           subprotocols=[Subprotocol(SUBPROTOCOL_OF_ENCODING["json"])])
        player = cls(ws, name, rng, simultaneous)
        player._reader = asyncio.ensure_future(player._read())
        welcome = await player.request({"type": "hello", "protocol": 1, "token": token,
                                        "client": "arena-check-bot"})
        if welcome["type"] != "welcome":
            raise RuntimeError(f"scripted player {name} refused: {welcome}")
        return player

    async def request(self, message: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        self._next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[self._next_id] = future
        await self.ws.send(encode({**message, "id": self._next_id}, "json"))
        return await asyncio.wait_for(future, timeout)

    async def resign(self, match_id: str) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(encode({"type": "resign", "match_id": match_id}, "json"))

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        await self.ws.close()

    async def _read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in self.ws:
                message = decode(frame)
                ref = message.get("ref")
                if ref in self.replies:
                    future = self.replies.pop(ref)
                    if not future.done():
                        future.set_result(message)
                kind = message.get("type")
                if kind == "match_start":
                    self.starts[message["match_id"]] = message
                elif kind == "match_end":
                    self.ends[message["match_id"]] = message
                elif kind == "request":
                    await self._answer(message)
                elif kind == "events" and message.get("match_id") in self._resign_on_commit:
                    await self._resign_if_committed(message)

    async def _answer(self, request: dict[str, Any]) -> None:
        match_id = request["match_id"]
        count = self._answered[match_id] = self._answered.get(match_id, 0) + 1
        if self.resign_at.get(match_id) == count:
            if self.simultaneous:
                self._resign_on_commit.add(match_id)
            else:
                await self.resign(match_id)
            return
        if "action_space" in request:
            action = spaces.sample(request["action_space"], spaces.from_random(self.rng))
        else:
            legal = request["legal_actions"]
            action = legal[self.rng.randrange(len(legal))]
        await self.ws.send(encode({"type": "action", "match_id": match_id,
                                   "request_id": request["request_id"], "action": action},
                                  "json"))

    async def _resign_if_committed(self, events: dict[str, Any]) -> None:
        match_id = events["match_id"]
        mine = self.starts.get(match_id, {}).get("your_seat")
        if any(e.get("type") == "committed" and e.get("seat") != mine
               for e in events.get("events", [])):
            self._resign_on_commit.discard(match_id)
            await self.resign(match_id)
