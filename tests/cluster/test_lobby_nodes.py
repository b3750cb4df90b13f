"""The lobby across nodes: a house bot connected to one node is listed and played from
another; seeks pair across nodes and are cancelled everywhere."""

from __future__ import annotations

import asyncio
from typing import Any

from clients.connection import ArenaError, Connection, connect
from server.app import ArenaServer


async def play_out(conn: Connection, match_id: str | None = None) -> dict[str, Any]:
    """Answer every request with the first legal action until the match ends."""
    async for message in conn:
        if match_id is not None and message.get("match_id") not in (None, match_id):
            continue
        if message["type"] == "request":
            await conn.act(message, message["legal_actions"][0])
        elif message["type"] == "match_end":
            return dict(message)
    raise AssertionError("the stream ended before the match did")


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
    await one.seek("battleline")
    await two.seek("battleline")
    start = await one.next_message(timeout=10)
    while start["type"] != "match_start":
        start = await one.next_message(timeout=10)
    match_id = start["match_id"]
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
