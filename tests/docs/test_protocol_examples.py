"""PROTOCOL.md works as written: every client example of section 4 is sent, as written, to a
live server set up like ``arena run`` (ArenaServer on a SQLite file, house bots as separate
``arena bot`` processes started by tools/commands/run.py's own functions), and must get the
reply that its section's "Reply:" line names first.

Only the shortened stand-in ids of the examples (``"cx-91d4e0"``, ``"q1"``, a token …) are
replaced, by the live ids of the matches, requests, seeks and sessions the earlier steps made
(PROTOCOL.md, "Ids and names"); everything else is sent byte for byte. Match seeds are fixed
(7) so that the example actions are legal in the live positions. The transcripts of section 12
are checked elsewhere (tests/protocol/test_protocol_doc.py: schema, coherence, and the Chexers
one against the engine).

The second test records what a resuming client receives, in order (section 9).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from protocol.messages import CLIENT_TYPES, SERVER_TYPES
from server.app import ArenaServer
from server.logs import configure_logging
from server.storage import SqliteStore
from tests.protocol.test_protocol_doc import (
    JSON_BLOCKS,
    direction_of,
    message_type_of,
    sections_of,
)
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient
from tools.commands.run import (
    HouseBot,
    ensure_accounts,
    house_bots,
    house_processes,
    stop_bot,
    supervise,
)

configure_logging("warning")
ROOT = Path(__file__).resolve().parents[2]
HOUSE_BOTS = "random,random"
HOUSE_GAMES = ["battleline", "chexers", "boundary"]
SEED = 7

EXAMPLES = [b for b in JSON_BLOCKS
            if direction_of(b.h2) == "client" and message_type_of(b.h3) is not None]


def documented_reply(kind: str) -> str:
    """The first message type its section's "Reply:" line names: the documented answer."""
    section = sections_of("client")[kind]
    line = next(line for line in section.splitlines() if line.startswith("Reply:"))
    named = [name for name in re.findall(r"`(\w+)`", line) if name in SERVER_TYPES]
    assert named, f"{kind}: the Reply line names no server message: {line}"
    return named[0]


def test_every_client_message_type_has_an_example_and_a_documented_reply() -> None:
    assert {message_type_of(b.h3) for b in EXAMPLES} == set(CLIENT_TYPES)
    for kind, spec in CLIENT_TYPES.items():
        reply = documented_reply(kind)
        # the catalogue agrees with the doc (an action's success answer is its events)
        assert reply in spec.replies, (kind, reply, spec.replies)


# ---- the stage: a server like `arena run`, its house bots, and the people of the examples ----


@dataclass
class Stage:
    server: ArenaServer
    tokens: dict[str, str]
    people: dict[str, WsClient] = field(default_factory=dict)
    live: dict[str, Any] = field(default_factory=dict)   # an example's stand-in -> live value
    opened: list[WsClient] = field(default_factory=list)

    async def person(self, name: str, kind: str = "human") -> WsClient:
        """The logged-in client of account ``name`` (created on first use)."""
        if name not in self.people:
            token = await asyncio.to_thread(self.server.store.create_account, name, kind)
            self.tokens[name] = token
            client = await self.connect()
            assert (await client.hello(token=token))["type"] == "welcome"
            self.people[name] = client
        return self.people[name]

    async def connect(self) -> WsClient:
        client = await WsClient.open(self.server.ws_url)
        self.opened.append(client)
        return client

    async def match_against_house(self, stand_in: str, request_stand_in: str,
                                  game: str, **fields: Any) -> None:
        """ann plays the house bot ``random`` (seat 0); remember the match and her first
        request under the examples' stand-ins."""
        if stand_in in self.live:
            return
        ann = await self.person("ann")
        ref = await ann.send({"type": "play_bot", "game": game, "bot": "random", **fields})
        start = await ann.expect_reply(ref)
        assert start["type"] == "match_start", start
        request = await ann.expect("request", match_id=start["match_id"])
        ann.discard_unread()
        self.live[stand_in] = start["match_id"]
        self.live[request_stand_in] = request["request_id"]


