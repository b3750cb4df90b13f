"""The yardsticks of ``arena bench server``: a bare echo, a bare relay, and a relay shaped
like the arena.

All are plain ``websockets`` servers on 127.0.0.1 (port 0) with no game logic, run in the
bench process exactly like the arena server, and driven by the same load generator process
(:mod:`tools.bench.server_load`, modes ``echo``, ``relay`` and, for the shaped relay, the
arena's own mode):

* **echo**: every frame a client sends comes straight back. Its round trip is the floor a
  server round trip is compared with (the issue's goal: at most twice the echo).
* **relay**: connections are paired in arrival order (the first of a pair is seat 0); each
  frame is decoded with the protocol codec, wrapped as a ``move`` for the other seat and
  encoded again (``/json`` or ``/msgpack`` in the URL path picks the codec). That is a match
  server minus the rules, rendering and bookkeeping: its moves per second are the ceiling a
  server is compared with (the goal: at least half the relay with 500 matches).
* **shaped relay**: the arena's own messages without the arena. It speaks just enough of the
  protocol for the load generator's bots (``hello``, ``seek``, ``action``) and answers each
  action with the messages the next step of a recorded random match sent, the same types,
  sizes and recipients (events for every seat, the next request with its view and legal
  actions, ``match_end``), each re-addressed (match id, request id) and encoded anew. No
  rules, no checks, no store. Its rate is what the protocol's traffic alone allows on this
  machine, server and clients together: the ceiling of any server that speaks it, however
  fast its game.

:func:`move_message` is the move both modes carry: the same shape and size as an ``action``
message of a Battle Line match.
"""

from __future__ import annotations

import contextlib
import itertools
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from engine.core import Game
from protocol import decode, encode
from protocol.messages import PROTOCOL_VERSION, SUBPROTOCOLS, Encoding, encoding_of
from tools.bench.game_path import steps


def move_message(index: int) -> dict[str, Any]:
    """A move-sized client message (like an ``action`` of a Battle Line match)."""
    return {"type": "action", "match_id": "m-3f9a1c0d7e2b",
            "request_id": f"{index:024x}",
            "action": {"type": "play", "card": f"{index % 10}r", "flag": index % 9 + 1}}


