"""Lean delivery in the sans-I/O sessions: the client asks for it in every hello and hands
the events a request or match_end carries on as the events messages they stand for; the
server refuses a ``lean`` that is not a boolean, like any other bad hello field."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.codec import decode, encode_json, encode_msgpack, validate_server_message
from protocol.errors import ProtocolError
from protocol.session import ClientSession, ServerSession

WELCOME = {"type": "welcome", "protocol": 1, "server": "tabletop-arena/0.1.0",
           "session": "sess-1", "account": {"name": "lean", "kind": "bot"},
           "encoding": "json", "limits": {"max_frame_bytes": 65536, "rate_per_s": 50,
                                          "burst": 100}, "views": False, "lean": True}
DRAW = {"seq": 3, "events": [{"type": "draw", "seat": 0, "deck": "troop", "card": "7p"}],
        "clocks_ms": [298000, 300000]}
PLAY = {"seq": 4, "events": [{"type": "play", "seat": 1, "card": "5g", "flag": 2}],
        "clocks_ms": [298000, 297500]}


def request(request_id: str, **more: Any) -> dict[str, Any]:
    return {"type": "request", "match_id": "bl-1", "request_id": request_id, "seat": 0,
            "view": {}, "legal_actions": [{"type": "pass"}], "clock_ms": None, **more}


def opened(encoding: Any = "json") -> ClientSession:
    session = ClientSession(encoding, token="tok", lean=True)
    session.hello()
    session.data_to_send()
    receive(session, WELCOME)
    return session


def receive(session: ClientSession, *messages: dict[str, Any]) -> list[dict[str, Any]]:
    for m in messages:
        validate_server_message(m)
        if session.encoding == "msgpack":
            session.receive_bytes(encode_msgpack(m))
        else:
            session.receive_text(encode_json(m))
    return session.events_received()


def test_a_lean_session_asks_in_every_hello() -> None:
    session = ClientSession(token="tok", lean=True)
    assert session.hello()["lean"] is True
    receive(session, WELCOME)
    session.connection_lost()
    assert session.hello() == {"type": "hello", "protocol": 1, "client": session.client,
                               "resume": "sess-1", "token": "tok", "lean": True}
    assert "lean" not in ClientSession(token="tok").hello()  # off unless asked


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
def test_carried_events_come_out_as_events_messages_before_their_request(
        encoding: Any) -> None:
    session = opened(encoding)
    out = receive(session, request("r1", events=[DRAW, PLAY]))
    assert out == [{"type": "events", "match_id": "bl-1", **DRAW},
                   {"type": "events", "match_id": "bl-1", **PLAY},
                   request("r1")]
    assert session.pending["r1"] == request("r1")  # the request without the field
    # A request with nothing held, then the end with the last events.
    end = {"type": "match_end", "match_id": "bl-1", "outcome": {"ranks": [0, 1],
                                                               "reason": "breakthrough"},
           "view": {}, "status": "over"}
    assert receive(session, request("r2")) == [request("r2")]
    assert receive(session, {**end, "events": [{**DRAW, "seq": 5}]}) == [
        {"type": "events", "match_id": "bl-1", **DRAW, "seq": 5}, end]
    assert session.pending == {}


def test_carried_events_of_the_wrong_shape_are_malformed() -> None:
    session = opened()
    for wrong in ({"seq": 1}, [1, 2], [{"seq": 1}, "x"]):
        with pytest.raises(ProtocolError) as raised:
            session.receive_text(encode_json(request("r1", events=wrong)))
        assert raised.value.code == "malformed"
        assert session.events_received() == []


def test_the_server_refuses_a_lean_that_is_not_a_boolean() -> None:
    server = ServerSession("json")
    server.receive_text('{"type":"hello","id":1,"protocol":1,"lean":"yes"}', 0.0)
    assert server.events_received() == []
    (error,) = [decode(f) for f in server.data_to_send()]
    assert error["code"] == "malformed" and error["ref"] == 1
    assert error["details"] == {"field": "lean"}
    server.receive_text('{"type":"hello","id":2,"protocol":1,"lean":true}', 0.0)
    (hello,) = server.events_received()
    assert hello["lean"] is True
