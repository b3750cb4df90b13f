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

``--lean``: the clients ask for lean delivery (``hello.lean``): the server sends them no
``events`` frames, the events ride in the next request, one frame per decision. The round
trip is then from an action to the next ``request`` (or ``match_end``) of its match, whoever
it is for (on a simultaneous turn, from the action that completed it).

``--pace R`` (below) gives live matches a steady, modest rate (``arena bench flood`` and the
scale runs; the wait is not in the round trip); ``--spread`` connects each client from its
own loopback address (127.1.x.y), as players on many machines (``arena bench flood``: each
guest address has its own budget and connection cap).

``--mode echo`` and ``--mode relay`` drive the yardsticks of :mod:`tools.bench.baselines`
instead, with the same process, clients and counting: ``--matches`` echo clients each
sending a move-sized frame and waiting for it to come back (the round trip), or
``--matches`` pairs of clients that answer every forwarded move with a move of their own
(each move sent counts, as each action does against the server).

The scale runs of the bench (:mod:`tools.bench.server_scale`) use it too:

* ``--pace R``: each match makes about ``R`` actions per second. A client that receives a
  request waits ``1/R`` s (the first time, a random part of it, so that the matches' actions
  are spread over the second) and then answers. ``--samples`` adds every round trip to the
  output, so that the bench can merge the samples of several load-generator processes.
* ``--mode idle``: ``--matches`` connections that say ``hello`` (``--bare``: send one
  move-sized frame to an echo and read it back) and then stay idle. The process prints
  ``idle N`` once they are open and holds them until its stdin closes.
* ``--mode slow``: one client that spectates the server's live matches and never reads
  again, while it sends a ``ping`` every 0.2 s: it reports how long the server took to drop it.
* ``--mode disconnect``: ``--matches`` matches in which one random seat's connection is cut
  mid-match (the transport aborted, no close handshake); a share ``--never-back`` of them
  never come back, the others resume their session within ``--grace`` s. Every match's end
  is reported: a normal finish, a forfeit, or stuck (no end within the grace and
  ``--seconds`` more).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
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
from tools.bench.server_host import raise_fd_limit
from tools.bench.stalls import Stalls


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


OPENING = 64
"""Connections a load-generator process opens at a time."""


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
        self.pace = 0.0                     # actions per second per match; 0: at once
        self.spread = False                 # each client from its own loopback address
        self.lean = False                   # hello.lean: events ride in the requests
        self.sent_at: dict[str, float] = {}  # lean: match id -> its last action's send time
        # Handshakes at a time: the server's listen backlog (100) must not overflow when
        # thousands of clients start at once (a dropped SYN is retried only after a second).
        self.opening = asyncio.Semaphore(OPENING)


async def open_arena(url: str, encoding: str, name: str = "load", resume: str | None = None,
                     sock: socket.socket | None = None, max_queue: int | None = None,
                     local_addr: tuple[str, int] | None = None, lean: bool = False
                     ) -> tuple[ClientConnection, str]:
    """A connection to the arena that said ``hello`` (``resume``: to that session) and read
    its ``welcome``, and the session's resume token; raises if the server refused.
    ``local_addr``: connect from that loopback address; ``lean``: ask for lean delivery."""
    extra: dict[str, Any] = {} if sock is None else {"sock": sock}
    if local_addr is not None:
        extra["local_addr"] = local_addr
    ws: ClientConnection = await connect(
        url, subprotocols=[SUBPROTOCOL_OF_ENCODING[encoding]],  # type: ignore[list-item]
        compression=None, max_queue=max_queue, **extra)
    hello: dict[str, Any] = {"type": "hello", "protocol": 1, "name": name}
    if resume is not None:
        hello["resume"] = resume
    if lean:
        hello["lean"] = True
    await ws.send(encode(hello, encoding))  # type: ignore[arg-type]
    welcome = decode(await ws.recv(decode=False), encoding)
    if welcome["type"] != "welcome":
        await ws.close()
        raise RuntimeError(f"hello refused: {welcome}")
    return ws, str(welcome.get("session", ""))  # (the shaped relay's welcome has none)


