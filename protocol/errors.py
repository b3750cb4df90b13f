"""Error codes of wire protocol v1 and the one exception that carries them.

An error is a message ``{"type": "error", "code": ..., "message": ...}`` with optional
``ref`` (the ``id`` of the message it answers), ``match_id``, ``request_id`` and ``details``.
Errors never close the connection; only abuse does (see :mod:`protocol.session`).

Messages must never contain hidden information (another seat's hand, deck order, the seed):
build them from what the receiving client already knows.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    """Every error code a server may send. Values are the wire strings."""

    MALFORMED = "malformed"
    """Frame not valid JSON/msgpack, not an object, ``type`` missing or not a string, or a
    field of the wrong type (``details.field`` names it)."""
    UNKNOWN_TYPE = "unknown_type"
    UNSUPPORTED_VERSION = "unsupported_version"
    """``hello.protocol`` is not spoken here; ``details.supported`` lists what is."""
    UNAUTHORIZED = "unauthorized"
    """Bad token or resume token, or a message other than hello/ping before welcome."""
    NOT_YOUR_TURN = "not_your_turn"
    STALE_REQUEST = "stale_request"
    """The action names a request_id that is not the seat's pending request."""
    MALFORMED_ACTION = "malformed_action"
    """The action is not of the game's action shape."""
    ILLEGAL_ACTION = "illegal_action"
    """Well formed but forbidden now; ``details.rule`` is the engine's rule id."""
    RATE_LIMITED = "rate_limited"
    """The message was dropped: a budget it is charged to is spent (``details.budget``:
    connection, account or address), or a cap is reached (``details.cap``: guests).
    ``retry_after`` says when to try again."""
    TOO_LARGE = "too_large"
    NOT_FOUND = "not_found"
    """Unknown match, account, challenge, seek, game or bot."""
    BAD_REQUEST = "bad_request"
    """Bad options, wrong seat count, seat out of range, …"""
    INTERNAL = "internal"


ERROR_CODES: tuple[str, ...] = tuple(c.value for c in ErrorCode)


class ProtocolError(Exception):
    """A protocol-level failure with a wire error code.

    Raised by the codec and the sessions (and usable by the server for its own checks);
    :meth:`to_message` turns it into the ``error`` message to send.
    """

    def __init__(self, code: ErrorCode | str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.details = details

    def __repr__(self) -> str:
        return f"ProtocolError({self.code.value!r}, {self.message!r}, **{self.details!r})"

    def to_message(self, *, ref: Any = None, match_id: str | None = None,
                   request_id: str | None = None) -> dict[str, Any]:
        return error_message(self.code, self.message, ref=ref, match_id=match_id,
                             request_id=request_id, details=self.details or None)


def error_message(code: ErrorCode | str, message: str, *, ref: Any = None,
                  match_id: str | None = None, request_id: str | None = None,
                  details: dict[str, Any] | None = None,
                  retry_after: float | None = None) -> dict[str, Any]:
    """Build an ``error`` message. Optional keys are present only when given
    (``retry_after``: seconds, for ``rate_limited``)."""
    out: dict[str, Any] = {"type": "error", "code": ErrorCode(code).value, "message": message}
    if ref is not None:
        out["ref"] = ref
    if match_id is not None:
        out["match_id"] = match_id
    if request_id is not None:
        out["request_id"] = request_id
    if details:
        out["details"] = details
    if retry_after is not None:
        out["retry_after"] = round(retry_after, 3)
    return out
