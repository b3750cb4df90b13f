"""protocol.codec: both encodings carry the same objects; failures are typed errors."""

from __future__ import annotations

import json
from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.codec import (
    EncodedMessage,
    check_size,
    decode,
    decode_json,
    decode_msgpack,
    encode,
    encode_json,
    encode_msgpack,
    exceeds,
    frame_size,
    validate_client_message,
    validate_server_message,
)
from protocol.errors import ErrorCode, ProtocolError

ACTION = {"type": "action", "id": 7, "match_id": "m-1", "request_id": "r-3",
          "action": {"type": "MOVE", "from": [-3, 0], "to": [-2, -1]}}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20)


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
def test_round_trip_keeps_the_object(encoding: Any) -> None:
    frame = encode(ACTION, encoding)
    assert isinstance(frame, str if encoding == "json" else bytes)
    assert decode(frame) == ACTION


@given(st.dictionaries(st.text(max_size=10), json_values, max_size=6))
def test_any_json_object_survives_both_encodings(obj: dict[str, Any]) -> None:
    assert decode_json(encode_json(obj)) == obj
    assert decode_msgpack(encode_msgpack(obj)) == obj


def test_unicode_is_kept_verbatim_in_json_and_msgpack() -> None:
    message = {"type": "hello", "protocol": 1, "name": "Zoë 🃏 棋手", "client": "naïve/1.0"}
    text = encode_json(message)
    assert "Zoë 🃏 棋手" in text  # not \u-escaped: smaller frames, readable logs
    assert decode_json(text) == message
    assert decode_msgpack(encode_msgpack(message)) == message
    assert frame_size(text) == len(text.encode("utf-8"))


def test_json_is_compact() -> None:
    assert encode_json({"type": "ping", "id": 1}) == '{"type":"ping","id":1}'


@pytest.mark.parametrize("text", ["", "{", "nope", '{"type": "ping"} x', "NaN",
                                  '{"type": "ping", "x": NaN}', '{"a": Infinity}'])
def test_invalid_json_is_malformed(text: str) -> None:
    with pytest.raises(ProtocolError) as err:
        decode_json(text)
    assert err.value.code is ErrorCode.MALFORMED


@pytest.mark.parametrize("text", ["[1, 2]", '"ping"', "3", "null", "true"])
def test_json_that_is_not_an_object_is_malformed(text: str) -> None:
    with pytest.raises(ProtocolError, match="must be an object") as err:
        decode_json(text)
    assert err.value.code is ErrorCode.MALFORMED


def test_deeply_nested_json_is_malformed_not_a_crash() -> None:
    with pytest.raises(ProtocolError):
        decode_json('{"a":' + "[" * 100_000 + "]" * 100_000 + "}")


@pytest.mark.parametrize("data", [
    b"",
    b"\xc1",                                                   # never-used msgpack byte
    msgpack.packb([1, 2]),                                     # not a map
    msgpack.packb({"type": "ping"}) + b"\x00",                 # trailing data
    msgpack.packb({1: "int key"}),                              # non-str key
    msgpack.packb({"type": "ping", "blob": b"\x00\x01"}, use_bin_type=True),  # bin
    msgpack.packb({"type": "ping", "x": msgpack.ExtType(5, b"1")}),           # ext type
    msgpack.packb({"type": "ping", "nested": [{b"k": 1}]}, use_bin_type=True),
])
def test_invalid_msgpack_is_malformed(data: bytes) -> None:
    with pytest.raises(ProtocolError) as err:
        decode_msgpack(data)
    assert err.value.code is ErrorCode.MALFORMED


def test_size_checks_count_utf8_bytes() -> None:
    ascii_frame = "a" * 100
    wide_frame = "é" * 60  # 120 bytes in UTF-8
    assert not exceeds(ascii_frame, 100)
    assert exceeds(ascii_frame, 99)
    assert exceeds(wide_frame, 100)
    assert not exceeds(wide_frame, 120)
    assert exceeds(b"x" * 11, 10)
    with pytest.raises(ProtocolError) as err:
        check_size(wide_frame, 100)
    assert err.value.code is ErrorCode.TOO_LARGE
    assert err.value.details == {"limit": 100}


def test_encoded_message_encodes_once_per_encoding() -> None:
    encoded = EncodedMessage({"type": "events", "match_id": "m", "seq": 1, "events": [],
                              "clocks_ms": None})
    first = encoded.frame("json")
    assert encoded.frame("json") is first
    packed = encoded.frame("msgpack")
    assert encoded.frame("msgpack") is packed
    assert decode(first) == decode(packed) == encoded.message


