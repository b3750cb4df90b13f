"""Tournaments inside the server: the protocol handlers, the rounds, the results.

:class:`TournamentService` is a service of one server, made from its :class:`~server.hub.Hub`
(it never sees the server object). It

* answers ``tournament_create``, ``tournament_join``, ``tournament_leave``,
  ``tournament_start``, ``tournament_show`` and ``list_tournaments`` (PROTOCOL.md), and
  serves ``/api/tournaments`` and ``/api/tournaments/<id>`` (the JSON export) over HTTP;
* plays each round: every game of the round is started at once through the hub, like any
  match (the tournament's game, options, clock and seats; the entrants seated as the
  pairing says). An entrant is seated through a connected session of its account — for a
  bot, one whose ``autoplay`` offer has a free slot for the game if there is one. An entrant
  with no connected session when its game must start **forfeits** it: the game is not
  played, and it scores 0 while every entrant that was there scores 1
  (:mod:`server.tournaments`, "Scoring");
* records each result when its match ends (a finished match, whatever its reason, counts
  with its ranks; a match voided by a server fault scores as a draw) and, once every game
  of the round is done, pairs and starts the next round, or ends the tournament;
* pushes the tournament's whole state (a ``tournament`` message) to every session watching
  it — whoever created it, joined it or asked ``tournament_show``, for as long as that
  session lasts — after each change;
* keeps everything in the store's tournament sub-store
  (:class:`~server.storage.tournaments.TournamentStore`): a restarted server takes back
  the tournaments that were open or running (a game whose match the server resumed goes
  on; one whose match ended meanwhile, or could not be resumed, is recorded from what was
  stored: its result, or void).

On a node of a cluster (``arena serve --nodes``) tournaments are shown and listed but not
created (``bad_request``, reason ``cluster``): a node seats only its own sessions.

Who may do what: accounts create and join (a guest cannot: its name does not outlive its
session); the creator or an admin starts; the creator or an admin may also enter a bot
account that is connected with an ``autoplay`` offer for the game (``tournament_join``
with ``account``: how an operator fills a tournament with house bots) and take it out
again before the start. Anyone may show and list.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import structlog

from server.clocks import Clock
from server.games import available_games
from server.hub import Handler, Hub, MatchHandle
from server.lobby import LobbyError, MatchSpec
from server.sessions import Session
from server.storage import TournamentStore, utc_now
from server.tournaments import (
    FORMATS,
    MAX_NAME_CHARS,
    STATUSES,
    Entrant,
    Pairing,
    Tournament,
    TournamentError,
)

if TYPE_CHECKING:
    from server.connection import Connection
    from server.ladder_book import LadderBook

log = structlog.get_logger("arena.tournaments")

DEFAULT_CLOCK = Clock(300_000, 3_000)
"""The clock of a tournament's matches unless ``tournament_create`` names one (``null``:
untimed): five minutes and three seconds an action."""
LIST_LIMIT = 50
MAX_LIST = 200


def _three_seat_games() -> set[str]:
    return {g.info.name for g in available_games() if g.info.min_seats > 2}


def ladder_rating(book: LadderBook, game: str, account: str) -> float:
    """An account's rating for seeding a tournament of ``game``: the best ordinal of its
    bot versions on that game's ladder, 0 if it has none."""
    ordinals = [book.standings[e.id].rating.ordinal for e in book.entities.values()
                if e.game == game and e.account == account and e.id in book.standings]
    return max(ordinals, default=0.0)


