"""The flooders of ``arena bench flood``, run as their own process.

    python -m tools.bench.flood_load WS_URL --flooders 20

Each flooder is a guest connection from its own loopback address (127.0.0.2, 127.0.0.3, …:
an attacker's machines, each with its own per-address budget) that sends the most
expensive messages the server accepts as fast as it can: ``list_matches`` of 200 matches,
and ``get_replay`` of a match from that listing, each sent the moment the previous reply
arrives. It ignores ``retry_after``, and when the server closes it (or refuses its
handshake) it reconnects at once. It stops when its standard input closes, and prints one
JSON object: replies served, ``rate_limited`` refusals, closes and refused handshakes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

import orjson
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from protocol import encode


class Tally:
    def __init__(self) -> None:
        self.served = 0
        self.rate_limited = 0
        self.other_errors = 0
        self.closed = 0
        self.refused = 0
        self.stop = False


async def flooder(url: str, address: str, tally: Tally) -> None:
    match_id: str | None = None
    while not tally.stop:
        try:
            async with connect(url, local_addr=(address, 0), compression=None,
                               max_size=None) as ws:
                await ws.send(encode({"type": "hello", "protocol": 1, "name": "flood"}, "json"))
                await ws.recv()
                n = 0
                while not tally.stop:
                    n += 1
                    if n % 2 == 0 and match_id is not None:
                        message: dict[str, Any] = {"type": "get_replay", "match_id": match_id}
                    else:
                        message = {"type": "list_matches", "limit": 200}
                    await ws.send(encode({**message, "id": n}, "json"))
                    while True:  # the reply (skipping anything else the server says)
                        reply = orjson.loads(await ws.recv(decode=False))
                        if reply.get("ref") == n:
                            break
                    if reply["type"] == "error":
                        if reply["code"] == "rate_limited":
                            tally.rate_limited += 1
                        else:
                            tally.other_errors += 1
                            match_id = None
                        continue
                    tally.served += 1
                    if reply["type"] == "matches" and reply["matches"]:
                        match_id = reply["matches"][n % len(reply["matches"])]["match_id"]
        except ConnectionClosed:
            tally.closed += 1
        except (InvalidHandshake, OSError):
            tally.refused += 1
            await asyncio.sleep(0.01)  # a refused connect would otherwise spin


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    tally = Tally()
    started, cpu = time.perf_counter(), time.process_time()
    tasks = [asyncio.create_task(flooder(args.url, f"127.0.0.{2 + n % 250}", tally))
             for n in range(args.flooders)]
    print("flooding", flush=True)
    # Flood until the bench closes our standard input.
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    tally.stop = True
    for task in tasks:
        task.cancel()
    for result in await asyncio.gather(*tasks, return_exceptions=True):
        if isinstance(result, Exception):  # a flooder that died would flood no more
            print(f"flooder failed: {result!r}", file=sys.stderr)
    return {"served": tally.served, "rate_limited": tally.rate_limited,
            "other_errors": tally.other_errors, "closed": tally.closed,
            "refused": tally.refused,
            # The flooders' own share of a core: on a small machine it is taken from the
            # server and the players.
            "core_share": round((time.process_time() - cpu)
                                / max(1e-9, time.perf_counter() - started), 3)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.bench.flood_load")
    p.add_argument("url")
    p.add_argument("--flooders", type=int, default=20)
    args = p.parse_args(argv)
    print(json.dumps(asyncio.run(main_async(args))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