def substituted(value: Any, live: dict[str, Any]) -> Any:
    """``value`` with every string that is a stand-in replaced by its live value."""
    if isinstance(value, str):
        return live.get(value, value)
    if isinstance(value, list):
        return [substituted(v, live) for v in value]
    if isinstance(value, dict):
        return {k: substituted(v, live) for k, v in value.items()}
    return value


@pytest.fixture
async def stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Stage]:
    """`arena run`'s set-up (run_main_job), with two random house bots and fixed seeds."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the bot processes import this checkout
    store = SqliteStore(tmp_path / "arena.sqlite3")
    server = ArenaServer(store, seeds=lambda: SEED)
    bots = house_bots(HOUSE_BOTS)
    await asyncio.to_thread(ensure_accounts, store, bots)
    await server.start("127.0.0.1", 0)
    processes: list[HouseBot] = house_processes(bots, HOUSE_GAMES)
    supervisors = [asyncio.create_task(supervise(p, server.ws_url, 8, "warning"))
                   for p in processes]
    the_stage = Stage(server, {})
    try:
        yield the_stage
    finally:
        for client in the_stage.opened:
            await client.close()
        for task in supervisors:
            task.cancel()
        await asyncio.gather(*supervisors, return_exceptions=True)
        await asyncio.gather(*(stop_bot(p) for p in processes))
        await server.close()
        store.close()


async def house_bots_online(stage: Stage) -> list[dict[str, Any]]:
    """Ask list_bots until both house bots offer every game (their processes take a moment
    to start and connect)."""
    ann = await stage.person("ann")
    for _ in range(300):
        ref = await ann.send({"type": "list_bots"})
        listing = await ann.expect_reply(ref)
        found = [b for b in listing["bots"] if b["account"].startswith("house-random-")]
        if len(found) == 2 and all(b["games"] == sorted(HOUSE_GAMES) for b in found):
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"the house bots never came online: {listing}")


# ---- per message type: who sends the example, and what must be live first ---------------------

Prepare = Callable[[Stage, dict[str, Any]], Awaitable[WsClient]]


async def from_ann(stage: Stage, example: dict[str, Any]) -> WsClient:
    return await stage.person("ann")


async def hello(stage: Stage, example: dict[str, Any]) -> WsClient:
    """A fresh connection; the token is ann's, the resume token a session left earlier."""
    await stage.person("ann")
    stage.live["tA9x-3hQf0WmZ7cK2vLr"] = stage.tokens["ann"]
    if "resume" in example:
        earlier = await stage.connect()
        welcome = await earlier.hello(name="earlier")
        await earlier.close()
        stage.live[example["resume"]] = welcome["session"]
    return await stage.connect()


async def cancel_seek(stage: Stage, example: dict[str, Any]) -> WsClient:
    assert example["seek_id"] in stage.live, "the seek example comes first and is kept"
    return await stage.person("ann")


async def challenged(stage: Stage, example: dict[str, Any]) -> WsClient:
    """bob answers a live challenge from ann (a new one when the last was taken)."""
    ann, bob = await stage.person("ann"), await stage.person("bob")
    challenge_id = stage.live.get(example["challenge_id"])
    if challenge_id is None or challenge_id not in stage.server.lobby.challenges:
        ref = await ann.send({"type": "challenge", "accounts": ["bob"], "game": "battleline"})
        challenge_id = (await ann.expect_reply(ref))["challenge_id"]
    await bob.expect("challenge", challenge_id=challenge_id)
    stage.live[example["challenge_id"]] = challenge_id
    return bob


async def from_bob_online(stage: Stage, example: dict[str, Any]) -> WsClient:
    await stage.person("bob")  # the invited account is connected
    return await stage.person("ann")


