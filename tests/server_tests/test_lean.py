"""Lean delivery (``hello.lean``), end to end on a real server with real websocket clients.

A lean session gets no ``events`` frames for its seats: the events ride in the seat's next
``request`` (or its ``match_end``), field ``events``, one batch ``{seq, events, clocks_ms}``
per events message it stands for. Each game is played twice with the same match seed and
the same seeded players, once with every seat plain and once with some seats lean: a lean
seat's embedded batches, concatenated, are exactly the events messages the plain seat got
(no more, no fewer, in order, each one by the request that followed it); its requests and
its match_end are otherwise the same messages; the other seats' traffic does not change;
and the lean seat got one frame per decision, plus its match_start and match_end.

Then: welcome says whether lean is on and a non-boolean ``lean`` is refused; a lean
session with views; a lean seat whose connection drops mid-match and resumes; one lean
session in several seats of several matches; spectators get events whatever they asked.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from engine import spaces
from engine.rng import Rng
from protocol.messages import Limits
from server.app import ArenaServer
from server.audience import Audience
from server.sessions import Session
from server.storage import SqliteStore
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient

MATCH_SEED = 0x5EED_1EA4
# Pings keep the players of a simultaneous game in step: a budget that never runs out.
ROOMY = Limits(rate_per_s=10_000.0, burst=10_000, account_rate_per_s=10_000.0,
               account_burst=10_000)

# (game, options, lean seats of the second run)
GAMES = [
    ("battleline", {}, {1}),
    ("chexers", {}, {0, 2}),
    ("barca", {}, {0}),
    ("boundary", {"pieces": 2, "treasures": 3, "turn_limit": 10}, {0}),
]


@pytest.fixture
async def server(store: SqliteStore) -> AsyncIterator[ArenaServer]:
    """Every match gets the same seed, so a match can be played again exactly."""
    srv = ArenaServer(store, grace_s=5.0, limits=ROOMY, seeds=lambda: MATCH_SEED)
    await srv.start("127.0.0.1", 0)
    yield srv
    await srv.close()


def choose(request: dict[str, Any], rng: Rng) -> Any:
    if "action_space" in request:
        return spaces.sample(request["action_space"], rng)
    legal = request["legal_actions"]
    return legal[rng.below(len(legal))]


async def sync(client: WsClient) -> None:
    """Return once the server has handled everything ``client`` sent before."""
    ref = await client.send({"type": "ping"})
    await client.expect_reply(ref)


async def play_seat(client: WsClient, match_id: str, seed: int,
                    before: Callable[[int], Awaitable[None]] | None = None,
                    after: Callable[[int], Awaitable[None]] | None = None) -> dict[str, Any]:
    """Answer every request of ``match_id`` with a seeded random choice until match_end;
    ``before(k)``/``after(k)`` around the k-th answer (a simultaneous game's players keep
    a fixed order with them)."""
    rng = Rng(seed)
    answered = 0
    while True:
        message = await client.recv()
        if message.get("match_id") != match_id:
            continue
        if message["type"] == "request":
            if before is not None:
                await before(answered)
            await client.send({"type": "action", "match_id": match_id,
                               "request_id": message["request_id"],
                               "action": choose(message, rng)})
            if after is not None:
                await after(answered)
            answered += 1
        elif message["type"] == "match_end":
            return message
        elif message["type"] == "error":
            raise AssertionError(f"unexpected error while playing: {message}")


async def play_match(server: ArenaServer, game: str, options: dict[str, Any],
                     lean: set[int], tag: str, **hello: Any) -> tuple[str, list[WsClient]]:
    """One challenge match of ``game``, the seats in ``lean`` lean, played to its end by
    seeded players (the same choices every time); returns its id and the seats' clients.
    In a simultaneous game seat 0 answers first each turn (the server has it before seat
    1 answers), so commitments come in the same order every time."""
    seats = 3 if game == "chexers" else 2
    clients = [await account_client(server, f"{tag}-{game}-{seat}",
                                    **({"lean": True, **hello} if seat in lean else {}))
               for seat in range(seats)]
    for seat, client in enumerate(clients):
        assert client.welcome is not None and client.welcome["lean"] is (seat in lean)
    match_id = await challenge_match(clients[0], clients[1:], game, options)
    committed = [asyncio.Event() for _ in range(1000)]

    async def first_done(k: int) -> None:
        await sync(clients[0])
        committed[k].set()

    async def wait_first(k: int) -> None:
        await committed[k].wait()

    simultaneous = game == "boundary"
    await asyncio.gather(*(play_seat(client, match_id, 100 + seat,
                                     before=wait_first if simultaneous and seat else None,
                                     after=first_done if simultaneous and not seat else None)
                           for seat, client in enumerate(clients)))
    return match_id, clients


def of_match(client: WsClient, match_id: str) -> list[dict[str, Any]]:
    return [m for m in client.received if m.get("match_id") == match_id]


def batch(events_message: dict[str, Any]) -> dict[str, Any]:
    """What a lean request carries for one events message."""
    return {k: events_message[k] for k in ("seq", "events", "clocks_ms")}


def plain(message: dict[str, Any]) -> dict[str, Any]:
    """A message without what differs between two plays of one match (ids, the players'
    names) or between a lean and a plain seat (the carried events)."""
    return {k: v for k, v in message.items()
            if k not in ("request_id", "match_id", "seats", "events", "ref")}


def by_decision(messages: list[dict[str, Any]], lean: bool) -> list[list[dict[str, Any]]]:
    """The events a seat had received when each of its requests (and its match_end)
    arrived, as batches: from the events messages a plain seat gets, or from what a lean
    seat's requests carry."""
    seen: list[dict[str, Any]] = []
    out: list[list[dict[str, Any]]] = []
    for m in messages:
        if m["type"] == "events":
            assert not lean, f"a lean seat got an events frame: {m}"
            seen.append(batch(m))
        elif m["type"] in ("request", "match_end"):
            if lean:
                seen.extend(m.get("events", []))
            else:
                assert "events" not in m, m
            out.append(list(seen))
    return out