async def start_echo() -> tuple[Server, str]:
    """A bare echo server; returns it and its ``ws://`` URL."""

    async def handler(ws: ServerConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in ws:
                await ws.send(frame)

    server = await serve(handler, "127.0.0.1", 0, compression=None, max_queue=None)
    port = next(iter(server.sockets)).getsockname()[1]
    return server, f"ws://127.0.0.1:{port}"


class _Relay:
    """Pairs connections in arrival order and forwards each decoded move to the other seat."""

    def __init__(self) -> None:
        self.waiting: ServerConnection | None = None
        self.peer: dict[ServerConnection, ServerConnection] = {}

    async def handler(self, ws: ServerConnection) -> None:
        encoding: Encoding = "msgpack" if ws.request is not None and \
            ws.request.path.endswith("msgpack") else "json"
        if self.waiting is None or self.waiting.state.name != "OPEN":
            self.waiting = ws
            seat = 0
        else:
            other, self.waiting = self.waiting, None
            self.peer[ws], self.peer[other] = other, ws
            seat = 1
        try:
            await ws.send(encode({"type": "paired", "seat": seat}, encoding))
            if seat == 1:
                await self.peer[ws].send(encode({"type": "paired", "seat": 0, "start": True},
                                                encoding))
            async for frame in ws:
                message = decode(frame)
                peer = self.peer.get(ws)
                if peer is None:
                    continue
                forward = {"type": "move", "match_id": message.get("match_id"),
                           "seat": 1 - seat, "action": message.get("action")}
                with contextlib.suppress(ConnectionClosed):
                    await peer.send(encode(forward, encoding))
        except ConnectionClosed:
            pass
        finally:
            self.peer.pop(ws, None)
            if self.waiting is ws:
                self.waiting = None


async def start_relay() -> tuple[Server, str]:
    """A bare relay server; returns it and its ``ws://`` URL (append ``/json`` or
    ``/msgpack``)."""
    relay = _Relay()
    server = await serve(relay.handler, "127.0.0.1", 0, compression=None, max_queue=None)
    port = next(iter(server.sockets)).getsockname()[1]
    return server, f"ws://127.0.0.1:{port}"


Step = list[tuple[int, dict[str, Any]]]
"""The messages one step of a match sent: (recipient seat, message)."""

RECORDED_MATCHES = 8
"""How many random matches the shaped relay replays, in turn, by default."""


def record(game: Game, seed: int) -> list[Step]:
    """One random match of ``game`` through the real runner: every step's messages to the
    seats (the spectators' copies left out, as nobody watches the bench's matches)."""
    return [[(seat, message) for seat, message in out if seat is not None]
            for out in steps(game, seed)]


@dataclass
class _Replay:
    """A live match of the shaped relay: its seats' connections and where in its recording
    it is."""
    match_id: str
    seats: list[ServerConnection]
    encodings: list[Encoding]
    recording: list[Step]
    step: int = 0


@dataclass
class _Shaped:
    game: Game
    recordings: list[list[Step]]
    waiting: list[tuple[ServerConnection, Encoding]] = field(default_factory=list)
    matches: dict[ServerConnection, _Replay] = field(default_factory=dict)
    match_numbers: itertools.count[int] = field(default_factory=itertools.count)
    request_numbers: itertools.count[int] = field(default_factory=itertools.count)

    async def handler(self, ws: ServerConnection) -> None:
        encoding = encoding_of(ws.subprotocol)
        try:
            async for frame in ws:
                message = decode(frame)
                kind = message.get("type")
                if kind == "action":
                    replay = self.matches.get(ws)
                    if replay is not None:
                        replay.step += 1
                        await self.emit(replay)
                elif kind == "seek":
                    await self.seek(ws, encoding)
                elif kind == "hello":
                    await ws.send(encode({"type": "welcome", "protocol": PROTOCOL_VERSION,
                                          "encoding": encoding}, encoding))
        except ConnectionClosed:
            pass
        finally:
            self.waiting = [(w, e) for w, e in self.waiting if w is not ws]
            self.matches.pop(ws, None)

    async def seek(self, ws: ServerConnection, encoding: Encoding) -> None:
        self.waiting.append((ws, encoding))
        if len(self.waiting) < self.game.info.min_seats:
            return
        number = next(self.match_numbers)
        replay = _Replay(f"shaped-{number}", [w for w, _ in self.waiting],
                         [e for _, e in self.waiting],
                         self.recordings[number % len(self.recordings)])
        self.waiting = []
        for seat in replay.seats:
            self.matches[seat] = replay
        await self.emit(replay)

    async def emit(self, replay: _Replay) -> None:
        """The recorded step's messages, re-addressed and encoded, to their seats."""
        if replay.step >= len(replay.recording):
            return
        for seat, recorded in replay.recording[replay.step]:
            message = {**recorded, "match_id": replay.match_id}
            if recorded["type"] == "request":
                message["request_id"] = f"{next(self.request_numbers):024x}"
            ws = replay.seats[seat]
            with contextlib.suppress(ConnectionClosed):
                await ws.send(encode(message, replay.encodings[seat]))
        if replay.step == len(replay.recording) - 1:  # the match is over
            for ws in replay.seats:
                if self.matches.get(ws) is replay:
                    del self.matches[ws]


async def start_shaped(game: Game, recorded: int = RECORDED_MATCHES) -> tuple[Server, str]:
    """A relay shaped like the arena for ``game``, replaying ``recorded`` random matches
    (seeds 1, 2, …) in turn; returns it and its ``ws://`` URL."""
    shaped = _Shaped(game, [record(game, seed) for seed in range(1, recorded + 1)])
    server = await serve(shaped.handler, "127.0.0.1", 0, compression=None, max_queue=None,
                         subprotocols=list(SUBPROTOCOLS))  # type: ignore[arg-type]
    port = next(iter(server.sockets)).getsockname()[1]
    return server, f"ws://127.0.0.1:{port}"
