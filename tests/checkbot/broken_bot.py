"""Deliberately broken bots for testing ``arena check-bot`` (run as a program).

    python broken_bot.py MODE     (ARENA_SERVER, ARENA_TOKEN, ARENA_GAME from the environment)

MODE:
* ``wrong-id``  — answers every request, but names a request_id the server never issued;
* ``silent``    — connects and offers autoplay, then never answers;
* ``no-resume`` — plays correctly, but after a dropped connection says hello without
  ``resume`` (a new session: its seats are lost; the other modes resume);
* ``guest``     — ignores ARENA_TOKEN and plays as a guest;
* ``crash``     — exits with status 3 before connecting;
* ``off-reach`` — in a game of action spaces (Boundary), sends a piece beyond the disc it may
  reach (a bot that ignores the radius);
* ``slow-start``— thinks 1.5 s before its first answer in each match, whatever its clock.

Otherwise it answers a random legal action, or in a game of action spaces the request's
``default_action``.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect
from websockets.typing import Subprotocol

SLOW_START_S = 1.5


def beyond_reach(space: dict[str, Any]) -> dict[str, Any]:
    """A Boundary plan moving one piece one pixel further than it may (still on the field)."""
    turn = space["fields"]["turn"]["value"]
    entries = space["fields"]["moves"]["entries"]
    piece, disc = next(iter(entries.items()))
    (x, y), reach = disc["center"], disc["radius"]
    x = x + reach + 1 if x + reach + 1 <= disc["max"][0] else x - reach - 1
    return {"turn": turn, "moves": {piece: [x, y]}}


def answer(message: dict[str, Any], mode: str) -> Any:
    if "action_space" in message:
        if mode == "off-reach":
            return beyond_reach(message["action_space"])
        return message["default_action"]
    return random.choice(message["legal_actions"])


class Memory:
    """What outlives a connection: the session to resume, the matches begun."""

    def __init__(self) -> None:
        self.session: str | None = None
        self.started: set[str] = set()


def session(mode: str, memory: Memory) -> None:
    with connect(os.environ["ARENA_SERVER"], subprotocols=[Subprotocol("arena.v1.json")]) as ws:
        credentials: dict[str, Any] = {"name": "anon"} if mode == "guest" else \
            {"token": os.environ["ARENA_TOKEN"]}
        if memory.session is not None and mode != "no-resume":
            credentials["resume"] = memory.session  # the server re-sends the open request
        ws.send(json.dumps({"type": "hello", "protocol": 1, **credentials}))
        if "resume" not in credentials:
            ws.send(json.dumps({"type": "autoplay", "games": [os.environ["ARENA_GAME"]]}))
        for frame in ws:
            message = json.loads(frame)
            if message["type"] == "welcome":
                memory.session = message["session"]
            if message["type"] != "request" or mode == "silent":
                continue
            request_id = message["request_id"]
            if mode == "wrong-id":
                request_id += "-old"
            if mode == "slow-start" and message["match_id"] not in memory.started:
                memory.started.add(message["match_id"])
                time.sleep(SLOW_START_S)
            ws.send(json.dumps({"type": "action", "match_id": message["match_id"],
                                "request_id": request_id, "action": answer(message, mode)}))


def main() -> int:
    mode = sys.argv[1]
    if mode == "crash":
        print("broken bot: giving up at once", flush=True)
        return 3
    memory = Memory()
    while True:
        try:
            session(mode, memory)
        except (ConnectionClosed, OSError):
            time.sleep(0.1)  # and start over (no-resume: with a brand-new session)


if __name__ == "__main__":
    sys.exit(main())
