"""protocol.session.ServerSession: what the server's sans-I/O connection answers by itself."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from protocol.codec import EncodedMessage, decode, encode_json, encode_msgpack
from protocol.messages import (
    CLOSE_POLICY_VIOLATION,
    CLOSE_TOO_BIG,
    DEFAULT_LIMITS,
    Limits,
    message_cost,
)
from protocol.session import ServerSession, ServerState, TokenBucket

HELLO = {"type": "hello", "id": "h1", "protocol": 1, "name": "zoe"}
CHEAP = {"type": "leave", "match_id": "m"}
"""A message that costs one token."""


def feed(session: ServerSession, message: dict[str, Any] | str | bytes,
         now: float = 0.0) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Feed one frame; return (events received, messages sent)."""
    if isinstance(message, dict):
        message = (encode_msgpack(message) if session.encoding == "msgpack"
                   else encode_json(message))
    if isinstance(message, bytes):
        session.receive_bytes(message, now)
    else:
        session.receive_text(message, now)
    return session.events_received(), [decode(f) for f in session.data_to_send()]


def open_session(encoding: Any = "json", limits: Limits = DEFAULT_LIMITS) -> ServerSession:
    session = ServerSession(encoding, limits)
    events, sent = feed(session, HELLO)
    assert events == [HELLO] and sent == []
    assert session.state is ServerState.AUTHENTICATING
    session.welcome(session="s-1", account={"name": "zoe", "kind": "guest"},
                    server_version="0.1.0", hello=events[0])
    (welcome,) = [decode(f) for f in session.data_to_send()]
    assert welcome["type"] == "welcome" and welcome["ref"] == "h1"
    assert session.state is ServerState.OPEN
    return session


def test_handshake_produces_a_complete_welcome() -> None:
    session = ServerSession("msgpack", Limits(max_frame_bytes=1000, rate_per_s=5, burst=9))
    events, _ = feed(session, HELLO)
    session.welcome(session="tok", account={"name": "zoe", "kind": "guest"},
                    server_version="0.1.0", hello=events[0])
    (frame,) = session.data_to_send()
    assert isinstance(frame, bytes)  # the negotiated encoding decides what is sent
    assert decode(frame) == {
        "type": "welcome", "protocol": 1, "server": "tabletop-arena/0.1.0", "session": "tok",
        "account": {"name": "zoe", "kind": "guest"}, "encoding": "msgpack",
        "limits": {"max_frame_bytes": 1000, "rate_per_s": 5, "burst": 9}, "ref": "h1"}


@pytest.mark.parametrize("message", [
    {"type": "list_games", "id": 3},
    {"type": "action", "id": 3, "match_id": "m", "request_id": "r", "action": 1},
    {"type": "no_such_type", "id": 3},
])
def test_anything_but_hello_or_ping_before_welcome_is_unauthorized(message: dict) -> None:
    session = ServerSession()
    events, sent = feed(session, message)
    assert events == []
    assert sent == [{"type": "error", "code": "unauthorized", "ref": 3,
                     "message": "send hello first and wait for welcome"}]
    # ... also while the server is still checking the hello
    feed(session, HELLO)
    events, sent = feed(session, message)
    assert events == [] and sent[0]["code"] == "unauthorized"


def test_ping_is_answered_before_and_after_hello_without_reaching_the_server() -> None:
    session = ServerSession()
    assert feed(session, {"type": "ping", "id": 1}) == ([], [{"type": "pong", "ref": 1}])
    session = open_session()
    assert feed(session, {"type": "ping"}) == ([], [{"type": "pong"}])


def test_wrong_version_is_refused_and_the_client_may_retry() -> None:
    session = ServerSession()
    events, sent = feed(session, {**HELLO, "protocol": 2})
    assert events == []
    assert sent == [{"type": "error", "code": "unsupported_version", "ref": "h1",
                     "message": "this protocol version is not supported",
                     "details": {"supported": [1]}}]
    assert session.state is ServerState.AWAITING_HELLO
    events, _ = feed(session, HELLO)
    assert events == [HELLO]


