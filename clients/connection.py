"""An asyncio client for a Tabletop Arena server, on ``websockets``.

::

    async with await connect("ws://127.0.0.1:8765/ws", token=TOKEN) as conn:
        games = await conn.list_games()
        start = await conn.play_bot("chexers", bot="random")
        async for message in conn:
            if message["type"] == "request":
                await conn.act(message, message["legal_actions"][0])
            elif message["type"] == "match_end":
                break

The protocol state lives in a sans-I/O :class:`protocol.session.ClientSession`; this module
only pumps frames. What it adds:

* **handshake**: ``hello`` → ``welcome`` (or :class:`ArenaError`), subprotocol negotiation
  (``encoding="json"`` or ``"msgpack"``);
* **correlation**: :meth:`Connection.request` sends a message with a fresh ``id`` and waits
  for the reply carrying it as ``ref`` (an ``error`` reply raises :class:`ArenaError`);
* **a message stream**: ``async for message in conn`` yields every server message in order
  (replies included), until the connection is closed for good; with lean delivery
  (``lean=True``) the events a ``request`` or ``match_end`` carries come first, as the
  ``events`` messages they stand for, so a bot reads the same stream either way;
* **reconnect with resume**: when the connection drops, it reconnects with bounded
  exponential backoff and says ``hello {resume}``; the server re-sends ``match_start`` and
  any pending ``request``. Replies awaited across a drop fail with :class:`ConnectionLost`.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import structlog
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.typing import Subprotocol

from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import SUBPROTOCOL_OF_ENCODING, Encoding
from protocol.session import CLIENT_NAME, ClientSession

log = structlog.get_logger("arena.client")

Message = dict[str, Any]


class ArenaError(Exception):
    """The server answered with an ``error`` message (kept whole in :attr:`error`)."""

    def __init__(self, error: Mapping[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.error = dict(error)
        self.code: str = str(error.get("code"))
        self.message: str = str(error.get("message"))
        self.details: dict[str, Any] = dict(error.get("details") or {})


class ConnectionLost(Exception):
    """The connection dropped (or was closed) before the awaited reply arrived."""


@dataclass(frozen=True)
class ReconnectPolicy:
    """Bounded exponential backoff with jitter. ``max_attempts`` counts consecutive failed
    attempts; after that the connection is closed for good."""

    enabled: bool = True
    initial_delay: float = 0.1
    max_delay: float = 5.0
    max_attempts: int = 20

    def delay(self, attempt: int) -> float:
        base = min(self.max_delay, self.initial_delay * 2.0 ** attempt)
        return base * (0.5 + random.random() / 2)  # jitter spreads a herd of reconnecting bots


DEFAULT_RECONNECT = ReconnectPolicy()
NO_RECONNECT = ReconnectPolicy(enabled=False)

_END = object()  # the stream's end marker


class Connection:
    """One logical session with a server, across reconnects. Build with :func:`connect`."""

    def __init__(self, url: str, *, token: str | None = None, name: str | None = None,
                 encoding: Encoding = "json", client: str = CLIENT_NAME,
                 reconnect: ReconnectPolicy = DEFAULT_RECONNECT, open_timeout: float = 10.0,
                 queue_size: int = 10_000, views: bool = False, lean: bool = False) -> None:
        if encoding not in SUBPROTOCOL_OF_ENCODING:
            raise ValueError(f"encoding must be 'json' or 'msgpack', not {encoding!r}")
        self.url = url
        self.encoding: Encoding = encoding
        self.reconnect = reconnect
        self.open_timeout = open_timeout
        self.session = ClientSession(encoding, token=token, name=name, client=client,
                                     views=views, lean=lean)
        self.log = log.bind(url=url)
        self.reconnects = 0
        """Successful reconnections so far."""
        self._ws: ClientConnection | None = None
        self._connected = asyncio.Event()
        self._closed = False
        self._send_lock = asyncio.Lock()
        self._replies: dict[Any, asyncio.Future[Message]] = {}
        self._queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=queue_size)
        self._reader: asyncio.Task[None] | None = None
        self._last_error: Message | None = None  # an error received during the handshake

    # ---- state ----------------------------------------------------------------------------

    @property
    def welcome(self) -> Message | None:
        """The latest ``welcome`` (a new one after each reconnect)."""
        return self.session.welcome

    @property
    def account(self) -> Message | None:
        return None if self.session.welcome is None else self.session.welcome.get("account")

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def closed(self) -> bool:
        """Closed for good: by :meth:`close`, or after reconnecting failed."""
        return self._closed

    # ---- opening and closing ---------------------------------------------------------------

    async def open(self) -> Connection:
        """Connect and complete the handshake. Raises :class:`ArenaError` if the server
        refuses the hello, or ``OSError``/``websockets`` errors if it cannot be reached."""
        await self._open_once()
        self._reader = asyncio.create_task(self._run(), name="arena-client-reader")
        return self

    async def close(self) -> None:
        """Close the connection for good (no reconnect) and end the message stream."""
        self._closed = True
        ws = self._ws
        if ws is not None:
            await ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self._finish()

    async def __aenter__(self) -> Connection:
        if self._reader is None:
            await self.open()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.close()

    async def _open_once(self) -> None:
        ws = await ws_connect(
            self.url, subprotocols=[Subprotocol(SUBPROTOCOL_OF_ENCODING[self.encoding])],
            open_timeout=self.open_timeout, max_size=None)
        try:
            await asyncio.wait_for(self._handshake(ws), self.open_timeout)
        except BaseException:
            await ws.close()
            raise
        self._ws = ws
        self._connected.set()

    async def _handshake(self, ws: ClientConnection) -> None:
        """hello → welcome on a fresh socket. A refused resume falls back once to a new
        session (the old seats are lost; the server has forfeited or will forfeit them)."""
        resumed = self.session.session_token is not None
        for _attempt in range(2):
            self._last_error = None
            self.session.hello()
            for frame in self.session.data_to_send():
                await ws.send(frame)
            while not self.session.is_open and self._last_error is None:
                self._feed(await ws.recv())
            if self.session.is_open:
                self.log.info("resumed" if resumed else "connected", account=self.account,
                              encoding=self.encoding, subprotocol=ws.subprotocol)
                return
            error, self._last_error = self._last_error, None
            assert error is not None
            if not (resumed and error.get("code") == ErrorCode.UNAUTHORIZED):
                raise ArenaError(error)
            self.log.warning("resume_refused", message=error.get("message"))
            self.session.forget_session()
            resumed = False
        raise AssertionError("unreachable: the second hello carries no resume token")

    # ---- the reader -------------------------------------------------------------------------

    def _feed(self, raw: str | bytes) -> None:
        """Decode one frame and dispatch what came out (replies, stream)."""
        try:
            if isinstance(raw, bytes):
                self.session.receive_bytes(raw)
            else:
                self.session.receive_text(raw)
        except ProtocolError as exc:
            self.log.warning("bad_frame_from_server", error=exc.message)
            return
        for dropped in self.session.dropped:
            self.log.debug("request_superseded", match_id=dropped.get("match_id"),
                           request_id=dropped.get("request_id"))
        for message in self.session.events_received():
            self._dispatch(message)

    def _dispatch(self, message: Message) -> None:
        if message.get("type") == "error" and not self.session.is_open:
            self._last_error = message
        ref = message.get("ref")
        if ref is not None:
            future = self._replies.pop(ref, None)
            if future is not None and not future.done():
                future.set_result(message)
        else:
            self._resolve_by_kind(message)
        if self._queue.full():
            # A reader that does not keep up loses the oldest messages, never the newest:
            # requests are re-sent on resume and views are whole, so the latest is what counts.
            dropped = self._queue.get_nowait()
            self.log.warning("message_queue_full", dropped_type=getattr(dropped, "get",
                                                                         lambda _: None)("type"))
        self._queue.put_nowait(message)

    def _resolve_by_kind(self, message: Message) -> None:
        """Servers that do not echo ``ref`` on a ``match_start`` still answer play_bot /
        accept / spectate with one: hand it to the oldest waiter for it."""
        if message.get("type") != "match_start":
            return
        for key, future in list(self._replies.items()):
            want = getattr(future, "arena_wants", None)
            if want is None or future.done():
                continue
            kind, match_id = want
            if kind == "match_start" and match_id in (None, message.get("match_id")):
                del self._replies[key]
                future.set_result(message)
                return

    async def _run(self) -> None:
        """Read until closed for good, reconnecting (with resume) when the socket drops."""
        while True:
            ws = self._ws
            assert ws is not None
            try:
                async for raw in ws:
                    self._feed(raw)
            except ConnectionClosed:
                pass
            self._connected.clear()
            self.session.connection_lost()
            self._fail_replies(ConnectionLost("connection lost"))
            if self._closed or not self.reconnect.enabled:
                break
            self.log.warning("connection_lost", code=ws.close_code, reason=ws.close_reason)
            if not await self._reconnect():
                break
        self._finish()

    async def _reconnect(self) -> bool:
        for attempt in range(self.reconnect.max_attempts):
            await asyncio.sleep(self.reconnect.delay(attempt))
            if self._closed:
                return False
            try:
                await self._open_once()
            except ArenaError as exc:
                self.log.error("reconnect_refused", code=exc.code, message=exc.message)
                return False
            except (TimeoutError, OSError, InvalidHandshake, InvalidURI,
                    ConnectionClosed) as exc:
                self.log.info("reconnect_failed", attempt=attempt + 1, error=str(exc))
                continue
            self.reconnects += 1
            return True
        self.log.error("reconnect_gave_up", attempts=self.reconnect.max_attempts)
        return False

    def _fail_replies(self, exc: Exception) -> None:
        replies, self._replies = self._replies, {}
        for future in replies.values():
            if not future.done():
                future.set_exception(exc)

    def _finish(self) -> None:
        if not self._closed:
            self._closed = True
        self._connected.clear()
        self._fail_replies(ConnectionLost("connection closed"))
        if not self._queue.full():
            self._queue.put_nowait(_END)
        else:  # make room: the end marker must get through
            self._queue.get_nowait()
            self._queue.put_nowait(_END)

    # ---- the message stream ----------------------------------------------------------------

    def __aiter__(self) -> AsyncIterator[Message]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Message]:
        while True:
            item = await self._queue.get()
            if item is _END:
                self._queue.put_nowait(_END)  # later iterators end too
                return
            yield item

    async def next_message(self, timeout: float | None = None) -> Message:
        """The next message of the stream; raises :class:`ConnectionLost` at its end and
        ``TimeoutError`` after ``timeout`` seconds."""
        item = await asyncio.wait_for(self._queue.get(), timeout)
        if item is _END:
            self._queue.put_nowait(_END)
            raise ConnectionLost("connection closed")
        return item  # type: ignore[no-any-return]

    # ---- sending ---------------------------------------------------------------------------

    async def _flush(self) -> None:
        frames = self.session.data_to_send()
        ws = self._ws
        if not frames:
            return
        if ws is None or not self._connected.is_set():
            raise ConnectionLost("not connected")
        async with self._send_lock:
            try:
                for frame in frames:
                    await ws.send(frame)
            except ConnectionClosed as exc:
                raise ConnectionLost(str(exc)) from None

    async def wait_connected(self, timeout: float | None = None) -> None:
        """Wait until connected (e.g. while a reconnect is under way)."""
        if self._closed:
            raise ConnectionLost("connection closed")
        await asyncio.wait_for(self._connected.wait(), timeout)

    async def send(self, message: Mapping[str, Any]) -> None:
        """Send one message as is (no reply awaited). Raises :class:`ConnectionLost` when
        not connected."""
        self.session.send(message)
        await self._flush()

    async def request(self, type: str, *, timeout: float | None = 30.0,
                      _wants: tuple[str, str | None] | None = None, **fields: Any) -> Message:
        """Send ``type`` with ``fields`` (``None`` values left out) and a fresh ``id``; return
        the reply (the message whose ``ref`` is that id). Raises :class:`ArenaError` for an
        ``error`` reply, :class:`ConnectionLost` if the connection drops first, and
        ``TimeoutError``. Waits for a reconnect in progress before sending."""
        if not self._connected.is_set():
            await self.wait_connected(timeout)
        message_id, _ = self.session.request(type, **fields)
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        if _wants is not None:
            future.arena_wants = _wants  # type: ignore[attr-defined]
        self._replies[message_id] = future
        try:
            await self._flush()
            reply = await asyncio.wait_for(future, timeout)
        finally:
            self._replies.pop(message_id, None)
        if reply.get("type") == "error":
            raise ArenaError(reply)
        return reply

    async def act(self, request: Mapping[str, Any] | str, action: Any) -> Message:
        """Answer a pending request with ``action`` (fire and forget: success shows as
        events and the next request, failure as an ``error`` in the stream). Raises
        :class:`protocol.errors.ProtocolError` ``stale_request`` when the request is no longer
        pending, and :class:`ConnectionLost` when not connected (after a resume the server
        re-sends the request, so it can simply be answered again)."""
        message = self.session.act(request, action)
        await self._flush()
        return message

    # ---- lobby helpers ---------------------------------------------------------------------

    async def ping(self) -> Message:
        return await self.request("ping")

    async def list_games(self) -> list[Message]:
        """Every game the server runs (``GameInfo`` objects)."""
        return list((await self.request("list_games"))["games"])

    async def list_matches(self, game: str | None = None, *, limit: int | None = None,
                           cursor: str | None = None) -> tuple[list[Message], str | None]:
        """One page of match summaries, newest first, and the cursor of the next page
        (``None`` on the last): pass it as ``cursor`` to get that page."""
        reply = await self.request("list_matches", game=game, limit=limit, cursor=cursor)
        return list(reply["matches"]), reply.get("next")

    async def seek(self, game: str, *, options: Mapping[str, Any] | None = None,
                   clock: Mapping[str, int] | None = None, seats: int | None = None) -> str:
        """Queue a seek; returns its ``seek_id``. The match arrives later as ``match_start``
        in the stream."""
        reply = await self.request("seek", game=game, options=options, clock=clock,
                                   seats=seats)
        return str(reply["seek_id"])

    async def cancel_seek(self, seek_id: str) -> None:
        await self.request("cancel_seek", seek_id=seek_id)

    async def play_bot(self, game: str, *, bot: str | None = None,
                       options: Mapping[str, Any] | None = None,
                       clock: Mapping[str, int] | None = None,
                       seat: int | None = None, duplicate: bool = False) -> Message:
        """Start a match against house bot(s); returns its ``match_start``. ``duplicate``: a
        duplicate pair against one bot — this is game 1's ``match_start`` (``seat`` yours
        there); game 2's, seats swapped, follows in the stream, ``pair_end`` once both are
        over."""
        return await self.request("play_bot", game=game, bot=bot, options=options,
                                  clock=clock, seat=seat,
                                  duplicate=True if duplicate else None,
                                  _wants=("match_start", None))

    async def challenge(self, accounts: Sequence[str], game: str, *,
                        options: Mapping[str, Any] | None = None,
                        clock: Mapping[str, int] | None = None,
                        duplicate: bool = False) -> str:
        """Invite accounts; returns the ``challenge_id``. ``duplicate``: a duplicate pair
        (two matches of one deal, seats swapped; ``pair_end`` once both are over)."""
        reply = await self.request("challenge", accounts=list(accounts), game=game,
                                   options=options, clock=clock,
                                   duplicate=True if duplicate else None)
        return str(reply["challenge_id"])

    async def accept(self, challenge_id: str) -> None:
        """Accept a challenge. The ``match_start`` arrives in the stream once every invited
        account has accepted."""
        await self.request("accept", challenge_id=challenge_id)

    async def decline(self, challenge_id: str) -> None:
        await self.request("decline", challenge_id=challenge_id)

    async def autoplay(self, games: Sequence[str], max_matches: int = 1, *,
                       bot: str | None = None, version: str | None = None) -> None:
        """Offer to be seated automatically in matches of ``games`` (bots); ``bot`` and
        ``version`` say what bot this is (``list_bots`` shows them, ``play_bot`` accepts
        the bot name)."""
        await self.request("autoplay", games=list(games), max_matches=max_matches, bot=bot,
                           version=version)

    async def spectate(self, match_id: str) -> Message:
        """Watch a match; returns its ``match_start`` (``your_seat`` null)."""
        return await self.request("spectate", match_id=match_id,
                                  _wants=("match_start", match_id))

    async def leave(self, match_id: str) -> None:
        await self.request("leave", match_id=match_id)

    async def get_replay(self, match_id: str) -> Message:
        return await self.request("get_replay", match_id=match_id)

    # ---- the bot ladder --------------------------------------------------------------------

    async def ladder_join(self, game: str, bot: str, version: str, max_matches: int = 1, *,
                          seed_from_version: str | None = None) -> Message:
        """Put ``bot`` at ``version`` on ``game``'s ladder, ``max_matches`` at once; returns
        ``ladder_joined``. Ladder matches then arrive as ``match_start`` in the stream."""
        return await self.request("ladder_join", game=game, bot=bot, version=version,
                                  max_matches=max_matches, seed_from_version=seed_from_version)

    async def ladder_leave(self, game: str) -> None:
        await self.request("ladder_leave", game=game)

    async def get_leaderboard(self, game: str, limit: int | None = None) -> list[Message]:
        """The ladder's ``LadderEntry`` objects, best first."""
        return list((await self.request("get_leaderboard", game=game, limit=limit))["entries"])

    async def get_rating_history(self, game: str, bot: str, *, version: str | None = None,
                                 account: str | None = None,
                                 limit: int | None = None) -> Message:
        """The ``rating_history`` of one bot version (default: its latest)."""
        return await self.request("get_rating_history", game=game, bot=bot, version=version,
                                  account=account, limit=limit)

    async def list_ladder_matches(self, game: str, limit: int | None = None) -> list[Message]:
        """Recent ``LadderMatch`` objects, newest first (replays: :meth:`get_replay`)."""
        reply = await self.request("list_ladder_matches", game=game, limit=limit)
        return list(reply["matches"])

    async def resign(self, match_id: str) -> None:
        """Resign (fire and forget): the ``match_end`` arrives in the stream."""
        await self.send({"type": "resign", "match_id": match_id,
                         "id": self.session.next_id()})


async def connect(url: str, token: str | None = None, *, encoding: Encoding = "json",
                  name: str | None = None, client: str = CLIENT_NAME,
                  reconnect: ReconnectPolicy = DEFAULT_RECONNECT,
                  open_timeout: float = 10.0, views: bool = False,
                  lean: bool = False) -> Connection:
    """Open a :class:`Connection` and complete the handshake.

    ``token`` is an account's bearer token (without one the server makes a guest, named
    ``name`` if given). ``encoding`` picks the subprotocol: ``arena.v1.json`` (text frames)
    or ``arena.v1.msgpack`` (binary frames). ``views=True`` asks for the viewer's view in
    every ``events`` message (a bot that reads only requests need not pay for it).
    ``lean=True`` asks for lean delivery: the server sends no ``events`` frames for this
    session's seats, their events ride in the seat's next ``request`` or ``match_end``, one
    frame per decision; the stream still yields them as ``events`` messages, each just
    before the message that carried it (``welcome["lean"]`` says whether the server
    granted it).
    """
    conn = Connection(url, token=token, name=name, encoding=encoding, client=client,
                      reconnect=reconnect, open_timeout=open_timeout, views=views, lean=lean)
    return await conn.open()
