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

:func:`interleaved` keeps ``matches`` random matches alive at once and takes one action of
each in turn, as a server with that many live matches does. A match's objects are then
rarely in the processor's caches when its next action comes, so an action costs more than
in :func:`play_one`, which plays one match to the end before starting the next.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from bots.random_bot import random_answer
from engine.core import Game
from protocol import encode
from protocol.messages import Encoding
from server.render import SeatInfo
from server.runner import MatchRunner
from tools.bench.measure import Operation, Workload

AVERAGE_ACTIONS = 90
"""About how many actions a random Battle Line match lasts (10,770 in 120 seeded matches):
the spread of the interleaved matches' starting points."""


def steps(game: Game, seed: int) -> Iterator[list[tuple[int | None, dict[str, Any]]]]:
    """One random match through the runner: yields the messages of each step, as
    ``(recipient seat, message)`` (``None``: the spectators' copy), first those of the start,
    then those each action caused; the action is a seeded random one of the request's legal
    actions."""
    rng = random.Random(seed)
    seats = [SeatInfo(f"seat{n}", "bot") for n in range(game.info.min_seats)]
    runner = MatchRunner(f"bench-{seed}", game, seats, None, seed)
    runner.spectated = False  # as in the bench's server, where nobody watches
    out = runner.start(0.0)
    # Only what a server keeps of a request (its id, and what to answer from: the legal
    # actions are the runner's own list, an action space the game's): the rendered
    # messages are dropped once the caller is done with them, as the server drops them
    # once encoded.
    requests: dict[int, tuple[str, dict[str, Any]]] = {}
    while True:
        for recipient, message in out:
            if message["type"] == "request" and recipient is not None:
                requests[recipient] = (message["request_id"], {
                    k: message[k] for k in ("legal_actions", "action_space") if k in message})
        yield out
        out = []
        if runner.is_over or not requests:
            return
        seat, (request_id, answerable) = requests.popitem()
        out = runner.receive_action(seat, request_id, random_answer(answerable, rng), 0.0)


def walk(game: Game, seed: int, encoding: Encoding = "json") -> Iterator[None]:
    """:func:`steps` with every message encoded; yields after each action applied (the
    encoding of its messages comes with the next step)."""
    for n, out in enumerate(steps(game, seed)):
        if n:
            yield
        for _, message in out:
            encode(message, encoding)


def play_one(game: Game, seed: int, encoding: Encoding = "json") -> int:
    """One random match played to its end; returns the actions applied."""
    return sum(1 for _ in walk(game, seed, encoding))


def interleaved(game: Game, matches: int, encoding: Encoding = "json",
                first_seed: int = 1) -> Operation:
    """``matches`` live random matches; each call takes one action of each in turn (a match
    that ends is replaced by a new one, from the next seed) and returns the actions applied.

    The matches start spread over a match's length, as on a server that has run for a
    while, not all at their first deal: match ``i`` is first taken a seeded random number of
    actions (up to :data:`AVERAGE_ACTIONS`) into its game. That set-up is not timed."""
    seeds = iter(range(first_seed, 1 << 62))
    spread = random.Random(first_seed)
    live: list[Iterator[None]] = []
    for _ in range(matches):
        match = walk(game, next(seeds), encoding)
        for _ in range(spread.randrange(AVERAGE_ACTIONS)):
            if next(match, StopIteration) is StopIteration:
                match = walk(game, next(seeds), encoding)
                break
        live.append(match)

    def one_round() -> int:
        applied = 0
        for i, match in enumerate(live):
            if next(match, StopIteration) is StopIteration:
                live[i] = walk(game, next(seeds), encoding)
            else:
                applied += 1
        return applied

    return one_round


def workload(game: Game, encoding: Encoding = "json", matches: int = 1) -> Workload:
    """The game path with ``matches`` live matches interleaved (1: one match at a time)."""
    name = f"{game.info.name} {encoding}, game path without sockets"
    if matches > 1:
        name += f", {matches} matches"
    return Workload(name, "actions/s", lambda: interleaved(game, matches, encoding),
                    {"game": game.info.name, "encoding": encoding, "in_process": True,
                     "matches": matches})
