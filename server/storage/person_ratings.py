"""People's ratings: a sub-store every backend implements (:meth:`Store.person_ratings`).

A person (an account of kind ``human`` or ``admin``) has one rating per game, the ladder's
OpenSkill belief (:class:`server.ratings.Rating`), changed only by *rated* matches. This
sub-store keeps

* the **rated matches**: one :class:`RatedMatchRow` per rated match, written ``live`` when it
  starts (so that a restarted server, or another node of a cluster, knows it is rated) and
  then, once, ``rated`` (with the ranks and every seat's rating before and after) or
  ``void``;
* each person's **current rating** per game, with win/draw/loss counts;
* each person's **rating history** per game, one point per rated match.

The first result wins: :meth:`PersonRatingsStore.save_rated` of a match already ``rated`` or
``void`` changes nothing (a match resumed elsewhere, or reported twice, is rated once); the
rows of one result are written atomically, in order with the store's other writes.
:meth:`PersonRatingsStore.matches_of` reads a person's recent matches, rated or not, from the
store's ``matches`` table (their ``seats``).

The SQL backends share the statements here (written with ``?``; PostgreSQL's are
renumbered ``$1``, ``$2``…); :class:`MemoryPersonRatings` keeps the same rows in
dictionaries.
"""

from __future__ import annotations

import itertools
import json
import re
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from server.ratings import Rating, result_word

if TYPE_CHECKING:
    import asyncpg

T = TypeVar("T")

RATED_STATUSES = ("live", "rated", "void")


@dataclass(frozen=True)
class PersonRating:
    """One person's rating on one game and the results that made it."""

    account: str
    game: str
    mu: float
    sigma: float
    wins: int = 0
    draws: int = 0
    losses: int = 0
    updated_at: str | None = None

    @property
    def rating(self) -> Rating:
        return Rating(self.mu, self.sigma)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def to_json(self) -> dict[str, Any]:
        """The protocol's ``PersonRating``."""
        return {"account": self.account, "game": self.game, **self.rating.to_json(),
                "games": self.games, "wins": self.wins, "draws": self.draws,
                "losses": self.losses, "updated_at": self.updated_at}


@dataclass(frozen=True)
class PersonResult:
    """One rated match's result: seat ``i`` was ``accounts[i]``, finished at ``ranks[i]``
    (0 best) and went from ``before[i]`` to ``after[i]``."""

    match_id: str
    game: str
    accounts: tuple[str, ...]
    ranks: tuple[int, ...]
    before: tuple[Rating, ...]
    after: tuple[Rating, ...]
    reason: str
    ended_at: str


@dataclass
class RatedMatchRow:
    """A rated match as stored (``ranks``, ``before`` and ``after`` once ``rated``)."""

    match_id: str
    game: str
    accounts: list[str]
    status: str
    started_at: str
    ranks: list[int] | None = None
    reason: str | None = None
    before: list[Rating] | None = None
    after: list[Rating] | None = None
    ended_at: str | None = None


def history_point(game: str, match_id: str, at: str, rank: int, mu: float, sigma: float
                  ) -> dict[str, Any]:
    """One ``PersonRatingPoint`` of the protocol: a rating after one rated match."""
    return {"game": game, "match_id": match_id, "at": at, "rank": rank, "mu": mu,
            "sigma": sigma, "ordinal": Rating(mu, sigma).ordinal}


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _ratings_json(ratings: Sequence[Rating] | None) -> str | None:
    return None if ratings is None else _dumps([[r.mu, r.sigma] for r in ratings])


def _ratings_of(text: str | None) -> list[Rating] | None:
    return None if text is None else [Rating(mu, sigma) for mu, sigma in json.loads(text)]


def _counts(result: PersonResult, seat: int) -> tuple[int, int, int]:
    word = result_word(result.ranks, seat)
    return int(word == "win"), int(word == "draw"), int(word == "loss")