async def client(url: str, game: str, load: Load, seed: int, ready: asyncio.Event,
                 connected: list[int], total: int) -> None:
    rng = random.Random(seed)
    # --spread: each client from its own loopback address, as players on many machines
    # (each guest address then has its own budget and connection cap).
    where = (f"127.1.{seed // 250}.{seed % 250 + 1}", 0) if load.spread else None
    async with load.opening:
        ws, _ = await open_arena(url, load.encoding, local_addr=where, lean=load.lean)

    async def send(message: dict[str, Any]) -> None:
        await ws.send(encode(message, load.encoding))  # type: ignore[arg-type]

    connected[0] += 1
    if connected[0] == total:
        ready.set()
    await ready.wait()  # seek only once everyone is here, so pairs form at once
    await send({"type": "seek", "game": game})
    sent_at: float | None = None
    answered = False
    lean, match_sent = load.lean, load.sent_at
    try:
        while True:
            # Text frames as bytes: orjson reads UTF-8 itself, no str in between.
            frame = await ws.recv(decode=False)
            message = decode(frame, load.encoding)
            kind = message["type"]
            if lean and (kind == "request" or kind == "match_end"):
                # Lean: the round trip ends at what the match's last action led to.
                last = match_sent.pop(message["match_id"], None)
                if last is not None and load.counting:
                    load.latencies.append(time.perf_counter() - last)
            if kind == "events" and sent_at is not None:
                if load.counting:
                    load.latencies.append(time.perf_counter() - sent_at)
                sent_at = None
            elif kind == "request":
                if load.pace > 0:
                    # About one action per 1/pace s in each match; the first wait is a random
                    # part of it, so that the matches' actions spread over time.
                    await asyncio.sleep((1.0 if answered else rng.random()) / load.pace)
                    answered = True
                if not load.all_started.is_set():
                    # Every match under way before the warm-up starts: at 500 matches the
                    # handshakes and seeks would otherwise fall into the counted window.
                    load.started.add(message["match_id"])
                    if len(load.started) >= load.total:
                        load.all_started.set()
                await send({"type": "action", "match_id": message["match_id"],
                            "request_id": message["request_id"],
                            "action": random_answer(message, rng)})
                sent_at = time.perf_counter()
                if lean:
                    match_sent[message["match_id"]] = sent_at
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


async def idle_client(url: str, load: Load, bare: bool, seed: int) -> ClientConnection | None:
    """A connection that said hello (to an echo: one move-sized frame, read back) and will
    say nothing more; None if it could not be opened."""
    try:
        async with load.opening:
            if not bare:
                return (await open_arena(url, load.encoding))[0]
            ws: ClientConnection = await connect(url, compression=None, max_queue=None)
            await ws.send(encode(move_message(seed), load.encoding))  # type: ignore[arg-type]
            await ws.recv()
            return ws
    except (OSError, ConnectionClosed, RuntimeError, TimeoutError):
        load.errors += 1
        return None


