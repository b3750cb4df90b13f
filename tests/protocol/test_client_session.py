"""protocol.session.ClientSession: hello/resume, request bookkeeping, stale handling."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.codec import decode, encode_json, encode_msgpack
from protocol.errors import ErrorCode, ProtocolError
from protocol.session import ClientSession, ClientState

WELCOME = {"type": "welcome", "protocol": 1, "server": "tabletop-arena/0.1.0",
           "session": "sess-1", "account": {"name": "rand", "kind": "bot"},
           "encoding": "json", "limits": {"max_frame_bytes": 65536, "rate_per_s": 50,
                                          "burst": 100}}


def request(match_id: str, request_id: str, seat: int = 0,
            legal: list[Any] | None = None) -> dict[str, Any]:
    return {"type": "request", "match_id": match_id, "request_id": request_id, "seat": seat,
            "view": {}, "legal_actions": legal or [{"type": "PASS"}], "clock_ms": None}


def receive(session: ClientSession, *messages: dict[str, Any]) -> list[dict[str, Any]]:
    for m in messages:
        if session.encoding == "msgpack":
            session.receive_bytes(encode_msgpack(m))
        else:
            session.receive_text(encode_json(m))
    return session.events_received()


def sent(session: ClientSession) -> list[dict[str, Any]]:
    return [decode(f) for f in session.data_to_send()]


def opened(encoding: Any = "json") -> ClientSession:
    session = ClientSession(encoding, token="tok-abc", name="rand")
    session.hello()
    sent(session)
    receive(session, WELCOME)
    return session


def test_hello_then_resume_after_a_lost_connection() -> None:
    session = ClientSession(token="tok-abc", client="mybot/2")
    assert session.hello() == {"type": "hello", "protocol": 1, "client": "mybot/2",
                               "token": "tok-abc"}
    assert sent(session) == [session_hello := {"type": "hello", "protocol": 1,
                                               "client": "mybot/2", "token": "tok-abc"}]
    assert session.state is ClientState.HELLO_SENT
    assert receive(session, WELCOME) == [WELCOME]
    assert session.is_open and session.session_token == "sess-1"
    session.connection_lost()
    assert session.state is ClientState.IDLE
    hello = session.hello()
    assert hello == {**session_hello, "resume": "sess-1"}


def test_a_session_that_wants_views_asks_in_every_hello() -> None:
    session = ClientSession(name="zoe", views=True)
    assert session.hello()["views"] is True
    receive(session, WELCOME)
    session.connection_lost()
    assert session.hello() == {"type": "hello", "protocol": 1, "client": session.client,
                               "name": "zoe", "views": True, "resume": "sess-1"}
    assert "views" not in ClientSession(name="bot").hello()  # off unless asked


def test_msgpack_session_sends_binary_frames() -> None:
    session = ClientSession("msgpack", name="zoe")
    session.hello()
    (frame,) = session.data_to_send()
    assert isinstance(frame, bytes)
    assert decode(frame)["name"] == "zoe"


def test_act_builds_the_action_with_the_right_request_id() -> None:
    session = opened()
    receive(session, request("m1", "r1", legal=[{"type": "claim", "flag": 3}]))
    assert [r["request_id"] for r in session.pending_requests()] == ["r1"]
    message = session.act(session.pending["r1"], {"type": "claim", "flag": 3})
    assert message == {"type": "action", "match_id": "m1", "request_id": "r1",
                       "action": {"type": "claim", "flag": 3}}
    assert sent(session) == [message]
    assert not session.is_pending("r1") and "r1" in session.answered


def test_answering_twice_or_an_unknown_request_is_refused_locally() -> None:
    session = opened()
    receive(session, request("m1", "r1"))
    session.act("r1", {"type": "PASS"})
    for target in ("r1", "nope", {"request_id": 5}):
        with pytest.raises(ProtocolError) as err:
            session.act(target, {"type": "PASS"})
        assert err.value.code is ErrorCode.STALE_REQUEST
    assert len(sent(session)) == 1


def test_a_newer_request_for_the_same_match_and_seat_drops_the_older() -> None:
    session = opened()
    receive(session, request("m1", "r1", seat=0), request("m2", "q1", seat=1))
    events = receive(session, request("m1", "r2", seat=0))
    assert [e["request_id"] for e in events] == ["r2"]
    assert sorted(session.pending) == ["q1", "r2"]
    with pytest.raises(ProtocolError):
        session.act("r1", {"type": "PASS"})
    # dropped requests are reported once, for logging
    receive(session, request("m1", "r3", seat=0))
    assert session.dropped == []  # cleared by events_received


def test_dropped_list_reports_superseded_requests() -> None:
    session = opened()
    session.receive_text(encode_json(request("m1", "r1")))
    session.receive_text(encode_json(request("m1", "r2")))
    assert [r["request_id"] for r in session.dropped] == ["r1"]
    session.events_received()
    assert session.dropped == []


def test_simultaneous_seats_of_one_match_are_kept_apart() -> None:
    session = opened()
    receive(session, request("m1", "a", seat=0), request("m1", "b", seat=1))
    assert sorted(session.pending) == ["a", "b"]


def test_match_end_drops_every_request_of_that_match() -> None:
    session = opened()
    receive(session, request("m1", "r1"), request("m2", "q1"))
    session.act("q1", 0)
    receive(session, {"type": "match_end", "match_id": "m2",
                      "outcome": {"ranks": [0, 1], "reason": "flags"}, "view": {}},
            {"type": "match_end", "match_id": "m1",
             "outcome": {"ranks": [1, 0], "reason": "resignation"}, "view": {}})
    assert session.pending == {} and session.answered == {}


def test_stale_and_not_your_turn_errors_drop_the_request() -> None:
    session = opened()
    receive(session, request("m1", "r1"), request("m2", "q1"))
    session.act("r1", 0)
    receive(session, {"type": "error", "code": "stale_request", "message": "stale",
                      "match_id": "m1", "request_id": "r1"},
            {"type": "error", "code": "not_your_turn", "message": "wait",
             "match_id": "m2", "request_id": "q1"})
    assert session.pending == {} and session.answered == {}


def test_an_illegal_answer_makes_the_request_pending_again() -> None:
    session = opened()
    receive(session, request("m1", "r1", legal=[{"type": "PASS"}]))
    session.act("r1", {"type": "JUMP"})
    receive(session, {"type": "error", "code": "malformed_action", "message": "bad shape",
                      "match_id": "m1", "request_id": "r1"})
    assert session.is_pending("r1")
    session.act("r1", {"type": "PASS"})
    assert sent(session)[-1]["action"] == {"type": "PASS"}


def test_a_resent_request_after_resume_is_pending_again() -> None:
    session = opened()
    receive(session, request("m1", "r1"))
    session.act("r1", 0)
    session.connection_lost()
    session.hello()
    assert sent(session) == [{"type": "hello", "protocol": 1, "client": "tabletop-arena-py",
                              "resume": "sess-1", "token": "tok-abc", "name": "rand"}]
    receive(session, {**WELCOME, "session": "sess-1"})
    events = receive(session, request("m1", "r1"))
    assert events[0]["request_id"] == "r1" and session.is_pending("r1")


def test_forget_session_starts_over() -> None:
    session = opened()
    receive(session, request("m1", "r1"))
    session.connection_lost()
    session.forget_session()
    assert "resume" not in session.hello()
    assert session.pending == {}


def test_request_assigns_fresh_ids_and_drops_none_fields() -> None:
    session = opened()
    first, message = session.request("seek", game="chexers", seats=3, clock=None)
    second, _ = session.request("list_games")
    assert (first, second) == (1, 2)
    assert message == {"type": "seek", "id": 1, "game": "chexers", "seats": 3}
    assert sent(session) == [message, {"type": "list_games", "id": 2}]


def test_unknown_server_types_are_passed_on() -> None:
    session = opened()
    assert receive(session, {"type": "announcement", "text": "hi"}) == [
        {"type": "announcement", "text": "hi"}]


def test_undecodable_server_frames_raise_malformed() -> None:
    session = opened()
    with pytest.raises(ProtocolError) as err:
        session.receive_text("{oops")
    assert err.value.code is ErrorCode.MALFORMED