@pytest.mark.parametrize("game, options, lean", GAMES, ids=[g[0] for g in GAMES])
async def test_a_lean_seat_gets_the_same_events_in_its_requests(
        server: ArenaServer, game: str, options: dict[str, Any], lean: set[int]) -> None:
    plain_id, plain_clients = await play_match(server, game, options, set(), "plain")
    lean_id, lean_clients = await play_match(server, game, options, lean, "lean")
    for seat, (before, now) in enumerate(zip(plain_clients, lean_clients, strict=True)):
        was, got = of_match(before, plain_id), of_match(now, lean_id)
        assert was[-1]["type"] == got[-1]["type"] == "match_end"
        assert plain(was[-1]) == plain(got[-1])  # the same match, the same end
        if seat not in lean:
            # A plain seat's traffic is what it was: lean seats change nothing for it.
            assert [plain(m) for m in got] == [plain(m) for m in was]
            continue
        kinds = [m["type"] for m in got]
        assert "events" not in kinds
        requests = [m for m in got if m["type"] == "request"]
        # One frame per decision, besides the match's start and end.
        assert kinds == ["match_start", *["request"] * len(requests), "match_end"]
        assert len(was) - len(got) == sum(m["type"] == "events" for m in was) > 0
        # The requests and the end are the same messages, but for the events they carry.
        assert [plain(m) for m in got] == [plain(m) for m in was if m["type"] != "events"]
        # Every event arrived, in order, with the first request (or the end) after it, and
        # nothing more: the same renders the plain seat got (its hidden information only).
        assert by_decision(got, lean=True) == by_decision(was, lean=False)
        carried = [b for m in got for b in m.get("events", [])]
        assert [b["seq"] for b in carried] == sorted({b["seq"] for b in carried})
        assert all("view" not in b for b in carried)


async def test_welcome_says_whether_lean_is_on_and_lean_must_be_a_boolean(
        server: ArenaServer) -> None:
    for asked, granted in ((True, True), (False, False), (None, False)):
        client = await WsClient.open(server.ws_url)
        welcome = await client.hello(name="ann", **({} if asked is None else {"lean": asked}))
        assert welcome["type"] == "welcome" and welcome["lean"] is granted
        await client.close()
    client = await WsClient.open(server.ws_url)
    for wrong in ("yes", 1, None, [True]):
        refused = await client.hello(name="ann", lean=wrong)
        assert refused["type"] == "error" and refused["code"] == "malformed", refused
        assert refused["details"]["field"] == "lean"
    assert (await client.hello(name="ann", lean=True))["lean"] is True  # then a good one
    await client.close()


