"""The game path of ``arena bench server`` without sockets: where a server's time per action
goes, minus websockets and asyncio.

The same work the server does for each action of a random match, in-process and in a loop:
:meth:`server.runner.MatchRunner.receive_action` (the engine's check and apply, chance, the
next decision), :func:`server.render.render_for` for every message it produces (events for
each seat, the next request with its view and legal actions; no spectators' copy, as
nobody watches the bench's matches) and the encoding of each message in the bench's
encoding. Nothing else: no protocol session, no frames, no event loop, no store. Its time
per action next to the server's CPU per action over real sockets splits the latter into
"the game" and "everything around it".
"""

from __future__ import annotations

import random

from engine.core import Game
from protocol import encode
from protocol.messages import Encoding
from server.bench.measure import Operation, Workload
from server.render import SeatInfo
from server.runner import MatchRunner


def play_one(game: Game, seed: int, encoding: Encoding = "json") -> int:
    """One random match through the runner, every message rendered and encoded; returns
    the actions applied."""
    rng = random.Random(seed)
    seats = [SeatInfo(f"seat{n}", "bot") for n in range(game.info.min_seats)]
    runner = MatchRunner(f"bench-{seed}", game, seats, None, seed)
    runner.spectated = False  # as in the bench's server, where nobody watches
    out = runner.start(0.0)
    requests: dict[int, dict] = {}  # type: ignore[type-arg]
    actions = 0
    while True:
        for recipient, message in out:
            encode(message, encoding)
            if message["type"] == "request" and recipient is not None:
                requests[recipient] = message
        if runner.is_over or not requests:
            return actions
        seat, request = requests.popitem()
        legal = request["legal_actions"]
        out = runner.receive_action(seat, request["request_id"],
                                    legal[rng.randrange(len(legal))], 0.0)
        actions += 1


def workload(game: Game, encoding: Encoding = "json") -> Workload:
    def make() -> Operation:
        seeds = iter(range(1, 1 << 30))
        return lambda: play_one(game, next(seeds), encoding)

    return Workload(f"{game.info.name} {encoding}, game path without sockets", "actions/s",
                    make, {"game": game.info.name, "encoding": encoding, "in_process": True})
