"""The bot runner: a bot author writes one method, the runner does the protocol.

::

    class FirstBot:
        def choose(self, request):             # the `request` message: view, legal_actions,
            return request["legal_actions"][0]  # clock_ms, seat, match_id, request_id

    stats = asyncio.run(BotRunner(FirstBot(), "ws://127.0.0.1:8765/ws", token=TOKEN,
                                  games=["chexers"]).run())

What the runner does: connect and handshake; offer itself (``autoplay``, the default, or
``seek``) for the given games, again after a reconnect that could not resume; answer every
``request`` once, with its ``request_id``; drop requests that went stale; reconnect with
resume (the server re-sends the pending request); log errors, and when an answer is refused
as malformed or illegal (or ``choose`` raises), answer once more safely: a random legal
action, or in a game that sends an ``action_space`` instead of ``legal_actions`` (Boundary)
the request's ``default_action`` (what a missed deadline would play); count matches and stop
after ``matches`` of them if asked.

A bot is any object with ``choose(request) -> action``. ``choose`` may be a coroutine
function. A plain function runs in one worker thread (so a slow search never stalls the
connection, and calls to one bot never overlap). Optional hooks, called on the event loop:
``on_match_start(message)``, ``on_events(message)``, ``on_match_end(message)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import random
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import structlog

from clients.connection import (
    DEFAULT_RECONNECT,
    ArenaError,
    Connection,
    ConnectionLost,
    ReconnectPolicy,
)
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import Encoding
from protocol.session import CLIENT_NAME

Message = dict[str, Any]
Mode = Literal["autoplay", "seek", "ladder"]


class Bot(Protocol):
    """What the runner needs from a bot: one method."""

    def choose(self, request: dict[str, Any]) -> Any:
        """Return one of ``request["legal_actions"]``, or a value of
        ``request["action_space"]`` in a game that sends one (or any action: the server
        judges)."""


@dataclass
class RunnerStats:
    """What a run did. ``results`` holds ``(match_id, seat, outcome)`` per finished match."""

    matches_started: int = 0
    matches_finished: int = 0
    actions: int = 0
    errors: int = 0
    fallbacks: int = 0
    reconnects: int = 0
    results: list[tuple[str, int, dict[str, Any]]] = field(default_factory=list)

    def ranks(self) -> list[int]:
        """This bot's rank (0 = first) in each finished match."""
        return [outcome["ranks"][seat] for _, seat, outcome in self.results
                if outcome and 0 <= seat < len(outcome.get("ranks", []))]


