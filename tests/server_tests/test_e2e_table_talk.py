"""At the table, end to end through a real server: rematches (seats swapped or rotated,
offers that lapse) and the match chat (players' and spectators' channels kept apart, floods,
oversized and empty lines, mute)."""

from __future__ import annotations

from typing import Any

from server.app import ArenaServer
from server.chat import CHAT_LINES, MAX_CHAT_CHARS
from tests.server_tests.helpers import challenge_match
from tests.server_tests.wsclient import WsClient


async def guest(server: ArenaServer, name: str) -> WsClient:
    client = await WsClient.open(server.ws_url)
    assert (await client.hello(name=name))["type"] == "welcome"
    return client


def name_of(client: WsClient) -> str:
    assert client.welcome is not None
    return str(client.welcome["account"]["name"])


async def ask(client: WsClient, message: dict[str, Any]) -> dict[str, Any]:
    return await client.expect_reply(await client.send(message))


async def settle(*clients: WsClient) -> None:
    """Every message the server sent these clients before now has been read (a ping's pong
    comes after them)."""
    for client in clients:
        assert (await ask(client, {"type": "ping"}))["type"] == "pong"


def lines_of(client: WsClient) -> list[tuple[str, str, str]]:
    return [(m["channel"], m["from"], m["text"]) for m in client.received
            if m["type"] == "chat_line"]


async def resigned(client: WsClient, match_id: str, others: list[WsClient]) -> None:
    assert (await ask(client, {"type": "resign", "match_id": match_id}))["type"] == "match_end"
    for other in others:
        await other.expect("match_end", match_id=match_id)


async def test_a_rematch_swaps_the_seats(server: ArenaServer) -> None:
    ann, bob, sam = [await guest(server, n) for n in ("ann", "bob", "sam")]
    first = await challenge_match(ann, [bob], "race")
    refused = await ask(ann, {"type": "rematch", "match_id": first})
    assert refused["code"] == "bad_request"                       # not over yet
    await resigned(ann, first, [bob])
    assert (await ask(sam, {"type": "rematch", "match_id": first}))["code"] == "not_found"
    assert (await ask(ann, {"type": "rematch", "match_id": "0" * 16}))["code"] == "not_found"

    assert (await ask(ann, {"type": "rematch", "match_id": first}))["type"] == "ok"
    offered = await bob.expect("rematch_offered", match_id=first)
    assert offered["by"] == name_of(ann) and offered["seats"] == [0]
    assert (await ask(bob, {"type": "rematch", "match_id": first}))["type"] == "ok"
    again = [await c.expect("match_start") for c in (ann, bob)]
    second = again[0]["match_id"]
    assert second != first and again[1]["match_id"] == second
    assert [s["your_seat"] for s in again] == [1, 0]              # swapped
    assert [s["name"] for s in again[0]["seats"]] == [name_of(bob), name_of(ann)]
    assert again[0]["options"] == {"target": 10} and again[0]["game"] == "race"
    late = await ask(ann, {"type": "rematch", "match_id": first})
    assert late["code"] == "bad_request" and late["details"]["rematch"] == second
    assert server.find_match(second) is not None

    # An offer lapses when a seat declines, and when a seat's connection is lost.
    await resigned(bob, second, [ann])
    assert (await ask(bob, {"type": "decline_rematch", "match_id": second}))["code"] \
        == "not_found"                                            # nothing offered yet
    assert (await ask(ann, {"type": "rematch", "match_id": second}))["type"] == "ok"
    assert (await ask(bob, {"type": "decline_rematch", "match_id": second}))["type"] == "ok"
    lapsed = await ann.expect("rematch_declined", match_id=second)
    assert lapsed["by"] == name_of(bob) and lapsed["reason"] == "declined"
    assert (await ask(ann, {"type": "rematch", "match_id": second}))["type"] == "ok"
    await bob.close()
    lapsed = await ann.expect("rematch_declined", match_id=second)
    assert lapsed["reason"] == "left"
    assert len(server.live) == 0                                  # no third match started