def test_rejected_hello_returns_to_awaiting_hello() -> None:
    session = ServerSession()
    events, _ = feed(session, {**HELLO, "token": "bad"})
    session.reject_hello(events[0], "unauthorized", "unknown token")
    assert [decode(f) for f in session.data_to_send()] == [
        {"type": "error", "code": "unauthorized", "message": "unknown token", "ref": "h1"}]
    assert session.state is ServerState.AWAITING_HELLO
    assert feed(session, HELLO)[0] == [HELLO]


def test_second_hello_on_an_open_session_is_a_bad_request() -> None:
    session = open_session()
    events, sent = feed(session, HELLO)
    assert events == [] and sent[0]["code"] == "bad_request"


def test_malformed_frames_are_answered_and_the_session_survives() -> None:
    session = open_session()
    frames: list[tuple[str | bytes, str]] = [
        ("not json", "not valid JSON"), ("[1]", "must be an object"),
        (b"\xc1", "not valid msgpack"), ('{"id": 4}', "'type' is missing")]
    for frame, needle in frames:
        events, sent = feed(session, frame)
        assert events == []
        assert sent[0]["type"] == "error" and sent[0]["code"] == "malformed"
        assert needle in sent[0]["message"]
    # ``ref`` is carried back whenever the id could be read
    assert sent[0]["ref"] == 4
    events, sent = feed(session, {"type": "seek", "id": "s", "game": 3})
    assert sent == [{"type": "error", "code": "malformed", "ref": "s",
                     "message": "seek: field 'game' must be a string",
                     "details": {"field": "game"}}]
    assert feed(session, {"type": "list_games"})[0] == [{"type": "list_games"}]
    assert session.protocol_errors == 5


def test_unknown_type_after_hello() -> None:
    session = open_session()
    events, sent = feed(session, {"type": "teleport", "id": 9, "to": "moon"})
    assert events == []
    assert sent == [{"type": "error", "code": "unknown_type", "ref": 9,
                     "message": "unknown message type"}]


def test_text_and_binary_frames_are_both_understood() -> None:
    session = open_session("json")
    events, _ = feed(session, msgpack.packb({"type": "list_games", "id": 1}))
    assert events == [{"type": "list_games", "id": 1}]
    events, _ = feed(session, '{"type":"list_games","id":2}')
    assert events == [{"type": "list_games", "id": 2}]


def test_too_large_frames_are_dropped_with_an_error() -> None:
    session = open_session(limits=Limits(max_frame_bytes=200, hard_frame_bytes=1000))
    big = {"type": "list_matches", "game": "x" * 300}
    events, sent = feed(session, big)
    assert events == []
    assert sent[0]["code"] == "too_large" and sent[0]["details"] == {"limit": 200}
    assert session.close is None
    assert feed(session, {"type": "list_games"})[0] == [{"type": "list_games"}]


def test_frames_above_the_hard_limit_close_with_1009() -> None:
    session = open_session(limits=Limits(max_frame_bytes=200, hard_frame_bytes=1000))
    events, sent = feed(session, {"type": "list_matches", "game": "x" * 2000})
    assert events == [] and sent == []
    assert session.close is not None and session.close.code == CLOSE_TOO_BIG
    assert session.state is ServerState.CLOSED
    # nothing more is processed or sent
    assert feed(session, {"type": "list_games"}) == ([], [])
    session.send({"type": "pong"})
    assert session.data_to_send() == []