async def idle(args: argparse.Namespace, load: Load) -> dict[str, Any]:
    """Open ``--matches`` idle connections, say so on stdout (``idle N``), hold them until
    stdin closes."""
    raise_fd_limit(args.matches)
    opened = await asyncio.gather(*(idle_client(args.url, load, args.bare, n)
                                    for n in range(args.matches)))
    held = [ws for ws in opened if ws is not None]
    print(f"idle {len(held)}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await asyncio.gather(*(ws.close() for ws in held), return_exceptions=True)
    return {"connections": len(held), "errors": load.errors}


async def slow_reader(args: argparse.Namespace, load: Load) -> dict[str, Any]:
    """Spectate up to ``--matches`` live matches, then never read again while asking for the
    match list ten times a second (each answer is tens of KB, well within the rate limit):
    the server must drop it. Reports after how long the server did (the send failed), or
    None if it did not within ``--seconds``."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # A small receive window: the server's side fills after kilobytes, not megabytes.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    host, port = args.url.split("//")[1].split("/")[0].split(":")
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (host, int(port)))
    ws, _ = await open_arena(args.url, load.encoding, "slow", sock=sock, max_queue=1)
    listing_request = encode({"type": "list_matches"}, load.encoding)  # type: ignore[arg-type]
    await ws.send(listing_request)
    while (listing := decode(await ws.recv(decode=False), load.encoding))["type"] \
            != "matches":
        pass
    watched = [m["match_id"] for m in listing["matches"] if m["status"] == "live"
               ][:args.matches]
    for match_id in watched:
        await ws.send(encode({"type": "spectate", "match_id": match_id},
                             load.encoding))  # type: ignore[arg-type]
    # From here on nothing is read: websockets stops reading the socket once one message
    # waits (max_queue=1), and the kernel's window closes.
    start = time.perf_counter()
    dropped: float | None = None
    asked = 0
    try:
        while time.perf_counter() - start < args.seconds:
            await asyncio.sleep(0.1)
            await ws.send(listing_request)
            asked += 1
    except (ConnectionClosed, OSError):
        dropped = time.perf_counter() - start
    ws.transport.abort()
    return {"watched": len(watched), "dropped_after_s": dropped, "asked": asked}


class Disconnects:
    """The plan and the record of ``--mode disconnect``: which seat of each match is cut,
    after how many of its requests, whether it comes back; how each match ended."""

    def __init__(self, seed: int, never_back: float, grace: float) -> None:
        self.rng = random.Random(seed)
        self.never_back = never_back
        self.grace = grace
        self.victim: dict[str, int] = {}        # match id -> the client id to cut
        self.cut: dict[str, bool] = {}          # match id -> comes back
        self.ends: dict[str, str] = {}          # match id -> outcome reason
        self.resumed: set[str] = set()          # matches whose cut seat resumed
        self.refused = 0                        # resumes the server refused

    def is_victim(self, match_id: str, client_id: int) -> bool:
        """Whether this client's seat is the one cut. The first of the match's clients to
        ask tosses a coin for itself or the other seat (-1: whoever asks next)."""
        if match_id not in self.victim:
            self.victim[match_id] = client_id if self.rng.random() < 0.5 else -1
        elif self.victim[match_id] == -1:
            self.victim[match_id] = client_id
        return self.victim[match_id] == client_id


async def disconnect_client(url: str, load: Load, plan: Disconnects, client_id: int,
                            ready: asyncio.Event, connected: list[int], total: int) -> None:
    """Play one match at once (no pacing); if this is the match's cut seat, abort the
    connection before its k-th answer (k random, 2 to 12), and resume after a random part
    of the grace unless it never comes back."""
    rng = random.Random(client_id)
    async with load.opening:
        ws, session = await open_arena(url, load.encoding)
    connected[0] += 1
    if connected[0] == total:
        ready.set()
    await ready.wait()
    await ws.send(encode({"type": "seek", "game": "battleline"},
                         load.encoding))  # type: ignore[arg-type]
    cut_after = rng.randint(2, 12)
    requests = 0
    match_id: str | None = None
    victim = False
    while True:
        try:
            message = decode(await ws.recv(decode=False), load.encoding)
        except ConnectionClosed:
            return
        kind = message["type"]
        if kind == "match_start" and match_id is None:
            match_id = message["match_id"]
            victim = plan.is_victim(match_id, client_id)
        elif kind == "request":
            requests += 1
            if match_id is not None and victim and match_id not in plan.cut \
                    and requests >= cut_after:
                back = rng.random() >= plan.never_back
                plan.cut[match_id] = back
                ws.transport.abort()
                if not back:
                    return
                await asyncio.sleep(rng.uniform(0.1, 0.6) * plan.grace)
                try:
                    ws, _ = await open_arena(url, load.encoding, resume=session)
                except RuntimeError:
                    plan.refused += 1
                    return
                plan.resumed.add(match_id)
                continue  # the server sends match_start and the request again
            await ws.send(encode({"type": "action", "match_id": message["match_id"],
                                  "request_id": message["request_id"],
                                  "action": random_answer(message, rng)},
                                 load.encoding))  # type: ignore[arg-type]
        elif kind == "match_end":
            plan.ends[message["match_id"]] = message["outcome"]["reason"]
            await ws.close()
            return
        elif kind == "error":
            load.errors += 1


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


async def disconnects(args: argparse.Namespace, load: Load) -> dict[str, Any]:
    """``--matches`` matches, each with one seat cut mid-match; how each one ended."""
    plan = Disconnects(args.seed, args.never_back, args.grace)
    total = args.matches * 2
    ready = asyncio.Event()
    connected = [0]
    tasks = [asyncio.create_task(disconnect_client(args.url, load, plan, n, ready, connected,
                                                   total))
             for n in range(total)]
    _, pending = await asyncio.wait(tasks, timeout=args.grace + args.seconds + total / 50)
    for task in pending:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    reasons = [plan.ends.get(match_id) for match_id in plan.victim]
    cut = [match_id for match_id in plan.victim if match_id in plan.cut]
    return {"matches": len(plan.victim), "cut": len(cut),
            "cut_came_back": sum(plan.cut[m] for m in cut),
            "cut_never_back": sum(not plan.cut[m] for m in cut),
            "finished_after_resume": sum(m in plan.resumed and plan.ends.get(m) not in
                                         (None, "forfeit", "void") for m in cut),
            "forfeits": sum(plan.ends.get(m) == "forfeit" for m in cut),
            "stuck": sum(reason is None for reason in reasons),
            "void": sum(reason == "void" for reason in reasons),
            "ended_before_cut": sum(m not in plan.cut and plan.ends.get(m) is not None
                                    for m in plan.victim),
            "resumes_refused": plan.refused, "errors": load.errors}


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    load = Load(args.encoding)
    load.pace = args.pace
    load.spread = args.spread
    load.lean = args.lean
    raise_fd_limit(args.matches * 2)
    if args.mode == "idle":
        return await idle(args, load)
    if args.mode == "slow":
        return await slow_reader(args, load)
    if args.mode == "disconnect":
        return await disconnects(args, load)
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
    # Thousands of handshakes (64 at a time) on a busy machine take a while.
    await asyncio.wait_for(ready.wait(), 60 + total / 100)
    if args.mode == "arena":
        load.total = args.matches
        try:
            await asyncio.wait_for(load.all_started.wait(), 60 + total / 100)
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
    stalls = Stalls()
    stalls.start()
    load.counting = True
    start = time.perf_counter()
    cpu = time.process_time()
    await asyncio.sleep(args.seconds)
    load.counting = False
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    stalls.stop()
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
            **({"latencies_ms": [round(x * 1000, 3) for x in lat]} if args.samples else {}),
            # The load generator's own CPU per unit over the counted window: on a 2-core
            # machine the clients and the server share the cores.
            "client_cpu_us": cpu * 1e6 / max(1, load.actions),
            # The load generator's own stalls in that window (its lag is inside every round
            # trip it measures).
            "stalls": stalls.report()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.bench.server_load")
    p.add_argument("url")
    p.add_argument("--game", default="battleline")
    p.add_argument("--seats", type=int, default=2)
    p.add_argument("--matches", type=int, default=20)
    p.add_argument("--encoding", choices=("json", "msgpack"), default="json")
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--warmup", type=float, default=0.5)
    p.add_argument("--mode", choices=("arena", "echo", "relay", "idle", "slow", "disconnect"),
                   default="arena")
    p.add_argument("--pace", type=float, default=0.0,
                   help="actions per second per match (default 0: answer at once)")
    p.add_argument("--samples", action="store_true", help="print every round trip too")
    p.add_argument("--bare", action="store_true", help="idle: the server is the bare echo")
    p.add_argument("--never-back", type=float, default=0.5,
                   help="disconnect: the share of cut seats that never come back")
    p.add_argument("--grace", type=float, default=3.0,
                   help="disconnect: the server's grace in seconds")
    p.add_argument("--spread", action="store_true",
                   help="arena: each client connects from its own loopback address")
    p.add_argument("--lean", action="store_true",
                   help="arena: the clients ask for lean delivery (events in the requests)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    print(json.dumps(asyncio.run(main_async(args))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