async def test_a_three_seat_rematch_rotates_the_seats(server: ArenaServer) -> None:
    a, b, c = [await guest(server, n) for n in "abc"]
    first = await challenge_match(a, [b, c], "race")
    await resigned(a, first, [b, c])
    for client in (a, b, c):
        assert (await ask(client, {"type": "rematch", "match_id": first}))["type"] == "ok"
    starts = [await x.expect("match_start") for x in (a, b, c)]
    assert [s["your_seat"] for s in starts] == [1, 2, 0]          # each one seat on


async def test_players_and_spectators_chat_apart(server: ArenaServer) -> None:
    ann, bob, sam, zed = [await guest(server, n) for n in ("ann", "bob", "sam", "zed")]
    match_id = await challenge_match(ann, [bob], "race")
    assert (await ask(sam, {"type": "spectate", "match_id": match_id}))["type"] == "match_start"

    mine = await ask(ann, {"type": "chat", "match_id": match_id, "text": "  good luck <b>!</b> "})
    assert mine["type"] == "chat_line" and mine["channel"] == "players"
    assert mine["from"] == name_of(ann) and mine["text"] == "good luck <b>!</b>"
    assert (await bob.expect("chat_line"))["text"] == "good luck <b>!</b>"
    watcher = await ask(sam, {"type": "chat", "match_id": match_id, "text": "ann's hand is weak"})
    assert watcher["channel"] == "spectators"
    refused = await ask(zed, {"type": "chat", "match_id": match_id, "text": "hello?"})
    assert refused["code"] == "not_found"                        # neither plays nor watches

    # Bad lines are typed errors, and reach nobody.
    empty = await ask(ann, {"type": "chat", "match_id": match_id, "text": " \n "})
    assert empty["code"] == "bad_request" and empty["details"]["field"] == "text"
    long = await ask(ann, {"type": "chat", "match_id": match_id,
                           "text": "x" * (MAX_CHAT_CHARS + 1)})
    assert long["code"] == "too_large" and long["details"]["limit"] == MAX_CHAT_CHARS
    # A flood: the window's lines pass, the next one is refused with retry_after.
    for n in range(CHAT_LINES - 1):
        said = await ask(sam, {"type": "chat", "match_id": match_id, "text": f"line {n}"})
        assert said["type"] == "chat_line"
    flood = await ask(sam, {"type": "chat", "match_id": match_id, "text": "one too many"})
    assert flood["code"] == "rate_limited" and flood["details"]["budget"] == "chat"
    assert 0 < flood["retry_after"] <= 10

    # Mute: bob stops hearing ann (held by the server), then hears her again.
    assert (await ask(bob, {"type": "mute", "match_id": match_id,
                            "account": name_of(ann)}))["type"] == "ok"
    await ask(ann, {"type": "chat", "match_id": match_id, "text": "muted words"})
    assert (await ask(bob, {"type": "mute", "match_id": match_id, "account": name_of(ann),
                            "muted": False}))["type"] == "ok"
    await ask(ann, {"type": "chat", "match_id": match_id, "text": "heard again"})
    await bob.expect("chat_line", text="heard again")
    assert (await ask(zed, {"type": "mute", "match_id": match_id,
                            "account": name_of(ann)}))["code"] == "not_found"

    # Chat goes on after the match ends (to agree on a rematch, say).
    await resigned(ann, match_id, [bob])
    await ask(bob, {"type": "chat", "match_id": match_id, "text": "gg"})
    await settle(ann, bob, sam)
    players = [("players", name_of(ann), "good luck <b>!</b>"),
               ("players", name_of(ann), "heard again"), ("players", name_of(bob), "gg")]
    assert lines_of(bob) == players                              # no spectators' line
    assert lines_of(ann) == [*players[:1], ("players", name_of(ann), "muted words"),
                             *players[1:]]
    assert [line[0] for line in lines_of(sam)] == ["spectators"] * CHAT_LINES
    assert all(m.get("channel") != "spectators" for m in ann.received + bob.received)
