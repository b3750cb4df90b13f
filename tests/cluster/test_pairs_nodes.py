"""Duplicate pairs are not played on a cluster (docs/nodes.md): a duplicate challenge is
refused with its reason, and the hub says it starts no pairs (a ladder set to play them
plays single matches there)."""

from __future__ import annotations

import asyncio

from server.app import ArenaServer
from tests.server_tests.wsclient import WsClient


async def test_a_duplicate_challenge_is_refused_on_a_node(three_nodes: list[ArenaServer]
                                                          ) -> None:
    a, b, _ = three_nodes
    assert not a.plays_pairs
    tokens = [await asyncio.to_thread(a.store.create_account, name, "human")
              for name in ("ann", "bob")]
    ann = await WsClient.open(a.ws_url)
    await ann.hello(token=tokens[0])
    bob = await WsClient.open(b.ws_url)
    await bob.hello(token=tokens[1])
    ref = await ann.send({"type": "challenge", "accounts": ["bob"], "game": "battleline",
                          "duplicate": True})
    refused = await ann.expect_reply(ref)
    assert (refused["code"], refused["details"]) == ("bad_request", {"reason": "cluster"})
    await ann.close()
    await bob.close()
