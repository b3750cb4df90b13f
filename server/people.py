"""Ratings for people: rated seeks and challenges, per-game ratings, profiles, a leaderboard.

A *person* is an account of kind ``human`` or ``admin``. Guests have no account to rate, and
bots are rated on the bot ladder (:mod:`server.ladder`), so a ``seek`` or ``challenge`` with
``rated: true`` is for people only (:func:`check_rated`: ``unauthorized`` otherwise, and an
accepting bot or guest is refused the same way). Seeks and challenges are casual unless they
say ``rated``; a rated seek pairs only with rated seeks of the same spec (``rated`` is part
of :attr:`server.lobby.MatchSpec.key`).

:class:`PeopleService` is a service of one server, made from its hub. It

* records each rated match as it starts (:meth:`PeopleService.starting`, which the server
  calls; the store row says ``live``, so a restarted server, or the node of a cluster that
  takes the match over, knows it is rated);
* rates it once as it ends: a match that ends ``over`` updates every seat's rating on that
  game at once with the ladder's model (:func:`server.ratings.rate`, the engine's ranks);
  one that ends ``void`` (a server fault, an admin's abort) is recorded void and changes
  nothing. The ratings are computed before the match's ``match_end`` is sent
  (:attr:`server.live.LiveMatch.end_fields`), which then carries ``ratings``: each seat's
  rating before and after. A second report of the same match changes nothing, here
  (:attr:`PeopleService.rated_ids`) and in the store (the first result wins);
* answers ``get_profile`` (ratings per game, rating history, recent matches: who won, how)
  and ``get_people_leaderboard`` (a game's rated people, best ordinal first). The bot
  ladder's ``get_leaderboard`` is unchanged.

The current ratings of the people who play rated are cached in memory (read from the store
as a rated match starts, in a thread; updated here as matches end), so ending a match never
waits for the disk. Two nodes of a cluster each keep their own cache: a person playing rated
matches on two nodes at once may see one node's update computed from a rating the other
had already changed (each result is still stored once).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import structlog

from engine.core import Outcome
from server.hub import Handler, Hub
from server.ladder import EndedHandle
from server.lobby import LobbyError, MatchSpec
from server.ratings import INITIAL, Rating, rate, result_word
from server.sessions import Session
from server.storage import MatchRow, utc_now
from server.storage.person_ratings import PersonResult, RatedMatchRow

if TYPE_CHECKING:
    from server.connection import Connection
    from server.live import LiveMatch

log = structlog.get_logger("arena.people")

PERSON_KINDS = ("human", "admin")
DEFAULT_LIMIT = 20
MAX_LIMIT = 200
_KEPT_IDS = 10_000
"""Rated match ids remembered as done (a late second report of one changes nothing; the
store refuses any older one too)."""


def check_rated(session: Session, spec: MatchSpec) -> None:
    """Raise ``unauthorized`` if ``spec`` is rated and ``session`` is not a person's."""
    if spec.rated and session.kind not in PERSON_KINDS:
        who = "a guest" if session.kind == "guest" else "a bot (bots are rated on the ladder)"
        raise LobbyError("unauthorized", f"rated play is for people who signed in, not {who}")


