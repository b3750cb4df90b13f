"""A small in-test server that speaks the protocol catalogue, for client-library tests.

It runs on ``websockets.serve`` at 127.0.0.1 port 0 and uses :class:`protocol.ServerSession`
for everything per-connection. Its one game, ``count``, deals each seat ``turns`` requests
whose legal actions are ``{"n": 1}``, ``{"n": 2}``, ``{"n": 3}``; the seat with the larger
total wins. The opponent is a built-in house bot that always plays ``{"n": 2}``.
Knobs let a test force a disconnect at a chosen moment.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from protocol import ServerSession, encoding_of, select_subprotocol
from protocol.messages import SUBPROTOCOLS

LEGAL = [{"n": 1}, {"n": 2}, {"n": 3}]
GAME_INFO = {"name": "count", "title": "Count", "min_seats": 2, "max_seats": 2,
             "chance": False, "hidden_information": False, "simultaneous": False,
             "seat_names": ["first", "second"], "default_options": {}, "summary": "add up"}


@dataclass
class FakeMatch:
    match_id: str
    player: str                       # session token of the client in seat 0
    turns: int
    totals: list[int] = field(default_factory=lambda: [0, 0])
    turn: int = 0
    seq: int = 0
    request_id: str | None = None
    over: bool = False

    def view(self) -> dict[str, Any]:
        return {"turn": self.turn, "totals": list(self.totals)}


@dataclass
class FakeSession:
    token: str
    account: dict[str, str]
    ws: ServerConnection | None = None
    proto: ServerSession | None = None
    matches: list[str] = field(default_factory=list)
    autoplay: bool = False


class FakeArena:
    def __init__(self, *, turns: int = 3, drop_after_actions: set[int] | None = None,
                 echo_ref_on_match_start: bool = True) -> None:
        self.turns = turns
        self.drop_after_actions = set(drop_after_actions or ())
        """Close the socket (unprocessed) when the Nth action (1-based, over the run)
        arrives: the client must resume and answer the re-sent request."""
        self.echo_ref_on_match_start = echo_ref_on_match_start
        self.received: list[dict[str, Any]] = []
        self.subprotocols: list[str | None] = []
        self.frame_kinds: list[str] = []
        self.sessions: dict[str, FakeSession] = {}
        self.matches: dict[str, FakeMatch] = {}
        self.actions_seen = 0
        self.finished: list[str] = []
        self._ids = itertools.count(1)
        self._server: Server | None = None
        self.url = ""

    @staticmethod
    def _select(connection: ServerConnection, offered: Any) -> Subprotocol | None:
        chosen = select_subprotocol(list(offered))
        return None if chosen is None else Subprotocol(chosen)

    async def __aenter__(self) -> FakeArena:
        self._server = await serve(
            self._handler, "127.0.0.1", 0, subprotocols=[Subprotocol(s) for s in SUBPROTOCOLS],
            select_subprotocol=self._select)
        port = next(iter(self._server.sockets)).getsockname()[1]
        self.url = f"ws://127.0.0.1:{port}/ws"
        return self

    async def __aexit__(self, *exc: Any) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    # ---- connection pump -------------------------------------------------------------------

    async def _handler(self, ws: ServerConnection) -> None:
        loop = asyncio.get_running_loop()
        proto = ServerSession(encoding_of(ws.subprotocol), now=loop.time())
        self.subprotocols.append(ws.subprotocol)
        owner: FakeSession | None = None
        try:
            async for frame in ws:
                self.frame_kinds.append("binary" if isinstance(frame, bytes) else "text")
                if isinstance(frame, bytes):
                    proto.receive_bytes(frame, loop.time())
                else:
                    proto.receive_text(frame, loop.time())
                for message in proto.events_received():
                    self.received.append(message)
                    owner = await self._handle(ws, proto, owner, message)
                await self._flush(ws, proto)
                if proto.close:
                    await ws.close(proto.close.code, proto.close.reason)
                    return
        except ConnectionClosed:
            pass
        finally:
            if owner is not None and owner.ws is ws:
                owner.ws = owner.proto = None

    @staticmethod
    async def _flush(ws: ServerConnection, proto: ServerSession) -> None:
        for frame in proto.data_to_send():
            await ws.send(frame)

    async def _send(self, session: FakeSession, message: dict[str, Any]) -> None:
        if session.ws is not None and session.proto is not None:
            session.proto.send(message)
            await self._flush(session.ws, session.proto)

    # ---- messages --------------------------------------------------------------------------

    async def _handle(self, ws: ServerConnection, proto: ServerSession,
                      owner: FakeSession | None, msg: dict[str, Any]) -> FakeSession | None:
        kind = msg["type"]
        if kind == "hello":
            return await self._hello(ws, proto, msg)
        assert owner is not None
        if kind == "list_games":
            proto.reply(msg, {"type": "games", "games": [GAME_INFO]})
        elif kind == "autoplay":
            owner.autoplay = True
            proto.reply(msg, {"type": "ok"})
            await self._flush(ws, proto)
            await self._start_match(owner, None)
        elif kind == "seek":
            proto.reply(msg, {"type": "seeking", "seek_id": f"k{next(self._ids)}",
                              "game": msg["game"]})
            await self._flush(ws, proto)
            await self._start_match(owner, None)
        elif kind == "play_bot":
            if msg["game"] != "count":
                proto.error("not_found", f"no game {msg['game']!r}", to=msg)
            else:
                await self._start_match(owner, msg)
        elif kind == "action":
            await self._action(ws, proto, owner, msg)
        elif kind == "resign":
            match = self.matches[msg["match_id"]]
            await self._end(owner, match, [1, 0], "resignation")
        elif kind == "get_replay":
            found = self.matches.get(msg["match_id"])
            if found is None:
                proto.error("not_found", "no such match", to=msg)
            else:
                proto.reply(msg, {"type": "replay", "match_id": found.match_id,
                                  "game": "count", "options": {}, "seats": self._seats(owner),
                                  "status": "over" if found.over else "live",
                                  "outcome": None, "steps": []})
        else:
            proto.error("bad_request", f"the fake server does not do {kind}", to=msg)
        return owner

    async def _hello(self, ws: ServerConnection, proto: ServerSession,
                     hello: dict[str, Any]) -> FakeSession | None:
        resume = hello.get("resume")
        if resume is not None:
            session = self.sessions.get(resume)
            if session is None:
                proto.reject_hello(hello, "unauthorized", "unknown resume token")
                return None
        else:
            token = f"sess-{next(self._ids)}"
            name = hello.get("name") or f"guest-{next(self._ids)}"
            kind = "bot" if hello.get("token") else "guest"
            session = FakeSession(token, {"name": name, "kind": kind})
            self.sessions[token] = session
        old = session.ws
        session.ws, session.proto = ws, proto
        if old is not None and old is not ws:
            await old.close()
        proto.welcome(session=session.token, account=session.account,
                      server_version="fake", hello=hello)
        await self._flush(ws, proto)
        if resume is not None:  # re-attach: current state and the pending request again
            for match_id in session.matches:
                match = self.matches[match_id]
                if not match.over:
                    await self._send(session, self._match_start(session, match))
                    await self._send(session, self._request(match))
        return session

    # ---- the "count" game ------------------------------------------------------------------

    def _seats(self, session: FakeSession) -> list[dict[str, Any]]:
        return [{"seat": 0, "name": session.account["name"], "kind": session.account["kind"]},
                {"seat": 1, "name": "two-bot", "kind": "bot"}]

    def _match_start(self, session: FakeSession, match: FakeMatch) -> dict[str, Any]:
        return {"type": "match_start", "match_id": match.match_id, "game": "count",
                "options": {}, "seats": self._seats(session), "your_seat": 0, "clock": None,
                "clocks_ms": None, "view": match.view(),
                "status": "over" if match.over else "live", "seq": match.seq}

    def _request(self, match: FakeMatch) -> dict[str, Any]:
        return {"type": "request", "match_id": match.match_id,
                "request_id": match.request_id, "seat": 0, "view": match.view(),
                "legal_actions": LEGAL, "clock_ms": None}

    async def _start_match(self, session: FakeSession, reply_to: dict[str, Any] | None) -> None:
        match = FakeMatch(f"m{next(self._ids)}", session.token, self.turns)
        self.matches[match.match_id] = match
        session.matches.append(match.match_id)
        start = self._match_start(session, match)
        if reply_to is not None and self.echo_ref_on_match_start and "id" in reply_to:
            start["ref"] = reply_to["id"]
        await self._send(session, start)
        match.request_id = f"{match.match_id}-r{next(self._ids)}"
        await self._send(session, self._request(match))

    async def _action(self, ws: ServerConnection, proto: ServerSession, owner: FakeSession,
                      msg: dict[str, Any]) -> None:
        self.actions_seen += 1
        if self.actions_seen in self.drop_after_actions:
            await ws.close()  # the action is lost with the connection
            return
        match = self.matches.get(msg["match_id"])
        if match is None or match.over:
            proto.error("not_your_turn", "the match is over", to=msg,
                        match_id=msg["match_id"], request_id=msg["request_id"])
            return
        if msg["request_id"] != match.request_id:
            proto.error("stale_request", "that request_id is not this seat's open request",
                        to=msg, match_id=match.match_id, request_id=msg["request_id"])
            return
        if msg["action"] not in LEGAL:
            proto.error("illegal_action", "n must be 1, 2 or 3", to=msg,
                        match_id=match.match_id, request_id=msg["request_id"],
                        rule="n_out_of_range")
            return
        match.totals[0] += msg["action"]["n"]
        match.totals[1] += 2
        match.turn += 1
        match.seq += 1
        await self._send(owner, {"type": "events", "match_id": match.match_id,
                                 "seq": match.seq, "clocks_ms": None,
                                 "events": [{"type": "added", "seat": 0, **msg["action"]},
                                            {"type": "added", "seat": 1, "n": 2}]})
        if match.turn < match.turns:
            match.request_id = f"{match.match_id}-r{next(self._ids)}"
            await self._send(owner, self._request(match))
            return
        a, b = match.totals
        ranks = [0, 0] if a == b else ([0, 1] if a > b else [1, 0])
        await self._end(owner, match, ranks, "total")

    async def _end(self, owner: FakeSession, match: FakeMatch, ranks: list[int],
                   reason: str) -> None:
        match.over = True
        match.request_id = None
        self.finished.append(match.match_id)
        await self._send(owner, {"type": "match_end", "match_id": match.match_id,
                                 "outcome": {"ranks": ranks, "reason": reason,
                                             "scores": list(match.totals)},
                                 "view": match.view()})
        if owner.autoplay:  # seat an autoplaying client again, like a house-bot pool
            await self._start_match(owner, None)
