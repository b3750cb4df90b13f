"""Sans-I/O sessions: the protocol state of one connection, with no sockets and no clock.

Both classes follow the same calling contract (python-websockets' shape):

1. feed each received frame: ``receive_text(str)`` or ``receive_bytes(bytes)``
   (the server session also takes ``now``, the caller's monotonic clock in seconds);
2. then call :meth:`events_received` to get the messages that came out of it;
3. after anything that may send (receiving, :meth:`send`, :meth:`reply`, …) call
   :meth:`data_to_send` and write every frame returned, in order: ``str`` as a text frame,
   ``bytes`` as a binary frame;
4. then check :attr:`ServerSession.close`: when set, send the frames already pulled, close
   the websocket with that code and stop feeding input.

:class:`ServerSession` answers what it can on its own — ``ping``, malformed frames, unknown
types, too-large frames, pre-hello messages, the wrong protocol version, rate limiting — and
hands the server only valid client messages. Every message costs tokens
(:func:`protocol.messages.message_cost`) from the connection's budget and from the budgets
the server shares between connections (:attr:`ServerSession.shared`); after a refusal,
:meth:`ServerSession.pause_for` says how long to stop reading from the client.
:class:`ClientSession` builds ``hello`` and ``action`` messages and keeps the bookkeeping of
pending requests.
"""

from __future__ import annotations

import collections
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from protocol.codec import (
    EncodedMessage,
    Frame,
    Message,
    decode_json,
    decode_msgpack,
    encode,
    exceeds,
    message_id,
    validate_client_message,
    validate_envelope,
)
from protocol.errors import ErrorCode, ProtocolError, error_message
from protocol.messages import (
    CLOSE_POLICY_VIOLATION,
    CLOSE_TOO_BIG,
    DEFAULT_LIMITS,
    PRE_HELLO_TYPES,
    PROTOCOL_VERSION,
    SERVER_TYPES,
    SUPPORTED_VERSIONS,
    Encoding,
    Limits,
    message_cost,
)

SERVER_NAME = "tabletop-arena"
MAX_PAUSE_S = 2.0
"""The longest the server stops reading from a refused client (:meth:`ServerSession.pause_for`);
a refusal after the last pause, with nothing of the client read since, doubles the pause up
to this (a budget in a longer debt still says so in ``retry_after``, and is read again
after this)."""
CLIENT_NAME = "tabletop-arena-py"


@dataclass(frozen=True)
class Close:
    """A decision to close the connection with a websocket close code."""

    code: int
    reason: str


class TokenBucket:
    """A token bucket driven by the caller's clock: ``rate`` tokens per second, at most
    ``capacity``. It never reads a clock; every call passes ``now`` (seconds, monotonic).
    ``name`` says whose budget it is (``connection``, ``account``, ``address``) in the
    ``rate_limited`` errors it causes. Its tokens may go below zero: a message is admitted
    with one token left and then costs what it costs (:meth:`spend`), so an expensive
    message is never starved by cheap ones and its debt delays what follows."""

    __slots__ = ("rate", "capacity", "tokens", "updated", "name")

    def __init__(self, rate: float, capacity: int, now: float, name: str = "connection"
                 ) -> None:
        self.rate = rate
        self.capacity = float(capacity)
        self.tokens = float(capacity)
        self.updated = now
        self.name = name

    def refill(self, now: float) -> None:
        if now > self.updated:
            self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
            self.updated = now

    def spend(self, tokens: float) -> None:
        """Spend ``tokens`` (negative: give them back), down into debt, up to the capacity."""
        self.tokens = min(self.capacity, self.tokens - tokens)

    def wait(self, now: float) -> float:
        """Seconds until the bucket holds a token again (0 when it does now)."""
        self.refill(now)
        missing = 1.0 - self.tokens
        if missing <= 1e-9:  # a client that waited exactly retry_after is not refused
            return 0.0
        return missing / self.rate if self.rate > 0 else float("inf")