class BotRunner:
    """Plays matches with ``bot`` on the server at ``url`` until stopped.

    ``mode="autoplay"`` offers the bot for ``games`` with ``max_matches`` at once (the server
    seats it), naming it ``ladder_bot`` at ``ladder_version`` (``list_bots`` shows them);
    ``mode="seek"`` keeps up to ``max_matches`` seeks/matches going, round-robin over
    ``games`` (``options``, ``clock`` and ``seats`` go into each seek);
    ``mode="ladder"`` puts the bot on the ladder of each of ``games`` as ``ladder_bot`` at
    ``ladder_version`` (optionally seeded from ``seed_from_version``), ``max_matches`` at
    once (the server pairs it; the cap counts every match of the connection). With
    ``ladder_matches`` above 0, an autoplay bot also joins those ladders, up to that many
    ladder matches at once (the server's house bots: rated from the first minute, while
    most of their slots stay free for people). ``matches``
    stops the run after that many finished matches (``None``: run until :meth:`stop` or the
    connection is lost for good). ``lean=True`` asks the server for lean delivery (one frame
    per decision: the events ride in the requests); ``on_events`` is called the same.
    """

    def __init__(self, bot: Bot, url: str, *, games: Sequence[str], token: str | None = None,
                 name: str | None = None, encoding: Encoding = "json", mode: Mode = "autoplay",
                 max_matches: int = 1, matches: int | None = None,
                 options: Mapping[str, Any] | None = None,
                 clock: Mapping[str, int] | None = None, seats: int | None = None,
                 reconnect: ReconnectPolicy = DEFAULT_RECONNECT,
                 client: str = CLIENT_NAME, seed: int | None = None,
                 ladder_bot: str | None = None, ladder_version: str = "1",
                 seed_from_version: str | None = None, ladder_matches: int = 0,
                 lean: bool = False) -> None:
        if not games:
            raise ValueError("a bot runner needs at least one game")
        if mode not in ("autoplay", "seek", "ladder"):
            raise ValueError(f"mode must be 'autoplay', 'seek' or 'ladder', not {mode!r}")
        if max_matches < 1:
            raise ValueError("max_matches must be at least 1")
        self.bot = bot
        self.games = list(games)
        self.mode: Mode = mode
        self.max_matches = max_matches
        self.matches = matches
        self.options = options
        self.clock = clock
        self.seats = seats
        self.ladder_bot = ladder_bot or name or type(bot).__name__
        self.ladder_version = ladder_version
        self.seed_from_version = seed_from_version
        self.ladder_matches = ladder_matches
        self.stats = RunnerStats()
        self.conn = Connection(url, token=token, name=name, encoding=encoding, client=client,
                               reconnect=reconnect, lean=lean)
        self.log = structlog.get_logger("arena.bot").bind(
            bot=name or type(bot).__name__, mode=mode)
        self._rng = random.Random(seed)  # for fallback answers only
        self._active: dict[str, Message] = {}        # match_id -> match_start
        self._thinking: dict[str, asyncio.Task[None]] = {}  # request_id -> answering task
        self._fallen_back: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._session_offered: str | None = None
        self._seeks_out = 0
        self._next_game = 0
        self._loop: asyncio.Future[None] | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bot-choose")

    # ---- running ---------------------------------------------------------------------------

    async def run(self) -> RunnerStats:
        """Connect, play, return the stats (when done, stopped, or lost for good)."""
        await self.conn.open()
        self._loop = asyncio.ensure_future(self._read_loop())
        try:
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop
        finally:
            for task in [*self._thinking.values(), *self._tasks]:
                task.cancel()
            await asyncio.gather(*self._thinking.values(), *self._tasks,
                                 return_exceptions=True)
            self.stats.reconnects = self.conn.reconnects
            await self.conn.close()
            self._executor.shutdown(wait=False, cancel_futures=True)
        self.log.info("runner_done", started=self.stats.matches_started,
                      finished=self.stats.matches_finished, actions=self.stats.actions,
                      errors=self.stats.errors)
        return self.stats

    def stop(self) -> None:
        """End :meth:`run` soon (active matches are abandoned; the server will forfeit
        them after its grace period)."""
        if self._loop is not None:
            self._loop.cancel()  # it waits on a queue read: safe to cancel

    async def _read_loop(self) -> None:
        while not self._done():
            try:
                message = await self.conn.next_message()
            except ConnectionLost:
                self.log.warning("connection_closed_for_good")
                return
            self._handle(message)

    def _done(self) -> bool:
        return (self.matches is not None and self.stats.matches_finished >= self.matches
                and not self._active)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---- dispatch --------------------------------------------------------------------------

    def _handle(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "welcome":
            if message.get("session") != self._session_offered:
                # A new session (first connect, or a resume the server refused): offer again.
                self._session_offered = message.get("session")
                self._seeks_out = 0
                self._spawn(self._offer())
        elif kind == "match_start":
            self._on_match_start(message)
        elif kind == "request":
            request_id = message.get("request_id")
            if isinstance(request_id, str) and request_id not in self._thinking \
                    and self.conn.session.is_pending(request_id):
                task = asyncio.ensure_future(self._answer(message))
                self._thinking[request_id] = task
        elif kind == "events":
            self._hook("on_events", message)
        elif kind == "match_end":
            self._on_match_end(message)
        elif kind == "error":
            self._on_error(message)

    def _on_match_start(self, message: Message) -> None:
        match_id = message.get("match_id")
        if message.get("your_seat") is None or not isinstance(match_id, str):
            return  # spectating is not the runner's business
        if match_id in self._active:
            self._active[match_id] = message  # re-sent on resume: fresher view and clocks
            return
        if message.get("status") != "live":
            return
        self._active[match_id] = message
        self.stats.matches_started += 1
        if self.mode == "seek" and self._seeks_out > 0:
            self._seeks_out -= 1
        self.log.info("match_start", match_id=match_id, game=message.get("game"),
                      seat=message.get("your_seat"),
                      opponents=[s.get("name") for s in message.get("seats", [])
                                 if s.get("seat") != message.get("your_seat")])
        self._hook("on_match_start", message)

    def _on_match_end(self, message: Message) -> None:
        match_id = message.get("match_id")
        start = self._active.pop(match_id, None) if isinstance(match_id, str) else None
        if start is None:
            return
        # Answers still being thought about find their request stale and are not sent.
        seat = int(start["your_seat"])
        outcome = message.get("outcome") or {}
        self.stats.matches_finished += 1
        self.stats.results.append((str(match_id), seat, outcome))
        ranks = outcome.get("ranks") or []
        self.log.info("match_end", match_id=match_id, game=start.get("game"), seat=seat,
                      rank=ranks[seat] if seat < len(ranks) else None,
                      reason=outcome.get("reason"))
        self._hook("on_match_end", message)
        if self.mode == "seek":
            self._spawn(self._offer())

    def _on_error(self, error: Message) -> None:
        self.stats.errors += 1
        self.log.warning("server_error", code=error.get("code"), message=error.get("message"),
                         match_id=error.get("match_id"), request_id=error.get("request_id"),
                         details=error.get("details"))
        request_id = error.get("request_id")
        if error.get("code") in (ErrorCode.ILLEGAL_ACTION, ErrorCode.MALFORMED_ACTION) \
                and isinstance(request_id, str) and request_id not in self._fallen_back:
            request = self.conn.session.pending.get(request_id)
            if request is not None and request_id not in self._thinking:
                self._fallen_back.add(request_id)
                self.stats.fallbacks += 1
                task = asyncio.ensure_future(self._answer(request, fallback=True))
                self._thinking[request_id] = task

    def _hook(self, name: str, message: Message) -> None:
        hook = getattr(self.bot, name, None)
        if hook is None:
            return
        try:
            hook(message)
        except Exception:
            self.log.exception("bot_hook_failed", hook=name)

    # ---- offering --------------------------------------------------------------------------

    async def _join_ladders(self, matches: int) -> None:
        for game in self.games:
            joined = await self.conn.ladder_join(
                game, self.ladder_bot, self.ladder_version, matches,
                seed_from_version=self.seed_from_version)
            self.log.info("ladder_joined", game=game, bot=self.ladder_bot,
                          version=self.ladder_version, new=joined.get("new"),
                          rank=joined.get("entry", {}).get("rank"))

    async def _offer(self) -> None:
        try:
            if self.mode == "autoplay":
                await self.conn.autoplay(self.games, self.max_matches,
                                         bot=self.ladder_bot, version=self.ladder_version)
                self.log.info("autoplay_offered", games=self.games,
                              max_matches=self.max_matches)
                if self.ladder_matches > 0:
                    await self._join_ladders(self.ladder_matches)
                return
            if self.mode == "ladder":
                await self._join_ladders(self.max_matches)
                return
            while self._seeks_wanted() > 0:
                game = self.games[self._next_game % len(self.games)]
                self._next_game += 1
                self._seeks_out += 1
                seek_id = await self.conn.seek(game, options=self.options, clock=self.clock,
                                               seats=self.seats)
                self.log.info("seeking", game=game, seek_id=seek_id)
        except ArenaError as exc:
            self.stats.errors += 1
            self.log.error("offer_refused", code=exc.code, message=exc.message)
            self.stop()
        except (ConnectionLost, TimeoutError):
            pass  # the welcome after a reconnect triggers a new offer if needed

    def _seeks_wanted(self) -> int:
        slots = self.max_matches - len(self._active) - self._seeks_out
        if self.matches is not None:
            slots = min(slots, self.matches - self.stats.matches_started - self._seeks_out)
        return slots

    # ---- answering -------------------------------------------------------------------------

    async def _answer(self, request: Message, fallback: bool = False) -> None:
        request_id = request["request_id"]
        try:
            if fallback:
                action = self._safe_action(request)
            else:
                try:
                    action = await self._choose(request)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    self.log.exception("bot_choose_failed", match_id=request.get("match_id"))
                    self.stats.fallbacks += 1
                    action = self._safe_action(request)
            await self._send_action(request, action)
        finally:
            if self._thinking.get(request_id) is asyncio.current_task():
                del self._thinking[request_id]

    async def _choose(self, request: Message) -> Any:
        choose = self.bot.choose
        if inspect.iscoroutinefunction(choose):
            return await choose(request)
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(self._executor, choose, request)
        if inspect.isawaitable(result):
            result = await result
        return result

    def _safe_action(self, request: Mapping[str, Any]) -> Any:
        """An answer the server accepts, whatever the bot thought: a random legal action,
        or in an action-space game the request's default action (else the space's plainest
        value)."""
        legal = request.get("legal_actions")
        if legal:
            return legal[self._rng.randrange(len(legal))]
        if "default_action" in request:
            return request["default_action"]
        space = request.get("action_space")
        return plainest_value(space) if isinstance(space, Mapping) else None

    async def _send_action(self, request: Message, action: Any) -> None:
        """Send the answer if the request is still pending; across a drop, wait for the
        resume and answer again (the server re-sends the same request_id)."""
        for _attempt in range(3):
            if not self.conn.session.is_pending(request):
                self.log.debug("answer_dropped_stale", request_id=request["request_id"])
                return
            try:
                await self.conn.act(request, action)
                self.stats.actions += 1
                return
            except ProtocolError:
                return  # went stale between the check and the send
            except ConnectionLost:
                with contextlib.suppress(ConnectionLost, TimeoutError):
                    await self.conn.wait_connected(timeout=60.0)
                await asyncio.sleep(0)  # let the re-sent request be processed first


def plainest_value(space: Mapping[str, Any]) -> Any:
    """A value of an action space (PROTOCOL.md, "Action spaces") with no choice in it: a
    record of its fields' plainest values, the empty subset, a point's centre (always
    valid). For a space game that gives no ``default_action``; a bot that wants random values
    samples with :func:`engine.spaces.sample` (``clients/`` does not import the engine)."""
    kind = space.get("type")
    if kind == "const":
        return space["value"]
    if kind == "record":
        return {k: plainest_value(s) for k, s in space["fields"].items()}
    if kind == "subset":
        return {}
    if kind == "point":
        return list(space["center"])
    raise ValueError(f"unknown action space node type {kind!r}")