async def from_bot_account(stage: Stage, example: dict[str, Any]) -> WsClient:
    zoe = await stage.person("zoe-bots", "bot")
    seed_from = example.get("seed_from_version")
    if seed_from is not None:  # that earlier version must exist: join with it first
        earlier = {k: v for k, v in example.items() if k != "seed_from_version"}
        ref = await zoe.send({**earlier, "id": "earlier", "version": seed_from})
        assert (await zoe.expect_reply(ref))["type"] == "ladder_joined"
    return zoe


async def with_live_matches(stage: Stage, example: dict[str, Any]) -> WsClient:
    """The matches the action, spectate, resign and replay examples name: ann against the
    house in Battle Line, Chexers and the Boundary variant of the example."""
    await stage.match_against_house("bl-5f2a9c", "q1", "battleline")
    await stage.match_against_house("cx-91d4e0", "c1", "chexers")
    await stage.match_against_house("bd-3f9a1c", "b1", "boundary",
                                    options={"pieces": 2, "treasures": 3})
    if example["type"] in ("spectate", "leave"):
        return await stage.person("sam")
    return await stage.person("ann")


async def from_admin(stage: Stage, example: dict[str, Any]) -> WsClient:
    """An admin account; what it acts on exists: a live match of ann's against the house
    for ``abort_match`` (the resign example ended the earlier one), the account to ban."""
    admin = await stage.person("root", "admin")
    if example["type"] == "abort_match":
        ann = await stage.person("ann")
        ref = await ann.send({"type": "play_bot", "game": "battleline", "bot": "random"})
        start = await ann.expect_reply(ref)
        assert start["type"] == "match_start", start
        ann.discard_unread()
        stage.live[example["match_id"]] = start["match_id"]
    else:
        await stage.person(example["account"], "bot")
    return admin


PERSON = "maya"
"""The person of the account examples (section 16); its password is kept in ``stage.live``."""


async def as_person(stage: Stage, example: dict[str, Any]) -> WsClient:
    """``sign_up`` and ``sign_in``: a fresh guest; ``sign_out``: a browser signed in just for
    it; the account page's messages: the person's signed-in browser."""
    client = await stage.connect()
    assert (await client.hello(name="visitor"))["type"] == "welcome"
    if example["type"] in ("sign_up", "sign_in"):
        return client
    if example["type"] != "sign_out" and PERSON in stage.people:
        return stage.people[PERSON]
    ref = await client.send({"type": "sign_in", "name": PERSON,
                             "password": stage.live["password"]})
    assert (await client.expect_reply(ref))["type"] == "signed_in"
    if example["type"] != "sign_out":
        stage.people[PERSON] = client
    return client


async def tournament_entrants(stage: Stage, example: dict[str, Any]) -> WsClient:
    """Enough entrants for the example's Swiss (three rounds: four people) in ann's
    tournament; ann, its creator, starts it."""
    for name in ("ann", "bob", "carl", "dee"):
        person = await stage.person(name)
        ref = await person.send({"type": "tournament_join",
                                 "tournament_id": stage.live[example["tournament_id"]]})
        assert (await person.expect_reply(ref))["type"] == "tournament"
    return await stage.person("ann")


PREPARE: dict[str, Prepare] = {
    "sign_up": as_person, "sign_in": as_person, "sign_out": as_person,
    "change_password": as_person, "create_bot": as_person, "rotate_bot_token": as_person,
    "revoke_bot_token": as_person, "list_my_bots": as_person,
    "abort_match": from_admin, "ban_account": from_admin,
    "hello": hello, "cancel_seek": cancel_seek, "challenge": from_bob_online,
    "accept": challenged, "decline": challenged, "autoplay": from_bot_account,
    "ladder_join": from_bot_account, "ladder_leave": from_bot_account,
    "spectate": with_live_matches, "leave": with_live_matches, "action": with_live_matches,
    "resign": with_live_matches, "get_replay": with_live_matches,
    "chat": with_live_matches, "mute": with_live_matches, "rematch": with_live_matches,
    "decline_rematch": with_live_matches,
    "tournament_start": tournament_entrants,
}


