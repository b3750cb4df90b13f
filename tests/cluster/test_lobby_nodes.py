"""The lobby across nodes: a house bot connected to one node is listed and played from
another; seeks pair across nodes and are cancelled everywhere."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib

import orjson
import pytest
from websockets.exceptions import ConnectionClosed

from clients.connection import ArenaError, Connection, connect
from server.app import ArenaServer
from server.lobby import MatchSpec
from tests.cluster.helpers import play_out, seek_pair
from tests.server_tests.wsclient import WsClient


async def test_a_house_bot_of_another_node(three_nodes: list[ArenaServer]) -> None:
    a, b, _ = three_nodes
    token = await asyncio.to_thread(b.store.create_account, "house-far", "bot", house=True)
    bot = await connect(b.ws_url, token)
    await bot.autoplay(["battleline"], 2, bot="far", version="1")
    person = await connect(a.ws_url, name="person")
    for _ in range(50):  # the bot is listed once node b has renewed its presence
        listed = await person.request("list_bots", game="battleline")
        if listed["bots"]:
            break
        await asyncio.sleep(0.1)
    assert [(e["account"], e["bot"], e["free"]) for e in listed["bots"]] == \
        [("house-far", "far", 2)]
    start = await person.play_bot("battleline", bot="far")
    assert start["type"] == "match_start" and start["seats"][1 - start["your_seat"]][
        "name"] == "house-far"
    match_id = start["match_id"]
    assert match_id in a.live  # hosted where the person asked; the bot's seat is remote
    ends = await asyncio.wait_for(asyncio.gather(play_out(person, match_id),
                                                 play_out(bot, match_id)), 60)
    assert ends[0]["outcome"] == ends[1]["outcome"]
    await asyncio.sleep(0.2)
    resume = bot.session.session_token
    assert resume is not None
    held = b.sessions.get(resume)
    assert held is not None and not held.seats  # its home forgot the seat
    with_no_bot = await connect(a.ws_url, name="nobody")
    try:
        await with_no_bot.play_bot("chexers")
        raise AssertionError("a game no bot plays was started")
    except ArenaError as exc:
        assert exc.code == "not_found"
    for conn in (bot, person, with_no_bot):
        await conn.close()


async def test_seeks_pair_across_nodes_and_cancel(three_nodes: list[ArenaServer]) -> None:
    a, b, c = three_nodes
    one = await connect(a.ws_url, name="one")
    two = await connect(b.ws_url, name="two")
    three = await connect(c.ws_url, name="three")
    seek = await one.seek("battleline", options={})
    again = await one.seek("battleline", options={})
    assert again == seek  # one seek per session per spec, wherever it waits
    await one.cancel_seek(seek)
    await two.seek("battleline")
    await three.seek("battleline")
    ends = await asyncio.wait_for(asyncio.gather(play_out(two), play_out(three)), 60)
    assert ends[0]["match_id"] == ends[1]["match_id"]
    for conn in (one, two, three):
        await conn.close()


async def test_every_node_lists_every_nodes_matches(three_nodes: list[ArenaServer]) -> None:
    a, b, c = three_nodes
    one = await connect(a.ws_url, name="one")
    two = await connect(a.ws_url, name="two")
    match_id = await seek_pair(one, two)
    assert match_id in a.live
    far = await connect(c.ws_url, name="far")
    for _ in range(50):  # nodes share their listings every second
        listed, _ = await far.list_matches()
        if any(m["match_id"] == match_id for m in listed):
            break
        await asyncio.sleep(0.1)
    entry = next(m for m in listed if m["match_id"] == match_id)
    assert entry["status"] == "live" and {s["name"] for s in entry["seats"]} == {
        one.account["name"], two.account["name"]}  # type: ignore[index]
    watched = await far.spectate(match_id)  # and watches it from there
    assert watched["type"] == "match_start" and watched["match_id"] == match_id
    for conn in (one, two, far):
        await conn.close()


async def test_a_house_bot_that_moves_node_stays_a_house_bot(
        three_nodes: list[ArenaServer]) -> None:
    a, b, c = three_nodes
    token = await asyncio.to_thread(b.store.create_account, "house-mover", "bot", house=True)
    bot = await connect(b.ws_url, token)
    await bot.autoplay(["battleline"], 1, bot="mover", version="1")
    session = bot.session.session_token
    bot.url = c.ws_url  # its next connection lands on node c ...
    held = b.sessions.get(session)  # type: ignore[arg-type]
    assert held is not None and held.connection is not None
    held.connection.drop(1001, "going away")  # ... as when node b goes away
    await bot.wait_connected(10)
    for _ in range(100):
        if c.sessions.get(session) is not None and bot.reconnects:  # type: ignore[arg-type]
            break
        await asyncio.sleep(0.05)
    assert bot.session.session_token == session  # resumed, same session, on node c
    moved = c.sessions.get(session)  # type: ignore[arg-type]
    assert moved is not None and moved.autoplay is not None  # its offer came along
    person = await connect(a.ws_url, name="person")
    for _ in range(50):
        listed = await person.request("list_bots", game="battleline")
        if listed["bots"] and listed["bots"][0]["free"] == 1:
            break
        await asyncio.sleep(0.1)
    start = await person.play_bot("battleline", bot="mover")
    assert start["type"] == "match_start"
    ends = await asyncio.wait_for(asyncio.gather(play_out(person, start["match_id"]),
                                                 play_out(bot, start["match_id"])), 60)
    assert ends[0]["outcome"] == ends[1]["outcome"]
    for conn in (bot, person):
        await conn.close()


async def test_a_seek_left_by_a_dead_node_is_not_paired(
        three_nodes: list[ArenaServer]) -> None:
    a, b, _ = three_nodes
    node = a.cluster
    assert node is not None
    spec_key = hashlib.sha1(MatchSpec.parse("battleline").key.encode()).hexdigest()
    ghost = {"h": "0" * 64, "n": "ghost", "name": "ghost", "kind": "guest", "v": False,
             "l": False, "e": "json", "c": True, "s": "ghost-seek"}
    await node.r.rpush(node.key("seeks", spec_key), orjson.dumps(ghost))
    one = await connect(a.ws_url, name="one")
    two = await connect(b.ws_url, name="two")
    await one.seek("battleline")  # not with the ghost: its node is not alive
    await two.seek("battleline")
    ends = await asyncio.wait_for(asyncio.gather(play_out(one), play_out(two)), 60)
    assert ends[0]["match_id"] == ends[1]["match_id"]
    assert await node.r.llen(node.key("seeks", spec_key)) == 0
    for conn in (one, two):
        await conn.close()


async def test_lean_delivery_to_a_seat_on_another_node(three_nodes: list[ArenaServer]) -> None:
    """A lean bot whose match is hosted on another node: one frame per decision, its events
    riding in its requests, as on one node."""
    a, b, _ = three_nodes
    lean = await WsClient.open(a.ws_url)
    assert (await lean.hello(name="lean", lean=True))["lean"] is True
    other = await connect(b.ws_url, name="other")
    ref = await lean.send({"type": "seek", "game": "battleline"})
    assert (await lean.expect_reply(ref))["type"] == "seeking"
    await other.seek("battleline")
    opponent = asyncio.create_task(play_out(other))
    kinds: list[str] = []
    carried = 0
    while True:
        message = await lean.recv(timeout=30)
        kinds.append(message["type"])
        carried += len(message.get("events") or []) if message["type"] != "events" else 0
        if message["type"] == "request":
            await lean.send({"type": "action", "match_id": message["match_id"],
                             "request_id": message["request_id"],
                             "action": message["legal_actions"][0]})
        elif message["type"] == "match_end":
            break
    await asyncio.wait_for(opponent, 30)
    assert "events" not in kinds and kinds.count("request") > 5
    assert carried >= kinds.count("request") - 1  # every decision after the first carries some
    await lean.close()
    await other.close()


async def test_a_challenge_across_nodes(three_nodes: list[ArenaServer]) -> None:
    """A challenge made on one node reaches the invited account on another; its accept
    (or decline) there is answered by the challenger's node, which hosts the match."""
    a, b, _ = three_nodes
    tokens = [await asyncio.to_thread(a.store.create_account, name, "human")
              for name in ("chal", "lenger", "shy")]
    chal = await connect(a.ws_url, tokens[0])
    lenger = await connect(b.ws_url, tokens[1])
    shy = await connect(b.ws_url, tokens[2])
    await asyncio.sleep(1.2)  # the nodes' heartbeats say who is connected where
    sent = await chal.challenge(["lenger"], "battleline")
    invite = await lenger.next_message(timeout=10)
    while invite["type"] != "challenge":
        invite = await lenger.next_message(timeout=10)
    assert invite["challenge_id"] == sent and invite["from"] == "chal"
    await lenger.accept(sent)
    ends = await asyncio.wait_for(asyncio.gather(play_out(chal), play_out(lenger)), 60)
    assert ends[0]["match_id"] == ends[1]["match_id"] and ends[0]["match_id"] in a.recent

    refused = await chal.challenge(["shy"], "battleline")
    await shy.decline(refused)
    notice = await chal.next_message(timeout=10)
    while notice["type"] != "challenge_declined":
        notice = await chal.next_message(timeout=10)
    assert notice == {"type": "challenge_declined", "challenge_id": refused, "by": "shy"}
    try:
        await chal.challenge(["nobody-at-all"], "battleline")
        raise AssertionError("a challenge to an account connected nowhere was sent")
    except ArenaError as exc:
        assert exc.code == "not_found"
    for conn in (chal, lenger, shy):
        await conn.close()