async def test_a_lean_session_with_views_gets_them_in_its_requests_only(
        server: ArenaServer) -> None:
    plain_id, plain_clients = await play_match(server, "battleline", {}, set(), "plain")
    lean_id, lean_clients = await play_match(server, "battleline", {}, {0}, "lean",
                                             views=True)
    assert lean_clients[0].welcome is not None and lean_clients[0].welcome["views"] is True
    got, was = of_match(lean_clients[0], lean_id), of_match(plain_clients[0], plain_id)
    assert by_decision(got, lean=True) == by_decision(was, lean=False)
    assert all("view" in m for m in got if m["type"] == "request")


async def test_a_lean_seat_that_drops_mid_match_resumes_with_the_whole_state(
        server: ArenaServer) -> None:
    """The events held for the old connection are not sent after the resume: the
    match_start carries the state they led to, and what follows carries only newer ones."""
    ann = await account_client(server, "ann", lean=True)
    bob = await account_client(server, "bob")
    match_id = await challenge_match(ann, [bob], "battleline")
    rng, answered = Rng(3), 0
    bob_task = asyncio.ensure_future(play_seat(bob, match_id, 4))
    while answered < 6:
        request = await ann.expect("request", match_id=match_id)
        await ann.send({"type": "action", "match_id": match_id,
                        "request_id": request["request_id"], "action": choose(request, rng)})
        answered += 1
    await sync(ann)  # the last answer is in: its events are held for ann's next request
    assert server.live[match_id].audience.held.get(0)
    session = ann.welcome["session"]  # type: ignore[index]
    ann.ws.transport.abort()  # a brutal network failure
    while server.sessions.get(session).connected:  # type: ignore[union-attr]
        await asyncio.sleep(0.01)
    back = await WsClient.open(server.ws_url)
    welcome = await back.hello(resume=session, lean=True)
    assert welcome["type"] == "welcome" and welcome["lean"] is True
    start = await back.expect("match_start", match_id=match_id)
    seq = start["seq"]
    assert not server.live[match_id].audience.held.get(0) or all(
        b["seq"] > seq for b in server.live[match_id].audience.held[0])
    end = await play_seat(back, match_id, 5)
    after = of_match(back, match_id)
    assert [m["type"] for m in after if m["type"] not in ("request",)] == \
        ["match_start", "match_end"]
    carried = [b["seq"] for m in after for b in m.get("events", [])]
    # Only events after the resync, every one of them, in order (bob's plain copy says
    # which there were).
    bob_end = await bob_task
    assert bob_end["outcome"] == end["outcome"]
    bobs = [m["seq"] for m in of_match(bob, match_id) if m["type"] == "events"]
    assert carried == [s for s in bobs if s > seq] and carried
    before_drop = [b["seq"] for m in of_match(ann, match_id) for b in m.get("events", [])]
    assert before_drop and max(before_drop) < seq  # the held ones were replaced by the resync


async def test_one_lean_session_in_several_seats_of_several_matches(
        server: ArenaServer) -> None:
    """The only bot takes both bot seats of each Chexers match, in two matches at once:
    each seat's requests carry that seat's events, each once, per match."""
    bot = await account_client(server, "lean-bot", lean=True)
    ref = await bot.send({"type": "autoplay", "games": ["chexers"], "max_matches": 2})
    assert (await bot.expect_reply(ref))["type"] == "ok"
    people = [await account_client(server, name, "human") for name in ("ann", "cid")]
    match_ids = []
    for person in people:
        ref = await person.send({"type": "play_bot", "game": "chexers"})
        start = await person.expect_reply(ref)
        assert start["type"] == "match_start", start
        match_ids.append(start["match_id"])
    assert all(server.live[m].seats_of(server.live[m].seating[1]) == [1, 2] for m in match_ids)

    async def bot_plays() -> None:
        rng, ended = Rng(9), 0
        while ended < 4:  # a match_end per seat
            message = await bot.recv()
            if message["type"] == "request":
                await bot.send({"type": "action", "match_id": message["match_id"],
                                "request_id": message["request_id"],
                                "action": choose(message, rng)})
            elif message["type"] == "match_end":
                ended += 1
    await asyncio.gather(bot_plays(), *(play_seat(p, m, 7 + n) for n, (p, m)
                                        in enumerate(zip(people, match_ids, strict=True))))
    for person, match_id in zip(people, match_ids, strict=True):
        every = [m["seq"] for m in of_match(person, match_id) if m["type"] == "events"]
        mine = of_match(bot, match_id)
        assert "events" not in {m["type"] for m in mine}
        ends = [m for m in mine if m["type"] == "match_end"]
        assert len(ends) == 2  # one per seat: seat 1's first
        for seat in (1, 2):
            carried = [b["seq"] for m in mine if m.get("seat", seat) == seat
                       and (m["type"] == "request" or m is ends[seat - 1])
                       for b in m.get("events", [])]
            assert carried == every, (seat, carried[:10], every[:10])


