"""Deliberately broken bots for testing ``arena check-bot`` (run as a program).

    python broken_bot.py MODE     (ARENA_SERVER, ARENA_TOKEN, ARENA_GAME from the environment)

MODE:
* ``wrong-id``  — answers every request, but names a request_id the server never issued;
* ``silent``    — connects and offers autoplay, then never answers;
* ``no-resume`` — plays correctly, but after a dropped connection says hello without
  ``resume`` (a new session: its seats are lost);
* ``guest``     — ignores ARENA_TOKEN and plays as a guest;
* ``crash``     — exits with status 3 before connecting.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect
from websockets.typing import Subprotocol


def session(mode: str) -> None:
    with connect(os.environ["ARENA_SERVER"], subprotocols=[Subprotocol("arena.v1.json")]) as ws:
        credentials = {"name": "anon"} if mode == "guest" else \
            {"token": os.environ["ARENA_TOKEN"]}
        ws.send(json.dumps({"type": "hello", "protocol": 1, **credentials}))
        ws.send(json.dumps({"type": "autoplay", "games": [os.environ["ARENA_GAME"]]}))
        for frame in ws:
            message = json.loads(frame)
            if message["type"] != "request" or mode == "silent":
                continue
            request_id = message["request_id"]
            if mode == "wrong-id":
                request_id += "-old"
            ws.send(json.dumps({"type": "action", "match_id": message["match_id"],
                                "request_id": request_id,
                                "action": random.choice(message["legal_actions"])}))


def main() -> int:
    mode = sys.argv[1]
    if mode == "crash":
        print("broken bot: giving up at once", flush=True)
        return 3
    while True:
        try:
            session(mode)
        except (ConnectionClosed, OSError):
            time.sleep(0.1)  # and start over with a brand-new session


if __name__ == "__main__":
    sys.exit(main())