class ServerState(enum.Enum):
    AWAITING_HELLO = "awaiting_hello"
    """Only ``hello`` and ``ping`` are accepted."""
    AUTHENTICATING = "authenticating"
    """A ``hello`` was handed to the server; it must call :meth:`ServerSession.welcome` or
    :meth:`ServerSession.reject_hello`."""
    OPEN = "open"
    CLOSED = "closed"


class ServerSession:
    """The server side of one connection.

    ``encoding`` is the negotiated one (``protocol.messages.encoding_of(subprotocol)``); it
    decides the frames this session produces. ``now`` starts the rate limiter's clock.

    Typical pump (see the module docstring for the contract)::

        session = ServerSession(encoding_of(ws.subprotocol), now=time.monotonic())
        async for frame in ws:
            if isinstance(frame, str):
                session.receive_text(frame, time.monotonic())
            else:
                session.receive_bytes(frame, time.monotonic())
            for message in session.events_received():
                handle(message)                 # may call session.send / reply / welcome
            for out in session.data_to_send():
                await ws.send(out)
            if session.close:
                await ws.close(session.close.code, session.close.reason)
                break
    """

    def __init__(self, encoding: Encoding = "json", limits: Limits = DEFAULT_LIMITS,
                 now: float = 0.0, *, errors_sent: collections.Counter[str] | None = None
                 ) -> None:
        """``errors_sent``: where to count each ``error`` message sent, by code (a server
        shares one among its connections; default: this session's own)."""
        self.encoding: Encoding = encoding
        self.errors_sent: collections.Counter[str] = (
            collections.Counter() if errors_sent is None else errors_sent)
        self.limits = limits
        self.state = ServerState.AWAITING_HELLO
        self.close: Close | None = None
        self.bucket = TokenBucket(limits.rate_per_s, limits.burst, now)
        self.shared: tuple[TokenBucket, ...] = ()
        """The budgets this connection shares with others (its account's, or its address's),
        charged with :attr:`bucket`; the server sets them."""
        self.costly: TokenBucket | None = None
        """For a guest: the budget every guest shares for messages that cost more than a
        token (the server sets it); such a message is refused while it is spent."""
        self.strikes = 0
        """Messages refused by the rate limiter in the current flood."""
        self._backoff = 0.0
        """The last pause since a message was last read (0: none); a refusal after it
        doubles it."""
        self._refused_at = float("-inf")
        self._pause: float | None = None
        self._charged: tuple[tuple[TokenBucket, ...], int] = ((), 0)
        self.protocol_errors = 0
        """Errors this session answered on its own (malformed, unknown type, …)."""
        self._events: list[Message] = []
        self._out: list[Frame] = []

    # ---- input -----------------------------------------------------------------------------

    def receive_text(self, data: str, now: float) -> None:
        """Feed one text frame (JSON). Then call :meth:`events_received`."""
        self._receive(data, now)

    def receive_bytes(self, data: bytes, now: float) -> None:
        """Feed one binary frame (msgpack). Then call :meth:`events_received`."""
        self._receive(data, now)

    def events_received(self) -> list[Message]:
        """Valid client messages received since the last call, in order (never ``ping``,
        which the session answers itself). The list is handed over, not copied."""
        events, self._events = self._events, []
        return events

    def _receive(self, frame: Frame, now: float) -> None:
        if self.state is ServerState.CLOSED:
            return  # the close decision is final; late frames are ignored
        if exceeds(frame, self.limits.hard_frame_bytes):
            self._close(CLOSE_TOO_BIG, "frame too large")
            return
        # Decoded before the rate limiter looks at it, so that its refusal names the
        # message it refuses (``ref``): a client waiting for that reply must get one.
        problem: ProtocolError | None = None
        message: Message = {}
        if exceeds(frame, self.limits.max_frame_bytes):
            problem = ProtocolError(
                ErrorCode.TOO_LARGE,
                f"frame larger than {self.limits.max_frame_bytes} bytes; it was dropped",
                limit=self.limits.max_frame_bytes)
        else:
            try:
                message = (decode_msgpack(frame) if isinstance(frame, bytes)
                           else decode_json(frame))
            except ProtocolError as exc:
                problem = exc
        ref = message_id(message)
        if not self._admit(now, ref):
            return
        if problem is not None:
            self._refuse(problem, None)
            return
        try:
            kind = validate_envelope(message)
            if self.state is not ServerState.OPEN and kind not in PRE_HELLO_TYPES:
                # Unknown types too: before the handshake nothing but hello is discussed.
                raise ProtocolError(ErrorCode.UNAUTHORIZED,
                                    "send hello first and wait for welcome")
            validate_client_message(message)
            cost = message_cost(message)
            if cost > 1 and self.costly is not None:  # a guest's listing, replay, …
                wait = self.costly.wait(now)
                if wait > 0.0:
                    self._rate_limited(self.costly, wait, now, ref)
                    return
                self._charged = ((*self._charged[0], self.costly), 1)
                self.costly.spend(1.0)
            self._backoff = 0.0
            self._charge(cost - 1)
            if kind == "hello":
                self._hello(message)
                return
        except ProtocolError as exc:
            self._refuse(exc, ref)
            return
        if kind == "ping":
            self.reply(message, {"type": "pong"})
            return
        self._events.append(message)

    def _admit(self, now: float, ref: Any) -> bool:
        """The rate limiter: a frame is read only if every budget it is charged to (the
        connection's and :attr:`shared`) holds a token; it takes one from each, and
        :meth:`_charge` the rest of its cost once its type is known. A refused frame is
        answered ``rate_limited`` with ``retry_after`` (and :meth:`pause_for` tells the
        caller how long to stop reading); a client that keeps flooding is closed. Strikes
        are forgiven once the client has not been refused for ``burst / rate`` seconds."""
        buckets = (self.bucket, *self.shared)
        waits = [b.wait(now) for b in buckets]
        retry_after = max(waits)
        if retry_after <= 0.0:
            for bucket in buckets:
                bucket.spend(1.0)
            self._charged = (buckets, 1)
            return True
        self._rate_limited(buckets[waits.index(retry_after)], retry_after, now, ref)
        return False

    def _rate_limited(self, empty: TokenBucket, retry_after: float, now: float,
                      ref: Any) -> None:
        """Refuse a message because ``empty`` is spent (a strike; too many close)."""
        since = now - self._refused_at
        if since >= self.limits.burst / self.limits.rate_per_s:
            self.strikes = 0
        self._refused_at = now
        self.strikes += 1
        if self.strikes > self.limits.abuse_strikes:
            self._close(CLOSE_POLICY_VIOLATION, "rate limit exceeded")
            return
        # Refused again after the last pause, before anything of its was read (it did not
        # wait, or others sharing the budget took the tokens first): twice the pause. The
        # clients contending for a shared budget spread out instead of all waking at the
        # same instant, and one that ignores retry_after costs a refusal per pause. (Frames
        # that were already in when the pause began do not count.)
        if self._backoff > 0.0:
            backoff = (min(MAX_PAUSE_S, 2.0 * self._backoff)
                       if since >= 0.9 * self._backoff else self._backoff)
            retry_after = max(retry_after, backoff)
        self._backoff = retry_after
        self._pause = retry_after
        self._send_message(error_message(
            ErrorCode.RATE_LIMITED,
            f"the {empty.name}'s budget of {empty.rate:g} tokens per second is spent; "
            "message dropped",
            ref=ref, details={"budget": empty.name, "rate_per_s": empty.rate,
                              "burst": int(empty.capacity)},
            retry_after=retry_after))

    def _charge(self, tokens: int) -> None:
        """Charge the rest of the message's cost (its first token was taken on arrival)."""
        if tokens:
            buckets, _ = self._charged
            for bucket in buckets:
                bucket.spend(tokens)
            self._charged = (buckets, 1 + tokens)

    def charge_more(self, tokens: int) -> None:
        """Charge the last message ``tokens`` more, to every budget it was charged to: for
        a handler that learns what its answer cost only once it has built it (a replay
        grows with its match). The budgets may go into debt: what the client sends next
        waits for it."""
        if tokens > 0:
            buckets, cost = self._charged
            for bucket in buckets:
                bucket.spend(tokens)
            self._charged = (buckets, cost + tokens)

    def refund(self) -> None:
        """Give back what the last message cost, to every budget it was charged to. For
        messages the server asked for (an ``action`` answering an open request): a fast bot
        must never be rate limited in the middle of a match."""
        buckets, cost = self._charged
        for bucket in buckets:
            bucket.spend(-cost)
        self._charged = (buckets, 0)

    def pause_for(self) -> float | None:
        """Seconds the caller should stop reading from this client (the ``retry_after`` of
        a message just refused), once; ``None`` when nothing was refused since the last
        call. Frames fed meanwhile are charged as usual, so reading on at once only costs
        more refusals."""
        pause, self._pause = self._pause, None
        return pause

    def _hello(self, hello: Message) -> None:
        if self.state is not ServerState.AWAITING_HELLO:
            raise ProtocolError(
                ErrorCode.BAD_REQUEST if self.state is ServerState.OPEN else ErrorCode.UNAUTHORIZED,
                "the session is already open" if self.state is ServerState.OPEN
                else "a hello is already being checked; wait for welcome")
        if hello["protocol"] not in SUPPORTED_VERSIONS:
            raise ProtocolError(ErrorCode.UNSUPPORTED_VERSION,
                                "this protocol version is not supported",
                                supported=list(SUPPORTED_VERSIONS))
        self.state = ServerState.AUTHENTICATING
        self._events.append(hello)

    def _refuse(self, exc: ProtocolError, ref: Any) -> None:
        self.protocol_errors += 1
        self._send_message(exc.to_message(ref=ref))

    def _close(self, code: int, reason: str) -> None:
        self.state = ServerState.CLOSED
        self.close = Close(code, reason)

    # ---- handshake -------------------------------------------------------------------------

    def welcome(self, *, session: str, account: Mapping[str, Any], server_version: str,
                hello: Mapping[str, Any] | None = None, **extra: Any) -> Message:
        """Open the session: send ``welcome`` (answering ``hello``, whose ``id`` becomes
        ``ref``). ``session`` is the resume token; ``account`` is ``{name, kind}``."""
        message: Message = {
            "type": "welcome",
            "protocol": PROTOCOL_VERSION,
            "server": f"{SERVER_NAME}/{server_version}",
            "session": session,
            "account": dict(account),
            "encoding": self.encoding,
            "limits": self.limits.to_json(),
            **extra,
        }
        self.state = ServerState.OPEN
        if hello is not None:
            self.reply(hello, message)
        else:
            self.send(message)
        return message

    def reject_hello(self, hello: Mapping[str, Any], code: ErrorCode | str,
                     message: str, *, retry_after: float | None = None,
                     **details: Any) -> None:
        """Refuse a ``hello`` (bad token, unknown resume token, no room for a guest): send
        the error; the client may try another ``hello`` on the same connection."""
        self.state = ServerState.AWAITING_HELLO
        self.error(code, message, to=hello, retry_after=retry_after, **details)

    # ---- output ----------------------------------------------------------------------------

    def send(self, message: Mapping[str, Any] | EncodedMessage) -> None:
        """Queue one message. An :class:`EncodedMessage` is encoded once per encoding and
        shared by every session it is sent to. Ignored once the session is closed."""
        if self.state is ServerState.CLOSED:
            return
        if isinstance(message, EncodedMessage):
            self._out.append(message.frame(self.encoding))
        else:
            self._send_message(message)

    def reply(self, to: Mapping[str, Any], message: Mapping[str, Any] | EncodedMessage
              ) -> None:
        """Send ``message`` as the direct reply to client message ``to`` (adds ``ref``). An
        :class:`EncodedMessage` is encoded once and shared; the reply splices ``ref`` in."""
        ref = message_id(to)
        if isinstance(message, EncodedMessage):
            if self.state is not ServerState.CLOSED:
                self._out.append(message.reply_frame(self.encoding, ref))
            return
        self.send(message if ref is None else {**message, "ref": ref})

    def error(self, code: ErrorCode | str, message: str, *, to: Mapping[str, Any] | None = None,
              match_id: str | None = None, request_id: str | None = None,
              retry_after: float | None = None, **details: Any) -> None:
        """Send an ``error``; ``to`` is the client message it answers (for ``ref``)."""
        self.send(error_message(code, message, ref=None if to is None else message_id(to),
                                match_id=match_id, request_id=request_id,
                                details=details or None, retry_after=retry_after))

    def fail(self, to: Mapping[str, Any] | None, exc: ProtocolError, *,
             match_id: str | None = None, request_id: str | None = None) -> None:
        """Send a :class:`ProtocolError` as the answer to ``to``."""
        self.send(exc.to_message(ref=None if to is None else message_id(to),
                                 match_id=match_id, request_id=request_id))

    def data_to_send(self) -> list[Frame]:
        """Frames to write, in order (``str``: text frame; ``bytes``: binary frame)."""
        out, self._out = self._out, []
        return out

    def _send_message(self, message: Mapping[str, Any]) -> None:
        # Every error leaves through here (a shared EncodedMessage is never one).
        if message.get("type") == "error":
            self.errors_sent[message["code"]] += 1
        self._out.append(encode(message, self.encoding))