# ---- validation ------------------------------------------------------------------------------


def test_valid_client_messages_pass_and_unknown_fields_are_ignored() -> None:
    assert validate_client_message(ACTION).type == "action"
    spec = validate_client_message({"type": "seek", "game": "chexers", "seats": 3,
                                    "clock": None, "future_field": {"x": 1}})
    assert spec.direction == "client"


@pytest.mark.parametrize("message, field", [
    ({"protocol": 1}, "type"),
    ({"type": 5}, "type"),
    ({"type": "ping", "id": "x" * 65}, "id"),
    ({"type": "ping", "id": 1.5}, "id"),
    ({"type": "hello"}, "protocol"),
    ({"type": "hello", "protocol": "1"}, "protocol"),
    ({"type": "hello", "protocol": True}, "protocol"),
    ({"type": "seek", "game": "chexers", "seats": 0}, "seats"),
    ({"type": "seek", "game": "chexers", "clock": {"initial_ms": 1000}}, "clock"),
    ({"type": "seek", "game": "chexers", "clock": {"initial_ms": -1, "increment_ms": 0}},
     "clock"),
    ({"type": "challenge", "accounts": [], "game": "battleline"}, "accounts"),
    ({"type": "challenge", "accounts": ["ann", 3], "game": "battleline"}, "accounts"),
    ({"type": "autoplay", "games": "battleline"}, "games"),
    ({"type": "action", "match_id": "m", "action": {}}, "request_id"),
    ({"type": "action", "match_id": "m", "request_id": "r"}, "action"),
    ({"type": "play_bot", "game": "battleline", "options": []}, "options"),
])
def test_invalid_client_messages_name_the_offending_field(message: dict[str, Any],
                                                          field: str) -> None:
    with pytest.raises(ProtocolError) as err:
        validate_client_message(message)
    assert err.value.code is ErrorCode.MALFORMED
    assert err.value.details["field"] == field
    assert field in err.value.message


def test_action_may_be_any_json_value_even_null() -> None:
    for action in (None, 3, "PASS", [1, 2], {"type": "PASS"}):
        validate_client_message({"type": "action", "match_id": "m", "request_id": "r",
                                 "action": action})


def test_unknown_type_is_its_own_error() -> None:
    with pytest.raises(ProtocolError) as err:
        validate_client_message({"type": "teleport"})
    assert err.value.code is ErrorCode.UNKNOWN_TYPE
    assert err.value.details == {}
    assert "teleport" not in err.value.message  # errors never echo the client's input
    # A server-only type sent by a client is unknown in that direction.
    with pytest.raises(ProtocolError) as err:
        validate_client_message({"type": "welcome"})
    assert err.value.code is ErrorCode.UNKNOWN_TYPE


def test_non_object_is_malformed() -> None:
    with pytest.raises(ProtocolError) as err:
        validate_client_message(["type", "ping"])
    assert err.value.code is ErrorCode.MALFORMED


def test_server_messages_validate_too() -> None:
    request = {"type": "request", "match_id": "m", "request_id": "r1", "seat": 0,
               "view": {}, "legal_actions": [{"type": "PASS"}], "clock_ms": None}
    assert validate_server_message(request).type == "request"
    with pytest.raises(ProtocolError) as err:
        validate_server_message({**request, "legal_actions": []})
    assert err.value.details["field"] == "legal_actions"


def test_json_text_and_python_json_agree() -> None:
    # The wire JSON is ordinary JSON: any standard parser reads it the same way.
    assert json.loads(encode_json(ACTION)) == ACTION


def test_empty_binary_is_caught_by_the_strict_walk_only() -> None:
    frame = msgpack.packb({"type": "ping", "blob": b""}, use_bin_type=True)
    with pytest.raises(ProtocolError):
        decode_msgpack(frame)
    assert decode_msgpack(frame, strict=False) == {"type": "ping", "blob": b""}


def test_subprotocol_selection_follows_the_clients_preference() -> None:
    from protocol.messages import encoding_of, select_subprotocol

    assert select_subprotocol(["arena.v1.msgpack", "arena.v1.json"]) == "arena.v1.msgpack"
    assert select_subprotocol(["chat", "arena.v1.json"]) == "arena.v1.json"
    assert select_subprotocol([]) is None and select_subprotocol(None) is None
    assert select_subprotocol(["arena.v2.json"]) is None
    assert encoding_of(None) == "json" and encoding_of("arena.v1.msgpack") == "msgpack"
