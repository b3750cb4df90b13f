"""The asyncio server: websockets in, sans-I/O objects inside, bytes out.

:class:`ArenaServer` owns the listening socket (websocket endpoint ``/ws`` and plain HTTP on
the same port, see :mod:`server.http`), the sessions, the lobby and the live matches. Each
data message is handled where websockets parses it (:class:`server.wsadapter.ArenaWebSocket`
calls :meth:`ArenaServer._on_message`): it goes into the connection's
:class:`protocol.ServerSession`, which answers protocol-level problems itself (malformed
frames, unknown types, wrong version, too large, rate limits) and hands over valid client
messages; the server routes those to the lobby or a :class:`~server.live.LiveMatch`.

It is also the :class:`~server.hub.Hub` its services plug into: the bot ladder and the
match API (:mod:`server.api`) register their message handlers, HTTP routes and match-end
callbacks through that narrow interface and never import this module.

A fault while handling one message is answered ``internal`` and logged; a fault inside a
match voids that match only. Everything else keeps running.

Usage::

    server = ArenaServer(SqliteStore("arena.sqlite3"))
    await server.start("127.0.0.1", 8765)
    ...
    await server.close()
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import itertools
import math
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from http import HTTPStatus
from importlib import metadata
from typing import Any

import structlog
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.typing import Subprotocol

from engine import registry
from engine.core import Outcome
from protocol import DEFAULT_LIMITS, Limits, ServerSession, encoding_of, select_subprotocol
from protocol.codec import EncodedMessage
from protocol.messages import (
    CLOSE_POLICY_VIOLATION,
    SUBPROTOCOLS,
    WS_PATH,
    page_limit,
    replay_cost,
)
from protocol.session import MAX_PAUSE_S
from server import http
from server.accounts import AccountService
from server.admission import GUEST_RETRY_AFTER_S, Admission, Admitted
from server.api import MatchApi
from server.audience import Audience
from server.chat import MatchChat
from server.cluster import ClusterConfig, ClusterNode
from server.connection import (
    CLOSE_TRY_AGAIN_LATER,
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_MESSAGES,
    Connection,
    LoopTurn,
)
from server.games import available_games, available_names
from server.hub import Handler, Hub, MatchEnded, Service
from server.ladder import LadderService, LadderSettings
from server.listing import MatchListing, start_number
from server.live import LiveMatch
from server.lobby import Lobby, LobbyError, MatchSpec, bot_listing
from server.metrics import ServerMetrics
from server.pairs import Ended, LivePair, PairInfo, Pairs, pair_end_message
from server.people import PeopleService, check_rated
from server.recorder import MatchRecorder
from server.rematch import Rematches
from server.render import SeatInfo, StoredMatch, render_for
from server.resume import resume_match
from server.runner import DEFAULT_GRACE_S, MatchRunner
from server.sessions import AutoplayOffer, Session, Sessions
from server.storage import (
    Account,
    MatchRow,
    Store,
    StoreError,
    is_reserved_name,
    name_key,
    token_hash,
)
from server.tournament_service import TournamentService, ladder_rating
from server.wsadapter import ArenaWebSocket

log = structlog.get_logger("arena.server")

RECENT_MATCHES = 500
"""Finished matches kept in memory for replays and listings (older ones come from storage)."""
CACHED_REPLAYS = 64
"""Encoded replays kept (the last asked for): a replay asked for again, of a finished match
or of a live one that has not moved since, is not built again."""
BACKLOG_MESSAGES = 32
"""Messages a connection may queue behind a waiting handler before the server stops reading
from it (its TCP window then pushes back on the client)."""
PERSIST_INTERVAL_S = 0.5
"""How often the new actions of live matches go to the store, in batches of
``PERSIST_SLICE`` matches."""
PERSIST_SLICE = 50
"""Live matches whose progress is handed to the store in one go (then the loop turns)."""
HEALTH_STORE_TIMEOUT_S = 5.0
"""How long ``/healthz`` waits for the store's write probe before it calls the store stuck."""
PAIRS_ON_CLUSTER = ("duplicate pairs are not played on a cluster of nodes: the two matches "
                    "of a pair and their one result live on one server")


def server_version() -> str:
    try:
        return metadata.version("tabletop-arena")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0.0.0"


def http_cost(path: str) -> int:
    """What a plain HTTP request costs its address's budget, in the tokens a message costs
    (PROTOCOL.md section 8): a listing of matches like a page of 200, other JSON like a
    leaderboard; files and health checks nothing."""
    if path == "/api/matches":
        return 21
    if path.startswith("/api/"):
        return 5
    return 0  # the web client's files, /healthz, /metrics: cheap, and a page loads dozens


GC_YOUNG = 2000
"""Young objects (net allocations) between two collections of the youngest generation: each
such collection walks about that many objects, a pause of a millisecond or two."""
GC_FULL_EVERY_S = 600.0
"""How often :class:`Collector` looks at everything for garbage in cycles (a pause that
grows with the heap)."""