class PersonRatingsStore(ABC):
    """People's ratings in one store."""

    # ---- reading -----------------------------------------------------------------------------

    @abstractmethod
    def ratings_of(self, account: str) -> list[PersonRating]:
        """Every rating ``account`` has (one per game it played rated), by game."""

    @abstractmethod
    def ratings_for(self, game: str, accounts: Iterable[str]) -> dict[str, PersonRating]:
        """The stored ratings on ``game`` of those of ``accounts`` that have one."""

    @abstractmethod
    def leaderboard(self, game: str, limit: int | None = None) -> list[PersonRating]:
        """``game``'s rated people, best ordinal first (then more games, then by name)."""

    @abstractmethod
    def history(self, account: str, game: str | None = None, limit: int | None = None
                ) -> list[dict[str, Any]]:
        """:func:`history_point` objects of ``account`` (on ``game`` only, if named), oldest
        first: the latest ``limit``."""

    @abstractmethod
    def rated_match(self, match_id: str) -> RatedMatchRow | None: ...

    @abstractmethod
    def live_rated(self) -> list[RatedMatchRow]:
        """The rated matches stored ``live`` (not yet rated or void), oldest first."""

    @abstractmethod
    def matches_of(self, account: str, limit: int = 20) -> list[dict[str, Any]]:
        """The summaries (:meth:`MatchRow.summary`) of the matches in which ``account``
        held a seat, newest first, rated or not, live or finished."""

    # ---- writing -----------------------------------------------------------------------------

    @abstractmethod
    def save_start(self, match_id: str, game: str, accounts: Sequence[str],
                   started_at: str) -> None:
        """Queue: a rated match started (``live``). Nothing if it is stored already."""

    @abstractmethod
    def save_void(self, match_id: str, reason: str, ended_at: str) -> None:
        """Queue: this rated match ended unrated (only a ``live`` one changes)."""

    @abstractmethod
    def save_rated(self, result: PersonResult) -> None:
        """Queue one result, atomically: the match row ``rated``, each seat's new rating and
        counts, and its history point. Nothing if the match is ``rated`` or ``void``
        already: the first result wins."""

    @abstractmethod
    def flush(self) -> None:
        """Block until every write queued in the store is committed."""


# ---- the SQL backends ------------------------------------------------------------------------

_MATCH_COLUMNS = ("match_id, game, accounts, status, started_at, ranks, reason, before, "
                  "after, ended_at")
_RATING_COLUMNS = "account, game, mu, sigma, wins, draws, losses, updated_at"
_BOARD_ORDER = "(mu - 3 * sigma) DESC, (wins + draws + losses) DESC, account"
_UPSERT_RATING = (
    f"INSERT INTO people_ratings ({_RATING_COLUMNS}) VALUES (?,?,?,?,?,?,?,?) "
    "ON CONFLICT (account, game) DO UPDATE SET mu=excluded.mu, sigma=excluded.sigma, "
    "wins=people_ratings.wins+excluded.wins, draws=people_ratings.draws+excluded.draws, "
    "losses=people_ratings.losses+excluded.losses, updated_at=excluded.updated_at")
_INSERT_POINT = ("INSERT INTO people_history (account, game, match_id, at, rank, mu, sigma) "
                 "VALUES (?,?,?,?,?,?,?)")
_STATUS = "SELECT status FROM people_matches WHERE match_id=?"


def _result_writes(result: PersonResult) -> list[tuple[str, tuple[Any, ...]]]:
    """The statements of one rated result (after its status was found ``live`` or absent)."""
    writes: list[tuple[str, tuple[Any, ...]]] = [(
        "INSERT INTO people_matches (match_id, game, accounts, status, started_at, ranks, "
        "reason, before, after, ended_at) VALUES (?,?,?,'rated',?,?,?,?,?,?) "
        "ON CONFLICT (match_id) DO UPDATE SET status='rated', ranks=excluded.ranks, "
        "reason=excluded.reason, before=excluded.before, after=excluded.after, "
        "ended_at=excluded.ended_at",
        (result.match_id, result.game, _dumps(list(result.accounts)), result.ended_at,
         _dumps(list(result.ranks)), result.reason, _ratings_json(result.before),
         _ratings_json(result.after), result.ended_at))]
    for seat, (account, rank, after) in enumerate(
            zip(result.accounts, result.ranks, result.after, strict=True)):
        writes.append((_UPSERT_RATING, (account, result.game, after.mu, after.sigma,
                                        *_counts(result, seat), result.ended_at)))
        writes.append((_INSERT_POINT, (account, result.game, result.match_id,
                                       result.ended_at, rank, after.mu, after.sigma)))
    return writes


