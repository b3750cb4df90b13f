"""The load generator of ``arena bench server``, run as its own process.

    python -m tools.bench.server_load WS_URL --game battleline --matches 20 --seconds 3

Opens ``matches × seats`` guest connections, has every one seek the game, answers every
request at once with a random legal action (a random plan where the request carries an
action space), seeks again after each match, and once every
match has started (a request received in each) and ``--warmup`` seconds more, counts for
``--seconds``: actions answered, and for each one the time
from sending it to receiving the ``events`` it caused. Prints one JSON object on stdout.
Plain websockets, orjson and the protocol codec only: it measures the server, not a client
library, and spends as little CPU as it can (it shares the machine with the server).

``--pace`` makes each seat wait 1/PACE s before it answers (``arena bench flood``: live
matches at a steady, modest rate; the wait is not in the round trip).

``--mode echo`` and ``--mode relay`` drive the yardsticks of :mod:`tools.bench.baselines`
instead, with the same process, clients and counting: ``--matches`` echo clients each
sending a move-sized frame and waiting for it to come back (the round trip), or
``--matches`` pairs of clients that answer every forwarded move with a move of their own
(each move sent counts, as each action does against the server).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bots.random_bot import random_answer
from protocol import encode
from protocol.codec import decode_msgpack
from protocol.messages import SUBPROTOCOL_OF_ENCODING
from server.app import tune_gc
from tools.bench.baselines import move_message


def decode(frame: str | bytes, encoding: str) -> dict[str, Any]:
    """A frame from the server (or a yardstick), decoded as cheaply as possible: the load
    generator shares the machine's two cores with the server it measures, so its own
    parsing must cost little. JSON (text, or its UTF-8 bytes) goes to orjson; msgpack to the
    protocol codec's C unpacker without its Python walk over the value (``strict=False``, as
    the protocol's client session reads the server's messages)."""
    if encoding == "json":
        message: dict[str, Any] = orjson.loads(frame)
        return message
    assert isinstance(frame, bytes)
    return decode_msgpack(frame, strict=False)


class Load:
    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self.counting = False
        self.stop = False
        self.actions = 0
        self.matches = 0
        self.errors = 0
        self.latencies: list[float] = []
        self.started: set[str] = set()      # matches in which a request was received
        self.all_started = asyncio.Event()
        self.total = 0
        self.pace = 0.0
        self.spread = False


async def client(url: str, game: str, load: Load, seed: int, ready: asyncio.Event,
                 connected: list[int], total: int) -> None:
    rng = random.Random(seed)
    # --spread: each client from its own loopback address, as players on many machines
    # (each guest address then has its own budget and connection cap).
    where: dict[str, Any] = (
        {"local_addr": (f"127.1.{seed // 250}.{seed % 250 + 1}", 0)} if load.spread else {})
    ws: ClientConnection = await connect(
        url, subprotocols=[SUBPROTOCOL_OF_ENCODING[load.encoding]],  # type: ignore[list-item]
        compression=None, max_queue=None, **where)

    async def send(message: dict[str, Any]) -> None:
        await ws.send(encode(message, load.encoding))  # type: ignore[arg-type]

    await send({"type": "hello", "protocol": 1, "name": "load"})
    decode(await ws.recv(), load.encoding)
    connected[0] += 1
    if connected[0] == total:
        ready.set()
    await ready.wait()  # seek only once everyone is here, so pairs form at once
    await send({"type": "seek", "game": game})
    sent_at: float | None = None
    try:
        while True:
            # Text frames as bytes: orjson reads UTF-8 itself, no str in between.
            frame = await ws.recv(decode=False)
            message = decode(frame, load.encoding)
            kind = message["type"]
            if kind == "events" and sent_at is not None:
                if load.counting:
                    load.latencies.append(time.perf_counter() - sent_at)
                sent_at = None
            elif kind == "request":
                if not load.all_started.is_set():
                    # Every match under way before the warm-up starts: at 500 matches the
                    # handshakes and seeks would otherwise fall into the counted window.
                    load.started.add(message["match_id"])
                    if len(load.started) >= load.total:
                        load.all_started.set()
                if load.pace:  # a steady, modest rate: think before answering
                    await asyncio.sleep(1.0 / load.pace)
                await send({"type": "action", "match_id": message["match_id"],
                            "request_id": message["request_id"],
                            "action": random_answer(message, rng)})
                sent_at = time.perf_counter()
                if load.counting:
                    load.actions += 1
            elif kind == "match_end":
                if load.counting:
                    load.matches += 1
                if load.stop:
                    break
                await send({"type": "seek", "game": game})
            elif kind == "error":
                load.errors += 1
    except ConnectionClosed:
        pass
    finally:
        await ws.close()


async def echo_client(url: str, load: Load, seed: int, ready: asyncio.Event,
                      connected: list[int], total: int) -> None:
    """Send a move-sized frame, wait for it to come back, repeat."""
    ws: ClientConnection = await connect(url, compression=None, max_queue=None)
    connected[0] += 1
    if connected[0] == total:
        ready.set()
    await ready.wait()
    frame = encode(move_message(seed), load.encoding)  # type: ignore[arg-type]
    try:
        while not load.stop:
            sent_at = time.perf_counter()
            await ws.send(frame)
            decode(await ws.recv(), load.encoding)
            if load.counting:
                load.latencies.append(time.perf_counter() - sent_at)
                load.actions += 1
    finally:
        await ws.close()


async def relay_client(url: str, load: Load, seed: int, ready: asyncio.Event,
                       connected: list[int], total: int) -> None:
    """One seat of a relayed pair: answer every move forwarded to it with a move."""
    ws: ClientConnection = await connect(f"{url}/{load.encoding}", compression=None,
                                         max_queue=None)
    count = [seed]

    async def move() -> float:
        count[0] += 2
        await ws.send(encode(move_message(count[0]), load.encoding))  # type: ignore[arg-type]
        return time.perf_counter()

    paired = decode(await ws.recv(), load.encoding)
    connected[0] += 1
    if connected[0] == total:
        ready.set()
    sent_at: float | None = None
    if paired.get("start"):  # the pair's first mover
        await ready.wait()
        sent_at = await move()
    try:
        async for frame in ws:
            message = decode(frame, load.encoding)
            if message["type"] == "paired":
                if message.get("start"):
                    await ready.wait()
                    sent_at = await move()
                continue
            if sent_at is not None and load.counting:
                load.latencies.append(time.perf_counter() - sent_at)
            if load.stop:
                break
            sent_at = await move()
            if load.counting:
                load.actions += 1
    finally:
        await ws.close()


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    load = Load(args.encoding)
    load.pace = args.pace
    load.spread = args.spread
    total = args.matches * (args.seats if args.mode == "arena" else
                            2 if args.mode == "relay" else 1)
    ready = asyncio.Event()
    connected = [0]
    if args.mode == "echo":
        tasks = [asyncio.create_task(echo_client(args.url, load, n, ready, connected, total))
                 for n in range(total)]
    elif args.mode == "relay":
        tasks = [asyncio.create_task(relay_client(args.url, load, n, ready, connected, total))
                 for n in range(total)]
    else:
        tasks = [asyncio.create_task(client(args.url, args.game, load, n, ready, connected,
                                            total))
                 for n in range(total)]
    await asyncio.wait_for(ready.wait(), 60)
    if args.mode == "arena":
        load.total = args.matches
        try:
            await asyncio.wait_for(load.all_started.wait(), 60)
        except TimeoutError:
            pass  # counted anyway; the rates then include some set-up
    # Every connection is set up: keep the collector's full passes away from the thousands
    # of long-lived connection objects, as the server does (the load generator's own pauses
    # would otherwise show up as server latency).
    tune_gc()
    await asyncio.sleep(args.warmup)
    # Markers for the bench process, which reads its own CPU time at each: its CPU per
    # action over exactly the counted window (set-up and warm-up excluded).
    print("counting", flush=True)
    load.counting = True
    start = time.perf_counter()
    cpu = time.process_time()
    await asyncio.sleep(args.seconds)
    load.counting = False
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    print("counted", flush=True)
    load.stop = True
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    lat = sorted(load.latencies)

    def pct(p: float) -> float:
        return lat[min(len(lat) - 1, int(p * len(lat)))] * 1000 if lat else float("nan")

    return {"actions": load.actions, "matches": load.matches, "errors": load.errors,
            "elapsed": elapsed, "latency_ms": {"p50": pct(0.50), "p90": pct(0.90),
                                               "p99": pct(0.99), "max": pct(1.0)},
            "samples": len(lat),
            # The load generator's own CPU per unit over the counted window: on a 2-core
            # machine the clients and the server share the cores.
            "client_cpu_us": cpu * 1e6 / max(1, load.actions)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.bench.server_load")
    p.add_argument("url")
    p.add_argument("--game", default="battleline")
    p.add_argument("--seats", type=int, default=2)
    p.add_argument("--matches", type=int, default=20)
    p.add_argument("--encoding", choices=("json", "msgpack"), default="json")
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--warmup", type=float, default=0.5)
    p.add_argument("--mode", choices=("arena", "echo", "relay"), default="arena")
    p.add_argument("--pace", type=float, default=0.0,
                   help="arena: each seat answers a request after 1/PACE s, so each match "
                        "makes about PACE actions a second (default 0: at once)")
    p.add_argument("--spread", action="store_true",
                   help="arena: each client connects from its own loopback address")
    args = p.parse_args(argv)
    print(json.dumps(asyncio.run(main_async(args))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
