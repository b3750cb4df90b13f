"""The quick ladder bots of ``arena bench ladder``, run as their own process.

    python -m tools.bench.ladder_bots WS_URL --game battleline --max-matches 1 < tokens.json

Reads a JSON list of account tokens on stdin; for each, opens a connection, says hello with
the token, joins ``--game``'s ladder (bot ``quick-<n>``, version 1) and answers every request
at once with a random legal action (or a random value of its action space), until killed.
Plain websockets and the protocol codec only: it loads the server's ladder, not a client
library. Prints ``ready`` once every bot has
joined.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys

from websockets.asyncio.client import connect

from bots.random_bot import random_answer
from protocol import decode, encode


async def quick_bot(url: str, token: str, n: int, game: str, max_matches: int,
                    joined: asyncio.Queue[int]) -> None:
    rng = random.Random(n)
    async with connect(url, compression=None, max_queue=None) as ws:
        await ws.send(encode({"type": "hello", "protocol": 1, "token": token}, "json"))
        welcome = decode(await ws.recv())
        if welcome["type"] != "welcome":
            raise RuntimeError(f"hello refused: {welcome}")
        await ws.send(encode({"type": "ladder_join", "id": 1, "game": game,
                              "bot": f"quick-{n}", "version": "1",
                              "max_matches": max_matches}, "json"))
        async for frame in ws:
            message = decode(frame)
            kind = message["type"]
            if kind == "request":
                await ws.send(encode({"type": "action", "match_id": message["match_id"],
                                      "request_id": message["request_id"],
                                      "action": random_answer(message, rng)}, "json"))
            elif kind == "ladder_joined":
                joined.put_nowait(n)
            elif kind == "error" and message.get("ref") == 1:
                raise RuntimeError(f"ladder_join refused: {message}")


async def main(args: argparse.Namespace) -> None:
    tokens = json.load(sys.stdin)
    joined: asyncio.Queue[int] = asyncio.Queue()
    tasks = [asyncio.create_task(quick_bot(args.url, token, n, args.game, args.max_matches,
                                           joined))
             for n, token in enumerate(tokens)]
    for _ in tokens:
        getter = asyncio.ensure_future(joined.get())
        done, _ = await asyncio.wait([getter, *tasks], return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            if task in done:
                task.result()  # a bot that failed: show why
    print("ready", flush=True)
    await asyncio.gather(*tasks)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--game", default="battleline")
    parser.add_argument("--max-matches", type=int, default=1)
    asyncio.run(main(parser.parse_args()))
