"""Fuzzing the decoders and the server session: whatever a client sends, nothing escapes but a
documented error or a documented close, and no error quotes the frame or shows internals.

The checks are :mod:`tools.bench.fuzz`'s (one definition for the suite and ``arena bench
fuzz``); here hypothesis drives them, plus a short run of the bench's own generator.
"""

from __future__ import annotations

import json
from typing import Any

import msgpack
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.codec import MAX_DEPTH, decode_json, decode_msgpack, encode_json
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import CLIENT_TYPES
from protocol.session import ServerSession
from tools.bench.fuzz import (
    MARKER,
    FrameGenerator,
    FuzzFailure,
    check_error_text,
    check_session,
    fuzz,
)

FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# JSON values, strings leaning to the marker and to characters JSON must escape.
strings = st.one_of(st.just(MARKER), st.text(max_size=20),
                    st.text(alphabet=':"\\{}[],\u2028\U0001f600', max_size=8),
                    st.builds(lambda s: s + MARKER, st.text(max_size=5)))
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1),
                    st.floats(allow_nan=False, allow_infinity=False), strings)
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(strings, inner, max_size=4)), max_leaves=20)


@st.composite
def client_messages(draw: st.DrawFn) -> dict[str, Any]:
    """A message of a client type from the catalogue with each field kept, dropped or replaced
    by any JSON value, plus extra fields: valid, missing, wrong, extra."""
    spec = draw(st.sampled_from(list(CLIENT_TYPES.values())))
    message: dict[str, Any] = {"type": draw(st.one_of(st.just(spec.type), strings))}
    for f in spec.fields:
        choice = draw(st.integers(0, 2))
        if choice:
            message[f.name] = draw(json_values)
    message.update(draw(st.dictionaries(strings, json_values, max_size=3)))
    if draw(st.booleans()):
        message["id"] = draw(json_values)
    return message


def open_session(encoding: str = "json") -> ServerSession:
    session = ServerSession("msgpack" if encoding == "msgpack" else "json")
    session.welcome(session="s", account={"name": "fuzz", "kind": "guest"},
                    server_version="test")
    session.data_to_send()
    return session


def feed_all(session: ServerSession, frames: list[str | bytes]) -> list[str]:
    labels: list[str] = []
    for now, frame in enumerate(frames):
        if isinstance(frame, str):
            session.receive_text(frame, float(now))
        else:
            session.receive_bytes(frame, float(now))
        labels += check_session(session)[1]
    return labels


def assert_malformed(call: Any, *args: Any) -> ProtocolError:
    with pytest.raises(ProtocolError) as err:
        call(*args)
    assert err.value.code is ErrorCode.MALFORMED
    check_error_text(err.value.to_message())
    return err.value


# ---- the decoders ----------------------------------------------------------------------------


@FUZZ
@given(st.text(max_size=300))
def test_any_text_decodes_to_an_object_or_a_clean_malformed(text: str) -> None:
    try:
        assert isinstance(decode_json(text + MARKER), dict)
    except ProtocolError as exc:
        assert exc.code is ErrorCode.MALFORMED
        check_error_text(exc.to_message())


@FUZZ
@given(st.binary(max_size=300))
def test_any_bytes_decode_to_an_object_or_a_clean_malformed(data: bytes) -> None:
    try:
        assert isinstance(decode_msgpack(data + MARKER.encode()), dict)
    except ProtocolError as exc:
        assert exc.code is ErrorCode.MALFORMED
        check_error_text(exc.to_message())


@FUZZ
@given(st.dictionaries(strings, json_values, max_size=5))
def test_every_json_object_comes_back_as_it_was_in_both_encodings(value: dict[str, Any]) -> None:
    # Keys with ':' inside strings take the exact path; the rest the counted one. Both agree.
    assert decode_json(encode_json(value)) == value
    assert decode_json(json.dumps(value, indent=1)) == value
    assert decode_msgpack(msgpack.packb(value, use_bin_type=True)) == value


@FUZZ
@given(st.dictionaries(strings, json_values, min_size=1, max_size=5), st.data())
def test_a_repeated_key_anywhere_is_malformed(value: dict[str, Any], data: st.DataObject) -> None:
    key = data.draw(st.sampled_from(sorted(value)))
    text = encode_json(value)
    again = "{" + orjson.dumps(key).decode() + ":" + orjson.dumps(MARKER).decode() + "," + text[1:]
    err = assert_malformed(decode_json, again)
    assert "repeats a key" in err.message
    # ... also one level down, and in msgpack
    assert_malformed(decode_json, '{"type":"ping","note":' + again + "}")
    pairs = b"".join(msgpack.packb(k) + msgpack.packb(v) for k, v in value.items())
    size = len(value) + 1
    head = bytes([0x80 | size]) if size < 16 else b"\xde" + size.to_bytes(2, "big")
    assert_malformed(decode_msgpack, head + msgpack.packb(key) + msgpack.packb(0) + pairs)


def test_the_issue_example_of_a_repeated_key() -> None:
    for text in ('{"type":"ping","type":"hello"}', '{"type":"ping","\\u0074ype":"hello"}',
                 '{"type":"ping","x":{"a:b":1,"a:b":2}}'):
        assert "repeats a key" in assert_malformed(decode_json, text).message
    session = open_session()
    session.receive_text('{"type":"ping","id":3,"type":"hello"}', 0.0)
    events, labels = check_session(session)
    assert events == [] and labels == ["malformed"]
    # A colon inside a string is not a repeat: the exact path accepts it.
    assert decode_json('{"type":"ping","note":"a:b::"}') == {"type": "ping", "note": "a:b::"}


