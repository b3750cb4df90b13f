"""The wire contract: messages, codecs, validation, error codes and sans-I/O sessions.

No sockets, no clock, nothing of ``engine/`` or ``server/``: the standard library and msgpack.
``protocol/PROTOCOL.md`` is the specification; ``protocol/schema.json`` is generated from
:mod:`protocol.messages`.
"""

from protocol.codec import (
    EncodedMessage,
    Frame,
    decode,
    decode_json,
    decode_msgpack,
    encode,
    encode_json,
    encode_msgpack,
    validate_client_message,
    validate_server_message,
)
from protocol.errors import ERROR_CODES, ErrorCode, ProtocolError, error_message
from protocol.messages import (
    CLIENT_TYPES,
    DEFAULT_LIMITS,
    PROTOCOL_VERSION,
    SERVER_TYPES,
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    SUBPROTOCOLS,
    Limits,
    encoding_of,
    select_subprotocol,
)
from protocol.session import ClientSession, Close, ServerSession, ServerState

__all__ = [
    "CLIENT_TYPES", "DEFAULT_LIMITS", "ERROR_CODES", "PROTOCOL_VERSION", "SERVER_TYPES",
    "SUBPROTOCOLS", "SUBPROTOCOL_JSON", "SUBPROTOCOL_MSGPACK", "ClientSession", "Close",
    "EncodedMessage", "ErrorCode", "Frame", "Limits", "ProtocolError", "ServerSession",
    "ServerState", "decode", "decode_json", "decode_msgpack", "encode", "encode_json",
    "encode_msgpack", "encoding_of", "error_message", "select_subprotocol",
    "validate_client_message", "validate_server_message",
]