# --------------------------------------------------------------------------------------------
# Client side
# --------------------------------------------------------------------------------------------


class ClientState(enum.Enum):
    IDLE = "idle"
    """No hello sent on the current connection."""
    HELLO_SENT = "hello_sent"
    OPEN = "open"


class ClientSession:
    """The client side of one logical session, which may span several connections.

    The session token from ``welcome`` survives :meth:`connection_lost`, so the next
    :meth:`hello` resumes: the server re-attaches the seats and re-sends each pending request
    with the same ``request_id``.

    Request bookkeeping: a ``request`` becomes *pending*; :meth:`act` answers it (and moves it
    to *answered*). A request is dropped as stale when a newer request arrives for the same
    match and seat, when its match ends, or when the server answers ``stale_request`` or
    ``not_your_turn`` for it. If the server rejects an answer as ``malformed_action`` or
    ``illegal_action``, the request is pending again so it can be answered once more.

    Calling contract: after ``receive_*`` call :meth:`events_received`; after :meth:`hello`,
    :meth:`send`, :meth:`request` or :meth:`act` call :meth:`data_to_send`.
    """

    def __init__(self, encoding: Encoding = "json", *, token: str | None = None,
                 name: str | None = None, client: str = CLIENT_NAME,
                 resume: str | None = None, views: bool = False, lean: bool = False) -> None:
        self.encoding: Encoding = encoding
        self.views = views
        """Ask for views in every hello: each ``events`` message then carries ``view``."""
        self.lean = lean
        """Ask for lean delivery in every hello: no ``events`` messages for our seats, their
        events ride in the seat's next ``request`` or ``match_end`` (:meth:`events_received`
        hands them on as ``events`` messages all the same)."""
        self.token = token
        self.name = name
        self.client = client
        self.session_token: str | None = resume
        self.state = ClientState.IDLE
        self.welcome: Message | None = None
        self.pending: dict[str, Message] = {}
        """Requests awaiting our action, by request_id."""
        self.answered: dict[str, Message] = {}
        """Requests we answered whose outcome (next request, events, error) is not known."""
        self.dropped: list[Message] = []
        """Requests dropped as stale since the last :meth:`events_received` (for logging)."""
        self._next_id = 0
        self._events: list[Message] = []
        self._out: list[Frame] = []

    # ---- connection lifecycle --------------------------------------------------------------

    def hello(self) -> Message:
        """Queue ``hello`` for a fresh connection (with ``resume`` when a session token is
        known, else ``token``/``name``); returns the message."""
        message: Message = {"type": "hello", "protocol": PROTOCOL_VERSION,
                            "client": self.client}
        if self.session_token is not None:
            message["resume"] = self.session_token
        if self.token is not None:
            message["token"] = self.token
        if self.name is not None:
            message["name"] = self.name
        if self.views:
            message["views"] = True
        if self.lean:
            message["lean"] = True
        self.state = ClientState.HELLO_SENT
        self.send(message)
        return message

    def connection_lost(self) -> None:
        """The connection dropped. Pending and answered requests are kept: on resume the
        server re-sends the pending ones. Frames not yet written are discarded."""
        self.state = ClientState.IDLE
        self._out.clear()

    def forget_session(self) -> None:
        """Give up resuming (the server refused the resume token): the next hello starts a
        new session, and requests of the old one are void."""
        self.session_token = None
        self.pending.clear()
        self.answered.clear()

    @property
    def is_open(self) -> bool:
        return self.state is ClientState.OPEN

    # ---- input -----------------------------------------------------------------------------

    def receive_text(self, data: str) -> None:
        """Feed one text frame (JSON). Then call :meth:`events_received`.
        Raises :class:`ProtocolError` (``malformed``) for an undecodable frame."""
        self._receive(decode_json(data))

    def receive_bytes(self, data: bytes) -> None:
        """Feed one binary frame (msgpack). Then call :meth:`events_received`."""
        self._receive(decode_msgpack(data, strict=False))  # the server is trusted

    def events_received(self) -> list[Message]:
        """Server messages received since the last call, in order. Also clears
        :attr:`dropped`.

        Lean delivery (``hello.lean``): the events a ``request`` or ``match_end`` carries
        (its field ``events``) come out first, each as the ``events`` message it stands for
        (``type``, the carrier's ``match_id``, ``seq``, ``events``, ``clocks_ms``), then the
        carrier without that field: the same messages a session without lean gets, in the
        same order, so code written for either works with both."""
        events, self._events = self._events, []
        self.dropped = []
        return events

    def _receive(self, message: Message) -> None:
        kind = validate_envelope(message)
        if (kind == "request" or kind == "match_end") and "events" in message:
            self._unpack_held(message)
        if kind == "welcome":
            self.state = ClientState.OPEN
            self.welcome = message
            self.session_token = message.get("session", self.session_token)
        elif kind == "request":
            self._on_request(message)
        elif kind == "match_end":
            self._drop_match(message.get("match_id"))
        elif kind == "error":
            self._on_error(message)
        # Unknown server types are passed on too: a newer server may add messages, and the
        # application decides whether it cares.
        self._events.append(message)

    def _unpack_held(self, carrier: Message) -> None:
        """Hand on the events a lean ``request``/``match_end`` carries as the ``events``
        messages they stand for, before the carrier (which loses the field)."""
        held = carrier.pop("events")
        if not isinstance(held, list) or not all(isinstance(b, dict) for b in held):
            raise ProtocolError(ErrorCode.MALFORMED, f"{carrier['type']}.events must be an "
                                "array of objects", field="events")
        match_id = carrier.get("match_id")
        self._events.extend({"type": "events", "match_id": match_id, **batch}
                            for batch in held)

    def _on_request(self, request: Message) -> None:
        request_id = request.get("request_id")
        if not isinstance(request_id, str):
            raise ProtocolError(ErrorCode.MALFORMED, "request without a request_id",
                                field="request_id")
        key = (request.get("match_id"), request.get("seat"))
        for table in (self.pending, self.answered):
            for rid, old in list(table.items()):
                if rid != request_id and (old.get("match_id"), old.get("seat")) == key:
                    del table[rid]
                    if table is self.pending:
                        self.dropped.append(old)
        # A re-sent request (same id, after a resume) is pending again even if we answered
        # it: our answer may have been lost with the old connection.
        self.answered.pop(request_id, None)
        self.pending[request_id] = request

    def _on_error(self, error: Message) -> None:
        request_id = error.get("request_id")
        if not isinstance(request_id, str):
            return
        code = error.get("code")
        if code in (ErrorCode.STALE_REQUEST, ErrorCode.NOT_YOUR_TURN):
            for table in (self.pending, self.answered):
                old = table.pop(request_id, None)
                if old is not None and table is self.pending:
                    self.dropped.append(old)
        elif code in (ErrorCode.MALFORMED_ACTION, ErrorCode.ILLEGAL_ACTION):
            request = self.answered.pop(request_id, None)
            if request is not None:
                self.pending[request_id] = request

    def _drop_match(self, match_id: Any) -> None:
        for table in (self.pending, self.answered):
            for rid, old in list(table.items()):
                if old.get("match_id") == match_id:
                    del table[rid]

    # ---- requests --------------------------------------------------------------------------

    def pending_requests(self, match_id: str | None = None) -> list[Message]:
        """Pending requests (of one match, or all), oldest first."""
        return [r for r in self.pending.values()
                if match_id is None or r.get("match_id") == match_id]

    def is_pending(self, request: Mapping[str, Any] | str) -> bool:
        request_id = request if isinstance(request, str) else request.get("request_id")
        return request_id in self.pending

    def act(self, request: Mapping[str, Any] | str, action: Any, *,
            id: Any = None) -> Message:
        """Queue the ``action`` answering a pending request (the request message or its
        request_id); returns the message sent.

        Raises :class:`ProtocolError` ``stale_request`` locally when the request is not
        pending (superseded, its match over, or already answered), so nothing stale is
        sent.
        """
        request_id = request if isinstance(request, str) else request.get("request_id")
        pending = self.pending.pop(request_id, None) if isinstance(request_id, str) else None
        if pending is None or not isinstance(request_id, str):
            raise ProtocolError(ErrorCode.STALE_REQUEST,
                                f"request {request_id!r} is not pending", request_id=request_id)
        message: Message = {"type": "action", "match_id": pending["match_id"],
                            "request_id": request_id, "action": action}
        if id is not None:
            message["id"] = id
        self.answered[request_id] = pending
        self.send(message)
        return message

    # ---- output ----------------------------------------------------------------------------

    def next_id(self) -> int:
        """A fresh message id for correlating a reply (``ref``) with its message."""
        self._next_id += 1
        return self._next_id

    def request(self, type: str, **fields: Any) -> tuple[int, Message]:
        """Queue a message of ``type`` with a fresh ``id``; return ``(id, message)``. Fields
        whose value is ``None`` are left out (they are all optional)."""
        message_id_ = self.next_id()
        message: Message = {"type": type, "id": message_id_}
        message.update((k, v) for k, v in fields.items() if v is not None)
        self.send(message)
        return message_id_, message

    def send(self, message: Mapping[str, Any]) -> None:
        """Queue one message in this session's encoding."""
        self._out.append(encode(message, self.encoding))

    def data_to_send(self) -> list[Frame]:
        """Frames to write, in order (``str``: text frame; ``bytes``: binary frame)."""
        out, self._out = self._out, []
        return out


def known_server_type(message: Mapping[str, Any]) -> bool:
    """Whether a server message's type is in this version's catalogue."""
    return message.get("type") in SERVER_TYPES