def test_nesting_is_limited_to_32_levels_in_both_encodings() -> None:
    def chain(depth: int) -> dict[str, Any]:
        value: Any = MARKER
        for _ in range(depth - 1):
            value = [value]
        return {"type": "ping", "note": value}

    for depth in (MAX_DEPTH, MAX_DEPTH + 1, 1000, 100_000):
        message = chain(depth) if depth < 1000 else None
        text = encode_json(message) if message else '{"a":' + "[" * depth + "]" * depth + "}"
        data = msgpack.packb(message) if message else b"\x81\xa1a" + b"\x91" * depth + b"\xc0"
        if depth <= MAX_DEPTH:
            assert decode_json(text) == message and decode_msgpack(data) == message
        else:
            assert_malformed(decode_json, text)
            assert_malformed(decode_msgpack, data)


def test_what_json_refuses() -> None:
    for text in ('{"a":NaN}', '{"a":-Infinity}', '{"a":"\\ud800"}', '{"a":1e999}', "\ufeff{}",
                 '{"a":1}x', "{'a':1}", '{"a":"\u0000"}'):
        assert_malformed(decode_json, text)
    big = decode_json('{"a":18446744073709551615,"b":18446744073709551616}')
    assert big["a"] == 2**64 - 1 and isinstance(big["b"], float)


def test_what_msgpack_refuses() -> None:
    packed = msgpack.packb({"type": "ping"})
    for data in (msgpack.packb({"type": b""}, use_bin_type=True),
                 msgpack.packb({"type": msgpack.ExtType(1, b"x")}),
                 msgpack.packb({1: "ping"}), packed + packed, packed[:-1], b"\xc1"):
        assert_malformed(decode_msgpack, data)


# ---- the server session ----------------------------------------------------------------------


@FUZZ
@given(st.lists(st.one_of(client_messages().map(encode_json),
                          client_messages().map(lambda m: msgpack.packb(m, use_bin_type=True)),
                          st.text(max_size=100), st.binary(max_size=100)), max_size=12),
       st.sampled_from(["json", "msgpack"]), st.booleans())
def test_the_session_answers_any_frames_with_documented_outcomes_only(
        frames: list[str | bytes], encoding: str, welcomed: bool) -> None:
    session = open_session(encoding) if welcomed else ServerSession(
        "msgpack" if encoding == "msgpack" else "json")
    labels = feed_all(session, frames)  # check_session raises FuzzFailure on any broken promise
    if session.close is None:  # every frame is answered, or handed on as an event
        assert len(labels) >= len(frames)


def test_the_checks_catch_an_echo_and_internals() -> None:
    # The harness is only worth something if it fails: a quoted marker, a Python exception
    # name and an undocumented code are each caught.
    for error in ({"type": "error", "code": "malformed", "message": f"bad {MARKER}"},
                  {"type": "error", "code": "malformed", "message": "x",
                   "details": {"type": MARKER}},
                  {"type": "error", "code": "malformed", "message": "KeyError: 'type'"}):
        with pytest.raises(FuzzFailure):
            check_error_text(error)
    session = open_session()
    session.error("internal", "oops")  # never the session's own answer
    with pytest.raises(FuzzFailure):
        check_session(session)


def test_twenty_thousand_generated_frames_cause_no_crash() -> None:
    report = fuzz(20_000, seed=22)
    assert report.crash is None, (report.crash, report.crash_frame)
    assert report.frames == 20_000
    # The generator reaches every kind of answer the session gives on its own.
    for outcome in ("event", "pong", "malformed", "unknown_type", "too_large", "unauthorized",
                    "bad_request", "rate_limited"):
        assert report.outcomes[outcome] > 0, report.outcomes


def test_the_generator_is_reproducible() -> None:
    first, second = FrameGenerator(5), FrameGenerator(5)
    assert [first.frame() for _ in range(200)] == [second.frame() for _ in range(200)]


def test_coverage_guided_fuzzing_with_atheris_finds_no_crash(
        tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """A short real run of ``arena bench fuzz --atheris`` (libFuzzer in its own process, its
    corpus seeded with generated frames): it runs every input, reaches new code, and finds
    no crash."""
    from tools import cli

    assert cli.main(["bench", "fuzz", "--atheris", "--runs", "3000", "--seed", "3",
                     "--artifacts", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["engine"] == "atheris" and report["crashes"] == 0
    # libFuzzer's own count of executed units: at least the runs asked for; some builds also
    # count the seed corpus and the re-runs of inputs it keeps (3,191 seen on CI)
    assert 3000 <= report["runs"] <= 2 * 3000 and report["coverage"] > 100
    assert not list(tmp_path.iterdir())  # no crashing input written


def test_the_atheris_target_reports_a_broken_promise(tmp_path: Any) -> None:
    """The target is only worth something if a failure stops it: an input whose hello is
    refused with an undocumented code makes libFuzzer report a crash and keep the input."""
    import subprocess
    import sys

    crash = tmp_path / "bad-input"
    # A welcomed JSON session, its one frame a ping; the check is made to reject any reply
    # (so the pong), as it would a reply that broke a promise.
    crash.write_bytes(b"\x02" + encode_json({"type": "ping"}).encode())
    done = subprocess.run(
        [sys.executable, "-c",
         "import sys, tools.bench.fuzz as f\n"
         "f.check_reply = lambda *a, **k: (_ for _ in ()).throw(f.FuzzFailure('planted'))\n"
         "import tools.bench.fuzz_atheris as t\n"
         "sys.argv = ['x', sys.argv[1]]\n"
         "t.main()", str(crash)],
        capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "planted" in done.stdout + done.stderr
