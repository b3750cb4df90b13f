"""Limits that protect everyone, against a real server: messages cost tokens, budgets are
shared per account and per address, connections per address and guests are capped, and
listings come in pages."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus

from protocol import Limits
from server.app import ArenaServer
from server.storage import SqliteStore
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient, play_random


@pytest.fixture
async def limited(tmp_path: Path, request: pytest.FixtureRequest
                  ) -> AsyncIterator[ArenaServer]:
    """A server with the test's ``Limits`` (``@pytest.mark.parametrize`` indirect)."""
    store = SqliteStore(tmp_path / "limits.sqlite3")
    server = ArenaServer(store, limits=request.param, grace_s=5.0)
    await server.start("127.0.0.1", 0)
    yield server
    await server.close()
    store.close()


def limits(**fields: float) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("limited", [Limits(**fields)], indirect=True,  # type: ignore[arg-type]
                                   ids=[",".join(fields)])


@limits(address_rate_per_s=20, address_burst=40)
async def test_a_guest_flooding_list_matches_is_rate_limited_while_a_match_goes_on(
        limited: ArenaServer) -> None:
    a = await account_client(limited, "player-a")
    b = await account_client(limited, "player-b")
    match_id = await challenge_match(a, [b], "race", {"target": 60})
    play = asyncio.gather(play_random(a, match_id, 1), play_random(b, match_id, 2))
    flooder = await WsClient.open(limited.ws_url)
    assert (await flooder.hello())["type"] == "welcome"
    ids = [await flooder.send({"type": "list_matches", "limit": 200}) for _ in range(30)]
    replies = [await flooder.expect_reply(ref) for ref in ids]
    served = [r for r in replies if r["type"] == "matches"]
    refused = [r for r in replies if r["type"] == "error"]
    # 40 tokens: the hello and one 21-token listing, a second one into debt; then refusals
    assert len(served) >= 2 and refused
    for error in refused:
        assert error["code"] == "rate_limited"
        assert error["details"]["budget"] == "address"
        assert 0 < error["retry_after"] <= 2.0
    ends = await asyncio.wait_for(play, 60)
    assert ends[0]["outcome"]["reason"] == "target"
    # Refused and paused, never closed (no strikes piled up): a client that waits as
    # told is served again.
    for _ in range(10):
        ref = await flooder.send({"type": "list_matches", "limit": 1})
        reply = await flooder.expect_reply(ref)
        if reply["type"] == "matches":
            break
        await asyncio.sleep(reply["retry_after"])
    assert reply["type"] == "matches"


@limits(max_connections_per_address=3)
async def test_the_connection_after_the_cap_of_an_address_is_refused(
        limited: ArenaServer) -> None:
    clients = [await WsClient.open(limited.ws_url) for _ in range(3)]
    for client in clients:
        assert (await client.hello())["type"] == "welcome"
    with pytest.raises(InvalidStatus) as refused:
        await WsClient.open(limited.ws_url)
    assert refused.value.response.status_code == 429
    assert refused.value.response.headers["Retry-After"] == "1"
    assert b"too many connections" in refused.value.response.body
    await clients[0].close()
    while len(limited.connections) > 2:
        await asyncio.sleep(0.02)
    again = await WsClient.open(limited.ws_url)
    assert (await again.hello())["type"] == "welcome"


@limits(account_rate_per_s=0.1, account_burst=10)
async def test_two_connections_of_one_account_share_its_budget(
        limited: ArenaServer) -> None:
    token = await asyncio.to_thread(limited.store.create_account, "twin", "bot")
    first, second = await WsClient.open(limited.ws_url), await WsClient.open(limited.ws_url)
    for client in (first, second):
        assert (await client.hello(token=token))["type"] == "welcome"
    for _ in range(5):  # 2 tokens each: the account's 10
        ref = await first.send({"type": "list_games"})
        assert (await first.expect_reply(ref))["type"] == "games"
    ref = await second.send({"type": "list_games"})
    error = await second.expect_reply(ref)
    assert error["code"] == "rate_limited" and error["details"]["budget"] == "account"
    assert error["retry_after"] > 1.0
    # a guest at the same address has a budget of its own
    guest = await WsClient.open(limited.ws_url)
    await guest.hello()
    ref = await guest.send({"type": "list_games"})
    assert (await guest.expect_reply(ref))["type"] == "games"