async def test_an_admin_on_one_node_aborts_and_bans_on_the_others(
        three_nodes: list[ArenaServer]) -> None:
    a, b, c = three_nodes
    one = await connect(a.ws_url, name="one")
    two = await connect(a.ws_url, name="two")
    match_id = await seek_pair(one, two)
    assert match_id in a.live
    token = await asyncio.to_thread(c.store.create_account, "root", "admin")
    admin = await connect(c.ws_url, token)  # on node c; the match is hosted on node a
    with pytest.raises(ArenaError) as nowhere:
        await admin.request("abort_match", match_id="m-nowhere")
    assert nowhere.value.code == "not_found"
    done = await admin.request("abort_match", match_id=match_id, reason="testing")
    assert done["type"] == "ok", done
    for seat in (one, two):
        end = await seat.next_message(timeout=10)
        while end["type"] != "match_end":
            end = await seat.next_message(timeout=10)
        assert end["outcome"] == {"ranks": [0, 0], "reason": "aborted"}, end
    with pytest.raises(ArenaError) as over:
        await admin.request("abort_match", match_id=match_id)
    assert over.value.code == "not_found"

    rogue_token = await asyncio.to_thread(b.store.create_account, "rogue", "bot")
    rogue = await WsClient.open(b.ws_url)  # its session lives on node b
    assert (await rogue.hello(token=rogue_token))["type"] == "welcome"
    banned = await admin.request("ban_account", account="rogue", reason="abuse")
    assert banned["type"] == "ok"
    with pytest.raises(ConnectionClosed):  # closed by node b, told by node c
        while True:
            await rogue.recv(timeout=10)
    assert rogue.ws.close_code == 1008
    assert not b.sessions.of_account("rogue")
    for conn in (one, two, admin):
        await conn.close()


