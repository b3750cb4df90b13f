"""Frames ⇄ messages: JSON text frames, msgpack binary frames, size checks, validation.

Both encodings carry the same objects: a message is a ``dict`` with ``str`` keys holding only
dicts, lists, strings, integers, floats, booleans and ``None``. A text frame is decoded as
JSON, a binary frame as msgpack, whatever was negotiated (the negotiated encoding decides only
what a peer *sends*).

Every decoding failure raises :class:`~protocol.errors.ProtocolError` with code ``malformed``;
a frame above a size limit raises ``too_large``. :func:`validate_client_message` checks the
envelope and the fields of a client message against :mod:`protocol.messages` (unknown fields
are ignored) and names the offending field in ``details.field``.

Encoding is the hot path of a busy server: :class:`EncodedMessage` encodes a message once per
encoding however many connections it is sent to.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

import msgpack

try:  # a C encoder ~15x faster than the standard library on a server's 2-4 KB messages
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency; the fallback stays exact
    orjson = None  # type: ignore[assignment]

from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    CLIENT_TYPES,
    SERVER_TYPES,
    Encoding,
    Id,
    MessageSpec,
)

Frame = str | bytes
"""A websocket frame's payload: ``str`` for a text frame, ``bytes`` for a binary frame."""

Message = dict[str, Any]

_JSON_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"),
                                        allow_nan=False)
_ID: Final = Id()


# --------------------------------------------------------------------------------------------
# Encoding
# --------------------------------------------------------------------------------------------


def encode_json(message: Mapping[str, Any]) -> str:
    """Compact JSON text (UTF-8 characters kept as they are; NaN/Infinity refused by the
    standard library encoder, written as ``null`` by orjson — protocol messages hold neither).

    orjson first: the same text as the standard library for every message of the protocol
    (keys in insertion order, no spaces, non-ASCII kept, the same escapes), except that a
    float may be spelled differently for the same value (``1e-5`` for ``1e-05``). What orjson
    refuses (integers beyond 64 bits, non-string keys, lone surrogates, other types) goes to
    the standard library, which encodes it as before or raises as before."""
    if orjson is not None:
        try:
            return orjson.dumps(message).decode("utf-8")
        except TypeError:
            pass
    return _JSON_ENCODER.encode(message)


def encode_msgpack(message: Mapping[str, Any]) -> bytes:
    """msgpack with str as the str type and bytes as bin (the spec's current format)."""
    frame: bytes = msgpack.packb(message, use_bin_type=True)
    return frame


def encode(message: Mapping[str, Any], encoding: Encoding) -> Frame:
    """One frame in the given encoding: ``str`` for JSON, ``bytes`` for msgpack."""
    return encode_msgpack(message) if encoding == "msgpack" else encode_json(message)


class EncodedMessage:
    """A message plus its encoded frames, each built on first use and then reused.

    Build one per message that goes to several connections (events to spectators, a lobby
    broadcast); :meth:`protocol.session.ServerSession.send` accepts it in place of a dict.
    The message must not be changed after the first frame was built.
    """

    __slots__ = ("message", "_json", "_msgpack")

    def __init__(self, message: Mapping[str, Any]) -> None:
        self.message = message
        self._json: str | None = None
        self._msgpack: bytes | None = None

    def frame(self, encoding: Encoding) -> Frame:
        if encoding == "msgpack":
            if self._msgpack is None:
                self._msgpack = encode_msgpack(self.message)
            return self._msgpack
        if self._json is None:
            self._json = encode_json(self.message)
        return self._json

    def reply_frame(self, encoding: Encoding, ref: Any) -> Frame:
        """The frame of this message as the reply to a client message with id ``ref``
        (``ref`` added in front of the other fields; ``None``: the frame as it is). The
        message is encoded once for any number of replies: an answer that many clients
        ask for (a page of the match listing, a finished match's replay) costs each of
        them the splice, not the encoding."""
        frame = self.frame(encoding)
        if ref is None:
            return frame
        if isinstance(frame, bytes):
            return _msgpack_prepend(frame, "ref", ref)
        return '{"ref":' + encode_json(ref) + ("," + frame[1:] if len(frame) > 2 else "}")


def _msgpack_prepend(frame: bytes, key: str, value: Any) -> bytes:
    """A msgpack map's frame with ``key: value`` added as its first entry."""
    head = frame[0]
    if 0x80 <= head <= 0x8F:  # fixmap
        size, body = head & 0x0F, frame[1:]
    elif head == 0xDE:  # map 16
        size, body = int.from_bytes(frame[1:3], "big"), frame[3:]
    elif head == 0xDF:  # map 32
        size, body = int.from_bytes(frame[1:5], "big"), frame[5:]
    else:
        raise ValueError("not a msgpack map")
    packer = msgpack.Packer(use_bin_type=True)
    return packer.pack_map_header(size + 1) + packer.pack(key) + packer.pack(value) + body