class _Tables(Protocol):
    """What these statements need of a SQL store: its reads (``?`` placeholders here; the
    PostgreSQL sub-store renumbers them) and ``flush``."""

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple[Any, ...]]: ...

    def flush(self) -> None: ...


_NAME_IN_SEATS = {
    "sqlite": "EXISTS (SELECT 1 FROM json_each(matches.seats) "
              "WHERE json_extract(json_each.value, '$.name') = ?)",
    "postgres": "EXISTS (SELECT 1 FROM json_array_elements(matches.seats) s "
                "WHERE s->>'name' = ?)",
}


class SqlPersonRatings(PersonRatingsStore):
    """The reads over the ``people_*`` tables, the same in both SQL backends."""

    store: _Tables
    dialect: str

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.store.query(self._sql(sql), params)

    def _sql(self, sql: str) -> str:
        return sql

    @staticmethod
    def _rating(row: tuple[Any, ...]) -> PersonRating:
        return PersonRating(*row)

    def ratings_of(self, account: str) -> list[PersonRating]:
        return [self._rating(r) for r in self._query(
            f"SELECT {_RATING_COLUMNS} FROM people_ratings WHERE account=? ORDER BY game",
            (account,))]

    def ratings_for(self, game: str, accounts: Iterable[str]) -> dict[str, PersonRating]:
        out = {}
        for account in dict.fromkeys(accounts):
            rows = self._query(f"SELECT {_RATING_COLUMNS} FROM people_ratings "
                               "WHERE account=? AND game=?", (account, game))
            if rows:
                out[account] = self._rating(rows[0])
        return out

    def leaderboard(self, game: str, limit: int | None = None) -> list[PersonRating]:
        sql = f"SELECT {_RATING_COLUMNS} FROM people_ratings WHERE game=? ORDER BY {_BOARD_ORDER}"
        params: list[Any] = [game]
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [self._rating(r) for r in self._query(sql, params)]

    def history(self, account: str, game: str | None = None, limit: int | None = None
                ) -> list[dict[str, Any]]:
        sql = "SELECT game, match_id, at, rank, mu, sigma FROM people_history WHERE account=?"
        params: list[Any] = [account]
        if game is not None:
            sql += " AND game=?"
            params.append(game)
        sql += " ORDER BY at DESC, match_id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [history_point(*row) for row in reversed(self._query(sql, params))]

    @staticmethod
    def _match(row: tuple[Any, ...]) -> RatedMatchRow:
        (match_id, game, accounts, status, started_at, ranks, reason, before, after,
         ended_at) = row
        return RatedMatchRow(match_id, game, json.loads(accounts), status, started_at,
                             None if ranks is None else json.loads(ranks), reason,
                             _ratings_of(before), _ratings_of(after), ended_at)

    def rated_match(self, match_id: str) -> RatedMatchRow | None:
        rows = self._query(f"SELECT {_MATCH_COLUMNS} FROM people_matches WHERE match_id=?",
                           (match_id,))
        return self._match(rows[0]) if rows else None

    def live_rated(self) -> list[RatedMatchRow]:
        return [self._match(r) for r in self._query(
            f"SELECT {_MATCH_COLUMNS} FROM people_matches WHERE status='live' "
            "ORDER BY started_at, match_id")]

    def matches_of(self, account: str, limit: int = 20) -> list[dict[str, Any]]:
        rows = self._query(
            "SELECT id, game, seats, status, created_at, ended_at, moves, outcome "
            f"FROM matches WHERE {_NAME_IN_SEATS[self.dialect]} "
            "ORDER BY created_at DESC, id LIMIT ?", (account, limit))
        return [{"match_id": m, "game": g, "seats": json.loads(seats), "status": status,
                 "started_at": created, "ended_at": ended, "moves": moves,
                 "outcome": None if outcome is None else json.loads(outcome)}
                for m, g, seats, status, created, ended, moves, outcome in rows]

    def flush(self) -> None:
        self.store.flush()


class SqliteFile(_Tables, Protocol):
    def write_later(self, write: Callable[[sqlite3.Connection], object]) -> None: ...