class Collector:
    """The cyclic garbage collector, tamed for a server that holds thousands of live matches
    (DESIGN.md: untamed, it dominates the latency tail).

    What a match keeps (its log, its history) survives every collection, and a collection
    walks every object of the generations it collects: the default settings end in a full
    walk of the heap every so often (tens to hundreds of milliseconds with thousands of
    matches), and large young generations in pauses of tens of milliseconds. So: after
    every collection the survivors are frozen (``gc.freeze()``: out of every later
    collection's reach), and the youngest generation is kept small (``young``): each
    collection walks only what was allocated since the last one. Freed by reference
    counting as always, a frozen object is lost only if it ends up in a reference cycle:
    the matches make none (``tests/server_tests/test_collector.py`` checks), a closed
    connection a few (inside websockets); every ``full_every_s`` one full collection over
    everything takes those back."""

    def __init__(self, young: int = GC_YOUNG, full_every_s: float = GC_FULL_EVERY_S) -> None:
        self.young = young
        self.full_every_s = full_every_s
        self._saved: tuple[int, int, int] | None = None
        self._task: asyncio.Task[None] | None = None

    def install(self) -> None:
        """Take over the collector: call once, after start-up (everything alive then is
        frozen for good); inside a running event loop the periodic full collection starts."""
        if self._saved is not None:
            return
        self._saved = gc.get_threshold()
        gc.collect()
        gc.freeze()
        gc.set_threshold(self.young, 100, 100)
        gc.callbacks.append(self._collected)
        with contextlib.suppress(RuntimeError):  # no running loop: no periodic full
            self._task = asyncio.get_running_loop().create_task(self._full_collections())

    def uninstall(self) -> None:
        """Give the collector its settings back (unfrozen); stop the periodic collection."""
        if self._saved is None:
            return
        if self._task is not None:
            self._task.cancel()
            self._task = None
        gc.callbacks.remove(self._collected)
        gc.set_threshold(*self._saved)
        gc.unfreeze()
        self._saved = None

    def full(self) -> int:
        """Look at everything for garbage in cycles now; then freeze what is left. Returns
        the objects collected."""
        started = time.perf_counter()
        gc.unfreeze()
        collected = gc.collect()
        gc.freeze()
        log.info("gc_full", collected=collected,
                 ms=round((time.perf_counter() - started) * 1000, 1))
        return collected

    @staticmethod
    def _collected(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop":
            gc.freeze()  # the survivors: out of every later young collection's reach

    async def _full_collections(self) -> None:
        while True:
            await asyncio.sleep(self.full_every_s)
            self.full()


def tune_gc() -> Collector:
    """Tame the cyclic collector with the defaults of :class:`Collector` (call once, after
    start-up, inside the event loop)."""
    collector = Collector()
    collector.install()
    return collector


class ArenaServer:
    def __init__(self, store: Store, *, limits: Limits = DEFAULT_LIMITS,
                 grace_s: float = DEFAULT_GRACE_S,
                 send_queue_messages: int = DEFAULT_MAX_MESSAGES,
                 send_queue_bytes: int = DEFAULT_MAX_BYTES,
                 seeds: Callable[[], int] | None = None,
                 ladder: LadderSettings | None = None,
                 services: Sequence[Callable[[Hub], Service]] = (),
                 resume: bool = True, cluster: ClusterConfig | None = None) -> None:
        """``seeds`` makes match seeds (default: 63 random bits each); tests pass their own
        to replay a run. ``ladder`` configures the bot ladder (default: one per game), the
        service every server runs; ``services`` makes more, each from this hub.
        ``resume``: resume the matches an earlier server left live in the store (else they
        are ended void). ``cluster``: run as a node of a cluster (:mod:`server.cluster`):
        matches are hosted on any node, and a node takes over those of a node that died
        (``resume`` then applies to nothing: no node resumes every live match)."""
        self.store = store
        self.resume = resume
        self.closing = False
        self._new_seed = seeds or (lambda: secrets.randbits(63))
        self.limits = limits
        self.grace_s = grace_s
        self.send_queue_messages = send_queue_messages
        self.send_queue_bytes = send_queue_bytes
        self.version = server_version()
        self.sessions = Sessions()
        self.lobby = Lobby()
        self.live: dict[str, LiveMatch] = {}
        self.recent: collections.OrderedDict[str, LiveMatch] = collections.OrderedDict()
        self.pairs = Pairs()
        self.connections: set[Connection] = set()
        self.admission = Admission(limits)
        self._admitted: dict[Connection, Admitted] = {}
        self.listing = MatchListing(
            lambda: itertools.chain(self.live.values(), self.recent.values(),
                                    () if self.cluster is None else self.cluster.listed),
            number=None if cluster is None else start_number)
        self._turn = LoopTurn()
        self._replays: collections.OrderedDict[
            tuple[str, bool, tuple[str, int, bool] | None], tuple[EncodedMessage, int]] = \
            collections.OrderedDict()
        self._clock: Callable[[], float] = time.monotonic
        self._server: Server | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._persister: asyncio.Task[None] | None = None
        self.host = ""
        self.port = 0
        self._routes = http.Routes()
        self._match_end: list[MatchEnded] = []
        self._handlers: dict[str, Handler] = {
            "list_games": self._list_games, "list_matches": self._list_matches,
            "list_bots": self._list_bots,
            "seek": self._seek, "cancel_seek": self._cancel_seek,
            "challenge": self._challenge, "accept": self._accept, "decline": self._decline,
            "play_bot": self._play_bot, "autoplay": self._autoplay,
            "spectate": self._spectate, "leave": self._leave, "action": self._action,
            "resign": self._resign, "get_replay": self._get_replay,
            "abort_match": self._abort_match, "ban_account": self._ban_account,
        }
        self.metrics = ServerMetrics(live_matches=lambda: len(self.live),
                                     connections=lambda: len(self.connections),
                                     sessions=lambda: len(self.sessions))
        self.add_route("/healthz", self._health)
        self.add_route("/metrics", self._metrics)
        MatchApi(self)
        self.accounts = AccountService(self)
        self.chat = MatchChat(self)
        self.rematches = Rematches(self)
        # The services: made from this hub, they registered what they serve; the server
        # only starts and closes them. The ladder stays reachable by name for the tools
        # that read its books.
        self.ladder = LadderService(self, ladder)
        self.people = PeopleService(self)
        self.tournaments = TournamentService(
            self, rating=self._seed_rating, playing=cluster is None)
        self.services: list[Service] = [self.ladder, self.tournaments, self.people,
                                        *(make(self) for make in services)]
        self.cluster = None if cluster is None else ClusterNode(self, cluster)
        if self.cluster is not None:  # one node schedules and rates at a time
            self.cluster.adopt_ladder(self.ladder)
            self.cluster.adopt_hosted()

    # ---- lifecycle -------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 8765, *,
                    reuse_port: bool = False) -> None:
        """Listen (``port=0`` picks a free port; read :attr:`port` afterwards).
        ``reuse_port``: share the port with other processes (SO_REUSEPORT: the nodes of a
        cluster on one machine)."""
        self._clock = asyncio.get_running_loop().time  # (get_running_loop asks for the pid)
        if self.cluster is not None:
            await self.cluster.start()
        elif self.resume:
            await self._resume_matches()
        else:
            voided = await asyncio.to_thread(self.store.void_live_matches)
            if voided:
                log.warning("interrupted_matches_voided", count=voided)
        self._server = await serve(
            self._serve_connection, host, port,
            subprotocols=[Subprotocol(s) for s in SUBPROTOCOLS],
            select_subprotocol=self._select_subprotocol,
            process_request=self._process_request,
            max_size=self.limits.hard_frame_bytes,
            # Browsers negotiate permessage-deflate by default and it triples the memory of
            # an idle connection; our frames are small. Off.
            compression=None,
            server_header=f"tabletop-arena/{self.version}" + (
                "" if self.cluster is None else f" node/{self.cluster.node_id}"),
            reuse_port=reuse_port or None,
            ping_interval=20, ping_timeout=20,
            create_connection=ArenaWebSocket)
        sockname = next(iter(self._server.sockets)).getsockname()
        self.host, self.port = sockname[0], sockname[1]
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())
        self._persister = asyncio.get_running_loop().create_task(self._persist_loop())
        for service in self.services:
            await service.start()
        if self.cluster is not None:
            self.cluster.run()
        log.info("listening", host=self.host, port=self.port, version=self.version)

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.port}/ws"

    async def _resume_matches(self) -> None:
        """Resume the matches an earlier server left live in the store (it stopped or
        crashed): see :mod:`server.resume`. One that cannot be resumed is ended void."""
        rows = await asyncio.to_thread(self.store.live_matches)
        resumed = failed = 0
        rebuilt = []
        for row in rows:
            try:
                runner, out, seating = resume_match(row, self.sessions, self._clock(),
                                                    self.grace_s)
            except Exception as exc:
                log.warning("match_not_resumable", match_id=row.id, game=row.game,
                            error=str(exc))
                self.store.void_match(row, "void")
                failed += 1
                continue
            rebuilt.append((runner, out, seating))
        resuming = {runner.match_id for runner, _, _ in rebuilt}
        await self._resume_pairs([row for row in rows if row.pair is not None], resuming)
        for runner, out, seating in rebuilt:
            live = self._add_live(runner, seating)
            self._guard(live, live.resume, out)
            resumed += 1
        if rows:
            await asyncio.to_thread(self.store.flush)
            log.warning("interrupted_matches_resumed", resumed=resumed, voided=failed)

    async def _resume_pairs(self, rows: list[MatchRow], resuming: set[str]) -> None:
        """The duplicate pairs of the live ``rows`` an earlier server left, under way again:
        each match of a pair is resumed (in ``resuming``), or ended (void, if it could not
        be resumed; the twin that ended before the stop, as stored). A pair whose matches
        have both ended already has nobody left to tell."""
        pairs: dict[str, LivePair] = {}
        for row in rows:
            info = PairInfo.from_json(row.pair)
            assert info is not None
            names = [str(seat["name"]) for seat in sorted(row.seats, key=lambda s: s["seat"])]
            first, second = ((row.id, info.twin) if info.game == 1 else (info.twin, row.id))
            players = names if info.game == 1 else names[::-1]
            pairs.setdefault(info.pair_id, LivePair(info.pair_id, row.game, (first, second),
                                                    (players[0], players[-1])))
        for pair in pairs.values():
            for match_id in pair.matches:
                if match_id in resuming:
                    continue
                stored = await asyncio.to_thread(self.store.get_match, match_id)
                if stored is not None and stored.status == "over" and stored.outcome:
                    pair.ended[match_id] = Ended("over", Outcome.from_json(stored.outcome),
                                                 stored.ended_at)
                else:  # voided now, voided before, or never stored
                    pair.ended[match_id] = Ended("void", None)
            if not pair.complete:
                self.pairs.add(pair)

    async def close(self) -> None:
        """Stop: no match times out or forfeits from here on, every live match's progress
        and clocks go to the store (a restarted server resumes them), then stop listening,
        close every connection and flush storage (the store stays open)."""
        self.closing = True
        for live in self.live.values():
            live.freeze()
        for service in reversed(self.services):
            await service.close()
        for task in (self._sweeper, self._persister):
            if task is not None:
                task.cancel()
        self.persist_progress(every=True)
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    await self._server.wait_closed()
        await asyncio.to_thread(self.store.flush)  # (progress was handed over on freezing)
        if self.cluster is not None:  # stored: the other nodes may take the matches over
            await self.cluster.close()
        log.info("stopped", live_matches=len(self.live))

    async def flush_store(self) -> None:
        """Wait until everything handed to the store so far is committed."""
        await asyncio.to_thread(self.store.flush)

    def now(self) -> float:
        """The server's clock (the event loop's)."""
        return self._clock()

    def persist_progress(self, every: bool = False,
                         matches: Iterable[LiveMatch] | None = None) -> None:
        """Hand the new actions of every live match (or of ``matches``, those still live)
        to the store, with its moves and its live state (clocks), in one batch. Per action
        this is a small append (not a rewrite of the log), and the writer thread wakes a
        few times a second instead of once per action (it competes for the GIL).
        ``every``: the live state of every live match, moved or not (the server is
        stopping)."""
        entries: list[tuple[str, int, dict[str, Any]]] = []
        moves: dict[str, int] = {}
        states: dict[str, dict[str, Any]] = {}
        for live in self.live.values() if matches is None else matches:
            if live.is_over:  # (ended since: its whole log is stored with its result)
                continue
            new = live.unpersisted()
            if new or every or live.reseated:
                entries.extend(new)
                moves[live.match_id] = live.moves
                state = live.live_state()
                if state != live.stored_state:  # (an untimed match's seldom changes)
                    states[live.match_id] = live.stored_state = state
                live.reseated = False
        self.store.append_actions(entries, moves, states)

    async def _persist_loop(self) -> None:
        while True:
            await asyncio.sleep(PERSIST_INTERVAL_S)
            # In slices, the loop serving actions in between: with thousands of live
            # matches one pass over all of them would hold it for milliseconds.
            lives = list(self.live.values())
            for start in range(0, len(lives), PERSIST_SLICE):
                if start:
                    await asyncio.sleep(0)
                try:
                    self.persist_progress(matches=lives[start:start + PERSIST_SLICE])
                except Exception:
                    log.exception("persist_failed")

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(max(1.0, self.grace_s / 4))
            now = asyncio.get_running_loop().time()
            self.sessions.forget_idle(now, self.grace_s)
            self.admission.sweep(now)
            self.accounts.limiter.sweep(now)

    # ---- HTTP and handshake ------------------------------------------------------------------

    @staticmethod
    def _select_subprotocol(connection: ServerConnection, offered: Any) -> Subprotocol | None:
        chosen = select_subprotocol(list(offered))
        return None if chosen is None else Subprotocol(chosen)

    async def _process_request(self, connection: ServerConnection, request: Any) -> Any:
        path = request.path.split("?", 1)[0]
        if path == WS_PATH:
            refusal = self.admission.refusal(peer_address(connection))
            if refusal is not None:  # refused before the handshake costs anything more
                response = connection.respond(HTTPStatus.TOO_MANY_REQUESTS, refusal + "\n")
                response.headers["Retry-After"] = "1"
                return response
        elif (cost := http_cost(path)) > 0:
            wait = self.admission.http_wait(peer_address(connection), cost, self._clock())
            if wait > 0:
                response = connection.respond(HTTPStatus.TOO_MANY_REQUESTS,
                                              "too many requests from your address\n")
                response.headers["Retry-After"] = str(max(1, math.ceil(wait)))
                return response
        return await http.respond(self._routes, connection, request, self.ws_url)

    async def _health(self, path: str) -> tuple[int, Any]:
        """200 with ``ok: true`` while the store takes writes; 503 with ``ok: false`` and
        ``store.error`` when it does not (or does not answer within
        :data:`HEALTH_STORE_TIMEOUT_S`)."""
        error: str | None = None
        try:
            await asyncio.wait_for(asyncio.to_thread(self.store.check_writable),
                                   HEALTH_STORE_TIMEOUT_S)
        except StoreError as exc:
            error = str(exc)
        except TimeoutError:
            error = f"no answer within {HEALTH_STORE_TIMEOUT_S:g} s"
        if error is not None:
            log.error("store_not_writable", error=error)
        return (200 if error is None else 503), {
            "ok": error is None, "version": self.version,
            "store": {"writable": error is None, "error": error},
            "connections": len(self.connections), "sessions": len(self.sessions),
            "live_matches": len(self.live)}

    async def _metrics(self, path: str) -> tuple[int, Any]:
        return 200, http.RawBody(self.metrics.exposition(), self.metrics.content_type)

    # ---- the hub (server.hub.Hub) --------------------------------------------------------------

    @property
    def handlers(self) -> dict[str, Handler]:
        """The message handlers by type (the cluster node wraps the ladder's)."""
        return self._handlers

    def add_handlers(self, handlers: Mapping[str, Handler]) -> None:
        clash = set(handlers) & set(self._handlers)
        if clash:
            raise ValueError(f"handlers exist already for {sorted(clash)}")
        self._handlers.update(handlers)

    def add_route(self, path: str, route: http.Route, *, subtree: bool = False) -> None:
        self._routes.add(path, route, subtree=subtree)

    def on_match_end(self, callback: MatchEnded) -> None:
        self._match_end.append(callback)

    # ---- the connection pump -----------------------------------------------------------------

    async def _serve_connection(self, ws: ServerConnection) -> None:
        assert isinstance(ws, ArenaWebSocket)  # serve(create_connection=ArenaWebSocket)
        address = peer_address(ws)
        refusal = self.admission.refusal(address)
        if refusal is not None:  # handshakes that raced past _process_request's check
            await ws.close(CLOSE_TRY_AGAIN_LATER, refusal)
            return
        now = self._clock()
        conn = Connection(ws, ServerSession(encoding_of(ws.subprotocol), self.limits, now,
                                            errors_sent=self.metrics.errors_sent),
                          secrets.token_hex(6), max_messages=self.send_queue_messages,
                          max_bytes=self.send_queue_bytes, turn=self._turn)
        admitted = self._admitted[conn] = self.admission.enter(address, now)
        conn.protocol.shared = self.admission.budgets(admitted)
        conn.protocol.costly = self.admission.costly(admitted, self._clock())
        self.connections.add(conn)
        conn.log.info("connected", encoding=conn.protocol.encoding,
                      peer=str(ws.remote_address))
        try:
            ws.attach(lambda message: self._on_message(conn, message))
            await ws.wait_closed()
            if conn.busy is not None:  # a handler still awaiting: let it finish first
                with contextlib.suppress(Exception):
                    await conn.busy
        finally:
            self.connections.discard(conn)
            self.admission.leave(self._admitted.pop(conn))
            self._connection_lost(conn)
            if not conn.closed:
                conn.closed = True
            conn.log.info("disconnected", code=ws.protocol.close_code)  # (14.0 lacks ws.close_code)

    # ---- the message pump --------------------------------------------------------------------
    #
    # Every data message is handled where websockets parses it (ArenaWebSocket calls
    # _on_message from data_received): an action is checked, applied, rendered and its frames
    # scheduled for this loop iteration's writes, with no task in between. A handler that has
    # to wait (a hello looking up a token, a replay read from the store) returns a coroutine;
    # a task awaits it, and the messages that arrive meanwhile wait in the connection's
    # backlog, so that every client's messages are handled in the order they were sent.

    def _on_message(self, conn: Connection, data: str | bytes) -> None:
        if conn.closed or self.closing:  # (stopping: the matches are saved as they are)
            return
        self._turn.message()
        if conn.backlog is not None:
            conn.backlog.append(data)
            if len(conn.backlog) >= BACKLOG_MESSAGES:
                conn.pause_reading()  # TCP pushes back on the client until it drains
            return
        try:
            self._run(conn, self._receive(conn, data))
        except Exception:  # a bug here must cost this connection at most
            conn.log.exception("pump_failed")
            conn.drop(1011, "internal server error")

    def _receive(self, conn: Connection, data: str | bytes) -> list[dict[str, Any]]:
        """Feed one data message to the protocol session; the valid client messages."""
        now = self._clock()
        if isinstance(data, str):
            conn.protocol.receive_text(data, now)
        else:
            conn.protocol.receive_bytes(data, now)
        return conn.protocol.events_received()

    def _run(self, conn: Connection, messages: list[dict[str, Any]]) -> None:
        for n, message in enumerate(messages):
            waiting = self._dispatch(conn, message)
            if waiting is not None:
                self._wait_for(conn, waiting, messages[n + 1:])
                return
        self._after_message(conn)
        pause = self._pause(conn)
        if pause is not None:
            self._wait_for(conn, pause, [])

    def _wait_for(self, conn: Connection, waiting: Awaitable[None],
                  rest: list[dict[str, Any]]) -> None:
        conn.backlog = collections.deque()
        conn.busy = asyncio.get_running_loop().create_task(self._drain(conn, waiting, rest))

    @staticmethod
    def _pause(conn: Connection) -> Awaitable[None] | None:
        """After a rate-limited message: a pause in reading from its client (what it sends
        meanwhile waits in its backlog, then in TCP), so that a flood costs the server one
        refusal per pause instead of one per message."""
        pause = conn.protocol.pause_for()
        if pause is None or conn.closed:
            return None
        return asyncio.sleep(min(pause, MAX_PAUSE_S))

    def _after_message(self, conn: Connection) -> None:
        conn.flush()
        close = conn.protocol.close
        if close is not None and not conn.closed:
            conn.log.warning("closing_abusive", code=close.code, reason=close.reason)
            conn.drop(close.code, close.reason)

    async def _drain(self, conn: Connection, waiting: Awaitable[None],
                     rest: list[dict[str, Any]]) -> None:
        """Await a handler, then handle what queued up behind it, in order."""
        try:
            await waiting
            while not conn.closed:
                for message in rest:
                    if conn.closed:
                        return
                    waiting_next = self._dispatch(conn, message)
                    if waiting_next is not None:
                        await waiting_next
                self._after_message(conn)
                pause = self._pause(conn)
                if pause is not None:
                    await pause
                backlog = conn.backlog
                if not backlog or conn.closed:
                    return
                if conn.reading_paused and len(backlog) <= BACKLOG_MESSAGES // 2:
                    conn.resume_reading()
                rest = self._receive(conn, backlog.popleft())
        except Exception:
            conn.log.exception("pump_failed")
            conn.drop(1011, "internal server error")
        finally:
            conn.backlog = None
            conn.busy = None
            if not conn.closed:
                conn.resume_reading()

    def _dispatch(self, conn: Connection, message: dict[str, Any]) -> Awaitable[None] | None:
        """Handle one client message. A handler that must wait comes back as an awaitable
        (its errors are answered as here); everything else is done on return."""
        kind = message["type"]
        try:
            if kind == "hello":
                return self._finish_async(conn, message, self._hello(conn, message))
            session = conn.owner
            handler = self._handlers.get(kind)
            if session is None or handler is None:  # the protocol session prevents both
                conn.protocol.error("unauthorized" if session is None else "unknown_type",
                                    f"cannot handle {kind!r} now", to=message)
                return None
            result = handler(conn, session, message)
            if result is not None:
                return self._finish_async(conn, message, result)
        except Exception as exc:
            self._handler_failed(conn, message, exc)
        finally:
            conn.flush()
        return None

    async def _finish_async(self, conn: Connection, message: dict[str, Any],
                            waiting: Awaitable[None]) -> None:
        try:
            await waiting
        except Exception as exc:
            self._handler_failed(conn, message, exc)
        finally:
            conn.flush()

    @staticmethod
    def _handler_failed(conn: Connection, message: dict[str, Any], exc: Exception) -> None:
        """Answer a failed handler (called inside its ``except``): a :class:`LobbyError` is
        its typed error; anything else is logged and answered ``internal``."""
        if isinstance(exc, LobbyError):
            conn.protocol.error(exc.code, exc.message, to=message,
                                retry_after=exc.retry_after, **exc.details)
            return
        conn.log.exception("handler_failed", type=message["type"])
        conn.protocol.error("internal", "internal server error", to=message)

    # ---- hello / resume ------------------------------------------------------------------------

    async def _hello(self, conn: Connection, hello: dict[str, Any]) -> None:
        """Open a session: ``resume`` takes over an earlier session (its seats come back);
        an account ``token`` logs in — and takes over that account's session that is away
        with seats in live matches, if there is one (a bot process restarted without its
        resume token keeps its matches); no token makes a guest. An unknown ``resume`` with
        a valid ``token`` falls back to the token (the server may have restarted).

        Identity (PROTOCOL.md §9): a ``resume`` with a ``token`` must name a session of that
        token's account (never a guest's); an account's session resumed without a token must
        still hold the token it logged in with (a revoked one does not); a banned account
        gets neither. A guest's ``name`` that reads as a house bot's or names an account
        becomes ``guest``."""
        resume, token = hello.get("resume"), hello.get("token")
        session = None if resume is None else self.sessions.get(resume)
        if session is None and resume is not None and self.cluster is not None:
            session = await self.cluster.adopt(resume)  # a session of another node
        if resume is not None and session is None and token is None:
            conn.protocol.reject_hello(hello, "unauthorized",
                                       "unknown or expired session; say hello without "
                                       "resume to start a new one")
            return
        refusal, account = await self._check_identity(session, token)
        if refusal is not None:
            conn.protocol.reject_hello(hello, "unauthorized", refusal)
            return
        if session is None and account is not None:
            session = self.sessions.away_with_seats(account.name)
            if session is None:
                session = self.sessions.create(account.name, account.kind)
        if session is None and self.admission.guests_full():
            conn.protocol.reject_hello(
                hello, "rate_limited", "too many guests on this server; log in with an "
                "account token or try again later", retry_after=GUEST_RETRY_AFTER_S,
                cap="guests", max_guests=self.limits.max_guests)
            return
        if session is not None and token is not None:
            session.credential = token_hash(token)
        if session is None:
            session = self.sessions.create(
                f"{await self._guest_name(hello.get('name'))}#{secrets.token_hex(2)}",
                "guest")
        old = session.connection
        if old is not None and old is not conn and not old.closed:
            old.owner = None
            old.drop(1000, "session resumed on another connection")
        self._attach(conn, session, hello)
        for match_id in list(session.seats):
            live = self.live.get(match_id)
            if live is not None and (self.cluster is None or live.seats_of(session)):
                self._guard(live, live.seat_back, session)
            elif self.cluster is not None:  # hosted elsewhere, or here for a placeholder
                self.cluster.seat_back(session, match_id)
        for match_id in list(session.watching):
            live = self.live.get(match_id) or self.recent.get(match_id)
            if live is not None:
                live.resync_spectator(session)
            elif self.cluster is not None:
                self.cluster.seat_back(session, match_id, watch=True)
        session.resend_missed()   # results of matches and pairs that ended while away
        conn.log.info("hello", account=session.name, kind=session.kind,
                      seats=len(session.seats), client=hello.get("client"))

    async def _check_identity(self, session: Session | None, token: str | None
                              ) -> tuple[str | None, Account | None]:
        """Why a ``hello`` resuming ``session`` (``None``: none) with ``token`` is refused
        (``None``: it is not), and the account it logs in as (``None``: a guest's)."""
        account: Account | None = None
        if token is not None:
            account = await asyncio.to_thread(self.store.account_for_token, token)
            if account is None:
                return "unknown account token", None
        elif session is not None and session.credential is not None:
            account = await asyncio.to_thread(self.store.account_for_token_hash,
                                              session.credential)
            if account is None:
                return ("this session's account token was revoked: say hello with the "
                        "account's new token"), None
        elif session is not None and session.kind != "guest":
            # An account's seat restored after a restart (its login token is not known):
            # the account must still exist and not be banned.
            account = await asyncio.to_thread(self.store.get_account, session.name)
            if account is None:
                return "this session's account no longer exists", None
        if account is not None and account.banned:
            return f"account {account.name!r} is banned", None
        if session is not None and token is not None:
            assert account is not None
            if session.kind == "guest":
                return "a guest's session cannot be resumed with an account token", None
            if session.name != account.name:
                return "that session belongs to another account", None
        return None, account

    async def _guest_name(self, wanted: Any) -> str:
        """A guest's display name (before its ``#`` suffix): what it asked for, unless that
        reads as a house bot's name or is an account's; then ``guest``."""
        name = str(wanted or "guest").strip()[:40] or "guest"
        if is_reserved_name(name):
            return "guest"
        taken = await asyncio.to_thread(
            lambda: any(self.store.get_account(n) is not None
                        for n in dict.fromkeys((name, name.casefold(), name_key(name)))))
        return "guest" if taken else name

    def _attach(self, conn: Connection, session: Session, hello: dict[str, Any]) -> None:
        self.sessions.claimed(session)
        conn.owner = session
        session.connection = conn
        session.away_since = None
        session.views = hello.get("views") is True
        session.lean = hello.get("lean") is True
        self.identified(conn, session)
        conn.protocol.welcome(session=session.token, account=session.account,
                              server_version=self.version, hello=hello, views=session.views,
                              lean=session.lean)
        conn.flush()

    def _seed_rating(self, game: str, account: str) -> float:
        """An entrant's rating in a tournament of ``game``: a person's rating for it, else
        the best of its bot versions on the game's ladder, else 0."""
        person = self.people.seed_rating(game, account)
        return person if person is not None else ladder_rating(self.ladder.book, game, account)

    def identified(self, conn: Connection, session: Session) -> None:
        """``session``, ``conn``'s, is now who its ``name`` and ``kind`` say (at its
        ``hello``, or a guest that signed up or in, :mod:`server.accounts`): its messages are
        charged to that identity's budgets, and logged under its name."""
        admitted = self._admitted[conn]
        self.admission.identify(admitted, session.name, session.kind, self._clock())
        conn.protocol.shared = self.admission.budgets(admitted)
        conn.protocol.costly = self.admission.costly(admitted, self._clock())
        conn.log = conn.log.bind(account=session.name)
        if self.cluster is not None:
            self.cluster.attached(session)

    def address_of(self, conn: Connection) -> str:
        """The peer address ``conn`` was admitted from."""
        return self._admitted[conn].address

    def renamed_seats(self, guest: str, account: Account) -> None:
        """The recently finished matches kept in memory name ``account`` where they named
        the guest ``guest`` (as the store's :meth:`~server.storage.Store.claim_matches`)."""
        for live in self.recent.values():
            live.rename_seat(SeatInfo(guest, "guest"), SeatInfo(account.name, account.kind))

    def _connection_lost(self, conn: Connection) -> None:
        session: Session | None = conn.owner
        conn.owner = None
        if session is None or session.connection is not conn:
            return
        session.connection = None
        session.away_since = asyncio.get_running_loop().time()
        for challenge in self.lobby.forget(session):
            for name in challenge.targets:
                for other in self.sessions.online(name):
                    other.send({"type": "challenge_declined",
                                "challenge_id": challenge.challenge_id,
                                "by": session.name})
        if self.cluster is not None:
            self.cluster.forget_seeks(session)
        self.rematches.left(session)
        for match_id in list(session.seats):
            live = self.live.get(match_id)
            if live is not None:
                self._guard(live, live.seat_away, session)
            elif self.cluster is not None:
                self.cluster.seat_away(session, match_id)
        if self.cluster is not None:
            self.cluster.detached(session)

    # ---- matches -----------------------------------------------------------------------------

    def start_match(self, spec: MatchSpec, seating: list[Session],
                    ref_for: tuple[Session, Any] | None = None,
                    match_id: str | None = None) -> LiveMatch:
        """Create, persist and start a match; ``seating[i]`` takes seat ``i``."""
        match_id = match_id or secrets.token_hex(8)
        runner = MatchRunner(match_id, registry.get(spec.game),
                             [SeatInfo(s.name, s.kind) for s in seating], spec.options,
                             self._new_seed(), clock=spec.clock, grace_s=self.grace_s)
        if self.cluster is not None:
            self.cluster.starting(match_id, seating)
        live = self._add_live(runner, seating)
        live.spec = spec
        self.people.starting(live, spec)
        self.metrics.match_started(spec.game)
        self._guard(live, live.start, ref_for)
        if self.cluster is not None:
            self.cluster.started(live, spec)
        return live

    @property
    def plays_pairs(self) -> bool:
        """Whether :meth:`start_pair` starts pairs here (not on a cluster's node)."""
        return self.cluster is None

    def start_pair(self, spec: MatchSpec, seating: list[Session],
                   ref_for: tuple[Session, Any] | None = None
                   ) -> tuple[LiveMatch, LiveMatch]:
        """Create, persist and start a duplicate pair (:mod:`server.pairs`): two matches of
        ``spec`` (a two-seat game with chance) with one seed, dealing from one deck,
        ``seating`` in game 1 and swapped in game 2, started in the same loop turn. Once
        both have ended their players and spectators get ``pair_end``. Raises
        ``bad_request`` on a cluster's node (:attr:`plays_pairs`)."""
        if self.cluster is not None:
            raise LobbyError("bad_request", PAIRS_ON_CLUSTER, reason="cluster")
        if len(seating) != 2:
            raise ValueError("a duplicate pair seats two players")
        game = registry.get(spec.game)
        seed = self._new_seed()
        pair_id = secrets.token_hex(8)
        ids = (secrets.token_hex(8), secrets.token_hex(8))
        # Registered first: a match that faults as it deals ends the pair at once.
        self.pairs.add(LivePair(pair_id, spec.game, ids, (seating[0].name, seating[1].name)))
        lives = []
        for number, seats in enumerate((list(seating), list(seating[::-1])), 1):
            pair = PairInfo(pair_id, number, ids[2 - number])
            runner = MatchRunner(ids[number - 1], game,
                                 [SeatInfo(s.name, s.kind) for s in seats], spec.options,
                                 seed, clock=spec.clock, grace_s=self.grace_s, chance="deck",
                                 pair=pair.to_json())
            live = self._add_live(runner, seats)
            live.spec = spec
            self.metrics.match_started(spec.game)
            lives.append(live)
        for number, live in enumerate(lives):
            self._guard(live, live.start, ref_for if number == 0 else None)
        log.info("pair_start", pair_id=pair_id, game=spec.game, matches=list(ids),
                 players=[s.name for s in seating])
        return lives[0], lives[1]

    def _pair_complete(self, pair: LivePair) -> None:
        """Both matches of ``pair`` have ended: unseal their records and tell their players
        and spectators the pair's result."""
        message = pair_end_message(pair)
        told: dict[Session, None] = {}
        for match_id in pair.matches:
            done = self.find_match(match_id)
            if done is not None:
                done.runner.sealed = False
                told.update(dict.fromkeys([*done.seating, *done.spectators]))
        for session in told:
            session.send(message)
        log.info("pair_end", pair_id=pair.pair_id, game=pair.game, status=message["status"],
                 points=message["points"])

    def _add_live(self, runner: MatchRunner, seating: list[Session]) -> LiveMatch:
        live = LiveMatch(runner, Audience(seating), MatchRecorder(runner, self.store),
                         self._match_ended)
        self.live[runner.match_id] = live
        self.listing.started(runner.match_id)
        for seat, session in enumerate(seating):
            session.seats.setdefault(runner.match_id, []).append(seat)
        return live

    def _match_ended(self, live: LiveMatch) -> None:
        self.live.pop(live.match_id, None)
        if self.cluster is not None:
            self.cluster.ended(live)
        self.metrics.match_finished(live.game, live.status)
        for session in live.seating:
            session.seats.pop(live.match_id, None)
        self.recent[live.match_id] = live
        if live.pair is not None:
            pair = self.pairs.ended(live.match_id,
                                    Ended(live.status, live.outcome, live.ended_at))
            if pair is not None:
                self._pair_complete(pair)
        for callback in self._match_end:
            try:
                callback(live)
            except Exception:  # one service's fault must not keep the others from hearing
                live.log.exception("match_end_callback_failed")
        while len(self.recent) > RECENT_MATCHES:
            _, old = self.recent.popitem(last=False)
            self.listing.forget(old.match_id)
            for session in old.spectators:
                session.watching.discard(old.match_id)

    def add_live(self, runner: MatchRunner, seating: list[Session]) -> LiveMatch:
        """Drive ``runner`` here (a match this node takes over)."""
        return self._add_live(runner, seating)

    def guard(self, live: LiveMatch, call: Callable[..., Any], *args: Any) -> Any:
        """:meth:`_guard`, for the cluster node."""
        return self._guard(live, call, *args)

    def _guard(self, live: LiveMatch, call: Callable[..., Any], *args: Any) -> Any:
        """Run a match operation and return its result; a fault voids that match and
        nothing else (and returns ``None``)."""
        try:
            return call(*args)
        except Exception:
            live.log.exception("match_fault")
            if not live.is_over:
                with contextlib.suppress(Exception):
                    live.void("server fault")
            elif live.ended_at is None:
                self._match_ended(live)
            return None

    def find_match(self, match_id: str) -> LiveMatch | None:
        return self.live.get(match_id) or self.recent.get(match_id)

    def known(self, session: Session) -> bool:
        if self.sessions.get(session.token) is session:
            return True
        return self.cluster is not None and self.cluster.holds(session)

    # ---- lobby handlers ------------------------------------------------------------------------

    def _list_games(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        games = [game.info.to_json() for game in available_games()]
        conn.protocol.reply(msg, {"type": "games", "games": games})

    def match_summaries(self, game: str | None = None) -> list[dict[str, Any]]:
        """Live matches, then recently finished ones, newest first."""
        out = [m.summary() for m in reversed(self.live.values())]
        out += [m.summary() for m in reversed(self.recent.values())]
        return [m for m in out if game is None or m["game"] == game]

    def _list_matches(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        conn.protocol.reply(msg, self.listing.message(self._clock(), page_limit(msg),
                                                      msg.get("game"), msg.get("cursor")))

    def _seek(self, conn: Connection, session: Session, msg: dict[str, Any]
              ) -> Awaitable[None] | None:
        if self.cluster is not None:  # seekers on every node pair
            return self.cluster.seek(conn, session, msg)
        spec = MatchSpec.parse(msg["game"], msg.get("options"), msg.get("clock"),
                               msg.get("seats"), msg.get("rated", False))
        check_rated(session, spec)
        seek_id, group = self.lobby.seek(session, spec)
        conn.protocol.reply(msg, {"type": "seeking", "seek_id": seek_id, "game": spec.game})
        conn.flush()
        if group is not None:
            order = list(group)
            # Fair seats: who sought first must not always move first.
            for i in range(len(order) - 1, 0, -1):
                j = secrets.randbelow(i + 1)
                order[i], order[j] = order[j], order[i]
            self.start_match(spec, order)
        return None

    def _cancel_seek(self, conn: Connection, session: Session, msg: dict[str, Any]
                     ) -> Awaitable[None] | None:
        if self.cluster is not None:
            return self._cancel_cluster_seek(conn, session, msg)
        if not self.lobby.cancel_seek(session, msg["seek_id"]):
            raise LobbyError("not_found", "no such seek of yours")
        conn.protocol.reply(msg, {"type": "ok"})
        return None

    async def _cancel_cluster_seek(self, conn: Connection, session: Session,
                                   msg: dict[str, Any]) -> None:
        assert self.cluster is not None
        if not await self.cluster.cancel_seek(session, msg["seek_id"]):
            raise LobbyError("not_found", "no such seek of yours")
        conn.protocol.reply(msg, {"type": "ok"})

    def _challenge(self, conn: Connection, session: Session, msg: dict[str, Any]
                   ) -> Awaitable[None] | None:
        targets = list(msg["accounts"])
        spec = MatchSpec.parse(msg["game"], msg.get("options"), msg.get("clock"),
                               len(targets) + 1, msg.get("rated", False),
                               msg.get("duplicate", False))
        check_rated(session, spec)
        if spec.duplicate and self.cluster is not None:
            raise LobbyError("bad_request", PAIRS_ON_CLUSTER, reason="cluster")
        missing = [name for name in targets if not self.sessions.online(name)]
        if missing and self.cluster is not None:  # connected to another node, maybe
            return self._challenge_across(conn, session, msg, targets, spec, missing)
        self._send_challenge(conn, session, msg, targets, spec, missing)
        return None

    async def _challenge_across(self, conn: Connection, session: Session,
                                msg: dict[str, Any], targets: list[str], spec: MatchSpec,
                                missing: list[str]) -> None:
        assert self.cluster is not None
        elsewhere = await self.cluster.online_elsewhere()
        self._send_challenge(conn, session, msg, targets, spec,
                             [name for name in missing if name not in elsewhere])

    def _send_challenge(self, conn: Connection, session: Session, msg: dict[str, Any],
                        targets: list[str], spec: MatchSpec, missing: list[str]) -> None:
        if missing:
            raise LobbyError("not_found", f"{len(missing)} of the invited accounts "
                                          f"{'is' if len(missing) == 1 else 'are'} not "
                                          "connected")
        challenge = self.lobby.challenge(session, targets, spec)
        conn.protocol.reply(msg, {"type": "challenge_sent",
                                  "challenge_id": challenge.challenge_id})
        invitation: dict[str, Any] = {
            "type": "challenge", "challenge_id": challenge.challenge_id, "from": session.name,
            "accounts": targets, "game": spec.game, "options": dict(spec.options),
            "clock": None if spec.clock is None else spec.clock.to_json()}
        if spec.rated:
            invitation["rated"] = True
        if spec.duplicate:
            invitation["duplicate"] = True
        for name in targets:
            for other in self.sessions.online(name):
                other.send(invitation)
        if self.cluster is not None:
            self.cluster.challenge_made(challenge.challenge_id, targets, invitation)

    def _accept(self, conn: Connection, session: Session, msg: dict[str, Any]
                ) -> Awaitable[None] | None:
        if self.cluster is not None and msg["challenge_id"] not in self.lobby.challenges:
            return self.cluster.answer_challenge(session, msg)  # made on another node
        invited = self.lobby.challenges.get(msg["challenge_id"])
        if invited is not None and session.name in invited.targets:
            check_rated(session, invited.spec)  # a rated challenge is accepted by people
        challenge = self.lobby.accept(msg["challenge_id"], session)
        conn.protocol.reply(msg, {"type": "ok"})
        conn.flush()
        if challenge.complete and challenge.spec.duplicate:
            self.start_pair(challenge.spec, challenge.seating())
        elif challenge.complete:
            self.start_match(challenge.spec, challenge.seating())
        return None

    def _decline(self, conn: Connection, session: Session, msg: dict[str, Any]
                 ) -> Awaitable[None] | None:
        if self.cluster is not None and msg["challenge_id"] not in self.lobby.challenges:
            return self.cluster.answer_challenge(session, msg)  # made on another node
        challenge = self.lobby.decline(msg["challenge_id"], session)
        conn.protocol.reply(msg, {"type": "ok"})
        notice = {"type": "challenge_declined", "challenge_id": challenge.challenge_id,
                  "by": session.name}
        for other in {challenge.challenger, *challenge.accepted.values()}:
            if other is not session:
                other.send(notice)
        return None

    def _play_bot(self, conn: Connection, session: Session, msg: dict[str, Any]
                  ) -> Awaitable[None] | None:
        spec = MatchSpec.parse(msg["game"], msg.get("options"), msg.get("clock"),
                               duplicate=msg.get("duplicate", False))
        seat = msg.get("seat", 0)
        if not 0 <= seat < spec.num_seats:
            raise LobbyError("bad_request", f"seat must be 0-{spec.num_seats - 1}")
        if spec.duplicate and self.cluster is not None:
            raise LobbyError("bad_request", PAIRS_ON_CLUSTER, reason="cluster")
        if self.cluster is not None:  # the house bots of every node
            return self.cluster.play_bot(conn, session, msg, spec, seat)
        # A pair seats its bot in both matches: it needs room for two.
        bots = self.lobby.pick_bots(self.sessions.all(), spec.game, spec.num_seats - 1,
                                    msg.get("bot"), exclude=session,
                                    slots=2 if spec.duplicate else 1)
        seating = list(bots)
        seating.insert(seat, session)
        if spec.duplicate:   # ``seat`` is the player's seat in game 1; game 2 swaps them
            self.start_pair(spec, seating, ref_for=(session, msg.get("id")))
        else:
            self.start_match(spec, seating, ref_for=(session, msg.get("id")))
        return None

    def _list_bots(self, conn: Connection, session: Session, msg: dict[str, Any]
                   ) -> Awaitable[None] | None:
        if self.cluster is not None:
            return self._list_cluster_bots(conn, msg)
        conn.protocol.reply(msg, {"type": "bots",
                                  "bots": bot_listing(self.sessions.all(), msg.get("game"))})
        return None

    async def _list_cluster_bots(self, conn: Connection, msg: dict[str, Any]) -> None:
        assert self.cluster is not None
        conn.protocol.reply(msg, {"type": "bots",
                                  "bots": await self.cluster.list_bots(msg.get("game"))})

    def _autoplay(self, conn: Connection, session: Session, msg: dict[str, Any]
                  ) -> Awaitable[None] | None:
        if session.kind != "bot":
            raise LobbyError("unauthorized", "autoplay is for bot accounts: say hello with a "
                                             "bot account's token")
        games = list(msg["games"])
        known = available_names()
        unknown = [g for g in games if g not in known]
        if unknown:
            raise LobbyError("not_found", "no such game here: list_games lists them")
        session.autoplay = AutoplayOffer(frozenset(games), int(msg.get("max_matches", 1)),
                                         msg.get("bot"), msg.get("version"))
        if self.cluster is not None:  # kept with the session: any node may resume it
            return self._stored_then_ok(conn, msg, self.cluster.attached(session))
        conn.protocol.reply(msg, {"type": "ok"})
        return None

    @staticmethod
    async def _stored_then_ok(conn: Connection, msg: dict[str, Any],
                              stored: Awaitable[None]) -> None:
        """Answer ``ok`` once ``stored`` is done (a bot that moves to another node right
        after its ``ok`` takes its offer along)."""
        await stored
        conn.protocol.reply(msg, {"type": "ok"})

    def _spectate(self, conn: Connection, session: Session, msg: dict[str, Any]
                  ) -> Awaitable[None] | None:
        live = self.find_match(msg["match_id"])
        if live is None and self.cluster is not None:
            return self.cluster.spectate(session, msg)  # hosted on another node
        if live is None:
            raise LobbyError("not_found", "no live or recent match with that id")
        live.spectate(session, msg.get("id"))
        return None

    def _leave(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        live = self.find_match(msg["match_id"])
        if live is not None:
            live.leave(session)
        elif self.cluster is not None:
            self.cluster.leave(session, msg["match_id"])
        session.watching.discard(msg["match_id"])
        conn.protocol.reply(msg, {"type": "ok"})

    def _action(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        match_id = msg["match_id"]
        live = self.find_match(match_id)
        if live is None and self.cluster is not None:
            self.cluster.action(conn, session, msg)  # hosted on another node
            return
        if live is None:
            conn.protocol.error("not_found", "no such match", to=msg, match_id=match_id,
                                request_id=msg["request_id"])
            return
        if not live.seats_of(session) or live.is_over:
            conn.protocol.error("not_your_turn", "you hold no seat in this live match", to=msg,
                                match_id=match_id, request_id=msg["request_id"])
            return
        started = time.perf_counter()
        if self._guard(live, live.action, session, msg):
            self.metrics.action_taken(time.perf_counter() - started)
            # An action that answers an open request was asked for by the server, and the
            # server asks one at a time: it must not count against the flood budget, or
            # fast bots would be rate limited in the middle of a match.
            conn.protocol.refund()

    def _resign(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        live = self.live.get(msg["match_id"])
        if live is None and self.cluster is not None:
            self.cluster.resign(session, msg)  # hosted on another node
            return
        if live is None or not live.seats_of(session):
            raise LobbyError("not_found", "you hold no seat in a live match with that id")
        self._guard(live, live.resign, session, msg.get("id"))

    @staticmethod
    def _admin_only(session: Session, what: str) -> None:
        if session.kind != "admin":
            raise LobbyError("unauthorized", f"only an admin account may {what}")

    def _abort_match(self, conn: Connection, session: Session, msg: dict[str, Any]
                     ) -> Awaitable[None] | None:
        self._admin_only(session, "abort a match")
        live = self.live.get(msg["match_id"])
        if live is None and self.cluster is not None:  # hosted by another node: it answers
            return self.cluster.abort_match(session, msg)
        if live is None or live.is_over:
            raise LobbyError("not_found", "no live match with that id")
        conn.protocol.reply(msg, {"type": "ok"})
        conn.flush()
        self._guard(live, live.abort, session.name, str(msg.get("reason") or ""))
        return None

    async def _ban_account(self, conn: Connection, session: Session, msg: dict[str, Any]
                           ) -> None:
        self._admin_only(session, "ban an account")
        name = msg["account"]
        if name == session.name:
            raise LobbyError("bad_request", "an admin cannot ban itself")
        try:
            await asyncio.to_thread(self.store.set_banned, name, True)
        except StoreError as exc:
            raise LobbyError("not_found", str(exc)) from None
        self.expel(name, "account banned")
        if self.cluster is not None:  # its sessions on the other nodes as well
            self.cluster.expel_everywhere(name, "account banned")
        conn.log.warning("account_banned", account=name, reason=msg.get("reason"))
        conn.protocol.reply(msg, {"type": "ok"})

    def expel(self, name: str, why: str) -> int:
        """Close every session of account ``name`` now: connections dropped (1008), resume
        tokens forgotten (its ladder entries leave, its seats forfeit after the grace
        period as any disconnected seat's). Returns how many sessions there were."""
        sessions = self.sessions.of_account(name)
        for gone in sessions:
            self.close_session(gone, why)
        return len(sessions)

    def close_session(self, session: Session, why: str,
                      code: int = CLOSE_POLICY_VIOLATION) -> None:
        """Forget ``session`` now and close its connection with ``code`` (its offers are
        withdrawn; its seats in live matches forfeit after the grace period)."""
        session.autoplay = None
        self.sessions.forget(session)
        if session.connection is not None:
            session.connection.drop(code, why)

    async def _get_replay(self, conn: Connection, session: Session, msg: dict[str, Any]
                          ) -> None:
        match_id, views = msg["match_id"], session.views
        live = self.find_match(match_id)
        # A replay is built and encoded once per step of its match (once for good when it
        # is over) however many ask for it.
        key = (match_id, views,
               (live.status, live.runner.seq, live.sealed) if live is not None else None)
        cached = self._replays.get(key)
        if cached is None:
            if live is not None:
                replay = live.replay(views=views)
            else:
                row = await asyncio.to_thread(self.store.get_match, match_id)
                if row is None or row.status == "live":
                    raise LobbyError("not_found", "no such finished match")
                if row.pair is not None and row.pair.get("twin") in self.live:
                    raise LobbyError("not_found", "this match's duplicate twin is still "
                                                  "being played: its replay opens when the "
                                                  "pair is over", reason="sealed")
                replay = stored_replay(row, views=views)
            cached = (EncodedMessage(replay), len(replay["steps"]))
            self._replays[key] = cached
            if len(self._replays) > CACHED_REPLAYS:
                self._replays.popitem(last=False)
        else:
            self._replays.move_to_end(key)
        # A replay costs what it takes to build: the longer the match, the more.
        conn.protocol.charge_more(replay_cost(cached[1], views))
        conn.protocol.reply(msg, cached[0])


def peer_address(connection: ServerConnection) -> str:
    """The peer's IP address (the key of its per-address budget and cap)."""
    remote = connection.remote_address
    return str(remote[0]) if remote else "unknown"


def stored_replay(row: Any, views: bool = False) -> dict[str, Any]:
    """The ``replay`` message of a finished match read from storage (no seed); ``views``:
    with each step's views."""
    stored = StoredMatch(row.id, registry.get(row.game), row.record(), row.seats, row.status,
                         pair=row.pair)
    return render_for(stored, None, "replay", views=views)