def answers_action(message: dict[str, Any], sent: dict[str, Any]) -> bool:
    """The server's answer to ``sent`` (an action): an error naming its request, or the
    events of the step it made (its seat acting, or the simultaneous turn it completed)."""
    if message["type"] == "error":
        return message.get("request_id") == sent["request_id"]
    return message["type"] == "events" and message["match_id"] == sent["match_id"] and any(
        e.get("seat") == 0 or e["type"] == "resolution" for e in message["events"])


async def reply_to(client: WsClient, sent: dict[str, Any]) -> dict[str, Any]:
    if sent["type"] == "action":  # success has no ref: the step's events are the answer
        return await client.expect_where(lambda m: answers_action(m, sent))
    if "id" in sent:
        return await client.expect_reply(sent["id"])
    # without an id only a hello's answer can be told: the first message of its connection
    assert sent["type"] == "hello", f"an example without id: {sent}"
    return await client.recv()


def check_fields(stage: Stage, sent: dict[str, Any], reply: dict[str, Any]) -> None:
    """Key fields of the documented reply."""
    kind = sent["type"]
    if kind == "hello":
        if "name" in sent and "token" not in sent:
            assert re.fullmatch(re.escape(sent["name"]) + r"#[0-9a-f]{4}",
                                reply["account"]["name"]), reply["account"]
            assert reply["account"]["kind"] == "guest"
        if "token" in sent:
            assert reply["account"] == {"name": "ann", "kind": "human"}
        if "resume" in sent:
            assert reply["session"] == sent["resume"]
        assert reply.get("views", False) is bool(sent.get("views"))
        assert reply.get("lean", False) is bool(sent.get("lean"))
        assert re.fullmatch(r"[A-Za-z0-9_-]{32}", reply["session"])
    elif kind == "list_bots":
        houses = [b for b in reply["bots"] if b["account"].startswith("house-random-")]
        assert len(houses) == 2 and all(b["bot"] == "random" and b["online"]
                                        for b in houses), reply
    elif kind == "seek":
        assert re.fullmatch(r"[0-9a-f]{16}", reply["seek_id"]) and reply["game"] == sent["game"]
        stage.live.setdefault("k-4b1f", reply["seek_id"])
    elif kind == "challenge":
        assert re.fullmatch(r"[0-9a-f]{16}", reply["challenge_id"])
        stage.live["ch-1c9e"] = reply["challenge_id"]
    elif kind == "play_bot":
        assert re.fullmatch(r"[0-9a-f]{16}", reply["match_id"])
        assert reply["your_seat"] == 0 and reply["seats"][1]["kind"] == "bot"
        assert re.fullmatch(r"house-random-[12]", reply["seats"][1]["name"]), reply["seats"]
    elif kind == "autoplay":
        assert sent["bot"] == "hexer"  # and list_bots shows it: checked by the caller
    elif kind == "spectate":
        assert reply["your_seat"] is None and reply["match_id"] == sent["match_id"]
    elif kind == "action":
        assert re.fullmatch(r"[0-9a-f]{24}", sent["request_id"])
    elif kind == "resign":
        assert reply["outcome"]["reason"] == "resignation"
    elif kind == "get_replay":
        assert reply["match_id"] == sent["match_id"]
    elif kind == "chat":
        assert reply["channel"] == "players" and reply["text"] == sent["text"]
    elif kind == "sign_up":
        assert reply["account"] == {"name": sent["name"], "kind": "human"}
        stage.live["password"] = sent["password"]
    elif kind == "change_password":
        stage.live["password"] = sent["new"]
    elif kind in ("create_bot", "rotate_bot_token"):
        assert reply["bot"] == sent.get("name", sent.get("bot"))
        assert reply["token"].startswith("arena_")
    elif kind == "ladder_join":
        assert reply["seeded_from"] == sent.get("seed_from_version")
    elif kind == "tournament_create":
        assert reply["status"] == "open" and reply["creator"] == "ann"
        stage.live["tn-7c1e2a"] = reply["tournament_id"]
    elif kind == "tournament_start":
        assert reply["status"] == "running" and len(reply["pairings"]) == 2


