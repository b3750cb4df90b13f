"""One server node of a cluster: matches hosted here, seats and spectators anywhere.

Several nodes share one listening port (SO_REUSEPORT), one PostgreSQL store and one Redis.
A client lands on any node — its *home*, which holds its connection and its session. A
match lives on one node — its *host*, which runs it (:class:`~server.live.LiveMatch`) and
stores it. A seat or a spectator whose home is another node is a :class:`RemoteSession` on
the host: what the match sends it is encoded there, in the client's encoding, and travels
over the bus (:mod:`server.cluster.bus`) to its home, which writes the frame; what the client
sends for that match (``action``, ``resign``, ``spectate``, ``leave``) its home forwards to
the host. Operations between two nodes keep their order, so a seat's messages and the
request-id rules hold as on one node.

What Redis holds (``{prefix}`` is ``arena:`` unless configured):

* ``alive:{node}`` — presence, a key that expires unless the node renews it
  (:data:`PRESENCE_TTL_S`); ``nodes`` — every node that joined and has not been cleared;
* ``session:{hash}`` — a session's name, kind and credential, by the SHA-256 of its resume
  token, so a client can resume on any node; ``seats:{hash}`` — its live matches;
* ``match:{id}`` — the match's host and *epoch*: each new host of a match (after a node
  died) takes the next epoch with a compare-and-set, so two nodes never both host it;
* ``jobs:{node}`` — the node's match jobs, a Redis Stream read through the consumer group
  ``hosts``. Every match a node hosts is an entry there, acknowledged when the match
  ends; ``seeks:{spec}`` — the lobby's waiting seeks of one match spec.

When a node dies (``kill -9``: its presence expires), one survivor takes a lock
(``reclaim:{node}``, with an expiry) and moves the dead node's unacknowledged jobs to its own
stream (``XAUTOCLAIM``); it then resumes each match from the store (seed, options, action
log, clocks: :func:`server.resume.resume_match`) and tells every node (``moved``); each node
re-attaches the seats and spectators it holds, and a client of the dead node resumes on
another one with its resume token (``session:{hash}``). A match's result is written once
(the store ignores a second final write: the first result wins).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import random
import secrets
import socket
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import msgpack
import orjson
import structlog
from redis import asyncio as aioredis
from redis.exceptions import ResponseError

from protocol import EncodedMessage, encode, error_message
from server.cluster.bus import Bus, Op
from server.lobby import LobbyError, MatchSpec
from server.people import check_rated
from server.resume import resume_match
from server.sessions import AutoplayOffer, Session
from server.storage import token_hash

if TYPE_CHECKING:
    from server.connection import Connection
    from server.hub import Handler
    from server.ladder import LadderService
    from server.listing import Listed
    from server.live import LiveMatch
    from server.lobby import Lobby
    from server.runner import MatchRunner
    from server.sessions import Sessions
    from server.storage import Store


class NodeServer(Protocol):
    """What a cluster node needs of its server (:class:`server.app.ArenaServer`; named by
    what it does, so that this module does not import the server)."""

    sessions: Sessions
    live: dict[str, LiveMatch]
    recent: Any
    store: Store
    grace_s: float
    lobby: Lobby

    @property
    def handlers(self) -> dict[str, Handler]: ...
    def now(self) -> float: ...
    async def flush_store(self) -> None: ...
    def start_match(self, spec: MatchSpec, seating: list[Session],
                    ref_for: tuple[Session, Any] | None = None,
                    match_id: str | None = None) -> LiveMatch: ...
    def add_live(self, runner: MatchRunner, seating: list[Session]) -> LiveMatch: ...
    def guard(self, live: LiveMatch, call: Any, *args: Any) -> Any: ...
    def expel(self, name: str, why: str) -> int: ...
    def find_match(self, match_id: str) -> LiveMatch | None: ...

log = structlog.get_logger("arena.cluster")

PRESENCE_TTL_S = 2.0
"""A node whose presence key has not been renewed for this long is dead."""
HEARTBEAT_S = 0.5
"""How often a node renews its presence and looks for dead nodes."""
RECLAIM_LOCK_S = 15.0
"""How long the survivor moving a dead node's jobs holds the lock for that node."""
GROUP = "hosts"
REDIS_CONNECTIONS = 64
"""A node's connections to Redis at most (the bus's subscription and the job reader's
blocking read hold one each)."""
LISTING_BEATS = 2
"""Every this many heartbeats a node shares its matches for every node's listing."""
LISTED_MATCHES = 500
"""The newest matches of a node that the other nodes list."""
LADDER_LOCK_S = 3.0
"""The ladder's lock expires this long after its holder last renewed it."""
HOSTED_TYPES = ("chat", "mute")
"""Messages about one match that its host answers, wherever the client is connected."""
LADDER_TYPES = ("ladder_join", "ladder_leave", "get_leaderboard", "get_rating_history",
                "list_ladder_matches")
"""The ladder's messages: answered by the node that holds the ladder's lock."""

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
"""Extend a lock this node holds (and nobody else's)."""

_CLAIM = """
local epoch = tonumber(redis.call('HGET', KEYS[1], 'epoch') or '-1')
if tonumber(ARGV[2]) > epoch then
  redis.call('HSET', KEYS[1], 'host', ARGV[1], 'epoch', ARGV[2])
  return 1
end
return 0
"""
"""Compare-and-set a match's host: the claim with a newer epoch wins (fencing)."""

_SEEK = """
local items = redis.call('LRANGE', KEYS[1], 0, -1)
local want = tonumber(ARGV[3])
local near, far = {}, {}
for _, item in ipairs(items) do
  local seek = cjson.decode(item)
  if seek['h'] == ARGV[2] then return {'dup', item} end
  if redis.call('EXISTS', ARGV[6] .. seek['n']) == 0 then
    redis.call('LREM', KEYS[1], 1, item)  -- its node is gone, and its client with it
  elseif (seek['n'] == ARGV[4]) == (ARGV[5] == 'local') then
    table.insert(near, item)
  else
    table.insert(far, item)
  end
end
local picked = {}
for _, group in ipairs({near, far}) do
  for _, item in ipairs(group) do
    if #picked < want then table.insert(picked, item) end
  end
end
if #picked == want then
  for _, item in ipairs(picked) do redis.call('LREM', KEYS[1], 1, item) end
  return picked
end
redis.call('RPUSH', KEYS[1], ARGV[1])
return {}
"""
"""Pair or wait, atomically: take ``want`` other seeks of the spec, oldest first — those
of this node first (``local``: the match then runs with no seat across the bus) or those
of other nodes first (``spread``: for tests and benchmarks of cross-node matches) — or
queue this one."""


@dataclass(frozen=True)
class ClusterConfig:
    redis_url: str
    node_id: str | None = None
    prefix: str = "arena:"
    pairing: str = "local"
    """Which waiting seeks a seek pairs with first: this node's (``local``) or other
    nodes' (``spread``)."""

    def __post_init__(self) -> None:
        if self.pairing not in ("local", "spread"):
            raise ValueError("pairing is 'local' or 'spread'")


