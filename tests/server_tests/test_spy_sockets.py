"""The spy of ``arena bench spy`` over a real server: two seats and a spectator on real
websockets (JSON and msgpack, every one asking for views) play seeded random matches of the
games with hands or plans, and every message each receives, as decoded from its frame, is
searched for the secrets its viewer may not know at that moment, taken from the live match's
runner on the server. The spy acts in lock step: one action, then every message it caused
is read and checked before the next, so the runner's state is the one each message was
rendered from."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bots.random_bot import random_answer
from server.app import ArenaServer
from server.runner import MatchRunner
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient
from tools.bench import spy

MATCHES = 2
OPTIONS = {"battleline": {}, "boundary": {"turn_limit": 8}}


def check(runner: MatchRunner, viewer: int | None, message: dict[str, Any],
          encoding: str) -> None:
    leak = spy.find_leak(message, spy.secrets_of(runner, viewer), encoding)  # type: ignore[arg-type]
    assert leak is None, f"{leak}: {message}"


async def settle(runner: MatchRunner, clients: list[WsClient],
                 requests: dict[int, dict[str, Any]], encoding: str) -> int:
    """Read every client's messages up to where the runner is now (its last ``events`` and
    each seat's open request, or ``match_end``), checking each; returns how many were read.
    Client ``i`` is seat ``i``, the last one the spectator."""
    read = 0
    for index, client in enumerate(clients):
        viewer = index if index < runner.num_seats else None
        seen_seq = False
        while True:
            message = await client.recv()
            read += 1
            check(runner, viewer, message, encoding)
            kind = message["type"]
            if kind == "request":
                requests[index] = message
            if kind == "match_end":
                break
            seen_seq = seen_seq or (kind in ("events", "match_start")
                                    and message["seq"] == runner.seq)
            pending = None if viewer is None else runner.pending_request_id(viewer)
            if seen_seq and (pending is None
                             or requests.get(index, {}).get("request_id") == pending):
                break
    return read


async def act_until_over(runner: MatchRunner, match_id: str, seats: list[WsClient],
                         clients: list[WsClient], requests: dict[int, dict[str, Any]],
                         encoding: str, rng: random.Random) -> int:
    """Lock step to the end of the match: a random seat with an open request answers it
    (a random legal answer), then every client's messages are read and checked
    (:func:`settle`); returns how many were checked."""
    checked = 0
    while not runner.is_over:
        seat = rng.choice([s for s in (0, 1) if runner.pending_request_id(s) is not None])
        request = requests[seat]
        await seats[seat].send({"type": "action", "match_id": match_id,
                                "request_id": request["request_id"],
                                "action": random_answer(request, rng)})
        # The action is in once the seat hears of it (its events; on a simultaneous turn
        # its own ``committed``): the runner has moved on, and stays until the next.
        before = runner.seq
        await seats[seat].wait_for(lambda m: m["type"] == "events")
        assert runner.seq > before
        checked += await settle(runner, clients, requests, encoding)
    return checked


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
@pytest.mark.parametrize("game", ["battleline", "boundary"])
async def test_the_spy_finds_nothing_on_the_wire(server: ArenaServer, game: str,
                                                 encoding: str) -> None:
    rng = random.Random(f"{game}-{encoding}")
    checked = 0
    for n in range(MATCHES):
        seats = [await account_client(server, f"spy-{game}-{encoding}-{n}-{s}",
                                      encoding=encoding, views=True) for s in (0, 1)]
        watcher = await WsClient.open(server.ws_url, encoding)
        await watcher.hello(name=f"spy-watcher-{game}-{encoding}-{n}", views=True)
        match_id = await challenge_match(seats[0], seats[1:], game, OPTIONS[game])
        runner = server.live[match_id].runner
        clients = [*seats, watcher]
        requests: dict[int, dict[str, Any]] = {}
        # The seats' match_start (read already), before anyone acts; settle() reads on.
        for seat, client in enumerate(seats):
            for message in client.received:
                if message.get("match_id") == match_id:
                    check(runner, seat, message, encoding)
                    checked += 1
        ref = await watcher.send({"type": "spectate", "match_id": match_id})
        start = await watcher.wait_for(lambda m, ref=ref: m.get("ref") == ref)  # settle() reads it
        assert start["type"] == "match_start" and start["seq"] == runner.seq
        checked += await settle(runner, clients, requests, encoding)
        checked += await act_until_over(runner, match_id, seats, clients, requests, encoding,
                                        rng)
        for client in clients:
            await client.close()
    assert checked > 50 * MATCHES  # a Boundary match of 8 turns brings about 70
