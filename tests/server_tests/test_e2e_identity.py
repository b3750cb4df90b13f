"""Identity under abuse (issue #22): reserved names, who may autoplay, resumes bound to their
account, revoked tokens, banned accounts, and the admin's abort_match and ban_account — each
over a real server and real websocket clients, with a real SQLite file."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from server.app import ArenaServer
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient


async def hello_as(server: ArenaServer, **hello: Any) -> tuple[WsClient, dict[str, Any]]:
    client = await WsClient.open(server.ws_url)
    return client, await client.hello(**hello)


@pytest.mark.parametrize("wanted", ["house-deep-barca-1", "HOUSE-random-1", "Ｈｏｕｓｅ_x",
                                    "house–maxn", "known-bot", "Known-Bot"])
async def test_a_guest_cannot_take_a_house_or_account_name(server: ArenaServer,
                                                           wanted: str) -> None:
    await asyncio.to_thread(server.store.create_account, "known-bot", "bot")
    guest, welcome = await hello_as(server, name=wanted)
    name = welcome["account"]["name"]
    assert name.startswith("guest#") and welcome["account"]["kind"] == "guest", welcome
    _, plain = await hello_as(server, name="household")
    assert plain["account"]["name"].startswith("household#")


async def test_only_bot_accounts_autoplay_and_play_bot_seats_only_them(
        server: ArenaServer) -> None:
    impostor, _ = await hello_as(server, name="house-deep-barca-1")
    person = await account_client(server, "alice", "human")
    for client in (impostor, person):
        ref = await client.send({"type": "autoplay", "games": ["race"]})
        refused = await client.expect_reply(ref)
        assert refused["type"] == "error" and refused["code"] == "unauthorized", refused
    visitor, _ = await hello_as(server, name="visitor")
    ref = await visitor.send({"type": "play_bot", "game": "race"})
    assert (await visitor.expect_reply(ref))["code"] == "not_found"  # nobody to seat
    house = await account_client(server, "house-race-1", house=True)
    ref = await house.send({"type": "autoplay", "games": ["race"]})
    assert (await house.expect_reply(ref))["type"] == "ok"
    ref = await visitor.send({"type": "play_bot", "game": "race"})
    start = await visitor.expect("match_start")
    assert [s["name"] for s in start["seats"]][1:] == ["house-race-1"]


async def test_a_resume_must_match_the_account_that_owns_the_session(
        server: ArenaServer) -> None:
    alice_token = await asyncio.to_thread(server.store.create_account, "alice", "human")
    mallory_token = await asyncio.to_thread(server.store.create_account, "mallory", "human")
    alice, welcome = await hello_as(server, token=alice_token)
    session = welcome["session"]
    thief, refused = await hello_as(server, resume=session, token=mallory_token)
    assert refused["type"] == "error" and refused["code"] == "unauthorized", refused
    assert "another account" in refused["message"]
    # alice keeps her connection and her session
    ref = await alice.send({"type": "list_games"})
    assert (await alice.expect_reply(ref))["type"] == "games"
    # the thief may still say hello as itself on the same connection
    assert (await thief.hello(token=mallory_token))["account"]["name"] == "mallory"
    # a guest's session is not taken over with any account token either
    guest, guest_welcome = await hello_as(server, name="g")
    _, refused = await hello_as(server, resume=guest_welcome["session"], token=alice_token)
    assert refused["code"] == "unauthorized", refused
    # the owner resumes with or without her token
    await alice.close()
    back, again = await hello_as(server, resume=session, token=alice_token)
    assert again["type"] == "welcome" and again["session"] == session


async def test_a_revoked_token_neither_logs_in_nor_resumes(server: ArenaServer) -> None:
    token = await asyncio.to_thread(server.store.create_account, "alice", "human")
    alice, welcome = await hello_as(server, token=token)
    await alice.close()
    await asyncio.to_thread(server.store.revoke_tokens, "alice")
    _, refused = await hello_as(server, resume=welcome["session"])
    assert refused["code"] == "unauthorized" and "revoked" in refused["message"], refused
    _, refused = await hello_as(server, token=token)
    assert refused["code"] == "unauthorized", refused
    fresh = await asyncio.to_thread(server.store.rotate_token, "alice")
    _, welcome = await hello_as(server, token=fresh)
    assert welcome["type"] == "welcome"


async def test_a_banned_account_cannot_log_in_or_resume_until_unbanned(
        server: ArenaServer) -> None:
    token = await asyncio.to_thread(server.store.create_account, "mallory", "bot")
    mallory, welcome = await hello_as(server, token=token)
    await mallory.close()
    await asyncio.to_thread(server.store.set_banned, "mallory", True)
    for hello in ({"token": token}, {"resume": welcome["session"]}):
        _, refused = await hello_as(server, **hello)
        assert refused["code"] == "unauthorized" and "banned" in refused["message"], refused
    await asyncio.to_thread(server.store.set_banned, "mallory", False)
    _, welcome = await hello_as(server, token=token)
    assert welcome["type"] == "welcome"


async def test_an_admin_aborts_a_match_void_for_every_seat_and_spectator(
        server: ArenaServer) -> None:
    a = await account_client(server, "ann", "human")
    b = await account_client(server, "bob", "human")
    match_id = await challenge_match(a, [b], "race")
    watcher, _ = await hello_as(server, name="watcher")
    ref = await watcher.send({"type": "spectate", "match_id": match_id})
    await watcher.expect("match_start")
    ref = await a.send({"type": "abort_match", "match_id": match_id})
    refused = await a.expect_reply(ref)
    assert refused["type"] == "error" and refused["code"] == "unauthorized", refused
    admin = await account_client(server, "root", "admin")
    ref = await admin.send({"type": "abort_match", "match_id": match_id,
                            "reason": "testing"})
    assert (await admin.expect_reply(ref))["type"] == "ok"
    for client in (a, b, watcher):
        end = await client.expect("match_end", match_id=match_id)
        # on the wire a void match is over, its outcome's reason says why (PROTOCOL.md)
        assert end["outcome"] == {"ranks": [0, 0], "reason": "aborted"}, end
    await asyncio.to_thread(server.store.flush)
    row = await asyncio.to_thread(server.store.get_match, match_id)
    assert row is not None and row.status == "void"
    ref = await admin.send({"type": "abort_match", "match_id": match_id})
    assert (await admin.expect_reply(ref))["code"] == "not_found"
    # the server keeps serving: the same players start another match
    await challenge_match(a, [b], "race")


async def test_an_admin_ban_closes_the_accounts_sessions_now(server: ArenaServer) -> None:
    token = await asyncio.to_thread(server.store.create_account, "rogue", "bot")
    rogue, welcome = await hello_as(server, token=token)
    ref = await rogue.send({"type": "autoplay", "games": ["race"]})
    assert (await rogue.expect_reply(ref))["type"] == "ok"
    person = await account_client(server, "alice", "human")
    ref = await person.send({"type": "ban_account", "account": "rogue"})
    assert (await person.expect_reply(ref))["code"] == "unauthorized"
    admin = await account_client(server, "root", "admin")
    ref = await admin.send({"type": "ban_account", "account": "nobody"})
    assert (await admin.expect_reply(ref))["code"] == "not_found"
    ref = await admin.send({"type": "ban_account", "account": "rogue", "reason": "abuse"})
    assert (await admin.expect_reply(ref))["type"] == "ok"
    with pytest.raises(ConnectionClosed):
        await rogue.recv()
    assert rogue.ws.close_code == 1008
    ref = await person.send({"type": "play_bot", "game": "race"})
    assert (await person.expect_reply(ref))["code"] == "not_found"  # no longer offered
    _, refused = await hello_as(server, resume=welcome["session"])
    assert refused["code"] == "unauthorized", refused
    account = await asyncio.to_thread(server.store.get_account, "rogue")
    assert account is not None and account.banned
