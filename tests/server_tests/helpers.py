"""Shared set-ups for the end-to-end tests."""

from __future__ import annotations

import asyncio
from typing import Any

from server.app import ArenaServer
from tests.server_tests.wsclient import WsClient


async def account_client(server: ArenaServer, name: str, kind: str = "bot",
                         encoding: str = "json", *, house: bool = False,
                         **hello: Any) -> WsClient:
    """A client logged in as a new account (``house``: a house bot's, named ``house-…``);
    ``hello``: more hello fields (``views``)."""
    token = await asyncio.to_thread(server.store.create_account, name, kind, house=house)
    client = await WsClient.open(server.ws_url, encoding)
    welcome = await client.hello(token=token, **hello)
    assert welcome["type"] == "welcome", welcome
    return client


async def challenge_match(challenger: WsClient, others: list[WsClient], game: str,
                          options: dict[str, Any] | None = None,
                          clock: dict[str, int] | None = None) -> str:
    """Challenger takes seat 0, the others seats 1.. in order; returns the match id once
    every client has its match_start."""
    names = [o.welcome["account"]["name"] for o in others]  # type: ignore[index]
    ref = await challenger.send({"type": "challenge", "accounts": names, "game": game,
                                 "options": options or {}, "clock": clock})
    sent = await challenger.expect_reply(ref)
    assert sent["type"] == "challenge_sent", sent
    for other in others:
        invite = await other.expect("challenge", challenge_id=sent["challenge_id"])
        ref = await other.send({"type": "accept", "challenge_id": invite["challenge_id"]})
        assert (await other.expect_reply(ref))["type"] == "ok"
    starts = [await c.expect("match_start") for c in [challenger, *others]]
    assert [s["your_seat"] for s in starts] == list(range(len(starts)))
    return str(starts[0]["match_id"])