def test_token_bucket_rate_limit_uses_the_callers_clock() -> None:
    session = open_session(limits=Limits(rate_per_s=10, burst=5))
    now = 0.0  # the same instant as the hello, which took one token
    accepted = 0
    for _ in range(5 - 1):
        events, sent = feed(session, CHEAP, now)
        accepted += len(events)
    assert accepted == 4
    events, sent = feed(session, {**CHEAP, "id": 1}, now)
    assert events == []
    assert sent[0]["code"] == "rate_limited"
    assert sent[0]["details"] == {"budget": "connection", "rate_per_s": 10, "burst": 5}
    assert sent[0]["retry_after"] == 0.1  # one token at 10 per second
    # 0.1 s later exactly one token has come back
    assert len(feed(session, CHEAP, now + 0.1)[0]) == 1
    assert feed(session, CHEAP, now + 0.1)[1][0]["code"] == "rate_limited"


def test_a_client_that_keeps_flooding_is_closed_with_1008() -> None:
    limits = Limits(rate_per_s=10, burst=5, abuse_strikes=20)
    session = open_session(limits=limits)
    now = 0.0
    rate_limited = 0
    while session.close is None:
        now += 0.001  # 1000 messages/s against a 10/s budget
        _, sent = feed(session, CHEAP, now)
        rate_limited += sum(1 for m in sent if m.get("code") == "rate_limited")
        assert rate_limited < 1000, "never closed"
    assert session.close.code == CLOSE_POLICY_VIOLATION
    assert rate_limited == 20


def test_strikes_are_forgiven_after_a_quiet_spell() -> None:
    limits = Limits(rate_per_s=10, burst=5, abuse_strikes=20)
    session = open_session(limits=limits)
    now = 0.0
    for _ in range(3):  # three floods of 15 rate-limited messages, with pauses between
        for _ in range(20):
            feed(session, CHEAP, now)
        assert session.strikes > 10
        now += 1.0  # burst / rate = 0.5 s refills the bucket
    assert session.close is None


def test_encoded_message_is_shared_between_sessions() -> None:
    a, b = open_session("json"), open_session("msgpack")
    events = EncodedMessage({"type": "events", "match_id": "m", "seq": 1,
                             "events": [{"type": "played", "seat": 0}], "clocks_ms": None})
    a.send(events)
    b.send(events)
    (fa,), (fb,) = a.data_to_send(), b.data_to_send()
    assert isinstance(fa, str) and isinstance(fb, bytes)
    assert fa is events.frame("json") and fb is events.frame("msgpack")


def test_reply_and_error_helpers_carry_ref_and_ids() -> None:
    session = open_session()
    msg = {"type": "action", "id": "a1", "match_id": "m", "request_id": "r", "action": 0}
    session.reply(msg, {"type": "ok"})
    session.error("illegal_action", "that flag is already claimed", to=msg, match_id="m",
                  request_id="r", rule="flag_claimed")
    session.reply({"type": "list_games"}, {"type": "games", "games": []})
    assert [decode(f) for f in session.data_to_send()] == [
        {"type": "ok", "ref": "a1"},
        {"type": "error", "code": "illegal_action", "message": "that flag is already claimed",
         "ref": "a1", "match_id": "m", "request_id": "r", "details": {"rule": "flag_claimed"}},
        {"type": "games", "games": []},
    ]


def test_refund_gives_back_what_the_last_message_cost_once() -> None:
    session = open_session(limits=Limits(rate_per_s=1, burst=30))
    for _ in range(10):  # solicited messages, each refunded: never limited
        events, sent = feed(session, {"type": "list_matches", "limit": 200}, 0.0)
        assert events and not sent
        session.refund()
    assert session.bucket.tokens == 29.0  # the hello's token is not refunded
    feed(session, CHEAP, 0.0)
    session.refund()
    session.refund()  # nothing more to give back
    assert session.bucket.tokens == 29.0