class FrameMessage(EncodedMessage):
    """A frame encoded on another node, written here as it is."""

    __slots__ = ()

    def __init__(self, frame: str | bytes) -> None:
        super().__init__({})
        if isinstance(frame, bytes):
            self._msgpack = frame
        else:
            self._json = frame


@dataclass(frozen=True)
class EndedMatch:
    """A match that ended on another node, as the ladder's leader hears of it (the
    :class:`~server.hub.MatchHandle` fields the ladder reads)."""

    match_id: str
    status: str
    outcome: Any
    ended_at: str | None


class _Answers:
    """The ``protocol`` of a connection on another node, for a handler that runs here:
    its replies and errors go to the session's home."""

    def __init__(self, proxy: RemoteSession) -> None:
        self.proxy = proxy

    def reply(self, to: dict[str, Any], message: Any) -> None:
        ref = to.get("id")
        self.proxy.send(message if ref is None else {**message, "ref": ref})

    def error(self, code: str, message: str, *, to: dict[str, Any] | None = None,
              retry_after: float | None = None, **details: Any) -> None:
        self.proxy.send(error_message(code, message, ref=None if to is None else to.get("id"),
                                      details=details or None, retry_after=retry_after))

    def flush(self) -> None:
        pass


class _RemoteConnection:
    """What a handler sees of a client connected to another node."""

    def __init__(self, proxy: RemoteSession) -> None:
        self.protocol = _Answers(proxy)
        self.log = log.bind(account=proxy.name, home=proxy.home)

    def flush(self) -> None:
        pass


class _Listed:
    """A match of another node, as the listing reads it."""

    __slots__ = ("_summary", "match_id")

    def __init__(self, summary: dict[str, Any]) -> None:
        self._summary = summary
        self.match_id = str(summary["match_id"])

    def summary(self) -> dict[str, Any]:
        return self._summary


class _Silent:
    """A ``protocol`` whose replies go nowhere."""

    def reply(self, to: Any, message: Any) -> None:
        pass

    def error(self, *args: Any, **kwargs: Any) -> None:
        pass

    def flush(self) -> None:
        pass


class _QuietConnection:
    """A connection for a handler whose answer nobody waits for (the joins a new ladder
    leader takes over from Redis)."""

    def __init__(self) -> None:
        self.protocol = _Silent()
        self.log = log

    def flush(self) -> None:
        pass


@dataclass(eq=False)
class RemoteSession(Session):
    """A seat's or a spectator's session whose connection is on another node (its
    ``home``): what is sent to it is encoded here and goes over the bus."""

    home: str = ""
    encoding: str = "json"
    online: bool = False
    bus: Bus | None = None

    @property
    def connected(self) -> bool:
        return self.online

    def send(self, message: Any) -> None:
        if not self.online or self.bus is None:
            return
        if isinstance(message, EncodedMessage):
            frame = message.frame(self.encoding)  # type: ignore[arg-type]
        else:
            frame = encode(message, self.encoding)  # type: ignore[arg-type]
        self.bus.send(self.home, {"o": "f", "h": self.resume_hash, "f": frame})


def session_info(session: Session, node: str) -> dict[str, Any]:
    """What a host needs to seat a session of ``node``."""
    conn = session.connection
    return {"h": session.resume_hash, "n": node, "name": session.name, "kind": session.kind,
            "v": session.views, "l": session.lean,
            "e": conn.protocol.encoding if conn is not None else "json",
            "c": session.connected}


