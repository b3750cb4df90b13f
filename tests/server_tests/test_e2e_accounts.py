"""People's accounts end to end (issue #24): sign up, sign in and out, passwords and their
rules, the login limit, a guest claiming its games, and a person's bots and their tokens —
over a real server, real websocket clients and a real SQLite file."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

import server.accounts
import server.app
import server.connection
from server.accounts import FAILURES_PER_NAME, AccountLimits, LoginLimiter
from server.app import ArenaServer
from server.logs import configure_logging
from server.storage import SqliteStore
from tests.server_tests.wsclient import WsClient
from tools.cli import main

PASSWORD = "correct horse battery"


async def guest(server: ArenaServer, name: str = "visitor") -> WsClient:
    client = await WsClient.open(server.ws_url)
    assert (await client.hello(name=name))["type"] == "welcome"
    return client


async def ask(client: WsClient, type_: str, **fields: Any) -> dict[str, Any]:
    ref = await client.send({"type": type_, **fields})
    return await client.expect_reply(ref)


async def sign_up(server: ArenaServer, name: str, password: str = PASSWORD
                  ) -> tuple[WsClient, dict[str, Any]]:
    client = await guest(server)
    reply = await ask(client, "sign_up", name=name, password=password)
    assert reply["type"] == "signed_in", reply
    return client, reply


def refused(reply: dict[str, Any], code: str, **details: Any) -> None:
    assert reply["type"] == "error" and reply["code"] == code, reply
    for key, value in details.items():
        assert reply["details"][key] == value, reply


async def test_sign_up_then_sign_in_elsewhere_and_hello_with_the_login_token(
        server: ArenaServer) -> None:
    zoe, signed = await sign_up(server, "zoe")
    assert signed["account"] == {"name": "zoe", "kind": "human"}
    assert signed["login_token"].startswith("arena_") and signed["claimed"] == 0
    # the same session is the account's now: it may do what accounts do
    reply = await ask(zoe, "list_my_bots")
    assert reply == {"type": "my_bots", "bots": [], "ref": reply["ref"]}
    # a second browser signs in (by a name that reads the same), a third says hello with
    # the first one's login token
    other = await guest(server)
    again = await ask(other, "sign_in", name="ZOE", password=PASSWORD)
    assert again["type"] == "signed_in" and again["account"]["name"] == "zoe"
    assert again["login_token"] != signed["login_token"]
    third = await WsClient.open(server.ws_url)
    welcome = await third.hello(token=signed["login_token"])
    assert welcome["account"] == {"name": "zoe", "kind": "human"}
    # the resume of a signed-in session holds while its login token does
    session = zoe.welcome["session"]  # type: ignore[index]
    await zoe.close()
    back = await WsClient.open(server.ws_url)
    assert (await back.hello(resume=session))["account"]["name"] == "zoe"


@pytest.mark.parametrize(("name", "password", "field", "rule"), [
    ("zoe", "", "password", "empty"),
    ("zoe", "short", "password", "too_short"),
    ("zoe", "x" * 300, "password", "too_long"),
    ("zoe-the-great", "zoe-the-great", "password", "same_as_name"),
    ("zoe", "Password123", "password", "common"),
    ("bad name!", PASSWORD, "name", "invalid"),
    ("house-zoe", PASSWORD, "name", "reserved"),
])
async def test_bad_names_and_weak_passwords_are_refused_and_nothing_is_stored(
        server: ArenaServer, name: str, password: str, field: str, rule: str) -> None:
    client = await guest(server)
    reply = await ask(client, "sign_up", name=name, password=password)
    refused(reply, "bad_request", field=field, rule=rule)
    assert name not in reply["message"] and (not password or password not in reply["message"])
    assert await asyncio.to_thread(server.store.list_accounts) == []
    assert client.welcome["account"]["kind"] == "guest"  # type: ignore[index]


async def test_duplicate_names_are_refused_whatever_their_case(server: ArenaServer) -> None:
    await sign_up(server, "zoe")
    await asyncio.to_thread(server.store.create_account, "robo", "bot")
    for name in ("zoe", "Zoe", "ROBO"):
        client = await guest(server)
        refused(await ask(client, "sign_up", name=name, password=PASSWORD), "bad_request",
                field="name", rule="taken")
    assert [a.name for a in await asyncio.to_thread(server.store.list_accounts)] == [
        "robo", "zoe"]


async def test_who_may_sign_up_sign_in_and_out(server: ArenaServer) -> None:
    zoe, _ = await sign_up(server, "zoe")
    refused(await ask(zoe, "sign_up", name="zed", password=PASSWORD), "bad_request")
    refused(await ask(zoe, "sign_in", name="zoe", password=PASSWORD), "bad_request")
    visitor = await guest(server)
    refused(await ask(visitor, "sign_out"), "bad_request")
    refused(await ask(visitor, "change_password", old="", new=PASSWORD), "unauthorized")
    refused(await ask(visitor, "create_bot", name="b"), "unauthorized")
    bot_token = await asyncio.to_thread(server.store.create_account, "robo", "bot")
    robo = await WsClient.open(server.ws_url)
    await robo.hello(token=bot_token)
    refused(await ask(robo, "create_bot", name="b"), "unauthorized")


async def test_a_wrong_password_is_refused_then_the_login_limit(server: ArenaServer) -> None:
    await sign_up(server, "zoe")
    client = await guest(server)
    for name in ("zoe", "nobody"):  # an unknown name is refused the same way
        reply = await ask(client, "sign_in", name=name, password="wrong password")
        refused(reply, "unauthorized")
        assert reply["message"] == "wrong name or password"
    for _ in range(FAILURES_PER_NAME - 1):
        refused(await ask(client, "sign_in", name="zoe", password="wrong password"),
                "unauthorized")
    # the limit: the right password too is refused now, and says nothing more
    limited = await ask(client, "sign_in", name="zoe", password=PASSWORD)
    refused(limited, "rate_limited", budget="login")
    assert 0 < limited["retry_after"] <= 60
    for _ in range(FAILURES_PER_NAME - 1):
        await ask(client, "sign_in", name="nobody", password="wrong password")
    # an unknown name is limited alike
    refused(await ask(client, "sign_in", name="nobody", password="x" * 9), "rate_limited")
    # another name is not, until its address has failed too often
    # (a sign_in costs 10 tokens: a new connection has a full budget for the rest)
    client = await guest(server)
    server.accounts.limiter = LoginLimiter(AccountLimits(failures_per_address=3))
    for name in ("ann", "bob", "cyd"):
        refused(await ask(client, "sign_in", name=name, password="wrong password"),
                "unauthorized")
    refused(await ask(client, "sign_in", name="zoe", password=PASSWORD), "rate_limited",
            budget="login")


async def test_sign_out_revokes_this_login_only(server: ArenaServer) -> None:
    zoe, first = await sign_up(server, "zoe")
    laptop = await guest(server)
    second = await ask(laptop, "sign_in", name="zoe", password=PASSWORD)
    assert (await ask(zoe, "sign_out"))["type"] == "ok"
    with pytest.raises(ConnectionClosed):
        await zoe.recv(timeout=5)
    assert zoe.ws.close_code == 1000
    stale = await WsClient.open(server.ws_url)
    refused(await stale.hello(token=first["login_token"]), "unauthorized")
    assert (await stale.hello(token=second["login_token"]))["account"]["name"] == "zoe"
    assert (await ask(laptop, "list_my_bots"))["type"] == "my_bots"


async def test_changing_the_password_signs_out_the_other_browsers(
        server: ArenaServer) -> None:
    zoe, _ = await sign_up(server, "zoe")
    other = await guest(server)
    elsewhere = await ask(other, "sign_in", name="zoe", password=PASSWORD)
    refused(await ask(zoe, "change_password", old="wrong password", new="a new password"),
            "unauthorized")
    refused(await ask(zoe, "change_password", old=PASSWORD, new="zoe"), "bad_request",
            field="new")
    assert (await ask(zoe, "change_password", old=PASSWORD, new="a new password"))[
        "type"] == "ok"
    with pytest.raises(ConnectionClosed):  # the other browser's session is closed
        await other.recv(timeout=5)
    stale = await WsClient.open(server.ws_url)
    refused(await stale.hello(token=elsewhere["login_token"]), "unauthorized")
    fresh = await guest(server)
    refused(await ask(fresh, "sign_in", name="zoe", password=PASSWORD), "unauthorized")
    assert (await ask(fresh, "sign_in", name="zoe", password="a new password"))[
        "type"] == "signed_in"
    assert (await ask(zoe, "list_my_bots"))["type"] == "my_bots"  # this one stays


async def test_an_account_made_on_the_command_line_sets_its_first_password(
        server: ArenaServer) -> None:
    token = await asyncio.to_thread(server.store.create_account, "ann", "human")
    ann = await WsClient.open(server.ws_url)
    await ann.hello(token=token)
    assert (await ask(ann, "change_password", old="", new=PASSWORD))["type"] == "ok"
    refused(await ask(ann, "change_password", old="", new="another password"),
            "unauthorized")
    browser = await guest(server)
    assert (await ask(browser, "sign_in", name="ann", password=PASSWORD))["type"] == \
        "signed_in"


async def test_a_guest_claims_its_finished_games_on_sign_up(server: ArenaServer) -> None:
    zoe, rival = await guest(server, "zoe"), await guest(server, "rival")
    for client in (zoe, rival):
        ref = await client.send({"type": "seek", "game": "race", "seats": 2})
        await client.expect_reply(ref)
    start = await zoe.expect("match_start")
    await rival.expect("match_start")
    # not while it holds a live seat
    refused(await ask(zoe, "sign_up", name="zoe", password=PASSWORD), "bad_request")
    ref = await zoe.send({"type": "resign", "match_id": start["match_id"]})
    await zoe.expect("match_end", match_id=start["match_id"])
    await server.flush_store()
    guest_name = zoe.welcome["account"]["name"]  # type: ignore[index]
    reply = await ask(zoe, "sign_up", name="zoe", password=PASSWORD, claim=True)
    assert reply["type"] == "signed_in" and reply["claimed"] == 1
    row = await asyncio.to_thread(server.store.get_match, start["match_id"])
    names = [s["name"] for s in row.seats]  # type: ignore[union-attr]
    assert "zoe" in names and guest_name not in names
    listed = await ask(zoe, "list_matches")
    seats = next(m["seats"] for m in listed["matches"] if m["match_id"] == start["match_id"])
    assert {"name": "zoe", "kind": "human"} in [
        {"name": s["name"], "kind": s["kind"]} for s in seats]


async def test_a_person_makes_rotates_and_revokes_bot_tokens(server: ArenaServer) -> None:
    zoe, _ = await sign_up(server, "zoe")
    made = await ask(zoe, "create_bot", name="zoebot")
    assert made["type"] == "bot_token" and made["bot"] == "zoebot"
    refused(await ask(zoe, "create_bot", name="ZoeBot"), "bad_request", rule="taken")
    bot = await WsClient.open(server.ws_url)
    assert (await bot.hello(token=made["token"]))["account"] == {"name": "zoebot",
                                                                 "kind": "bot"}
    listed = await ask(zoe, "list_my_bots")
    assert [(b["name"], b["online"]) for b in listed["bots"]] == [("zoebot", True)]
    rotated = await ask(zoe, "rotate_bot_token", bot="zoebot")
    assert rotated["type"] == "bot_token" and rotated["token"] != made["token"]
    with pytest.raises(ConnectionClosed):  # the old token's session is closed
        await bot.recv(timeout=5)
    again = await WsClient.open(server.ws_url)
    refused(await again.hello(token=made["token"]), "unauthorized")
    assert (await again.hello(token=rotated["token"]))["type"] == "welcome"
    assert (await ask(zoe, "revoke_bot_token", bot="zoebot"))["type"] == "ok"
    last = await WsClient.open(server.ws_url)
    refused(await last.hello(token=rotated["token"]), "unauthorized")
    # another person's bot, or a bot nobody owns, is not yours
    ann, _ = await sign_up(server, "ann")
    await asyncio.to_thread(server.store.create_account, "stray", "bot")
    for name in ("zoebot", "stray", "nobody"):
        refused(await ask(ann, "rotate_bot_token", bot=name), "not_found")
        refused(await ask(ann, "revoke_bot_token", bot=name), "not_found")


def log_at(level: str) -> None:
    """Configure logging at ``level``, also for the loggers already used (structlog caches
    a logger at its first use)."""
    configure_logging(level)
    for module in (server.app, server.accounts, server.connection):
        module.log.__dict__.pop("bind", None)  # (the cached one: the next use rebuilds it)


async def test_no_password_is_stored_or_logged(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    secret, other = "Plaintext-Sekrit-1", "Second-Sekrit-22"
    store = SqliteStore(tmp_path / "arena.sqlite3")
    server = ArenaServer(store)
    log_at("debug")
    try:
        await server.start("127.0.0.1", 0)
        zoe, signed = await sign_up(server, "zoe", secret)
        client = await guest(server)
        await ask(client, "sign_in", name="zoe", password="Wrong-Sekrit-333")
        await ask(zoe, "change_password", old=secret, new=other)
        await server.close()
    finally:
        log_at("warning")
        store.close()
    logs = capsys.readouterr()
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    for text in (secret, other, "Wrong-Sekrit-333", signed["login_token"]):
        assert text.encode() not in data
        assert text not in logs.err and text not in logs.out
    assert b"$argon2id$" in data and '"signed_up"' in logs.err


async def test_the_command_line_makes_a_person_s_bot_that_the_person_then_manages(
        server: ArenaServer, capsys: pytest.CaptureFixture[str]) -> None:
    zoe, _ = await sign_up(server, "zoe")
    db = server.store.path  # type: ignore[attr-defined]
    made = await asyncio.to_thread(main, ["account", "create", "zoes-cli-bot", "--kind", "bot",
                                          "--owner", "zoe", "--db", db])
    assert made == 0
    refused_owner = await asyncio.to_thread(
        main, ["account", "create", "x-bot", "--kind", "bot", "--owner", "nobody", "--db", db])
    assert refused_owner == 1
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["account", "list", "--db", db]) == 0
    assert any(line.startswith("zoes-cli-bot") and line.endswith("owner zoe")
               for line in capsys.readouterr().out.splitlines())
    listed = await ask(zoe, "list_my_bots")
    assert [b["name"] for b in listed["bots"]] == ["zoes-cli-bot"]
    assert (await ask(zoe, "rotate_bot_token", bot="zoes-cli-bot"))["type"] == "bot_token"
