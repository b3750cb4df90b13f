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


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_JSON_DECODER: Final = json.JSONDecoder(parse_constant=_reject_constant)


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


def decode_json(text: str) -> Message:
    """Parse one JSON text frame into a message object (``malformed`` on any failure)."""
    try:
        value = _JSON_DECODER.decode(text)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(ErrorCode.MALFORMED, f"not valid JSON: {exc}") from None
    return _require_object(value)


def _reject_ext(code: int, data: bytes) -> Any:
    raise ValueError(f"msgpack extension type {code} is not allowed")


def decode_msgpack(data: bytes, *, strict: bool = True) -> Message:
    """Parse one msgpack binary frame into a message object (``malformed`` on any failure).

    Only JSON-equivalent values are accepted, so a msgpack message always has a JSON twin:
    map keys must be strings, extension types are refused, and so is binary data (the C
    unpacker refuses any non-empty bin). ``strict=False`` skips the Python walk that also
    catches an *empty* bin; clients use it for the server's large, trusted messages.
    """
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True,
                                ext_hook=_reject_ext, max_bin_len=0)
    except Exception as exc:  # msgpack raises several unrelated types; all mean malformed
        raise ProtocolError(ErrorCode.MALFORMED, f"not valid msgpack: {exc}") from None
    if strict:
        problem = _non_json_part(value)
        if problem:
            raise ProtocolError(ErrorCode.MALFORMED, f"not a JSON-equivalent value: {problem}")
    return _require_object(value)


def decode(frame: Frame) -> Message:
    """Decode a frame by its kind: text → JSON, binary → msgpack."""
    return decode_msgpack(frame) if isinstance(frame, bytes) else decode_json(frame)


def _require_object(value: Any) -> Message:
    if not isinstance(value, dict):
        raise ProtocolError(ErrorCode.MALFORMED,
                            f"a message must be an object, got {_json_kind(value)}")
    return value


def _non_json_part(value: Any) -> str | None:
    """Describe the first part of a decoded msgpack value with no JSON twin, else None."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, sub in item.items():
                if not isinstance(key, str):
                    return f"map key of type {type(key).__name__}"
                stack.append(sub)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, bytes):
            return "binary data"
    return None


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
    return type(value).__name__


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
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind!r}",
                            type=kind)
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
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind!r}",
                            type=kind)
    check_fields(message, spec)
    return spec