# --------------------------------------------------------------------------------------------
# Sizes
# --------------------------------------------------------------------------------------------


def frame_size(frame: Frame) -> int:
    """Size on the wire in bytes (UTF-8 for text)."""
    return len(frame) if isinstance(frame, bytes) else len(frame.encode("utf-8"))


def exceeds(frame: Frame, limit: int) -> bool:
    """Whether ``frame`` is larger than ``limit`` bytes, without encoding text when its
    character count already decides (a character is 1–4 UTF-8 bytes)."""
    if isinstance(frame, bytes):
        return len(frame) > limit
    n = len(frame)
    if n > limit:
        return True
    if 4 * n <= limit:
        return False
    return len(frame.encode("utf-8")) > limit


def check_size(frame: Frame, limit: int) -> None:
    """Raise ``too_large`` when ``frame`` is larger than ``limit`` bytes."""
    if exceeds(frame, limit):
        raise ProtocolError(ErrorCode.TOO_LARGE, f"frame larger than {limit} bytes",
                            limit=limit)


# --------------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------------


MAX_DEPTH: Final = 32
"""How deep a client message may nest objects and arrays (the message itself is level 1).
Real messages need five; the bound keeps every later walk (validation, the engine, storage)
far from Python's recursion limit."""


def decode_json(text: str) -> Message:
    """Parse one JSON text frame into a message object (``malformed`` on any failure).

    Refused as well as syntax errors: ``NaN``/``Infinity``, lone surrogates (a string that
    is not Unicode), a key repeated in one object, nesting deeper than :data:`MAX_DEPTH`.
    Integers are exact within 64 bits; a larger one is read as a float.

    orjson parses (4x faster than the standard library on small messages) but keeps the last
    of repeated keys. The repeat check is nearly free, all in C: a repeated key is one member
    the parse dropped, so the frame holds one ``:`` more than the message written back
    (``:`` inside strings are in both; a ``\\u`` escape could write one back that the frame
    does not spell, so a frame with one is parsed exactly). The depth is walked only when the
    frame has more brackets than :data:`MAX_DEPTH`. Only a frame with an escape, a repeat or
    many brackets pays a second, exact parse."""
    if orjson is None:  # pragma: no cover - orjson is a dependency
        return _decode_json_exactly(text)
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise ProtocolError(ErrorCode.MALFORMED, _json_syntax_error(exc)) from None
    message = _require_object(value)
    if (text.count("{") + text.count("[") > MAX_DEPTH or "\\u" in text
            or text.count(":") != orjson.dumps(message).count(b":")):
        _decode_json_exactly(text)  # raises on a repeated key or a too deep message
    return message


def _json_syntax_error(exc: json.JSONDecodeError) -> str:
    # The decoder's own phrase and position: fixed texts, never a piece of the input.
    return f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"


def _unique_keys(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    """object_pairs_hook of both decoders' exact paths: an object that repeats a key is
    malformed (decoders disagree on which value wins, so no value may)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise ProtocolError(ErrorCode.MALFORMED, "an object repeats a key")
    return obj


def _reject_constant(name: str) -> Any:
    raise ProtocolError(ErrorCode.MALFORMED, "not valid JSON: NaN and Infinity are not JSON")


_JSON_EXACT: Final = json.JSONDecoder(parse_constant=_reject_constant,
                                      object_pairs_hook=_unique_keys)


def _decode_json_exactly(text: str) -> Message:
    """The standard library's parse with every object checked for repeated keys."""
    try:
        value = _JSON_EXACT.decode(text)
    except json.JSONDecodeError as exc:
        raise ProtocolError(ErrorCode.MALFORMED, _json_syntax_error(exc)) from None
    except RecursionError:
        raise ProtocolError(ErrorCode.MALFORMED, _too_deep()) from None
    message = _require_object(value)
    _members(message, 1)
    return message


def _reject_ext(code: int, data: bytes) -> Any:
    raise ValueError("msgpack extension types are not allowed")


_MSGPACK_PROBLEMS: Final = "invalid or truncated data, binary data, an extension type, or " \
    "a map key that is not a string"


def decode_msgpack(data: bytes, *, strict: bool = True) -> Message:
    """Parse one msgpack binary frame into a message object (``malformed`` on any failure).

    Only JSON-equivalent values are accepted, so a msgpack message always has a JSON twin:
    map keys must be strings, extension types are refused, and so is binary data (the C
    unpacker refuses any non-empty bin). A map that repeats a key and nesting deeper than
    :data:`MAX_DEPTH` are malformed too. ``strict=False`` skips the checks done in Python
    (repeated keys, an *empty* bin, depth); clients use it for the server's large, trusted
    messages.
    """
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True,
                                ext_hook=_reject_ext, max_bin_len=0,
                                object_pairs_hook=_unique_keys if strict else None)
    except ProtocolError:
        raise
    except msgpack.ExtraData:
        raise ProtocolError(ErrorCode.MALFORMED,
                            "not valid msgpack: data after the end of the message") from None
    except msgpack.StackError:
        raise ProtocolError(ErrorCode.MALFORMED, _too_deep()) from None
    except Exception:  # msgpack raises several unrelated types; all mean malformed
        raise ProtocolError(ErrorCode.MALFORMED,
                            f"not valid msgpack: {_MSGPACK_PROBLEMS}") from None
    message = _require_object(value)
    if strict:
        _members(message, 1)
    return message