def test_messages_cost_what_they_cost_and_may_leave_a_debt() -> None:
    assert [message_cost(m) for m in (
        {"type": "ping"}, CHEAP, {"type": "action"}, {"type": "list_games"},
        {"type": "list_matches"}, {"type": "list_matches", "limit": 7},
        {"type": "list_matches", "limit": 200}, {"type": "list_matches", "limit": 10_000},
        {"type": "get_replay"})] == [1, 1, 1, 2, 6, 2, 21, 21, 20]
    session = open_session(limits=Limits(rate_per_s=10, burst=30))  # hello: 29 left
    events, _ = feed(session, {"type": "list_matches", "limit": 200}, 0.0)  # 8 left
    assert len(events) == 1
    events, _ = feed(session, {"type": "list_matches", "limit": 200}, 0.0)  # admitted: -13
    assert len(events) == 1 and session.bucket.tokens == -13.0
    events, sent = feed(session, {**CHEAP, "id": 5}, 1.0)  # 1 s later: -3, still refused
    assert events == [] and sent[0]["code"] == "rate_limited" and sent[0]["ref"] == 5
    assert sent[0]["retry_after"] == pytest.approx(0.4)
    assert session.pause_for() == pytest.approx(0.4)
    assert session.pause_for() is None
    assert feed(session, CHEAP, 1.4)[0] == [CHEAP]


def test_a_shared_budget_refuses_for_every_connection_that_spends_it() -> None:
    limits = Limits(rate_per_s=100, burst=100)
    address = TokenBucket(2.0, 4, 0.0, "address")
    a, b = open_session(limits=limits), open_session(limits=limits)
    a.shared = b.shared = (address,)
    assert feed(a, CHEAP)[0] == [CHEAP]
    assert feed(b, {"type": "list_games"})[0] == [{"type": "list_games"}]
    assert feed(a, CHEAP)[0] == [CHEAP]  # the address's last token
    events, sent = feed(b, {**CHEAP, "id": 1})
    assert events == [] and sent[0]["details"] == {"budget": "address", "rate_per_s": 2.0,
                                                   "burst": 4}
    assert sent[0]["retry_after"] == pytest.approx(0.5)
    assert a.bucket.tokens == 97.0 and b.bucket.tokens == 97.0  # refused: b's not spent




def test_each_refusal_after_a_pause_doubles_retry_after_up_to_two_seconds() -> None:
    """Others sharing the budget take its token just before this client's message is read
    again, pause after pause: each pause is twice the last, up to 2 s; frames that were in
    already when a pause began do not double it; a message read starts over."""
    limits = Limits(rate_per_s=10, burst=100, abuse_strikes=100)
    session = open_session(limits=limits)
    shared = TokenBucket(10, 1, 0.0, "address")
    session.shared = (shared,)
    now, waits = 0.0, []
    for _ in range(8):
        shared.tokens, shared.updated = 0.0, now  # someone else just took it
        _, sent = feed(session, CHEAP, now)
        waits.append(sent[0]["retry_after"])
        assert session.pause_for() == sent[0]["retry_after"]
        # a frame that arrived with this one is refused without doubling the pause
        assert feed(session, CHEAP, now)[1][0]["retry_after"] == waits[-1]
        now += waits[-1]
    assert waits == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.6, 2.0, 2.0, 2.0])
    assert feed(session, CHEAP, now + 1.0)[0]  # read: the next refusal starts over
    shared.tokens, shared.updated = 0.0, now + 1.0
    assert feed(session, CHEAP, now + 1.0)[1][0]["retry_after"] == pytest.approx(0.1)


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
@pytest.mark.parametrize("fields", [0, 14, 15, 16, 70_000])  # fixmap, map 16, map 32
def test_a_shared_reply_is_encoded_once_and_carries_each_ref(encoding: Any, fields: int
                                                             ) -> None:
    page = EncodedMessage({"type": "matches", **{f"f{n}": n for n in range(fields)}})
    for ref in (7, "a-ref", None):
        session = open_session(encoding)
        session.reply({"type": "list_matches", **({} if ref is None else {"id": ref})}, page)
        (frame,) = session.data_to_send()
        expected = {**page.message, **({} if ref is None else {"ref": ref})}
        assert decode(frame) == expected
    assert page.frame(encoding) is page.frame(encoding)  # encoded once