class TournamentService:
    def __init__(self, hub: Hub, rating: Callable[[str, str], float] | None = None, *,
                 playing: bool = True) -> None:
        """Registers the handlers, the ``/api/tournaments`` routes and the match-end
        callback with ``hub``; :meth:`start` takes back what the store holds. ``rating(game,
        account)``: an entrant's rating when it joins (Swiss pairs by it after points).
        ``playing``: false on a node of a cluster, whose other nodes' sessions it cannot
        seat: tournaments can be shown and listed there, not created, and none is taken
        back."""
        self.hub = hub
        self.playing = playing
        self.rating = rating or (lambda game, account: 0.0)
        self.store: TournamentStore | None = None
        self.tournaments: dict[str, Tournament] = {}
        self.watchers: dict[str, list[Session]] = {}
        self.matches: dict[str, tuple[str, int, int]] = {}  # match id -> tournament, round, board
        self._closed = False
        hub.add_handlers(self.handlers())
        hub.add_route("/api/tournaments", self.http_get, subtree=True)
        hub.on_match_end(self.match_ended)

    # ---- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Take back the tournaments an earlier server left open or running."""
        self.store = self.hub.store.tournaments()
        store = self.store
        if not self.playing:
            return
        unfinished = await asyncio.to_thread(store.unfinished)
        cut = [p.match_id for t in unfinished for p in t.pairings
               if p.status == "live" and p.match_id is not None
               and self.hub.find_match(p.match_id) is None]
        rows = await asyncio.to_thread(lambda: {m: self.hub.store.get_match(m) for m in cut})
        for tournament in unfinished:
            self.tournaments[tournament.id] = tournament
            self._take_back(tournament, rows)
        if unfinished:
            log.warning("tournaments_taken_back", count=len(unfinished))

    def _take_back(self, t: Tournament, rows: dict[str, Any]) -> None:
        pending: list[Pairing] = []
        for p in t.round_pairings(t.current_round):
            if p.status == "pending":
                pending.append(p)
            elif p.status == "live" and p.match_id is not None:
                handle = self.hub.find_match(p.match_id)
                if handle is not None and not handle.is_over:
                    self.matches[p.match_id] = (t.id, p.round, p.board)
                elif handle is not None:
                    self._record(t, p, handle.status, handle.outcome)
                else:
                    row = rows.get(p.match_id)
                    ranks = (row.outcome or {}).get("ranks") if row is not None else None
                    if row is not None and row.status == "over" and ranks is not None:
                        self._save(t, t.record(p.round, p.board, "over", ranks,
                                               row.outcome.get("reason")))
                    else:
                        self._save(t, t.record(p.round, p.board, "void", None, "interrupted"))
        if pending:
            self._play(t, pending)
        self._maybe_advance(t)

    async def close(self) -> None:
        """Stop starting rounds; what is stored stays (a restart takes it back)."""
        self._closed = True

    # ---- handlers --------------------------------------------------------------------------

    def handlers(self) -> dict[str, Handler]:
        return {name: self._answering(handler) for name, handler in (
            ("tournament_create", self._create), ("tournament_join", self._join),
            ("tournament_leave", self._leave), ("tournament_start", self._start),
            ("tournament_show", self._show), ("list_tournaments", self._list))}

    @staticmethod
    def _answering(handler: Callable[[Connection, Session, dict[str, Any]], Any]) -> Handler:
        """``handler`` with its :class:`TournamentError` answered as a typed error whose
        ``details.reason`` says which refusal it is."""

        def answer(conn: Connection, session: Session, msg: dict[str, Any]) -> Any:
            try:
                result = handler(conn, session, msg)
            except TournamentError as exc:
                conn.protocol.error(exc.code, exc.message, to=msg, reason=exc.reason)
                return None
            if asyncio.iscoroutine(result):
                return _answered_later(conn, msg, result)
            return result

        return answer

    def _create(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        if session.kind == "guest":
            raise TournamentError("unauthorized", "guest",
                                  "only accounts create tournaments: sign in first")
        if not self.playing:
            raise TournamentError("bad_request", "cluster",
                                  "this server is a node of a cluster: tournaments are run "
                                  "by single-process servers only")
        fmt = str(msg["format"])
        if fmt not in FORMATS:
            raise TournamentError("bad_request", "format",
                                  f"no such format: {' or '.join(FORMATS)}")
        clock = msg["clock"] if "clock" in msg else DEFAULT_CLOCK.to_json()
        seats = msg.get("seats", 2 if fmt == "swiss" else None)
        if fmt == "swiss" and (seats != 2 or msg["game"] in _three_seat_games()):
            raise TournamentError("bad_request", "seats",
                                  "Swiss pairs two seats: play a game of more seats as a "
                                  "round robin")
        try:
            spec = MatchSpec.parse(msg["game"], msg.get("options"), clock, seats)
        except LobbyError as exc:
            raise TournamentError(exc.code, "game" if exc.code == "not_found" else "options",
                                  exc.message) from None
        if fmt == "swiss" and "rounds" not in msg:
            raise TournamentError("bad_request", "rounds", "a Swiss needs its rounds")
        name = str(msg.get("name") or f"{spec.game} {fmt.replace('_', ' ')}").strip()
        tournament = Tournament(
            secrets.token_hex(6), name[:MAX_NAME_CHARS], spec.game, fmt, spec.num_seats,
            int(msg.get("rounds", 0)) if fmt == "swiss" else 0, session.name, utc_now(),
            dict(spec.options), None if spec.clock is None else spec.clock.to_json())
        self.tournaments[tournament.id] = tournament
        self._store().save_tournament(tournament)
        self._watch(tournament, session)
        conn.protocol.reply(msg, self.state(tournament))
        log.info("tournament_created", tournament_id=tournament.id, game=spec.game,
                 format=fmt, creator=session.name)

    def _find(self, msg: dict[str, Any]) -> Tournament:
        tournament = self.tournaments.get(str(msg["tournament_id"]))
        if tournament is None:
            raise TournamentError("not_found", "tournament", "no such tournament")
        return tournament

    def _may_run(self, session: Session, t: Tournament) -> bool:
        return session.kind == "admin" or session.name == t.creator

    def _entrant_for(self, session: Session, t: Tournament, msg: dict[str, Any]) -> str:
        """The account a join or leave is for: the session's own, or (``account``) a bot the
        creator or an admin enters."""
        account = msg.get("account")
        if account is None or account == session.name:
            if session.kind == "guest":
                raise TournamentError("unauthorized", "guest",
                                      "only accounts enter tournaments: sign in first")
            return session.name
        if not self._may_run(session, t):
            raise TournamentError("unauthorized", "not_creator",
                                  "only the creator or an admin enters another account")
        return str(account)

    def _join(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        t = self._find(msg)
        name = self._entrant_for(session, t, msg)
        kind = session.kind
        if name != session.name:
            bots = [s for s in self.hub.sessions.online(name)
                    if s.kind == "bot" and s.autoplay is not None
                    and t.game in s.autoplay.games]
            if not bots:
                raise TournamentError("not_found", "bot",
                                      f"no bot account of that name is connected with an "
                                      f"autoplay offer for {t.game}")
            kind = "bot"
        t.join(Entrant(name, kind, float(self.rating(t.game, name)), utc_now()))
        self._store().save_entrant(t.id, len(t.entrants) - 1, t.entrants[name])
        if name == session.name:
            self._watch(t, session)
        conn.protocol.reply(msg, self.state(t))
        self._push(t, but=session)

    def _leave(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        t = self._find(msg)
        name = self._entrant_for(session, t, msg)
        t.leave(name)
        store = self._store()
        store.remove_entrant(t.id, name)
        for seq, entrant in enumerate(t.entrants.values()):  # the join order, renumbered
            store.save_entrant(t.id, seq, entrant)
        conn.protocol.reply(msg, {"type": "ok"})
        self._push(t, but=session)

    def _start(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        t = self._find(msg)
        if not self._may_run(session, t):
            raise TournamentError("unauthorized", "not_creator",
                                  "only the tournament's creator or an admin starts it")
        pairings = t.start(utc_now())
        self._store().save_tournament(t)
        log.info("tournament_started", tournament_id=t.id, entrants=len(t.entrants),
                 rounds=t.rounds)
        self._watch(t, session)
        self._play(t, pairings)
        conn.protocol.reply(msg, self.state(t))
        self._push(t, but=session)
        self._maybe_advance(t)

    async def _show(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        t = await self._load(str(msg["tournament_id"]))
        if t is None:
            raise TournamentError("not_found", "tournament", "no such tournament")
        self._watch(t, session)
        conn.protocol.reply(msg, self.state(t))

    async def _list(self, conn: Connection, session: Session, msg: dict[str, Any]) -> None:
        status = msg.get("status")
        if status is not None and status not in STATUSES:
            raise TournamentError("bad_request", "status",
                                  f"status is one of {', '.join(STATUSES)}")
        listed = await self.listing(status, msg.get("limit"))
        conn.protocol.reply(msg, {"type": "tournaments", "tournaments": listed})

    # ---- reading ---------------------------------------------------------------------------

    @staticmethod
    def state(t: Tournament) -> dict[str, Any]:
        """The ``tournament`` message: the whole tournament (:meth:`Tournament.to_json`)."""
        return {"type": "tournament", **t.to_json()}

    async def _load(self, tournament_id: str) -> Tournament | None:
        found = self.tournaments.get(tournament_id)
        if found is not None:
            return found
        store = self._store()

        def read() -> Tournament | None:
            store.flush()
            return store.load(tournament_id)

        loaded = await asyncio.to_thread(read)
        if loaded is not None:  # (a finished one: it changes no more)
            self.tournaments.setdefault(loaded.id, loaded)
        return self.tournaments.get(tournament_id, loaded)

    async def listing(self, status: str | None = None, limit: Any = None
                      ) -> list[dict[str, Any]]:
        """Tournament headers, newest first."""
        count = max(1, min(MAX_LIST, limit if isinstance(limit, int) else LIST_LIMIT))
        store = self._store()

        def read() -> list[str]:
            store.flush()
            return store.list_ids(status=status, limit=count)

        out = []
        for tournament_id in await asyncio.to_thread(read):
            t = await self._load(tournament_id)
            if t is not None and (status is None or t.status == status):
                out.append(t.header())
        return out

    async def http_get(self, path: str) -> tuple[int, Any]:
        """``/api/tournaments`` (the newest headers) and ``/api/tournaments/<id>`` (the
        whole tournament, as ``arena tournament show --json`` prints it)."""
        parts = [unquote(p) for p in path.split("/")[3:] if p]
        if not parts:
            return 200, {"tournaments": await self.listing()}
        if len(parts) == 1:
            t = await self._load(parts[0])
            if t is not None:
                return 200, t.to_json()
        return 404, {"error": "not_found", "message": f"nothing at {path}"}

    # ---- rounds ----------------------------------------------------------------------------

    def _seat_for(self, game: str, name: str) -> Session | None:
        online = self.hub.sessions.online(name)
        free = [s for s in online if s.free_autoplay_slots(game) > 0]
        chosen = free or online
        return chosen[0] if chosen else None

    def _play(self, t: Tournament, pairings: list[Pairing]) -> None:
        """Start the games of ``pairings`` (byes are done already): a match each, or a
        forfeit for a game an entrant is not connected for."""
        spec = MatchSpec.parse(t.game, t.options, t.clock, t.num_seats)
        for p in pairings:
            if p.done:
                self._save(t, p)
                continue
            seating = [self._seat_for(t.game, name) for name in p.seats]
            if any(s is None for s in seating):
                absent = [name for name, s in zip(p.seats, seating, strict=True) if s is None]
                log.info("tournament_forfeit", tournament_id=t.id, round=p.round,
                         board=p.board, absent=absent)
                self._save(t, t.record(p.round, p.board, "forfeit",
                                       [1 if s is None else 0 for s in seating], "forfeit"))
                continue
            handle = self.hub.start_match(spec, [s for s in seating if s is not None])
            self._save(t, t.record(p.round, p.board, "live", None, None, handle.match_id))
            if handle.ended_at is not None:  # it ended as it started (its callback has run)
                self._record(t, p, handle.status, handle.outcome)
            else:
                self.matches[handle.match_id] = (t.id, p.round, p.board)

    def match_ended(self, match: MatchHandle) -> None:
        """Record a tournament game's result; other matches are ignored."""
        key = self.matches.pop(match.match_id, None)
        if key is None or self._closed:
            return
        t = self.tournaments.get(key[0])
        if t is None:
            return
        try:
            self._record(t, t.pairing(key[1], key[2]), match.status, match.outcome)
        except Exception:
            log.exception("tournament_result_failed", match_id=match.match_id)
        self._push(t)
        self._maybe_advance(t)

    def _record(self, t: Tournament, p: Pairing, status: str, outcome: Any) -> None:
        if status == "over" and outcome is not None and len(outcome.ranks) == len(p.seats):
            self._save(t, t.record(p.round, p.board, "over", outcome.ranks, outcome.reason))
        else:
            self._save(t, t.record(p.round, p.board, "void", None, "void"))

    def _maybe_advance(self, t: Tournament) -> None:
        """Once the round is complete: the next round, soon (not inside the match-end
        callback that completed it)."""
        if t.round_complete() and not self._closed:
            asyncio.get_running_loop().call_soon(self._advance, t)

    def _advance(self, t: Tournament) -> None:
        if not t.round_complete() or self._closed:
            return
        try:
            pairings = t.advance(utc_now())
            self._store().save_tournament(t)
            if pairings:
                log.info("tournament_round", tournament_id=t.id, round=t.current_round)
                self._play(t, pairings)
            else:
                log.info("tournament_over", tournament_id=t.id,
                         winner=t.standings()[0].name if t.entrants else None)
        except Exception:
            log.exception("tournament_round_failed", tournament_id=t.id)
            return
        self._push(t)
        self._maybe_advance(t)

    # ---- storage and watchers --------------------------------------------------------------

    def _store(self) -> TournamentStore:
        if self.store is None:
            self.store = self.hub.store.tournaments()
        return self.store

    def _save(self, t: Tournament, p: Pairing) -> None:
        self._store().save_pairing(t.id, p)

    def _watch(self, t: Tournament, session: Session) -> None:
        watching = self.watchers.setdefault(t.id, [])
        if session not in watching:
            watching.append(session)

    def _push(self, t: Tournament, but: Session | None = None) -> None:
        """The state to every session watching ``t`` (those the server forgot leave)."""
        watching = [s for s in self.watchers.get(t.id, []) if self.hub.known(s)]
        self.watchers[t.id] = watching
        state = self.state(t)
        for session in watching:
            if session is not but:
                session.send(state)
                if session.connection is not None:
                    session.connection.flush()


async def _answered_later(conn: Connection, msg: dict[str, Any], waiting: Any) -> None:
    try:
        await waiting
    except TournamentError as exc:
        conn.protocol.error(exc.code, exc.message, to=msg, reason=exc.reason)