async def test_spectators_get_events_frames_lean_or_not(server: ArenaServer) -> None:
    ann = await account_client(server, "ann", lean=True)
    bob = await account_client(server, "bob", lean=True)
    match_id = await challenge_match(ann, [bob], "barca")
    watcher = await WsClient.open(server.ws_url)
    assert (await watcher.hello(name="watcher", lean=True))["lean"] is True
    ref = await watcher.send({"type": "spectate", "match_id": match_id})
    seq = (await watcher.expect_reply(ref))["seq"]
    await asyncio.gather(play_seat(ann, match_id, 1), play_seat(bob, match_id, 2))
    await watcher.expect("match_end", match_id=match_id)
    seen = [m["seq"] for m in of_match(watcher, match_id) if m["type"] == "events"]
    last = max(b["seq"] for m in of_match(ann, match_id) for b in m.get("events", []))
    assert seen == list(range(seq + 1, last + 1))


# ---- the audience alone ---------------------------------------------------------------------


class Collector:
    """A connection that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.closed = False

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


def session(name: str, lean: bool) -> tuple[Session, Collector]:
    conn = Collector()
    return Session(token=name, name=name, kind="bot", connection=conn, lean=lean), conn


def events(seq: int, seat: int = 0) -> dict[str, Any]:
    return {"type": "events", "match_id": "m", "seq": seq,
            "events": [{"type": "x", "seat": seat}], "clocks_ms": None}


def test_the_audience_holds_a_lean_seats_events_for_its_next_request() -> None:
    lean, lean_conn = session("lean", True)
    other, other_conn = session("other", False)
    audience = Audience([lean, other, lean])  # the lean session holds seats 0 and 2
    audience.deliver([(0, events(1)), (1, events(1)), (2, events(1)),
                      (0, {"type": "request", "match_id": "m", "seat": 0})])
    assert [m["type"] for m in other_conn.sent] == ["events"]
    assert lean_conn.sent == [{"type": "request", "match_id": "m", "seat": 0,
                               "events": [{"seq": 1, "events": [{"type": "x", "seat": 0}],
                                           "clocks_ms": None}]}]
    assert audience.held == {2: [{"seq": 1, "events": [{"type": "x", "seat": 0}],
                                  "clocks_ms": None}]}
    # A request with nothing held carries no field; a match_start drops what is held.
    audience.deliver([(0, {"type": "request", "match_id": "m", "seat": 0}),
                      (2, {"type": "match_start", "match_id": "m"}),
                      (2, {"type": "request", "match_id": "m", "seat": 2})])
    assert [("events" in m) for m in lean_conn.sent[1:]] == [False, False, False]
    # Errors pass through and keep what is held; match_end carries it, with its ref.
    audience.deliver([(0, events(2)), (0, {"type": "error", "code": "stale_request"}),
                      (0, {"type": "match_end", "match_id": "m"})], ref_for=(lean, 7),
                     reply="match_end")
    assert lean_conn.sent[-2]["type"] == "error" and "events" not in lean_conn.sent[-2]
    assert lean_conn.sent[-1]["ref"] == 7 and [b["seq"] for b in
                                               lean_conn.sent[-1]["events"]] == [2]
    assert audience.held == {}


def test_a_lean_seat_asks_for_no_views_in_its_events() -> None:
    lean, _ = session("lean", True)
    lean.views = True
    other, _ = session("other", False)
    other.views = True
    assert Audience([lean, other]).wanting_views() == frozenset({1})