async def test_every_request_example_gets_its_documented_reply(stage: Stage) -> None:
    await house_bots_online(stage)
    outcomes: list[str] = []
    for block in EXAMPLES:
        example = json.loads(block.text)
        kind = example["type"]
        client = await PREPARE.get(kind, from_ann)(stage, example)
        sent = substituted(example, stage.live)
        await client.send_raw(json.dumps(sent))  # as written: no id added
        reply = await reply_to(client, sent)
        expected = documented_reply(kind)
        where = f"PROTOCOL.md line {block.line} ({kind})"
        assert reply["type"] == expected, f"{where}: expected {expected}, got {reply}"
        check_fields(stage, sent, reply)
        outcomes.append(f"{where} -> {reply['type']}")
    assert len(outcomes) == len(EXAMPLES)
    # The autoplay example's bot is listed under the name it gave.
    ann = await stage.person("ann")
    ref = await ann.send({"type": "list_bots", "game": "chexers"})
    listed = {b["account"]: b for b in (await ann.expect_reply(ref))["bots"]}
    assert listed["zoe-bots"]["bot"] == "hexer" and listed["zoe-bots"]["version"] == "0.3"
    assert listed["zoe-bots"]["games"] == ["chexers"]


# ---- section 9: what a resuming client receives, in order ---------------------------------------


async def messages_until_request(client: WsClient) -> list[dict[str, Any]]:
    out = [await client.recv()]
    while out[-1]["type"] != "request":
        out.append(await client.recv())
    return out


async def test_resume_order_is_the_documented_one(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "arena.sqlite3")
    server = ArenaServer(store, seeds=lambda: SEED)
    await server.start("127.0.0.1", 0)
    clients: list[WsClient] = []
    try:
        ann, bob, carl, dee = [await account_client(server, name, "human")
                               for name in ("ann", "bob", "carl", "dee")]
        clients += [ann, bob, carl, dee]
        played = await challenge_match(ann, [bob], "battleline")
        watched = await challenge_match(carl, [dee], "battleline")
        request = await ann.expect("request", match_id=played)
        ref = await ann.send({"type": "spectate", "match_id": watched})
        assert (await ann.expect_reply(ref))["type"] == "match_start"
        assert ann.welcome is not None
        session = ann.welcome["session"]

        # The connection drops and the server notices: the seat is in its grace period.
        await ann.close()
        await bob.expect_where(lambda m: m["type"] == "events" and any(
            e == {"type": "disconnected", "seat": 0} for e in m["events"]))
        back = await WsClient.open(server.ws_url)
        clients.append(back)
        await back.send({"type": "hello", "protocol": 1, "resume": session})
        got = await messages_until_request(back)
        got.append(await back.recv())
        assert [m["type"] for m in got] == ["welcome", "events", "match_start", "request",
                                            "match_start"]
        welcome, reconnected, start, again, spectating = got
        assert welcome["session"] == session
        assert reconnected["events"] == [{"type": "reconnected", "seat": 0}]
        assert start["match_id"] == played and start["seq"] == reconnected["seq"]
        assert "ref" not in start
        assert again["request_id"] == request["request_id"]
        assert spectating["match_id"] == watched and spectating["your_seat"] is None

        # Resumed while the old connection is still open: it is closed (1000), and the
        # seat never counted as away: no reconnected event.
        third = await WsClient.open(server.ws_url)
        clients.append(third)
        await third.send({"type": "hello", "protocol": 1, "resume": session})
        got = await messages_until_request(third)
        assert [m["type"] for m in got] == ["welcome", "match_start", "request"]
        await back.ws.wait_closed()
        assert back.ws.protocol.close_code == 1000
    finally:
        for client in clients:
            await client.close()
        await server.close()
        store.close()
