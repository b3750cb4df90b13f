"""The bot ladder inside the server: who is on it, the scheduler task, rating matches.

:class:`LadderService` is a service of one server, made from its :class:`~server.hub.Hub`
(it never sees the server object). It

* answers the ladder messages (``ladder_join``, ``ladder_leave``, ``get_leaderboard``,
  ``get_rating_history``, ``list_ladder_matches``; :meth:`LadderService.handlers`) and the
  HTTP JSON under ``/api/ladder`` (:meth:`LadderService.http_get`), both registered with
  the hub;
* runs the scheduler: an asyncio task that, whenever something changed (a bot joined, a
  match ended) and at least every ``interval_s``, asks :func:`server.scheduler.plan` which
  matches to start among the connected ladder bots and starts them through the hub like
  any other match (a clock is mandatory; the game's default options);
* on a game whose ladder plays **duplicate pairs** (:attr:`GameLadder.duplicate`;
  :mod:`server.pairs`) starts each pairing as a pair: two matches, one deal, seats swapped,
  started together. A pair takes two of each bot's ``max_matches`` (a bot with one free slot
  waits). It is *one* rated result, rated once both matches have ended, with the pair's
  ranks (2-0 or 1½-½ wins it, 1-1 draws it); if either match is void (a server fault, an
  admin's abort, a restart that could not resume it) the pair is void: unrated. Its raw
  row is game 1's with ``twin`` naming game 2 (:mod:`server.storage.ladder`), so a rerate
  recomputes it like any other result; the pair counts once towards the hourly cap;
* rates each ladder match when it ends (:meth:`LadderService.match_ended`, which the hub
  calls for every match that ends): a finished match
  (including a crash, timeout, disconnect or resignation, which the match runner already
  turned into a loss) updates every seat's rating at once in the :class:`LadderBook`; a
  match voided by a server fault is recorded and changes nothing;
* keeps everything in the server's store, through its ladder sub-store
  (:meth:`server.storage.Store.ladder`, a :class:`~server.storage.LadderStore`): a restarted
  server loads the book as it was and takes back the ladder matches that were cut off, which
  the server resumes (:mod:`server.resume`); one that cannot be resumed is void.

The clock (``now``, seconds since the epoch by default) and the scheduler's random generator
are injected, so tests can drive the service deterministically.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import unquote

import structlog

from engine import registry
from engine.core import Outcome
from server.clocks import Clock
from server.games import available_names
from server.hub import Handler, Hub
from server.ladder_book import DEFAULT_MIN_GAMES, Entity, LadderBook
from server.lobby import LobbyError, MatchSpec, check_duplicate
from server.pairs import Ended, pair_result, points_text
from server.ratings import Rating
from server.scheduler import Candidate, PairLog, Policy, plan
from server.sessions import Session
from server.storage import LadderMatchRow, LadderStore, MatchRow, utc_now

if TYPE_CHECKING:  # (a type only: the ladder does no websocket I/O of its own)
    from server.connection import Connection

log = structlog.get_logger("arena.ladder")

DEFAULT_CLOCK = Clock(60_000, 1_000)
DEFAULT_PAIR_CAP = 12
DEFAULT_PAIR_CAP_PER_BOT = 4
"""The hourly cap of a pair is ``max(12, 4 × bots on that ladder)``
(:meth:`server.scheduler.Policy.pair_cap`): 12 up to 3 bots, 40 with 10."""
MAX_LIST = 200


@dataclass(frozen=True)
class GameLadder:
    """How one game's ladder runs: seats per match, the clock, options, pairing policy,
    and whether it plays duplicate pairs (``duplicate``: a two-seat game with chance)."""

    game: str
    num_seats: int
    clock: Clock = DEFAULT_CLOCK
    options: Mapping[str, Any] = field(default_factory=dict)
    window: int = 3
    pair_cap_per_hour: int = DEFAULT_PAIR_CAP
    patience_s: float = 15.0
    pair_cap_per_bot: int = DEFAULT_PAIR_CAP_PER_BOT
    duplicate: bool = False

    @property
    def policy(self) -> Policy:
        return Policy(self.num_seats, self.window, self.pair_cap_per_hour, self.patience_s,
                      self.pair_cap_per_bot)

    def spec(self) -> MatchSpec:
        spec = MatchSpec.parse(self.game, dict(self.options), self.clock.to_json(),
                               self.num_seats)
        if self.duplicate:  # (not through parse: a ladder pair is rated, on the ladder)
            check_duplicate(self.game, registry.get(self.game).info.chance, self.num_seats,
                            False)
        return spec

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "num_seats": self.num_seats, "clock": self.clock.to_json(),
                "options": dict(self.options), "window": self.window,
                "pair_cap_per_hour": self.pair_cap_per_hour,
                "pair_cap_per_bot": self.pair_cap_per_bot, "patience_s": self.patience_s,
                "duplicate": self.duplicate}


@dataclass(frozen=True)
class LadderSettings:
    """``games``: the ladders by game name; ``None`` runs one for every game the server has,
    with the game's fewest seats, ``clock``, ``window``, ``pair_cap_per_hour``,
    ``pair_cap_per_bot`` and ``patience_s`` (see :class:`server.scheduler.Policy`), and
    duplicate pairs for the games named in ``duplicate``. None by default: a pair needs two
    free slots of each bot, and a bot that joins with ``max_matches`` 1 would never play;
    ``arena ladder run`` turns them on for Battle Line (``--duplicate``)."""

    games: Mapping[str, GameLadder] | None = None
    clock: Clock = DEFAULT_CLOCK
    window: int = 3
    pair_cap_per_hour: int = DEFAULT_PAIR_CAP
    patience_s: float = 15.0
    pair_cap_per_bot: int = DEFAULT_PAIR_CAP_PER_BOT
    min_games: int = DEFAULT_MIN_GAMES
    interval_s: float = 1.0
    seed: int | None = None
    duplicate: frozenset[str] = frozenset()


@dataclass(eq=False)
class Joined:
    """A bot version on a ladder, through one session."""

    session: Session
    entity: Entity
    max_matches: int


class EndedHandle(Protocol):
    """What rating a match that ended needs of it (a :class:`~server.hub.MatchHandle`, or
    the report of a match that ended on another node of a cluster)."""

    @property
    def match_id(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def outcome(self) -> Outcome | None: ...
    @property
    def ended_at(self) -> str | None: ...


@dataclass(frozen=True)
class LadderLive:
    """A ladder match under way (``twin``: a duplicate pair, of which ``match_id`` is game 1,
    seated ``entities``, and ``twin`` game 2)."""

    match_id: str
    game: str
    entities: tuple[int, ...]
    twin: str | None = None


class LadderService:
    def __init__(self, server: Hub, settings: LadderSettings | None = None, *,
                 now: Callable[[], float] = time.time,
                 rng: random.Random | None = None) -> None:
        """Registers the ladder's message handlers, its ``/api/ladder`` routes and its
        match-end callback with the hub ``server``; :meth:`start` starts scheduling."""
        self.server = server
        self.settings = settings or LadderSettings()
        self.now = now
        self.rng = rng or random.Random(self.settings.seed)
        self.book = LadderBook()
        self.pair_log = PairLog()
        self.store: LadderStore | None = None
        self.live: dict[str, LadderLive] = {}
        self.started_matches = 0
        self.rated_matches = 0
        self.void_matches = 0
        self._joined: dict[str, dict[int, Joined]] = {}   # game -> entity id -> joined
        # A pair's matches that ended, by the pair's game-1 match id (until both have).
        self._halves: dict[str, dict[str, Ended]] = {}
        self._waiting_since: dict[int, float] = {}  # entity -> last joined, seated or freed
        self._ladders: dict[str, GameLadder] = {}
        self._kick = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self.standby = False
        """A node of a cluster that does not hold the ladder's lock: it neither schedules
        nor rates (:meth:`activate` when it takes the lock, :meth:`deactivate` when it
        loses it)."""
        server.add_handlers(self.handlers())
        server.add_route("/api/ladder", self.http_get, subtree=True)
        server.on_match_end(self.match_ended)

    # ---- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Load the books from the server store's ladder sub-store, take back the ladder
        matches an earlier server left live (the server has resumed them; one it could not
        is recorded void, and one that ended as it resumed is rated now), and start the
        scheduler. On :attr:`standby` this waits for :meth:`activate`."""
        self.store = self.server.store.ladder()
        if not self.standby:
            await self.activate()

    async def activate(self, live_elsewhere: frozenset[str] = frozenset(),
                       fence: int | None = None) -> None:
        """Take the ladder over (at start; in a cluster, when this node takes the lock):
        the books as stored, the cut matches taken back — ``live_elsewhere``: those live on
        another node, whose results will be reported here — and the scheduler started.
        ``fence``: the fencing token of the cluster's ladder lock (:meth:`LadderStore.fence`)."""
        self.standby = False
        self.store = self.server.store.ladder()
        if fence is not None:  # the lock's token: a deposed leader's writes are refused
            self.store.fence(fence)
        self.book = await asyncio.to_thread(self.store.load_book)
        self.pair_log = PairLog()
        since = self.now() - self.pair_log.span_s
        rows = await asyncio.to_thread(self.store.matches)
        for row in rows:
            if row.started > since:
                self.pair_log.add(row.entities, row.started)
        cut = [row for row in rows if row.status == "live"]
        lost = [m for row in cut for m in (row.match_id, row.twin)
                if m is not None and self.server.find_match(m) is None]
        stored = await asyncio.to_thread(
            lambda: {m: self.server.store.get_match(m) for m in lost})
        self._take_back(cut, stored, live_elsewhere)
        self._task = asyncio.get_running_loop().create_task(self._run(), name="arena-ladder")
        log.info("ladder_started", entities=len(self.book.entities), seq=self.book.seq)

    async def deactivate(self) -> None:
        """Stop scheduling and rating (in a cluster: another node holds the lock now and
        loads the books from the store); forget who joined."""
        self.standby = True
        await self._stop()
        self._joined.clear()
        self.live.clear()
        self._waiting_since.clear()
        log.warning("ladder_stood_down")

    def _take_back(self, rows: list[LadderMatchRow],
                   stored: Mapping[str, MatchRow | None],
                   live_elsewhere: frozenset[str] = frozenset()) -> None:
        """The ladder matches an earlier server left ``live``: follow those the server
        resumed, rate those that had ended (the match's result was stored, the rating not:
        ``stored`` has their rows), and record the others void (``interrupted``)."""
        resumed = voided = 0
        for row in rows:
            ladder_match = LadderLive(row.match_id, row.game, tuple(row.entities), row.twin)
            if row.twin is not None:
                if self._take_back_pair(ladder_match, stored, live_elsewhere):
                    resumed += 1
                continue
            handle = self.server.find_match(row.match_id)
            match = stored.get(row.match_id)
            if (handle is not None and not handle.is_over) or row.match_id in live_elsewhere:
                self.live[row.match_id] = ladder_match
                resumed += 1
            elif handle is not None:  # it ended as the server resumed it
                self._record(ladder_match, handle.status, handle.outcome, handle.ended_at)
            elif match is not None and match.status == "over" and match.outcome is not None:
                self._record(ladder_match, "over", Outcome.from_json(match.outcome),
                             match.ended_at)
            else:
                assert self.store is not None
                self.store.save_void(row.match_id, "interrupted", utc_now())
                self.void_matches += 1
                voided += 1
        if rows:
            log.warning("interrupted_ladder_matches", resumed=resumed, voided=voided)

    def _take_back_pair(self, pair: LadderLive, stored: Mapping[str, MatchRow | None],
                        live_elsewhere: frozenset[str]) -> bool:
        """:meth:`_take_back` for a pair: each match resumed is followed, each that ended
        counts as it ended (one that was not resumed: void); rated or void at once if both
        have ended. Returns whether any of it is under way."""
        halves = self._halves.setdefault(pair.match_id, {})
        following = False
        for match_id in (pair.match_id, pair.twin):
            assert match_id is not None
            handle = self.server.find_match(match_id)
            match = stored.get(match_id)
            if (handle is not None and not handle.is_over) or match_id in live_elsewhere:
                self.live[match_id] = pair
                following = True
            elif handle is not None:
                halves[match_id] = Ended(handle.status, handle.outcome, handle.ended_at)
            elif match is not None and match.status == "over" and match.outcome is not None:
                halves[match_id] = Ended("over", Outcome.from_json(match.outcome),
                                         match.ended_at)
            else:
                halves[match_id] = Ended("void", Outcome.draw(2, "interrupted"))
        if len(halves) == 2:
            self._record_pair(pair, self._halves.pop(pair.match_id))
        return following

    async def close(self) -> None:
        """Stop scheduling and rating. Ladder matches still live are left as they are
        stored (``live``): the next start takes back those the server resumes."""
        self._closed = True
        await self._stop()

    async def _stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def kick(self) -> None:
        """Something changed: schedule soon."""
        self._kick.set()

    async def _run(self) -> None:
        # Not `while True`: on 3.11 asyncio.wait_for can swallow the cancel from close() when
        # its timeout fires at the same moment, and close() then awaited this task forever.
        while not self._closed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._kick.wait(), self.settings.interval_s)
            self._kick.clear()
            try:
                self.schedule()
            except Exception:  # the scheduler must outlive any one bad round
                log.exception("ladder_schedule_failed")

    # ---- configuration ---------------------------------------------------------------------

    def ladder_for(self, game: Any) -> GameLadder:
        """The ladder of ``game``; raises ``not_found`` when there is none."""
        name = str(game)
        ladder = self._ladders.get(name)
        if ladder is not None:
            return ladder
        configured = self.settings.games
        if configured is not None:
            ladder = configured.get(name)
        elif name in available_names():
            info = registry.get(name).info
            ladder = GameLadder(name, info.min_seats, self.settings.clock, {},
                                self.settings.window, self.settings.pair_cap_per_hour,
                                self.settings.patience_s, self.settings.pair_cap_per_bot,
                                duplicate=name in self.settings.duplicate)
        if ladder is None:
            raise LobbyError("not_found", "no ladder for that game")
        ladder.spec()  # fail loudly on a bad configuration (clock, options, seats)
        self._ladders[name] = ladder
        return ladder

    def games(self) -> list[GameLadder]:
        names = (list(self.settings.games) if self.settings.games is not None
                 else available_names())
        return [self.ladder_for(name) for name in names]

    # ---- scheduling ------------------------------------------------------------------------

    def joined(self, game: str) -> list[Joined]:
        return list(self._joined.get(game, {}).values())

    def schedule(self) -> list[str]:
        """Start every match the scheduler wants now; returns their match ids."""
        started: list[str] = []
        if self._closed or self.standby:
            return started
        for game, joined in list(self._joined.items()):
            # Sessions the server has forgotten (gone for good) leave the ladder.
            for entity_id, j in list(joined.items()):
                if not self.server.known(j.session):
                    del joined[entity_id]
            if len(joined) < 2:
                continue
            ladder = self.ladder_for(game)
            now = self.now()
            pairs = ladder.duplicate and self.server.plays_pairs
            candidates = [self._candidate(j, ladder.num_seats, 2 if pairs else 1)
                          for j in joined.values() if j.session.connected]
            for pairing in plan(candidates, ladder.policy, self.pair_log, now, self.rng):
                seating = [joined[e] for e in pairing.seats]
                if pairs:
                    started.extend(self._start_pair(ladder, seating, now))
                else:
                    started.append(self._start(ladder, seating, now))
        return started

    def _candidate(self, j: Joined, num_seats: int, slots: int = 1) -> Candidate:
        """``slots``: the matches one pairing takes of it (a duplicate pair: 2)."""
        standing = self.book.standings[j.entity.id]
        counts = (standing.seat_counts + [0] * num_seats)[:num_seats]
        return Candidate(j.entity.id, j.entity.account,
                         free=(j.max_matches - len(j.session.seats)) // slots,
                         games=standing.started,
                         ordinal=standing.rating.ordinal, last_played=standing.last_played,
                         seat_counts=tuple(counts),
                         waiting_since=self._waiting_since.get(j.entity.id))

    def _start(self, ladder: GameLadder, seating: list[Joined], now: float) -> str:
        entities = tuple(j.entity.id for j in seating)
        before = [self.book.standings[e].rating for e in entities]
        self.book.started(entities, now)
        self._waiting_since.update((e, now) for e in entities)
        live = self.server.start_match(ladder.spec(), [j.session for j in seating])
        self.live[live.match_id] = LadderLive(live.match_id, ladder.game, entities)
        self.started_matches += 1
        if self.store is not None:
            self.store.save_start(live.match_id, ladder.game, entities, before, now,
                                  live.started_at)
        log.info("ladder_match", match_id=live.match_id, game=ladder.game,
                 seats=[f"{j.entity.account}/{j.entity.bot}@{j.entity.version}"
                        for j in seating])
        if live.ended_at is not None:  # it ended while starting (a fault at the deal)
            self.match_ended(live)
        return live.match_id

    def _start_pair(self, ladder: GameLadder, seating: list[Joined], now: float
                    ) -> list[str]:
        """Start a duplicate pair: ``seating`` in game 1, swapped in game 2; one raw row."""
        entities = tuple(j.entity.id for j in seating)
        before = [self.book.standings[e].rating for e in entities]
        self.book.started(entities, now)
        self.book.started(entities[::-1], now)
        self._waiting_since.update((e, now) for e in entities)
        first, second = self.server.start_pair(ladder.spec(), [j.session for j in seating])
        pair = LadderLive(first.match_id, ladder.game, entities, second.match_id)
        self.live[first.match_id] = self.live[second.match_id] = pair
        self.started_matches += 2
        if self.store is not None:
            self.store.save_start(first.match_id, ladder.game, entities, before, now,
                                  first.started_at, twin=second.match_id)
        log.info("ladder_pair", match_id=first.match_id, twin=second.match_id,
                 game=ladder.game,
                 seats=[f"{j.entity.account}/{j.entity.bot}@{j.entity.version}"
                        for j in seating])
        for live in (first, second):  # one ended while starting (a fault at the deal)
            if live.ended_at is not None:
                self.match_ended(live)
        return [first.match_id, second.match_id]

    # ---- results -----------------------------------------------------------------------------

    def match_ended(self, live: EndedHandle) -> None:
        """Rate (or void) a ladder match that just ended; other matches are ignored."""
        ladder_match = self.live.pop(live.match_id, None)
        if ladder_match is None or self._closed or self.standby:
            return
        now = self.now()
        self._waiting_since.update((e, now) for e in ladder_match.entities)
        try:
            if ladder_match.twin is not None:
                halves = self._halves.setdefault(ladder_match.match_id, {})
                halves[live.match_id] = Ended(live.status, live.outcome, live.ended_at)
                if len(halves) == 2:
                    self._record_pair(ladder_match, self._halves.pop(ladder_match.match_id))
            else:
                self._record(ladder_match, live.status, live.outcome, live.ended_at)
        except Exception:
            log.exception("ladder_result_failed", match_id=live.match_id)
        self.kick()

    def _record(self, ladder_match: LadderLive, status: str, outcome: Outcome | None,
                ended_at: str | None) -> None:
        match_id = ladder_match.match_id
        ended_at = ended_at or utc_now()
        if (status == "over" and outcome is not None
                and len(outcome.ranks) == len(ladder_match.entities)):
            result = self.book.rate(match_id, ladder_match.entities, outcome.ranks)
            self.rated_matches += 1
            if self.store is not None:
                self.store.save_rated(result, outcome.reason, ended_at,
                                      [self.book.standings[e] for e in result.entities])
            log.info("ladder_rated", match_id=match_id, ranks=list(outcome.ranks),
                     reason=outcome.reason, seq=result.seq)
            return
        self.void_matches += 1
        if self.store is not None:
            self.store.save_void(match_id, "void" if outcome is None else outcome.reason,
                                 ended_at)
        log.warning("ladder_void", match_id=match_id, status=status)

    def _record_pair(self, pair: LadderLive, halves: Mapping[str, Ended]) -> None:
        """Rate (or void) a pair both of whose matches have ended: one result, the pair's
        ranks in game 1's seat order, at the later end."""
        assert pair.twin is not None
        first, second = halves[pair.match_id], halves[pair.twin]
        ended_at = max((e.ended_at for e in (first, second) if e.ended_at), default=None)
        if first.counts and second.counts:
            assert first.outcome is not None and second.outcome is not None
            points, ranks = pair_result(first.outcome, second.outcome)
            self._record(pair, "over", Outcome(ranks, f"duplicate {points_text(points)}"),
                         ended_at)
            return
        void = next(e for e in (first, second) if not e.counts)
        self._record(pair, "void", void.outcome, ended_at)

    # ---- protocol handlers -------------------------------------------------------------------

    def handlers(self) -> dict[str, Handler]:
        return {"ladder_join": self._join, "ladder_leave": self._leave,
                "get_leaderboard": self._leaderboard,
                "get_rating_history": self._rating_history,
                "list_ladder_matches": self._list_matches}

    def _join(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        if session.kind == "guest":
            raise LobbyError("unauthorized",
                             "only accounts can join a ladder: say hello with a token")
        ladder = self.ladder_for(msg["game"])
        bot, version = str(msg["bot"]).strip(), str(msg["version"]).strip()
        if not bot or not version:
            raise LobbyError("bad_request", "bot and version must not be empty")
        entity = self.book.find(ladder.game, session.name, bot, version)
        new = entity is None
        if entity is None:
            seed_id = None
            seed_version = msg.get("seed_from_version")
            if seed_version is not None:
                seed = self.book.find(ladder.game, session.name, bot, seed_version)
                if seed is None:
                    raise LobbyError("not_found", "no such version of this bot to seed from")
                seed_id = seed.id
            entity = self.book.add_entity(ladder.game, session.name, bot, version,
                                          seeded_from=seed_id, created_at=utc_now())
            if self.store is not None:
                self.store.save_entity(entity, self.book.standings[entity.id].rating)
            log.info("ladder_entity", game=ladder.game, account=session.name, bot=bot,
                     version=version, seeded_from=seed_id)
        joined = self._joined.setdefault(ladder.game, {})
        for entity_id, j in list(joined.items()):
            if j.session is session or entity_id == entity.id:
                del joined[entity_id]
        joined[entity.id] = Joined(session, entity, int(msg["max_matches"]))
        self._waiting_since[entity.id] = self.now()
        seeded = (None if entity.seeded_from is None
                  else self.book.entities[entity.seeded_from].version)
        conn.protocol.reply(msg, {
            "type": "ladder_joined", "game": ladder.game, "bot": bot, "version": version,
            "account": session.name, "max_matches": int(msg["max_matches"]), "new": new,
            "seeded_from": seeded, "entry": self._entry(entity.id)})
        self.kick()

    def _leave(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        joined = self._joined.get(str(msg["game"]), {})
        mine = [e for e, j in joined.items() if j.session is session]
        if not mine:
            raise LobbyError("not_found", "this session is not on that ladder")
        for entity_id in mine:
            del joined[entity_id]
        conn.protocol.reply(msg, {"type": "ok"})

    def _leaderboard(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        ladder = self.ladder_for(msg["game"])
        conn.protocol.reply(msg, {"type": "leaderboard", "game": ladder.game,
                                  "min_games": self.settings.min_games,
                                  "entries": self.leaderboard(ladder.game, msg.get("limit"))})

    async def _rating_history(self, conn: Connection, session: Session, msg: dict[str, Any]
                              ) -> None:
        ladder = self.ladder_for(msg["game"])
        entity = self.resolve(ladder.game, msg.get("account"), str(msg["bot"]),
                              msg.get("version"))
        conn.protocol.reply(msg, await self.rating_history(entity, msg.get("limit")))

    async def _list_matches(self, conn: Connection, session: Session, msg: dict[str, Any]
                            ) -> None:
        ladder = self.ladder_for(msg["game"])
        matches = await self.recent_matches(ladder.game, msg.get("limit") or 50)
        conn.protocol.reply(msg, {"type": "ladder_matches", "game": ladder.game,
                                  "matches": matches})

    # ---- reading -----------------------------------------------------------------------------

    def online(self, entity_id: int) -> bool:
        entity = self.book.entities[entity_id]
        j = self._joined.get(entity.game, {}).get(entity_id)
        return j is not None and j.session.connected

    def _entry(self, entity_id: int) -> dict[str, Any]:
        entry = self.book.rank_of(entity_id, self.settings.min_games)
        entry["online"] = self.online(entity_id)
        return entry

    def leaderboard(self, game: str, limit: int | None = None) -> list[dict[str, Any]]:
        """``LadderEntry`` objects, best ordinal first."""
        rows = self.book.leaderboard(game, self.settings.min_games, limit)
        by_key = {(e.account, e.bot, e.version): e.id for e in self.book.entities.values()
                  if e.game == game}
        for row in rows:
            row["online"] = self.online(by_key[(row["account"], row["bot"], row["version"])])
        return rows

    def resolve(self, game: str, account: str | None, bot: str, version: str | None
                ) -> Entity:
        """The entity a history request names; raises ``not_found``/``bad_request``."""
        versions = self.book.versions(game, account, bot)
        if not versions:
            raise LobbyError("not_found", "no bot of that name on that ladder")
        if len({e.account for e in versions}) > 1:
            raise LobbyError("bad_request", "several accounts run a bot of that name: "
                                            "name the account")
        if version is None:
            return max(versions, key=lambda e: e.id)
        for entity in versions:
            if entity.version == version:
                return entity
        raise LobbyError("not_found", "no such version of that bot")

    async def rating_history(self, entity: Entity, limit: int | None = None
                             ) -> dict[str, Any]:
        """The ``rating_history`` message of one entity."""
        points: list[dict[str, Any]] = []
        store = self.store
        if store is not None:
            def read() -> list[dict[str, Any]]:
                store.flush()  # what this server rated so far is committed first
                return store.history(entity.id, limit)
            points = await asyncio.to_thread(read)
        return {"type": "rating_history", "game": entity.game, **entity.label(),
                "points": points}

    async def recent_matches(self, game: str, limit: int = 50) -> list[dict[str, Any]]:
        """``LadderMatch`` objects, newest first."""
        store = self.store
        if store is None:
            return []
        limit = max(1, min(MAX_LIST, int(limit)))

        def read() -> list[LadderMatchRow]:
            store.flush()
            return store.matches(game=game, limit=limit)

        return [self.match_json(row) for row in await asyncio.to_thread(read)]

    def match_json(self, row: LadderMatchRow) -> dict[str, Any]:
        seats = []
        for seat, entity_id in enumerate(row.entities):
            entity = self.book.entities.get(entity_id)
            label = entity.label() if entity else {"account": "?", "bot": "?", "version": "?"}
            seats.append({
                "seat": seat, **label,
                "rank": None if row.ranks is None else row.ranks[seat],
                "ordinal_before": _ordinal(row.before, seat),
                "ordinal_after": _ordinal(row.after, seat)})
        out = {"match_id": row.match_id, "game": row.game, "status": row.status,
               "reason": row.reason, "started_at": row.started_at, "ended_at": row.ended_at,
               "seats": seats}
        if row.twin is not None:
            out["twin"] = row.twin
        return out

    # ---- HTTP --------------------------------------------------------------------------------

    async def http_get(self, path: str) -> tuple[int, dict[str, Any]]:
        """``/api/ladder``, ``/api/ladder/<game>``,
        ``/api/ladder/<game>/<account>/<bot>/<version>``: (status, JSON body)."""
        parts = [unquote(p) for p in path.split("/")[3:] if p]
        try:
            if not parts:
                return 200, {"ladders": [
                    {**ladder.to_json(),
                     "entities": sum(1 for e in self.book.entities.values()
                                     if e.game == ladder.game),
                     "online": sum(1 for j in self.joined(ladder.game) if j.session.connected)}
                    for ladder in self.games()]}
            ladder = self.ladder_for(parts[0])
            if len(parts) == 1:
                return 200, {**ladder.to_json(), "min_games": self.settings.min_games,
                             "leaderboard": self.leaderboard(ladder.game),
                             "matches": await self.recent_matches(ladder.game, 20)}
            if len(parts) == 4:
                entity = self.resolve(ladder.game, parts[1], parts[2], parts[3])
                history = await self.rating_history(entity)
                del history["type"]
                return 200, history
        except LobbyError as exc:
            return (404 if exc.code == "not_found" else 400), {"error": exc.code,
                                                                "message": exc.message}
        return 404, {"error": "not_found", "message": f"nothing at {path}"}


def _ordinal(ratings: list[Rating] | None, seat: int) -> float | None:
    if ratings is None or seat >= len(ratings):
        return None
    return ratings[seat].ordinal