async def chat_lines(conn: Connection, wait: float = 1.0) -> list[tuple[str, str, str]]:
    """The ``chat_line`` messages ``conn`` receives until ``wait`` seconds pass without one
    (other messages, and the replies to its own lines, skipped): (channel, from, text)
    each."""
    lines = []
    with contextlib.suppress(TimeoutError):
        while True:
            message = await conn.next_message(timeout=wait)
            if message["type"] == "chat_line" and "ref" not in message:
                lines.append((message["channel"], message["from"], message["text"]))
    return lines


async def test_chat_reaches_the_seats_and_spectators_of_a_match_on_every_node(
        three_nodes: list[ArenaServer]) -> None:
    a, b, c = three_nodes
    one = await connect(a.ws_url, name="one")
    two = await connect(b.ws_url, name="two")  # one seat on node a, one on node b
    match_id = await seek_pair(one, two)
    assert match_id in b.live  # paired where the second seek came: one's seat is remote
    watchers = [await connect(node.ws_url, name=f"watcher-{node.cluster.node_id}")  # type: ignore[union-attr]
                for node in (a, c)]
    for watcher in watchers:
        assert (await watcher.spectate(match_id))["match_id"] == match_id
    names = {conn: conn.account["name"] for conn in (one, two, *watchers)}  # type: ignore[index]
    mine = await two.request("chat", match_id=match_id, text="good luck")
    assert mine["type"] == "chat_line" and mine["channel"] == "players"
    back = await one.request("chat", match_id=match_id, text="you too")  # a remote seat
    assert back["type"] == "chat_line" and back["channel"] == "players"
    said = await watchers[1].request("chat", match_id=match_id, text="from node c")
    assert said["channel"] == "spectators"
    heard = {conn: await chat_lines(conn) for conn in (one, two, *watchers)}
    assert heard[one] == [("players", names[two], "good luck")]
    assert heard[two] == [("players", names[one], "you too")]
    assert heard[watchers[0]] == [("spectators", names[watchers[1]], "from node c")]
    assert heard[watchers[1]] == []  # never the players' line
    # A limit refused on the host reaches the client on its node, typed, with retry_after.
    with pytest.raises(ArenaError) as too_long:
        await two.request("chat", match_id=match_id, text="x" * 501)
    assert too_long.value.code == "too_large"
    # Mute, sent from node a for a match it hosts or not, holds for the muter only.
    muted = await watchers[0].request("mute", match_id=match_id, account=names[watchers[1]])
    assert muted["type"] == "ok"
    await watchers[1].request("chat", match_id=match_id, text="muted?")
    assert await chat_lines(watchers[0]) == []
    with pytest.raises(ArenaError) as nowhere:
        await watchers[1].request("chat", match_id="m-nowhere", text="hello")
    assert nowhere.value.code == "not_found"
    for conn in (one, two, *watchers):
        await conn.close()