@limits(max_guests=1)
async def test_guests_beyond_the_cap_are_refused_but_accounts_log_in(
        limited: ArenaServer) -> None:
    first = await WsClient.open(limited.ws_url)
    assert (await first.hello())["type"] == "welcome"
    second = await WsClient.open(limited.ws_url)
    error = await second.hello()
    assert error["code"] == "rate_limited" and error["details"]["cap"] == "guests"
    assert error["retry_after"] > 0
    token = await asyncio.to_thread(limited.store.create_account, "member", "human")
    assert (await second.hello(token=token))["type"] == "welcome"
    await first.close()
    while limited.admission.guests:
        await asyncio.sleep(0.02)
    third = await WsClient.open(limited.ws_url)
    assert (await third.hello())["type"] == "welcome"


async def test_paging_lists_every_match_once(server: ArenaServer) -> None:
    a, b = await account_client(server, "pager-a"), await account_client(server, "pager-b")
    started = []
    for _ in range(7):
        started.append(await challenge_match(a, [b], "race", {"target": 50}))
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        ref = await a.send({"type": "list_matches", "game": "race", "limit": 3,
                            **({"cursor": cursor} if cursor else {})})
        page = await a.expect_reply(ref)
        assert page["type"] == "matches" and len(page["matches"]) <= 3
        seen += [m["match_id"] for m in page["matches"]]
        pages += 1
        if pages == 1:  # a match that ends between pages keeps its place
            ref = await a.send({"type": "resign", "match_id": started[0]})
            await a.expect("match_end", match_id=started[0])
        cursor = page["next"]
        if cursor is None:
            break
    assert pages == 3
    assert seen == list(reversed(started))  # newest first, each once
    ref = await a.send({"type": "list_matches", "cursor": "not-a-cursor"})
    assert (await a.expect_reply(ref))["code"] == "bad_request"
    ref = await a.send({"type": "list_matches", "game": "no-such-game"})
    assert (await a.expect_reply(ref)) == {"type": "matches", "ref": ref, "matches": [],
                                           "next": None}


def _get(url: str) -> tuple[int, str | None]:
    """GET ``url``: (status, Retry-After)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return reply.status, reply.headers.get("Retry-After")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Retry-After")


@limits(address_rate_per_s=5, address_burst=60)
async def test_plain_http_requests_spend_their_address_budget_too(
        limited: ArenaServer) -> None:
    """Listing matches over HTTP costs like a page of 200: an address that keeps asking is
    answered 429 with Retry-After (its websocket hellos wait too), while a client from
    another address goes on being served."""
    url = f"{limited.http_url}/api/matches"
    statuses = [await asyncio.to_thread(_get, url) for _ in range(6)]
    assert [s for s, _ in statuses[:2]] == [200, 200]
    refused = [(s, after) for s, after in statuses if s == 429]
    assert refused and all(after is not None and int(after) >= 1 for _, after in refused)
    token = await asyncio.to_thread(limited.store.create_account, "http-neighbour", "bot")
    player = await WsClient.open(limited.ws_url, local_addr=("127.0.0.2", 0))
    assert (await player.hello(token=token))["type"] == "welcome"
    ref = await player.send({"type": "ping"})
    assert (await player.expect_reply(ref))["type"] == "pong"


@limits(guests_rate_per_s=1, guests_burst=21)
async def test_guests_share_one_budget_for_costly_messages(limited: ArenaServer) -> None:
    """Listings from guests on two addresses draw on one server-wide budget: the second is
    refused (budget ``guests``), while a guest's ping and an account's listing are served."""
    first = await WsClient.open(limited.ws_url)
    assert (await first.hello(name="g1"))["type"] == "welcome"
    second = await WsClient.open(limited.ws_url, local_addr=("127.0.0.3", 0))
    assert (await second.hello(name="g2"))["type"] == "welcome"
    ref = await first.send({"type": "list_matches", "limit": 200})
    assert (await first.expect_reply(ref))["type"] == "matches"
    ref = await second.send({"type": "list_matches", "limit": 200})
    refused = await second.expect_reply(ref)
    assert refused["code"] == "rate_limited" and refused["details"]["budget"] == "guests"
    assert refused["retry_after"] > 0
    await asyncio.sleep(refused["retry_after"])  # a ping is not a costly message anyway
    ref = await second.send({"type": "ping"})
    assert (await second.expect_reply(ref))["type"] == "pong"
    player = await account_client(limited, "lister")
    ref = await player.send({"type": "list_matches", "limit": 200})
    assert (await player.expect_reply(ref))["type"] == "matches"