class PeopleService:
    def __init__(self, hub: Hub) -> None:
        """Registers ``get_profile`` and ``get_people_leaderboard`` and the match-end
        callback with ``hub``; the server calls :meth:`starting` for every match it starts."""
        self.hub = hub
        self.store = hub.store.person_ratings()
        self.live: dict[str, RatedMatchRow] = {}
        self.rated_ids: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._cache: dict[tuple[str, str], Rating] = {}  # (game, account) -> rating
        self._tasks: set[asyncio.Task[Any]] = set()
        hub.add_handlers(self.handlers())
        hub.on_match_end(self.match_ended)

    def handlers(self) -> dict[str, Handler]:
        return {"get_profile": self._profile, "get_people_leaderboard": self._leaderboard}

    # ---- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Take back the rated matches an earlier server left ``live``: follow those the
        server resumed, rate those that ended (as stored), record the others void."""
        rows = await asyncio.to_thread(self.store.live_rated)
        for row in rows:
            await self._take_back(row)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _take_back(self, row: RatedMatchRow) -> None:
        """A rated match stored ``live``: rate it by what became of it."""
        if row.match_id in self.rated_ids:
            return
        handle = self.hub.find_match(row.match_id)
        if handle is not None and not handle.is_over:
            self._follow(row, handle)
            await self._load(row.game, row.accounts)
            return
        if handle is not None:
            await self._load(row.game, row.accounts)
            self._rate(row, handle.status, handle.outcome, handle.ended_at)
            return
        stored: MatchRow | None = await asyncio.to_thread(self.hub.store.get_match,
                                                          row.match_id)
        if stored is not None and stored.status != "live" and stored.outcome is not None:
            await self._load(row.game, row.accounts)
            self._rate(row, stored.status, Outcome.from_json(stored.outcome), stored.ended_at)
        elif stored is None or stored.status != "live":
            self._done(row.match_id)
            self.store.save_void(row.match_id, "interrupted", utc_now())
        # (still live in the store and not here: another node of a cluster runs it, and
        # reports its end there)

    # ---- rating ----------------------------------------------------------------------------

    def starting(self, match: LiveMatch, spec: MatchSpec) -> None:
        """The server starts ``match`` from ``spec``: if rated, record it (``live``) and read
        its people's ratings into the cache."""
        if not spec.rated:
            return
        row = RatedMatchRow(match.match_id, spec.game, [s.name for s in match.seating],
                            "live", match.started_at)
        self.store.save_start(row.match_id, row.game, row.accounts, row.started_at)
        self._follow(row, match)
        self._spawn(self._load(row.game, row.accounts))

    def _follow(self, row: RatedMatchRow, match: Any) -> None:
        self.live[row.match_id] = row
        if hasattr(match, "end_fields"):  # a LiveMatch of this server: rate before match_end
            match.end_fields = self._end_fields

    async def _load(self, game: str, accounts: Sequence[str]) -> None:
        """Cache the stored ratings of ``accounts`` on ``game`` (those not cached yet: a
        cached one may be newer than what is committed)."""
        missing = [a for a in accounts if (game, a) not in self._cache]
        if not missing:
            return
        store = self.store

        def read() -> dict[str, Rating]:
            store.flush()
            return {a: r.rating for a, r in store.ratings_for(game, missing).items()}

        for account, rating in (await asyncio.to_thread(read)).items():
            self._cache.setdefault((game, account), rating)

    def _current(self, game: str, account: str) -> Rating:
        rating = self._cache.get((game, account))
        if rating is None:  # (its read has not finished: a match over in a moment)
            stored = self.store.ratings_for(game, [account]).get(account)
            rating = INITIAL if stored is None else stored.rating
            self._cache[(game, account)] = rating
        return rating

    def seed_rating(self, game: str, account: str) -> float | None:
        """``account``'s rating (its ordinal) for ``game`` as a person, ``None`` if it has
        played no rated match of it: what seeds it in a tournament."""
        rating = self._cache.get((game, account))
        if rating is None:
            stored = self.store.ratings_for(game, [account]).get(account)
            if stored is None:
                return None
            rating = stored.rating
        return rating.ordinal

    def _end_fields(self, match: LiveMatch) -> Mapping[str, Any] | None:
        row = self.live.get(match.match_id)
        if row is None:
            return None
        result = self._rate(row, match.status, match.outcome, utc_now())
        if result is None:
            return None
        return {"ratings": [
            {"seat": seat, "account": account, "before": before.to_json(),
             "after": after.to_json()}
            for seat, (account, before, after) in enumerate(
                zip(result.accounts, result.before, result.after, strict=True))]}

    def match_ended(self, match: EndedHandle) -> None:
        """Every match that ends: a rated one not rated yet is rated now (its
        ``match_end`` has gone without ratings); one this server did not start (resumed, or
        taken over from another node) is looked up in the store."""
        row = self.live.get(match.match_id)
        if row is not None:
            self._rate(row, match.status, match.outcome, match.ended_at)
        elif getattr(match, "spec", True) is None and match.match_id not in self.rated_ids:
            self._spawn(self._look_up(match))

    async def _look_up(self, match: EndedHandle) -> None:
        row = await asyncio.to_thread(self.store.rated_match, match.match_id)
        if row is not None and row.status == "live":
            await self._load(row.game, row.accounts)
            self._rate(row, match.status, match.outcome, match.ended_at)

    def _done(self, match_id: str) -> None:
        self.live.pop(match_id, None)
        self.rated_ids[match_id] = None
        while len(self.rated_ids) > _KEPT_IDS:
            self.rated_ids.popitem(last=False)

    def _rate(self, row: RatedMatchRow, status: str, outcome: Outcome | None,
              ended_at: str | None) -> PersonResult | None:
        """Rate ``row``'s match once: ``over`` with an outcome updates every seat; anything
        else (void, aborted) records it void. ``None`` when unrated (or rated already)."""
        if row.match_id in self.rated_ids:
            return None
        self._done(row.match_id)
        at = ended_at or utc_now()
        same = len(set(row.accounts)) != len(row.accounts)
        if status != "over" or outcome is None or same:
            # (same: one account in two seats, through two of its sessions; not rated)
            reason = "same_account" if same else "void" if outcome is None else outcome.reason
            self.store.save_void(row.match_id, reason, at)
            log.info("rated_match_void", match_id=row.match_id, reason=reason)
            return None
        before = [self._current(row.game, a) for a in row.accounts]
        after = rate(before, outcome.ranks)
        for account, rating in zip(row.accounts, after, strict=True):
            self._cache[(row.game, account)] = rating
        result = PersonResult(row.match_id, row.game, tuple(row.accounts),
                              tuple(outcome.ranks), tuple(before), tuple(after),
                              outcome.reason, at)
        self.store.save_rated(result)
        log.info("rated_match", match_id=row.match_id, game=row.game,
                 accounts=row.accounts, ranks=list(outcome.ranks))
        return result

    # ---- reading ---------------------------------------------------------------------------

    async def _profile(self, conn: Connection, session: Session, msg: dict[str, Any]
                       ) -> None:
        conn.protocol.reply(msg, await self.profile(str(msg["account"]), msg.get("game"),
                                                    msg.get("limit")))

    async def profile(self, name: str, game: str | None = None, limit: int | None = None
                      ) -> dict[str, Any]:
        """The ``profile`` message of account ``name``; raises ``not_found``."""
        limit = max(1, min(MAX_LIMIT, int(limit or DEFAULT_LIMIT)))
        hub_store, store = self.hub.store, self.store

        def read() -> dict[str, Any] | None:
            account = hub_store.get_account(name)
            if account is None:
                return None
            store.flush()  # what this server rated so far is committed first
            matches = store.matches_of(account.name, limit)
            rated = {m["match_id"] for m in matches if (r := store.rated_match(m["match_id"]))
                     is not None and r.status == "rated"}
            return {"type": "profile", "account": account.name, "kind": account.kind,
                    "created_at": account.created_at,
                    "ratings": [r.to_json() for r in store.ratings_of(account.name)],
                    "history": store.history(account.name, game, limit),
                    "matches": [profile_match(m, account.name, m["match_id"] in rated)
                                for m in matches]}

        found = await asyncio.to_thread(read)
        if found is None:
            raise LobbyError("not_found", "no account of that name")
        return found

    async def _leaderboard(self, conn: Connection, session: Session, msg: dict[str, Any]
                           ) -> None:
        game = str(msg["game"])
        MatchSpec.parse(game)  # not_found for a game this server does not have
        limit = max(1, min(MAX_LIMIT, int(msg.get("limit") or 50)))
        store = self.store

        def read() -> list[dict[str, Any]]:
            store.flush()
            return [{**r.to_json(), "rank": n}
                    for n, r in enumerate(store.leaderboard(game, limit), 1)]

        conn.protocol.reply(msg, {"type": "people_leaderboard", "game": game,
                                  "entries": await asyncio.to_thread(read)})


def profile_match(summary: Mapping[str, Any], account: str, rated: bool) -> dict[str, Any]:
    """A ``ProfileMatch``: a match summary with ``account``'s result, the winners' names
    and whether it was rated."""
    seats = list(summary["seats"])
    outcome = summary.get("outcome")
    over = summary["status"] == "over" and outcome is not None
    ranks: list[int] | None = outcome["ranks"] if over and outcome is not None else None
    mine = [s["seat"] for s in seats if s.get("name") == account]
    winners = ([] if ranks is None or all(r == ranks[0] for r in ranks)
               else [s["name"] for s in seats if ranks[s["seat"]] == min(ranks)])
    return {"match_id": summary["match_id"], "game": summary["game"], "seats": seats,
            "status": summary["status"], "started_at": summary["started_at"],
            "ended_at": summary.get("ended_at"), "moves": summary.get("moves", 0),
            "outcome": outcome,
            "result": result_word(ranks, mine[0]) if ranks is not None and mine else None,
            "winners": winners, "rated": rated}