class ClusterNode:
    def __init__(self, server: NodeServer, config: ClusterConfig) -> None:
        self.server = server
        self.config = config
        self.node_id = config.node_id or (
            f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(2)}")
        self.prefix = config.prefix
        self.redis: aioredis.Redis | None = None
        self.bus: Bus | None = None
        self.local: dict[str, Session] = {}          # resume hash -> session of this node
        self.remote: dict[str, RemoteSession] = {}   # resume hash -> proxy on this host
        self.hosts: dict[str, str] = {}              # match id -> its host (a cache)
        self.jobs: dict[str, tuple[str, str] | None] = {}  # hosted match -> its job entry
        self.seeks: dict[str, tuple[str, bytes, Session]] = {}
        # A match being started by host_match: its seats' seeks, and its job's entry.
        self._extras: dict[str, tuple[list[str | None], tuple[str, str] | None]] = {}
        self.dead: set[str] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._background: set[asyncio.Task[Any]] = set()
        # The last write of each session's record: writes of one session go in order.
        self._session_writes: dict[str, asyncio.Task[None]] = {}
        self._claim: Any = None
        self._seek: Any = None
        self.reclaimed = 0
        self.closing = False
        self.ladder: LadderService | None = None
        self.leader: str | None = None   # the node that holds the ladder's lock
        self.leading = False
        self.fence = 0                   # the lock's fencing token while this node holds it
        self._ladder_handlers: dict[str, Handler] = {}
        self._hosted_handlers: dict[str, Handler] = {}
        self._renew_lock: Any = None
        self.taken_over: set[str] = set()  # matches resumed here after their host died
        self.listed: list[Listed] = []     # the other nodes' matches, for list_matches
        self._beats = 0

    # ---- keys ---------------------------------------------------------------------------------

    def key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    def stream(self, node: str) -> str:
        return self.key("jobs", node)

    @property
    def r(self) -> Any:  # (redis-py's asyncio types are loose: read as Any here)
        assert self.redis is not None, "the cluster node is not started"
        return self.redis

    # ---- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect to Redis, announce this node and listen on the bus (before the server
        listens); the job reader and the watch over the other nodes start with
        :meth:`run`."""
        # A bounded pool that waits for a free connection: a burst of seeks must queue for
        # Redis, not fail (redis-py's default pool raises past its limit).
        self.redis = aioredis.Redis(connection_pool=aioredis.BlockingConnectionPool.from_url(
            self.config.redis_url, max_connections=REDIS_CONNECTIONS, timeout=30))
        await self.r.ping()
        self._claim = self.r.register_script(_CLAIM)
        self._renew_lock = self.r.register_script(_RENEW)
        self._seek = self.r.register_script(_SEEK)
        self.bus = Bus(self.r, self.node_id, self.prefix, self._on_ops)
        await self.bus.start()
        await self._renew()
        await self.r.sadd(self.key("nodes"), self.node_id)
        await self._ensure_group(self.stream(self.node_id))
        log.info("node_joined", node=self.node_id)
        await self._adopt_orphans()

    async def _adopt_orphans(self) -> None:
        """The first node of a cluster (no other alive) hosts the matches the store holds
        live that no node hosts: left by a cluster that stopped as a whole, or by a Redis
        that restarted empty."""
        for node in await self._others(alive_only=False):
            if await self.r.exists(self.key("alive", node)):
                return
        rows = await asyncio.to_thread(self.server.store.live_matches)
        stream = self.stream(self.node_id)
        adopted = 0
        for row in rows:
            if await self.r.exists(self.key("match", row.id)):
                continue  # a job of a dead node's stream has it: the reclaim resumes it
            hashes = list((row.live_state or {}).get("resume") or [])
            hashes += [None] * (row.num_seats - len(hashes))
            seats = sorted(row.seats, key=lambda s: int(s["seat"]))
            job = {"m": row.id, "game": row.game, "options": row.options, "clock": row.clock,
                   "seats": [{"h": h or secrets.token_hex(16), "n": "", "name": seat["name"],
                              "kind": seat["kind"], "c": False}
                             for h, seat in zip(hashes, seats, strict=False)],
                   "by": self.node_id, "resume": True, "epoch": 0}
            await self.r.xadd(stream, {"job": msgpack.packb(job)})
            adopted += 1
        if adopted:
            log.warning("orphan_matches_adopted", count=adopted)

    def run(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._read_jobs(), name="cluster-jobs"),
                       loop.create_task(self._watch(), name="cluster-watch")]

    async def close(self) -> None:
        """Leave: stop reading jobs and renewing presence, then drop the presence key so
        that the survivors take this node's matches over at once (call after the server
        stored every live match's progress)."""
        # (A loop must also see the flag: redis-py may turn a cancellation in the middle
        # of a command into a connection error, which the loop would log and go on from.)
        self.closing = True
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                async with asyncio.timeout(2 * HEARTBEAT_S + 1):
                    await task
        if self._background:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2):
                    await asyncio.gather(*self._background, return_exceptions=True)
        if self.bus is not None:
            await self.bus.close()
        if self.redis is not None:
            with contextlib.suppress(Exception):
                await self.r.delete(self.key("alive", self.node_id))
                if self.leading:  # the next leader need not wait for the lock to expire
                    await self.r.delete(self.key("ladder", "lock"))
            await self.r.aclose()
        log.info("node_left", node=self.node_id)

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(self._logged(coro))
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    @staticmethod
    async def _logged(coro: Awaitable[Any]) -> None:
        try:
            await coro
        except Exception:
            log.exception("cluster_task_failed")

    async def _ensure_group(self, stream: str) -> None:
        with contextlib.suppress(ResponseError):  # BUSYGROUP: it exists
            await self.r.xgroup_create(stream, GROUP, id="0", mkstream=True)

    async def _renew(self) -> None:
        await self.r.set(self.key("alive", self.node_id), b"1",
                         px=int(PRESENCE_TTL_S * 1000))

    # ---- sessions -----------------------------------------------------------------------------

    def attached(self, session: Session) -> asyncio.Task[None]:
        """A session said hello (or changed its autoplay offer) here: it is this node's, and
        any node may resume it. Returns the write of its record to Redis, done when a node
        that resumes it would read what it is now."""
        h = session.resume_hash
        self.local[h] = session
        offer = session.autoplay
        fields = {"name": session.name, "kind": session.kind, "node": self.node_id,
                  "credential": session.credential or "",
                  "autoplay": b"" if offer is None else msgpack.packb(
                      [sorted(offer.games), offer.max_matches, offer.bot, offer.version])}

        before = self._session_writes.get(h)

        async def register() -> None:
            if before is not None:
                # The hello's write must not land after the autoplay offer's (it would
                # erase the offer a node that resumes the session reads).
                await before
            async with self.r.pipeline(transaction=False) as pipe:
                pipe.hset(self.key("session", h), mapping=fields)
                pipe.expire(self.key("session", h), 6 * 3600)
                await pipe.execute()
        stored = self._spawn(register())
        self._session_writes[h] = stored

        def written(task: asyncio.Task[None]) -> None:
            if self._session_writes.get(h) is task:
                del self._session_writes[h]
        stored.add_done_callback(written)
        if self.bus is not None:  # hosts holding it as a remote session: it is here now
            self.bus.broadcast({"o": "here", "i": session_info(session, self.node_id)})
        return stored

    def detached(self, session: Session) -> None:
        """A session of this node lost its connection."""
        if self.bus is not None:
            self.bus.broadcast({"o": "gone", "h": session.resume_hash, "n": self.node_id})

    def holds(self, session: Session) -> bool:
        """Whether ``session`` is a remote session this node still holds (its home is not
        known to be dead)."""
        return isinstance(session, RemoteSession) and \
            self.remote.get(session.resume_hash) is session and session.home not in self.dead

    async def adopt(self, token: str) -> Session | None:
        """The session of a resume token that another node gave out (``None`` if no node
        did): made here under the same token, away, with its live seats."""
        h = token_hash(token)
        data = await self.r.hgetall(self.key("session", h))
        if not data:
            return None
        offer = data.pop(b"autoplay", b"")
        fields = {k.decode(): v.decode() for k, v in data.items()}
        session = self.server.sessions.adopt(token, fields["name"], fields["kind"])
        session.credential = fields.get("credential") or None
        if offer and session.autoplay is None:  # a house bot stays one on its new node
            games, most, bot, version = msgpack.unpackb(offer)
            session.autoplay = AutoplayOffer(frozenset(games), most, bot, version)
        session.away_since = asyncio.get_running_loop().time()
        for raw in await self.r.smembers(self.key("seats", h)):
            session.seats.setdefault(raw.decode(), [])
        return session

    def _local(self, h: str) -> Session | None:
        session = self.local.get(h)
        if session is not None and self.server.sessions.get(session.token) is not session:
            del self.local[h]
            return None
        return session

    def _proxy(self, info: dict[str, Any]) -> RemoteSession:
        h = info["h"]
        proxy = self.remote.get(h)
        if proxy is None:
            proxy = RemoteSession(token=f"remote:{h}", name=info["name"], kind=info["kind"],
                                  bus=self.bus)
            proxy.__dict__["resume_hash"] = h
            self.remote[h] = proxy
        proxy.home = info.get("n") or proxy.home
        proxy.encoding = info.get("e") or proxy.encoding
        proxy.views = bool(info.get("v", proxy.views))
        proxy.lean = bool(info.get("l", False))
        proxy.online = bool(info.get("c", False)) and bool(proxy.home) \
            and proxy.home not in self.dead
        return proxy

    def _seat(self, info: dict[str, Any]) -> Session:
        """The session that takes a seat described by ``info`` on this host."""
        if info["n"] == self.node_id:
            session = self._local(info["h"])
            if session is not None:
                return session
            info = {**info, "c": False}
        return self._proxy(info)

    # ---- the host's side ----------------------------------------------------------------------

    def host_match(self, spec: MatchSpec, infos: list[dict[str, Any]],
                   match_id: str | None = None,
                   ref_for: tuple[Session, Any] | None = None,
                   entry: tuple[str, str] | None = None) -> LiveMatch:
        """Host a new match here: ``infos[i]`` describes who takes seat ``i`` (and the
        seek it came from, if any); ``entry``: the job of this node's stream it came as."""
        match_id = match_id or secrets.token_hex(8)
        self._extras[match_id] = ([info.get("s") for info in infos], entry)
        seating = [self._seat(info) for info in infos]
        return self.server.start_match(spec, seating, ref_for, match_id=match_id)

    def info_of(self, session: Session) -> dict[str, Any]:
        """What a host needs to seat ``session`` (of this node, or a proxy's home)."""
        if isinstance(session, RemoteSession):
            return {"h": session.resume_hash, "n": session.home, "name": session.name,
                    "kind": session.kind, "v": session.views,
                    "l": session.lean, "e": session.encoding,
                    "c": session.online}
        return session_info(session, self.node_id)

    def starting(self, match_id: str, seating: list[Session]) -> None:
        """A match is about to start here (any way: a seek, play_bot, the ladder): tell
        the homes of its remote seats first, so that an action on its first request finds
        the seat known there."""
        seeks, _ = self._extras.get(match_id, ([], None))
        self.jobs[match_id] = None
        for seat_no, session in enumerate(seating):
            seek = seeks[seat_no] if seat_no < len(seeks) else None
            if isinstance(session, RemoteSession):
                seats = [i for i, s in enumerate(seating) if s is session]
                if seats[0] == seat_no:
                    self.bus_send(session.home, {"o": "seated", "m": match_id,
                                                 "h": session.resume_hash, "seats": seats,
                                                 "host": self.node_id, "seek": seek})
            else:
                self._drop_seek(seek)

    def started(self, live: LiveMatch, spec: MatchSpec) -> None:
        """A match started here: record it as a job of this node (unless it came as one),
        so that another node takes it over if this one dies."""
        match_id = live.match_id
        _, entry = self._extras.pop(match_id, ([], None))
        job = {"m": match_id, "game": spec.game, "options": dict(spec.options),
               "clock": None if spec.clock is None else spec.clock.to_json(),
               "rated": spec.rated,
               "seats": [self.info_of(s) for s in live.seating], "by": self.node_id,
               "local": True, "epoch": 0}
        self._spawn(self._register(match_id, job, [s.resume_hash for s in live.seating],
                                   entry))

    async def _register(self, match_id: str, job: dict[str, Any], hashes: list[str],
                        entry: tuple[str, str] | None) -> None:
        if entry is None:
            await self._claim(keys=[self.key("match", match_id)], args=[self.node_id, 0])
            stream = self.stream(self.node_id)
            entry = (stream, (await self.r.xadd(stream, {"job": msgpack.packb(job)})).decode())
        async with self.r.pipeline(transaction=False) as pipe:
            for h in dict.fromkeys(hashes):
                pipe.sadd(self.key("seats", h), match_id)
            await pipe.execute()
        if match_id in self.jobs:
            self.jobs[match_id] = entry
        else:  # it ended already
            await self._finish_job(match_id, entry, hashes)

    def ended(self, live: LiveMatch) -> None:
        """A match hosted here ended: tell the seats' homes, then retire its job (and tell
        the ladder's leader of a match this node took over: it may be a ladder match)."""
        match_id = live.match_id
        if match_id in self.taken_over:
            self.taken_over.discard(match_id)
            if self.leader is not None and not self.leading:
                outcome = live.outcome
                self.bus_send(self.leader, {
                    "o": "ladder_end", "m": match_id, "status": live.status,
                    "outcome": None if outcome is None else outcome.to_json(),
                    "ended_at": live.ended_at})
        hashes = [s.resume_hash for s in live.seating]
        for session in dict.fromkeys(live.seating):
            if isinstance(session, RemoteSession):
                self.bus_send(session.home, {"o": "ended", "m": match_id,
                                             "h": session.resume_hash})
                self._maybe_forget(session)
        if match_id in self.jobs:
            entry = self.jobs.pop(match_id)
            if entry is not None:
                self._spawn(self._finish_job(match_id, entry, hashes))

    async def _finish_job(self, match_id: str, entry: tuple[str, str],
                          hashes: list[str]) -> None:
        await self.server.flush_store()  # the result is stored before the job is retired
        stream, entry_id = entry
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.xack(stream, GROUP, entry_id)
            pipe.xdel(stream, entry_id)
            pipe.delete(self.key("match", match_id))
            for h in dict.fromkeys(hashes):
                pipe.srem(self.key("seats", h), match_id)
            await pipe.execute()

    def _maybe_forget(self, proxy: RemoteSession) -> None:
        if not proxy.seats and not proxy.watching:
            self.remote.pop(proxy.resume_hash, None)

    async def _read_jobs(self) -> None:
        stream = self.stream(self.node_id)
        while not self.closing:
            try:
                found = await self.r.xreadgroup(GROUP, self.node_id, {stream: ">"},
                                                count=50, block=1000)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("job_read_failed")
                await asyncio.sleep(0.5)
                continue
            for _stream, entries in found or []:
                for entry_id, fields in entries:
                    try:
                        await self._take(stream, entry_id.decode(),
                                         msgpack.unpackb(fields[b"job"]))
                    except Exception:
                        log.exception("job_failed", entry=entry_id)

    async def _take(self, stream: str, entry_id: str, job: dict[str, Any]) -> None:
        """A job of this node's stream: host the match (or resume it) unless this node
        made the job for a match it started itself."""
        match_id = job["m"]
        if job.get("local") and job.get("by") == self.node_id:
            return  # started here: _register keeps its entry
        claimed = await self._claim(keys=[self.key("match", match_id)],
                                    args=[self.node_id, int(job.get("epoch", 0))])
        if not claimed:
            log.warning("job_superseded", match_id=match_id)
            await self.r.xack(stream, GROUP, entry_id)
            return
        hashes = [info["h"] for info in job["seats"]]
        if job.get("resume"):
            row = await asyncio.to_thread(self.server.store.get_match, match_id)
            if row is not None:
                if row.status != "live":
                    await self._finish_job(match_id, (stream, entry_id), hashes)
                    return
                self.jobs[match_id] = (stream, entry_id)
                self._resume(row, job)
                return
        spec = MatchSpec.parse(job["game"], job["options"], job["clock"], len(job["seats"]),
                               job.get("rated", False))
        self.host_match(spec, job["seats"], match_id=match_id, entry=(stream, entry_id))

    def _resume(self, row: Any, job: dict[str, Any]) -> None:
        infos = {info["h"]: info for info in job["seats"]}
        node = self

        class Placeholders:
            """Each seat of the resumed match: away until its home attaches it."""

            @staticmethod
            def restore(name: str, kind: str, resume_hash: str | None, now: float
                        ) -> Session:
                h = resume_hash or secrets.token_hex(16)
                info = {**infos.get(h, {"name": name, "kind": kind}), "h": h,
                        "name": name, "kind": kind, "n": "", "c": False}
                proxy = node._proxy(info)
                proxy.online = False
                proxy.away_since = now
                return proxy

        server = self.server
        runner, out, seating = resume_match(row, Placeholders(), server.now(), server.grace_s)
        live = server.add_live(runner, seating)
        server.guard(live, live.resume, out)
        self.reclaimed += 1
        self.taken_over.add(row.id)
        log.warning("match_taken_over", match_id=row.id, moves=runner.moves)
        if self.bus is not None:
            self.bus.broadcast({"o": "moved", "m": row.id, "host": self.node_id})

    def _host_op(self, op: Op) -> None:
        kind = op["o"]
        server = self.server
        match_id = op["m"]
        live = server.live.get(match_id)
        if kind == "attach":
            info = op["i"]
            if op.get("w"):
                watched = live or server.recent.get(match_id)
                if watched is None:
                    self._answer(info, error_message("not_found", "no live or recent match "
                                                     "with that id", ref=op.get("ref")))
                    return
                session = self._seat(info)
                server.guard(watched, watched.spectate, session, op.get("ref"))
                return
            if live is None:  # over (or never here): the home forgets the seat
                self.bus_send(info["n"], {"o": "ended", "m": match_id, "h": info["h"]})
                return
            self._attach_seat(live, info)
            return
        proxy = self.remote.get(op["h"])
        if kind == "leave":
            if proxy is not None:
                watched = live or server.recent.get(match_id)
                if watched is not None:
                    watched.leave(proxy)
                self._maybe_forget(proxy)
            return
        if live is None or proxy is None or not live.seats_of(proxy):
            if kind == "act":
                msg = op["msg"]
                self._answer({"n": op["n"], "h": op["h"], "e": op["e"]}, error_message(
                    "not_found", "no such match", ref=msg.get("id"), match_id=match_id,
                    request_id=msg.get("request_id")))
            return
        if kind == "act":
            server.guard(live, live.action, proxy, op["msg"])
        elif kind == "resign":
            server.guard(live, live.resign, proxy, op.get("ref"))
        elif kind == "away":
            proxy.online = False
            server.guard(live, live.seat_away, proxy)

    def _attach_seat(self, live: LiveMatch, info: dict[str, Any]) -> None:
        h = info["h"]
        holder = next((s for s in live.seating if s.resume_hash == h), None)
        if holder is None:
            return
        if info["n"] == self.node_id:
            session = self._local(h)
            if session is None:
                return
            if holder is not session:  # a placeholder: the seat is this node's again
                seating = live.seating
                for i, s in enumerate(seating):
                    if s is holder:
                        seating[i] = session
                session.seats[live.match_id] = holder.seats.pop(live.match_id, [])
                if isinstance(holder, RemoteSession):
                    self._maybe_forget(holder)
            if session.connected:
                self.server.guard(live, live.seat_back, session)
            return
        proxy = self._proxy(info)
        if proxy is not holder:
            return
        self.bus_send(proxy.home, {"o": "seated", "m": live.match_id, "h": h,
                                   "seats": live.seats_of(proxy), "host": self.node_id})
        if proxy.online:
            self.server.guard(live, live.seat_back, proxy)

    def _answer(self, info: dict[str, Any], message: dict[str, Any]) -> None:
        self.bus_send(info["n"], {"o": "f", "h": info["h"],
                                  "f": encode(message, info.get("e", "json"))})

    # ---- the home's side ----------------------------------------------------------------------

    def bus_send(self, node: str, op: Op) -> None:
        if node == self.node_id:
            self._on_ops([op])
        elif self.bus is not None and node:
            self.bus.send(node, op)

    def _home_op(self, op: Op) -> None:
        kind = op["o"]
        session = self._local(op["h"])
        if session is None:
            return
        if kind == "f":
            session.send(FrameMessage(op["f"]))
        elif kind == "seated":
            session.seats[op["m"]] = list(op["seats"])
            self.hosts[op["m"]] = op["host"]
            self._drop_seek(op.get("seek"))
        elif kind == "ended":
            session.seats.pop(op["m"], None)

    def _on_ops(self, ops: list[Op]) -> None:
        for op in ops:
            kind = op["o"]
            try:
                if kind in ("f", "seated", "ended"):
                    self._home_op(op)
                elif kind == "moved":
                    self._moved(op["m"], op["host"])
                elif kind == "here":
                    self._here(op["i"])
                elif kind == "gone":
                    proxy = self.remote.get(op["h"])
                    if proxy is not None and proxy.home == op["n"]:
                        proxy.online = False
                elif kind == "call":
                    self._call(op)
                elif kind == "tell":
                    self._tell(op)
                elif kind == "answer":
                    self._answer_here(op)
                elif kind == "ladder_end":
                    self._ladder_end(op)
                elif kind == "abort":
                    self._abort_here(op)
                elif kind == "hosted":
                    self._hosted_here(op)
                elif kind == "expel":
                    if op.get("from") != self.node_id:
                        self.server.expel(op["name"], op["why"])
                else:
                    self._host_op(op)
            except Exception:
                log.exception("cluster_op_failed", op=kind)

    def _moved(self, match_id: str, host: str) -> None:
        """Match ``match_id`` has a new host: attach what this node holds of it there."""
        self.hosts[match_id] = host
        for session in list(self.local.values()):
            if match_id in session.seats and session.connected:
                self.bus_send(host, {"o": "attach", "m": match_id,
                                     "i": session_info(session, self.node_id)})
            if match_id in session.watching and session.connected:
                self.bus_send(host, {"o": "attach", "m": match_id, "w": True,
                                     "i": session_info(session, self.node_id)})

    async def host_of(self, match_id: str) -> str | None:
        host = self.hosts.get(match_id)
        if host is None:
            raw = await self.r.hget(self.key("match", match_id), "host")
            if raw is None:
                return None
            host = self.hosts[match_id] = raw.decode()
        return host

    def _to_host(self, match_id: str, op: Op) -> None:
        host = self.hosts.get(match_id)
        if host is not None:
            self.bus_send(host, op)
            return

        async def later() -> None:
            found = await self.host_of(match_id)
            if found is not None:
                self.bus_send(found, op)
        self._spawn(later())

    def action(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        """An ``action`` for a match hosted elsewhere."""
        match_id = msg["match_id"]
        if match_id not in session.seats:
            conn.protocol.error("not_found", "no such match", to=msg, match_id=match_id,
                                request_id=msg["request_id"])
            return
        self._to_host(match_id, {"o": "act", "m": match_id, "h": session.resume_hash,
                                 "n": self.node_id, "e": conn.protocol.encoding,
                                 "msg": msg})
        conn.protocol.refund()  # (as for a local seat: the server asked for it)

    def resign(self, session: Session, msg: dict[str, Any]) -> None:
        match_id = msg["match_id"]
        if match_id not in session.seats:
            raise LobbyError("not_found", "you hold no seat in a live match with that id")
        self._to_host(match_id, {"o": "resign", "m": match_id, "h": session.resume_hash,
                                 "ref": msg.get("id")})

    async def spectate(self, session: Session, msg: dict[str, Any]) -> None:
        match_id = msg["match_id"]
        host = await self.host_of(match_id)
        for _ in range(10):  # a match that just started: its host is being recorded
            if host is not None:
                break
            await asyncio.sleep(0.1)
            host = await self.host_of(match_id)
        if host is None:
            raise LobbyError("not_found", "no live or recent match with that id")
        session.watching.add(match_id)
        self.bus_send(host, {"o": "attach", "m": match_id, "w": True, "ref": msg.get("id"),
                             "i": session_info(session, self.node_id)})

    def leave(self, session: Session, match_id: str) -> None:
        if match_id in session.watching:
            self._to_host(match_id, {"o": "leave", "m": match_id, "h": session.resume_hash})

    def seat_away(self, session: Session, match_id: str) -> None:
        self._to_host(match_id, {"o": "away", "m": match_id, "h": session.resume_hash})

    def seat_back(self, session: Session, match_id: str, watch: bool = False) -> None:
        self._to_host(match_id, {"o": "attach", "m": match_id, "w": watch,
                                 "i": session_info(session, self.node_id)})

    # ---- the lobby ----------------------------------------------------------------------------

    async def seek(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        """A seek that pairs with seekers on any node (first come, first served)."""
        spec = MatchSpec.parse(msg["game"], msg.get("options"), msg.get("clock"),
                               msg.get("seats"), msg.get("rated", False))
        check_rated(session, spec)
        seek_id = secrets.token_hex(8)
        mine = {**session_info(session, self.node_id), "s": seek_id}
        entry = orjson.dumps(mine)
        queue = self.key("seeks", hashlib.sha1(spec.key.encode()).hexdigest())
        found = await self._seek(keys=[queue], args=[entry, session.resume_hash,
                                                     spec.num_seats - 1, self.node_id,
                                                     self.config.pairing,
                                                     self.key("alive", "")])
        if found and found[0] == b"dup":
            seek_id = orjson.loads(found[1])["s"]
            conn.protocol.reply(msg, {"type": "seeking", "seek_id": seek_id,
                                      "game": spec.game})
            return
        conn.protocol.reply(msg, {"type": "seeking", "seek_id": seek_id, "game": spec.game})
        conn.flush()
        if not found:
            self.seeks[seek_id] = (queue, entry, session)
            session.seeks.add(seek_id)
            return
        infos = [orjson.loads(item) for item in found] + [mine]
        random.SystemRandom().shuffle(infos)  # who sought first must not always move first
        counts: dict[str, int] = {}
        for info in infos:
            counts[info["n"]] = counts.get(info["n"], 0) + 1
        best = max(counts.values())
        host = self.node_id if counts.get(self.node_id) == best else \
            next(n for n, c in counts.items() if c == best)
        if host == self.node_id:
            self.host_match(spec, infos)
            return
        job = {"m": secrets.token_hex(8), "game": spec.game, "options": dict(spec.options),
               "clock": None if spec.clock is None else spec.clock.to_json(),
               "rated": spec.rated,
               "seats": infos, "by": self.node_id, "epoch": 0}
        await self.r.xadd(self.stream(host), {"job": msgpack.packb(job)})

    async def cancel_seek(self, session: Session, seek_id: str) -> bool:
        record = self.seeks.get(seek_id)
        if record is None or record[2] is not session:
            return False
        self._drop_seek(seek_id)
        return bool(await self.r.lrem(record[0], 1, record[1]))

    def _drop_seek(self, seek_id: str | None) -> None:
        record = self.seeks.pop(seek_id, None) if seek_id else None
        if record is not None:
            record[2].seeks.discard(seek_id)  # type: ignore[arg-type]

    def forget_seeks(self, session: Session) -> None:
        """``session`` went away: its waiting seeks leave every queue."""
        for seek_id in [s for s, rec in self.seeks.items() if rec[2] is session]:
            queue, entry, _ = self.seeks[seek_id]
            self._drop_seek(seek_id)
            self._spawn(self.r.lrem(queue, 1, entry))

    def _here(self, info: dict[str, Any]) -> None:
        """A session said hello on node ``info["n"]``: a proxy of it here follows it."""
        if info["n"] != self.node_id and info["h"] in self.remote:
            self._proxy(info)

    # ---- challenges across nodes --------------------------------------------------------------

    async def online_elsewhere(self) -> set[str]:
        """The account names connected to the other live nodes (as of their last
        heartbeat)."""
        names: set[str] = set()
        for node in await self._others():
            names.update(raw.decode() for raw in await self.r.smembers(
                self.key("online", node)))
        return names

    def challenge_made(self, challenge_id: str, targets: list[str],
                       invitation: dict[str, Any]) -> None:
        """A challenge made here: every node tells its sessions of the invited accounts,
        and an answer to it on any node comes here."""
        self._spawn(self.r.set(self.key("challenge", challenge_id), self.node_id, ex=3600))
        if self.bus is not None:
            self.bus.broadcast({"o": "tell", "names": targets, "msg": invitation,
                                "from": self.node_id})

    async def answer_challenge(self, session: Session, msg: dict[str, Any]) -> None:
        """An ``accept`` or ``decline`` of a challenge made on another node: answered there."""
        owner = await self.r.get(self.key("challenge", msg["challenge_id"]))
        if owner is None or owner.decode() == self.node_id:
            raise LobbyError("not_found", "no such challenge for you")
        self.bus_send(owner.decode(), {"o": "answer", "i": session_info(session, self.node_id),
                                       "msg": msg})

    def _answer_here(self, op: Op) -> None:
        """``accept``/``decline`` from a client of another node, of a challenge made here."""
        msg = op["msg"]
        self._handle_for(self._proxy(op["i"]), self.server.handlers[msg["type"]], msg)

    def _tell(self, op: Op) -> None:
        """Send ``op["msg"]`` to this node's connected sessions of ``op["names"]``."""
        if op.get("from") == self.node_id:
            return
        for name in op["names"]:
            for session in self.server.sessions.online(name):
                session.send(op["msg"])

    # ---- messages about a match, answered by its host ----------------------------------------

    def adopt_hosted(self) -> None:
        """``chat`` and ``mute`` of a match hosted on another node go to that node, which
        answers them as if the client were connected there (as one of its remote seats or
        spectators)."""
        handlers = self.server.handlers
        for kind in HOSTED_TYPES:
            if kind in handlers:
                self._hosted_handlers[kind] = handlers[kind]
                handlers[kind] = self._hosted_message

    def _hosted_message(self, conn: Connection, session: Session, msg: dict[str, Any]
                        ) -> Awaitable[None] | None:
        handler = self._hosted_handlers[msg["type"]]
        if isinstance(session, RemoteSession) or \
                self.server.find_match(msg["match_id"]) is not None:
            return handler(conn, session, msg)
        return self._to_hosted(session, msg)

    async def _to_hosted(self, session: Session, msg: dict[str, Any]) -> None:
        host = await self.host_of(msg["match_id"])
        if host is None or host == self.node_id:
            raise LobbyError("not_found", "no live or recent match with that id")
        self.bus_send(host, {"o": "hosted", "i": session_info(session, self.node_id),
                             "msg": msg})

    def _hosted_here(self, op: Op) -> None:
        """A hosted message from a client of another node: answered by this node's handler,
        with the client's proxy here (a seat or spectator of the match, or nobody in it)."""
        proxy = self._proxy(op["i"])
        msg = op["msg"]
        self._handle_for(proxy, self._hosted_handlers[msg["type"]], msg)
        self._maybe_forget(proxy)

    # ---- an admin's orders across nodes --------------------------------------------------------

    async def abort_match(self, session: Session, msg: dict[str, Any]) -> None:
        """An admin's ``abort_match`` of a match hosted on another node: the host aborts it
        and answers."""
        host = await self.host_of(msg["match_id"])
        if host is None or host == self.node_id:
            raise LobbyError("not_found", "no live match with that id")
        self.bus_send(host, {"o": "abort", "i": session_info(session, self.node_id),
                             "m": msg["match_id"], "reason": str(msg.get("reason") or ""),
                             "ref": msg.get("id")})

    def _abort_here(self, op: Op) -> None:
        live = self.server.live.get(op["m"])
        if live is None or live.is_over:
            self._answer(op["i"], error_message("not_found", "no live match with that id",
                                                ref=op.get("ref")))
            return
        self._answer(op["i"], {"type": "ok"} if op.get("ref") is None
                     else {"ref": op["ref"], "type": "ok"})
        self.server.guard(live, live.abort, op["i"]["name"], op["reason"])

    def expel_everywhere(self, name: str, why: str) -> None:
        """Close the sessions of account ``name`` on every other node too (a ban)."""
        if self.bus is not None:
            self.bus.broadcast({"o": "expel", "name": name, "why": why, "from": self.node_id})

    # ---- the match listing across nodes -------------------------------------------------------

    async def _share_listing(self) -> None:
        """Put this node's newest matches where the others read them, and read theirs (a
        listing on any node lists every node's matches, at most a second or two old)."""
        server = self.server
        live = list(server.live.values())[-LISTED_MATCHES:]
        room = LISTED_MATCHES - len(live)
        ended = list(server.recent.values())[-room:] if room > 0 else []
        mine = [m.summary() for m in (*live, *ended)]
        ttl = int(PRESENCE_TTL_S * 1000 * LISTING_BEATS)
        others = await self._others()
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.set(self.key("listing", self.node_id), msgpack.packb(mine), px=ttl)
            for node in others:
                pipe.get(self.key("listing", node))
            replies = await pipe.execute()
        listed: list[Listed] = []
        for raw in replies[1:]:
            if raw:
                listed.extend(_Listed(summary) for summary in msgpack.unpackb(raw))
        self.listed = listed

    # ---- the ladder: one node schedules and rates at a time -----------------------------------

    def adopt_ladder(self, ladder: LadderService) -> None:
        """Run ``ladder`` only while this node holds the ladder's lock; its messages from
        any node are answered by the lock holder."""
        self.ladder = ladder
        ladder.standby = True
        handlers = self.server.handlers
        for kind in LADDER_TYPES:
            self._ladder_handlers[kind] = handlers[kind]
            handlers[kind] = self._ladder_message

    def _ladder_message(self, conn: Connection, session: Session, msg: dict[str, Any]
                        ) -> Awaitable[None] | None:
        if self.leading:
            result = self._ladder_handlers[msg["type"]](conn, session, msg)
            if msg["type"] in ("ladder_join", "ladder_leave"):
                self._spawn(self._remember_join(session, msg))
            return result
        if self.leader is None:
            raise LobbyError("internal", "the ladder is changing hands between nodes: "
                                         "try again in a second")
        self.bus_send(self.leader, {"o": "call", "i": session_info(session, self.node_id),
                                    "msg": msg})
        return None

    def _call(self, op: Op) -> None:
        """A ladder message from a client of another node, answered here (the leader)."""
        info, msg = op["i"], op["msg"]
        proxy = self._proxy(info)
        if not self.leading:
            proxy.send(error_message("internal", "the ladder is changing hands between "
                                     "nodes: try again in a second", ref=msg.get("id")))
            return
        if not self._handle_for(proxy, self._ladder_handlers[msg["type"]], msg):
            return
        if msg["type"] in ("ladder_join", "ladder_leave"):
            self._spawn(self._remember_join(proxy, msg))

    def _handle_for(self, proxy: RemoteSession, handler: Handler, msg: dict[str, Any]
                    ) -> bool:
        """Run ``handler`` here for a client of another node (``proxy``): its answers and
        typed errors go to the client's home. False if it refused the message at once."""
        conn: Any = _RemoteConnection(proxy)
        try:
            result = handler(conn, proxy, msg)
        except LobbyError as exc:
            self._refuse(conn, msg, exc)
            return False
        if result is not None:
            self._spawn(self._answer_later(conn, msg, result))
        return True

    @staticmethod
    def _refuse(conn: Any, msg: dict[str, Any], exc: LobbyError) -> None:
        conn.protocol.error(exc.code, exc.message, to=msg, retry_after=exc.retry_after,
                            **exc.details)

    @classmethod
    async def _answer_later(cls, conn: Any, msg: dict[str, Any], waiting: Awaitable[None]
                            ) -> None:
        try:
            await waiting
        except LobbyError as exc:
            cls._refuse(conn, msg, exc)

    async def _remember_join(self, session: Session, msg: dict[str, Any]) -> None:
        """Keep who is on which ladder in Redis: the next leader takes them over."""
        field_name = f"{session.resume_hash}:{msg['game']}"
        key = self.key("ladder", "joined")
        if msg["type"] == "ladder_leave":
            await self.r.hdel(key, field_name)
        else:
            await self.r.hset(key, field_name, msgpack.packb(
                {"i": self.info_of(session), "msg": msg}))

    async def _lead(self) -> None:
        """Hold, take or follow the ladder's lock (each heartbeat)."""
        lock = self.key("ladder", "lock")
        ttl = int(LADDER_LOCK_S * 1000)
        if self.leading:
            if not await self._renew_lock(keys=[lock], args=[self.node_id, ttl]):
                self.leading = False
                log.warning("ladder_lock_lost", node=self.node_id, fence=self.fence)
                if self.ladder is not None:
                    await self.ladder.deactivate()
        elif await self.r.set(lock, self.node_id, nx=True, px=ttl):
            self.fence = int(await self.r.incr(self.key("ladder", "fence")))
            self.leading = True
            log.warning("ladder_lock_taken", node=self.node_id, fence=self.fence)
            await self._take_ladder()
        holder = await self.r.get(lock)
        self.leader = holder.decode() if holder else None

    async def _take_ladder(self) -> None:
        if self.ladder is None:
            return
        live = set()
        for raw in await self.r.keys(self.key("match", "*")):
            live.add(raw.decode().rsplit(":", 1)[1])
        await self.ladder.activate(frozenset(live), fence=self.fence)
        joined = await self.r.hgetall(self.key("ladder", "joined"))
        conn: Any = _QuietConnection()
        for raw in joined.values():
            record = msgpack.unpackb(raw)
            info = record["i"]
            session = self._seat({**info, "c": info["n"] not in self.dead})
            if not session.connected and isinstance(session, RemoteSession):
                session.online = info["n"] not in self.dead
            with contextlib.suppress(LobbyError):
                self._ladder_handlers["ladder_join"](conn, session, record["msg"])

    def _ladder_end(self, op: Op) -> None:
        if self.leading and self.ladder is not None:
            outcome = op.get("outcome")
            from engine.core import Outcome
            self.ladder.match_ended(EndedMatch(op["m"], op["status"],
                                               None if outcome is None
                                               else Outcome.from_json(outcome),
                                               op.get("ended_at")))

    # ---- house bots on every node -------------------------------------------------------------

    async def _publish_bots(self) -> None:
        """This node's connected sessions with an autoplay offer, for ``play_bot`` and
        ``list_bots`` on every node (renewed with the presence; gone with the node)."""
        entries = {}
        for session in self.server.sessions.all():
            offer = session.autoplay
            if offer is None or not session.connected or isinstance(session, RemoteSession):
                continue
            entries[session.resume_hash] = msgpack.packb({
                **session_info(session, self.node_id), "games": sorted(offer.games),
                "max": offer.max_matches, "bot": offer.bot, "version": offer.version,
                "busy": len(session.seats)})
        key = self.key("bots", self.node_id)
        online = self.key("online", self.node_id)
        names = {s.name for s in self.server.sessions.all()
                 if s.connected and not isinstance(s, RemoteSession)}
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.delete(key, online)
            if entries:
                pipe.hset(key, mapping=entries)
                pipe.pexpire(key, int(PRESENCE_TTL_S * 2000))
            if names:  # (for challenges made on another node)
                pipe.sadd(online, *names)
                pipe.pexpire(online, int(PRESENCE_TTL_S * 2000))
            await pipe.execute()

    async def remote_bots(self) -> list[Session]:
        """The autoplay sessions of the other live nodes, as stand-ins that
        :func:`server.lobby.bot_listing` and :meth:`server.lobby.Lobby.pick_bots` read (their
        free slots as of the last renewal)."""
        out: list[Session] = []
        for node in await self._others():
            for raw in (await self.r.hgetall(self.key("bots", node))).values():
                info = msgpack.unpackb(raw)
                stand_in = RemoteSession(token=f"remote:{info['h']}", name=info["name"],
                                         kind=info["kind"], home=node, online=True)
                stand_in.__dict__["resume_hash"] = info["h"]
                stand_in.__dict__["info"] = info
                stand_in.autoplay = AutoplayOffer(frozenset(info["games"]), info["max"],
                                                  info.get("bot"), info.get("version"))
                stand_in.seats = {f"busy-{i}": [] for i in range(info["busy"])}
                out.append(stand_in)
        return out

    async def play_bot(self, conn: Connection, session: Session, msg: dict[str, Any],
                       spec: MatchSpec, seat: int) -> None:
        """``play_bot`` with the house bots of every node: the match is hosted here."""
        candidates = [*self.server.sessions.all(), *await self.remote_bots()]
        bots = self.server.lobby.pick_bots(candidates, spec.game, spec.num_seats - 1,
                                           msg.get("bot"), exclude=session)
        infos = [s.__dict__["info"] if isinstance(s, RemoteSession)
                 else session_info(s, self.node_id) for s in bots]
        infos.insert(seat, session_info(session, self.node_id))
        self.host_match(spec, infos, ref_for=(session, msg.get("id")))

    async def list_bots(self, game: str | None) -> list[dict[str, Any]]:
        from server.lobby import bot_listing
        return bot_listing([*self.server.sessions.all(), *await self.remote_bots()], game)

    # ---- the other nodes ----------------------------------------------------------------------

    async def _watch(self) -> None:
        while not self.closing:
            await asyncio.sleep(HEARTBEAT_S)
            try:
                await self._renew()
                await self.r.sadd(self.key("nodes"), self.node_id)  # (Redis may have restarted)
                await self._publish_bots()
                await self._check_nodes()
                await self._lead()
                self._beats += 1
                if self._beats % LISTING_BEATS == 0:
                    await self._share_listing()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster_watch_failed")

    async def _others(self, alive_only: bool = True) -> list[str]:
        """The other nodes of the cluster, by name (``alive_only``: not those this node
        has seen die)."""
        nodes = {raw.decode() for raw in await self.r.smembers(self.key("nodes"))}
        nodes.discard(self.node_id)
        return sorted(nodes - self.dead if alive_only else nodes)

    async def _check_nodes(self) -> None:
        for node in await self._others(alive_only=False):
            if await self.r.exists(self.key("alive", node)):
                self.dead.discard(node)
                continue
            if node not in self.dead:
                self.dead.add(node)
                self._node_died(node)
            if await self.r.set(self.key("reclaim", node), self.node_id, nx=True,
                                px=int(RECLAIM_LOCK_S * 1000)):
                await self._reclaim(node)

    def _node_died(self, node: str) -> None:
        """``node`` stopped answering: the seats whose connections it held are away (their
        clients will resume on another node), and it hosts nothing any more."""
        log.warning("node_died", node=node)
        for match_id in [m for m, host in self.hosts.items() if host == node]:
            del self.hosts[match_id]
        for proxy in list(self.remote.values()):
            if proxy.home == node and proxy.online:
                proxy.online = False
                for match_id in list(proxy.seats):
                    live = self.server.live.get(match_id)
                    if live is not None:
                        self.server.guard(live, live.seat_away, proxy)

    async def _reclaim(self, dead: str) -> None:
        """Move a dead node's match jobs to this node's stream, each with the next epoch
        of its match; this node's job reader then resumes them."""
        stream = self.stream(dead)
        await self._ensure_group(stream)
        entries: list[tuple[bytes, dict[bytes, bytes]]] = []
        for _s, fresh in await self.r.xreadgroup(GROUP, self.node_id, {stream: ">"},
                                                 count=1000) or []:
            entries.extend(fresh)
        start: Any = "0-0"
        while True:
            reply = await self.r.xautoclaim(stream, GROUP, self.node_id, min_idle_time=0,
                                            start_id=start, count=100)
            start, claimed = reply[0], reply[1]
            entries.extend(e for e in claimed if e[1])
            if start in (b"0-0", "0-0"):
                break
        mine = self.stream(self.node_id)
        for entry_id, fields in entries:
            job = msgpack.unpackb(fields[b"job"])
            epoch = await self.r.hget(self.key("match", job["m"]), "epoch")
            job.update(resume=True, local=False, by=self.node_id,
                       epoch=(int(epoch) if epoch is not None else -1) + 1)
            await self.r.xadd(mine, {"job": msgpack.packb(job)})
            await self.r.xack(stream, GROUP, entry_id)
            await self.r.xdel(stream, entry_id)
        if entries:
            log.warning("node_jobs_taken_over", node=dead, jobs=len(entries))
        if await self.r.xlen(stream) == 0:
            await self.r.delete(stream)
            await self.r.srem(self.key("nodes"), dead)