def decode(frame: Frame) -> Message:
    """Decode a frame by its kind: text → JSON, binary → msgpack."""
    return decode_msgpack(frame) if isinstance(frame, bytes) else decode_json(frame)


def _require_object(value: Any) -> Message:
    if not isinstance(value, dict):
        raise ProtocolError(ErrorCode.MALFORMED,
                            f"a message must be an object, got {_json_kind(value)}")
    return value


def _too_deep() -> str:
    return f"a message may nest objects and arrays at most {MAX_DEPTH} levels deep"


def _members(value: dict[Any, Any] | list[Any], depth: int) -> int:
    """The members of every object in a decoded ``value`` at nesting level ``depth``, after
    checking that it has a JSON twin (string keys, no binary data) and nests at most
    :data:`MAX_DEPTH` levels. Recursion is bounded by that limit."""
    if depth > MAX_DEPTH:
        raise ProtocolError(ErrorCode.MALFORMED, _too_deep())
    if type(value) is dict:
        count = len(value)
        if any(type(key) is not str for key in value):
            raise ProtocolError(ErrorCode.MALFORMED, "a map key is not a string")
        items: Any = value.values()
    else:
        count = 0
        items = value
    for item in items:
        kind = type(item)
        if kind is dict or kind is list:
            count += _members(item, depth + 1)
        elif kind is bytes:
            raise ProtocolError(ErrorCode.MALFORMED, "binary data is not allowed")
    return count


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "binary data" if isinstance(value, bytes) else "a value with no JSON twin"


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def message_id(message: Mapping[str, Any]) -> Any:
    """The message's ``id`` if it is a valid one, else ``None`` (so errors can carry ``ref``
    even when something else in the message is wrong)."""
    value = message.get("id")
    if value is None or _ID.problem(value, "id"):
        return None
    return value


def validate_envelope(message: Mapping[str, Any]) -> str:
    """Check ``type`` (present, a string) and ``id`` (if present); return the type."""
    kind = message.get("type")
    if "type" not in message:
        raise ProtocolError(ErrorCode.MALFORMED, "field 'type' is missing", field="type")
    if not isinstance(kind, str):
        raise ProtocolError(ErrorCode.MALFORMED, "field 'type' must be a string", field="type")
    if "id" in message:
        problem = _ID.problem(message["id"], "field 'id'")
        if problem:
            raise ProtocolError(ErrorCode.MALFORMED, problem, field="id")
    return kind


def check_fields(message: Mapping[str, Any], spec: MessageSpec) -> None:
    """Check the fields of ``message`` against ``spec``; unknown fields are ignored."""
    for f in spec.fields:
        if f.name not in message:
            if f.required:
                raise ProtocolError(ErrorCode.MALFORMED,
                                    f"{spec.type}: field '{f.name}' is missing", field=f.name)
            continue
        problem = f.type.problem(message[f.name], f"field '{f.name}'")
        if problem:
            raise ProtocolError(ErrorCode.MALFORMED, f"{spec.type}: {problem}", field=f.name)


def _unknown_type() -> ProtocolError:
    # The type is not named back: an error never echoes what the client sent (the ``ref``
    # says which message it answers).
    return ProtocolError(ErrorCode.UNKNOWN_TYPE, "unknown message type")


def validate_client_message(message: Any) -> MessageSpec:
    """Validate a decoded client message; return its :class:`MessageSpec`.

    Raises ``malformed`` (not an object, bad ``type``/``id``, a missing or wrongly typed
    field — ``details.field`` names it) or ``unknown_type``. Unknown fields are ignored.
    """
    if not isinstance(message, dict):
        raise ProtocolError(ErrorCode.MALFORMED,
                            f"a message must be an object, got {_json_kind(message)}")
    kind = validate_envelope(message)
    spec = CLIENT_TYPES.get(kind)
    if spec is None:
        raise _unknown_type()
    check_fields(message, spec)
    return spec


def validate_server_message(message: Any) -> MessageSpec:
    """Validate a server message the same way (used by tests and strict clients)."""
    if not isinstance(message, dict):
        raise ProtocolError(ErrorCode.MALFORMED,
                            f"a message must be an object, got {_json_kind(message)}")
    kind = validate_envelope(message)
    spec = SERVER_TYPES.get(kind)
    if spec is None:
        raise _unknown_type()
    check_fields(message, spec)
    return spec