class SqlitePersonRatings(SqlPersonRatings):
    """People's ratings in a :class:`~server.storage.sqlite.SqliteStore`'s file."""

    store: SqliteFile
    dialect = "sqlite"

    def __init__(self, store: SqliteFile) -> None:
        self.store = store

    def save_start(self, match_id: str, game: str, accounts: Sequence[str],
                   started_at: str) -> None:
        params = (match_id, game, _dumps(list(accounts)), started_at)
        self.store.write_later(lambda conn: conn.execute(
            "INSERT OR IGNORE INTO people_matches (match_id, game, accounts, status, "
            "started_at) VALUES (?,?,?,'live',?)", params))

    def save_void(self, match_id: str, reason: str, ended_at: str) -> None:
        self.store.write_later(lambda conn: conn.execute(
            "UPDATE people_matches SET status='void', reason=?, ended_at=? "
            "WHERE match_id=? AND status='live'", (reason, ended_at, match_id)))

    def save_rated(self, result: PersonResult) -> None:
        writes = _result_writes(result)

        def write(conn: sqlite3.Connection) -> None:
            stored = conn.execute(_STATUS, (result.match_id,)).fetchone()
            if stored is not None and stored[0] != "live":
                return
            for sql, params in writes:
                conn.execute(sql, params)

        self.store.write_later(write)


def _numbered(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1``, ``$2``…"""
    n = itertools.count(1)
    return re.sub(r"\?", lambda _: f"${next(n)}", sql)


class PostgresDatabase(_Tables, Protocol):
    def write_later(self, write: Callable[[asyncpg.Connection], Awaitable[object]]
                    ) -> None: ...


class PostgresPersonRatings(SqlPersonRatings):
    """People's ratings in a :class:`~server.storage.postgres.PostgresStore`'s database."""

    store: PostgresDatabase
    dialect = "postgres"

    def __init__(self, store: PostgresDatabase) -> None:
        self.store = store

    def _sql(self, sql: str) -> str:
        return _numbered(sql)

    def save_start(self, match_id: str, game: str, accounts: Sequence[str],
                   started_at: str) -> None:
        args = (match_id, game, _dumps(list(accounts)), started_at)

        async def write(conn: asyncpg.Connection) -> None:
            await conn.execute(_numbered(
                "INSERT INTO people_matches (match_id, game, accounts, status, started_at) "
                "VALUES (?,?,?,'live',?) ON CONFLICT (match_id) DO NOTHING"), *args)

        self.store.write_later(write)

    def save_void(self, match_id: str, reason: str, ended_at: str) -> None:
        async def write(conn: asyncpg.Connection) -> None:
            await conn.execute(_numbered(
                "UPDATE people_matches SET status='void', reason=?, ended_at=? "
                "WHERE match_id=? AND status='live'"), reason, ended_at, match_id)

        self.store.write_later(write)

    def save_rated(self, result: PersonResult) -> None:
        writes = [(_numbered(sql), params) for sql, params in _result_writes(result)]

        async def write(conn: asyncpg.Connection) -> None:
            # The row lock: two nodes reporting the same match at once rate it once.
            status = await conn.fetchval(_numbered(_STATUS + " FOR UPDATE"), result.match_id)
            if status is not None and status != "live":
                return
            for sql, params in writes:
                await conn.execute(sql, *params)

        self.store.write_later(write)


# ---- the memory backend ----------------------------------------------------------------------

class MemoryTables(Protocol):
    """What people's ratings need of a :class:`~server.storage.memory.MemoryStore` (a
    protocol, not an import: the store makes this sub-store)."""

    def read(self, query: Callable[[], T]) -> T: ...
    def write(self, change: Callable[[], object]) -> None: ...
    def list_matches(self, *, status: str | None = None, game: str | None = None,
                     limit: int = 100) -> list[Any]:
        """(:class:`~server.storage.base.MatchRow` objects: not imported, base imports
        this module.)"""
    def flush(self) -> None: ...


class MemoryPersonRatings(PersonRatingsStore):
    """People's ratings in a :class:`~server.storage.memory.MemoryStore`, under its lock."""

    def __init__(self, store: MemoryTables) -> None:
        self.store = store
        self._ratings: dict[tuple[str, str], PersonRating] = {}
        self._matches: dict[str, RatedMatchRow] = {}
        self._history: list[tuple[str, dict[str, Any]]] = []  # (account, point), in order

    def ratings_of(self, account: str) -> list[PersonRating]:
        return self.store.read(lambda: sorted(
            (r for (a, _), r in self._ratings.items() if a == account), key=lambda r: r.game))

    def ratings_for(self, game: str, accounts: Iterable[str]) -> dict[str, PersonRating]:
        wanted = list(accounts)
        return self.store.read(lambda: {a: self._ratings[(a, game)] for a in wanted
                                        if (a, game) in self._ratings})

    def leaderboard(self, game: str, limit: int | None = None) -> list[PersonRating]:
        def query() -> list[PersonRating]:
            rows = sorted((r for (_, g), r in self._ratings.items() if g == game),
                          key=lambda r: (-r.rating.ordinal, -r.games, r.account))
            return rows[:limit]

        return self.store.read(query)

    def history(self, account: str, game: str | None = None, limit: int | None = None
                ) -> list[dict[str, Any]]:
        def query() -> list[dict[str, Any]]:
            points = sorted((dict(p) for a, p in self._history
                             if a == account and (game is None or p["game"] == game)),
                            key=lambda p: (p["at"], p["match_id"]))
            return points if limit is None else points[max(0, len(points) - limit):]

        return self.store.read(query)

    def rated_match(self, match_id: str) -> RatedMatchRow | None:
        return self.store.read(lambda: _copy_row(self._matches.get(match_id)))

    def live_rated(self) -> list[RatedMatchRow]:
        return self.store.read(lambda: [
            r for r in (_copy_row(m) for m in sorted(
                self._matches.values(), key=lambda m: (m.started_at, m.match_id)))
            if r is not None and r.status == "live"])

    def matches_of(self, account: str, limit: int = 20) -> list[dict[str, Any]]:
        rows = self.store.list_matches(limit=2**31)
        return [row.summary() for row in rows
                if any(seat.get("name") == account for seat in row.seats)][:limit]

    def save_start(self, match_id: str, game: str, accounts: Sequence[str],
                   started_at: str) -> None:
        row = RatedMatchRow(match_id, game, list(accounts), "live", started_at)
        self.store.write(lambda: self._matches.setdefault(match_id, row))

    def save_void(self, match_id: str, reason: str, ended_at: str) -> None:
        def change() -> None:
            row = self._matches.get(match_id)
            if row is not None and row.status == "live":
                row.status, row.reason, row.ended_at = "void", reason, ended_at

        self.store.write(change)

    def save_rated(self, result: PersonResult) -> None:
        def change() -> None:
            stored = self._matches.get(result.match_id)
            if stored is not None and stored.status != "live":
                return
            self._matches[result.match_id] = RatedMatchRow(
                result.match_id, result.game, list(result.accounts), "rated",
                stored.started_at if stored else result.ended_at, list(result.ranks),
                result.reason, list(result.before), list(result.after), result.ended_at)
            for seat, (account, rank, after) in enumerate(
                    zip(result.accounts, result.ranks, result.after, strict=True)):
                old = self._ratings.get((account, result.game))
                wins, draws, losses = _counts(result, seat)
                if old is not None:
                    wins, draws, losses = old.wins + wins, old.draws + draws, old.losses + losses
                self._ratings[(account, result.game)] = PersonRating(
                    account, result.game, after.mu, after.sigma, wins, draws, losses,
                    result.ended_at)
                self._history.append((account, history_point(
                    result.game, result.match_id, result.ended_at, rank, after.mu,
                    after.sigma)))

        self.store.write(change)

    def flush(self) -> None:
        self.store.flush()


def _copy_row(row: RatedMatchRow | None) -> RatedMatchRow | None:
    if row is None:
        return None
    return RatedMatchRow(row.match_id, row.game, list(row.accounts), row.status,
                         row.started_at, None if row.ranks is None else list(row.ranks),
                         row.reason, None if row.before is None else list(row.before),
                         None if row.after is None else list(row.after), row.ended_at)
