"""The in-memory backend: the whole :class:`~server.storage.base.Store` contract in a process's
memory, gone when it exits.

For tests and throw-away servers, and the second backend of the contract suite
(``tests/storage/``): it keeps the interface honest, since nothing in it is SQLite. Writes
apply at once under one lock (so :meth:`MemoryStore.flush` only reports a failed write);
rows go in and come out as copies through JSON, as they would through a database, so a
caller never shares a mutable object with the store.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from protocol.codec import encode_json
from server.ladder_book import Entity, LadderBook, RatedResult, Standing
from server.ratings import Rating
from server.storage.base import (
    Account,
    MatchRow,
    Store,
    StoreError,
    check_status,
    claimed_seats,
    merge_log,
)
from server.storage.ladder import LadderMatchRow, LadderStore, rating_point
from server.storage.person_ratings import MemoryPersonRatings
from server.storage.tournaments import MemoryTournamentStore

T = TypeVar("T")


def _copy(value: Any) -> Any:
    return json.loads(encode_json(value))


@dataclass
class _Match:
    row: MatchRow
    chunks: dict[int, list[dict[str, Any]]]  # first index -> consecutive appended entries


class MemoryStore(Store):
    """Accounts, matches and the ladder in dictionaries, behind one lock."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._accounts: dict[str, tuple[Account, str]] = {}  # name -> (account, token hash)
        self._passwords: dict[str, str] = {}  # name -> password hash
        self._logins: dict[str, str] = {}  # login token hash -> account name
        self._matches: dict[str, _Match] = {}
        self._error: StoreError | None = None
        self._closed = False
        self._ladder = MemoryLadderStore(self)
        self._person_ratings = MemoryPersonRatings(self)
        self._tournaments = MemoryTournamentStore()

    def write(self, change: Callable[[], object]) -> None:
        """Apply ``change`` now, under the lock; an error it raises is reported by the next
        :meth:`flush`, as a queued write's would be."""
        with self._lock:
            self._check_open()
            try:
                change()
            except (KeyError, ValueError, StoreError) as exc:
                self._error = self._error or StoreError(str(exc))

    def read(self, query: Callable[[], T]) -> T:
        with self._lock:
            return query()

    def check_writable(self) -> None:
        with self._lock:
            self._check_open()

    def flush(self) -> None:
        with self._lock:
            error, self._error = self._error, None
        if error is not None:
            raise StoreError(f"a queued write failed: {error}") from error

    def close(self) -> None:
        self.flush()
        self._closed = True

    def ladder(self) -> MemoryLadderStore:
        return self._ladder

    def person_ratings(self) -> MemoryPersonRatings:
        return self._person_ratings

    def tournaments(self) -> MemoryTournamentStore:
        return self._tournaments

    # ---- accounts --------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the store is closed")

    def _add_account(self, account: Account, hashed_token: str,
                     password_hash: str | None = None) -> None:
        with self._lock:
            self._check_open()
            if account.name in self._accounts:
                raise StoreError(f"an account named {account.name!r} exists already")
            self._accounts[account.name] = (account, hashed_token)
            if password_hash is not None:
                self._passwords[account.name] = password_hash

    def _password_hash(self, name: str) -> str | None:
        return self.read(lambda: self._passwords.get(name))

    def _set_password_hash(self, name: str, password_hash: str) -> None:
        with self._lock:
            self._check_open()
            self._passwords[name] = password_hash

    def _add_login(self, name: str, hashed_token: str, created_at: str) -> None:
        with self._lock:
            self._check_open()
            self._logins[hashed_token] = name

    def _login_hashes(self, name: str) -> list[str]:
        return self.read(lambda: [h for h, owner in self._logins.items() if owner == name])

    def _delete_logins(self, hashed_tokens: Sequence[str]) -> None:
        with self._lock:
            self._check_open()
            for hashed in hashed_tokens:
                self._logins.pop(hashed, None)

    def claim_matches(self, guest: str, name: str) -> int:
        with self._lock:
            self._check_open()
            changed = 0
            for match in self._matches.values():
                seats = (claimed_seats(match.row.seats, guest, name)
                         if match.row.status != "live" else None)
                if seats is not None:
                    match.row.seats = seats
                    changed += 1
            return changed

    def _set_token_hash(self, name: str, hashed_token: str) -> None:
        with self._lock:
            self._check_open()
            self._accounts[name] = (self._accounts[name][0], hashed_token)

    def _set_banned(self, name: str, banned: bool) -> None:
        with self._lock:
            self._check_open()
            account, hashed = self._accounts[name]
            self._accounts[name] = (replace(account, banned=banned), hashed)

    def _account_by_token_hash(self, hashed_token: str) -> Account | None:
        def query() -> Account | None:
            login = self._logins.get(hashed_token)
            if login is not None and login in self._accounts:
                return self._accounts[login][0]
            return next((account for account, hashed in self._accounts.values()
                         if hashed == hashed_token), None)
        return self.read(query)

    def get_account(self, name: str) -> Account | None:
        return self.read(lambda: self._accounts[name][0] if name in self._accounts else None)

    def list_accounts(self) -> list[Account]:
        return self.read(lambda: [self._accounts[name][0] for name in sorted(self._accounts)])

    # ---- matches ---------------------------------------------------------------------------

    def save_match(self, row: MatchRow) -> None:
        copy = _row_copy(row)
        self.write(lambda: self._matches.__setitem__(row.id, _Match(copy, {})))

    def append_actions(self, entries: Sequence[tuple[str, int, dict[str, Any]]],
                       moves: Mapping[str, int],
                       live_states: Mapping[str, dict[str, Any]] | None = None) -> None:
        copied = _copy([list(entry) for entry in entries])
        states = _copy(dict(live_states or {}))

        def change() -> None:
            for match_id, index, entry in copied:
                match = self._matches.get(match_id)
                if match is not None:
                    match.chunks[index] = [entry]
            for match_id, count in moves.items():
                match = self._matches.get(match_id)
                if match is not None and match.row.status == "live":
                    match.row.moves = count
            for match_id, state in states.items():
                match = self._matches.get(match_id)
                if match is not None and match.row.status == "live":
                    match.row.live_state = state

        self.write(change)

    def update_match(self, match_id: str, *, log: Sequence[dict[str, Any]], moves: int,
                     status: str = "live", outcome: dict[str, Any] | None = None,
                     ended_at: str | None = None) -> None:
        check_status(status)
        log_copy, outcome_copy = _copy(list(log)), _copy(outcome)

        def change() -> None:
            match = self._matches.get(match_id)
            if match is None or match.row.status != "live":  # the first result wins
                return
            row = match.row
            row.log, row.moves, row.status = log_copy, moves, status
            row.outcome = row.outcome if outcome_copy is None else outcome_copy
            row.ended_at = row.ended_at if ended_at is None else ended_at
            if status != "live":  # the whole log is in the row now
                match.chunks.clear()
                row.live_state = None

        self.write(change)

    def get_match(self, match_id: str) -> MatchRow | None:
        def query() -> MatchRow | None:
            match = self._matches.get(match_id)
            if match is None:
                return None
            row = _row_copy(match.row)
            if row.status == "live":
                row.log = merge_log(row.log, _copy(sorted(match.chunks.items())))
            return row

        return self.read(query)

    def list_matches(self, *, status: str | None = None, game: str | None = None,
                     limit: int = 100) -> list[MatchRow]:
        def query() -> list[MatchRow]:
            rows = sorted((m.row for m in self._matches.values()
                           if (status is None or m.row.status == status)
                           and (game is None or m.row.game == game)), key=lambda r: r.id)
            rows.sort(key=lambda r: r.created_at, reverse=True)  # stable: then by id
            return [_row_copy(r) for r in rows[:limit]]

        return self.read(query)


def _row_copy(row: MatchRow) -> MatchRow:
    return replace(row, options=_copy(row.options), seats=_copy(row.seats),
                   clock=_copy(row.clock), start=_copy(row.start), log=_copy(row.log),
                   outcome=_copy(row.outcome), live_state=_copy(row.live_state),
                   pair=_copy(row.pair))


class MemoryLadderStore(LadderStore):
    """The ladder's data in a :class:`MemoryStore`, under its lock."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._entities: dict[int, Entity] = {}
        self._ratings: dict[int, tuple[Rating, int, int, int]] = {}
        self._matches: dict[str, LadderMatchRow] = {}
        self._history: dict[tuple[int, int], dict[str, Any]] = {}  # (entity, seq) -> point

    # ---- reading -----------------------------------------------------------------------------

    def entities(self) -> list[Entity]:
        return self.store.read(lambda: [self._entities[e] for e in sorted(self._entities)])

    def standings(self) -> dict[int, Standing]:
        return self.store.read(lambda: {
            entity: Standing(rating, wins, draws, losses)
            for entity, (rating, wins, draws, losses) in self._ratings.items()})

    def matches(self, *, game: str | None = None, status: str | None = None,
                limit: int | None = None) -> list[LadderMatchRow]:
        def query() -> list[LadderMatchRow]:
            rows = sorted((m for m in self._matches.values()
                           if (game is None or m.game == game)
                           and (status is None or m.status == status)),
                          key=lambda m: m.match_id)
            rows.sort(key=lambda m: m.started, reverse=True)  # stable: then by match id
            return [_copy_match(m) for m in rows[:limit]]

        return self.store.read(query)

    def history(self, entity_id: int, limit: int | None = None) -> list[dict[str, Any]]:
        def query() -> list[dict[str, Any]]:
            points = [dict(p) for (entity, _), p in sorted(self._history.items())
                      if entity == entity_id]
            return points if limit is None else points[max(0, len(points) - limit):]

        return self.store.read(query)

    def flush(self) -> None:
        self.store.flush()

    # ---- writing -----------------------------------------------------------------------------

    def save_entity(self, entity: Entity, start: Rating) -> None:
        def change() -> None:
            if entity.id in self._entities or any(
                    e.key == entity.key for e in self._entities.values()):
                raise StoreError(f"entity {entity.id} ({'/'.join(entity.key)}) exists")
            self._entities[entity.id] = entity
            self._ratings[entity.id] = (start, 0, 0, 0)

        self.store.write(change)

    def save_start(self, match_id: str, game: str, entities: Sequence[int],
                   before: Sequence[Rating], started: float, started_at: str,
                   twin: str | None = None) -> None:
        row = LadderMatchRow(match_id, game, list(entities), "live", None, None, None,
                             list(before), None, started, started_at, None, twin)

        def change() -> None:
            if match_id in self._matches:
                raise StoreError(f"ladder match {match_id!r} exists")
            self._matches[match_id] = row

        self.store.write(change)

    def save_void(self, match_id: str, reason: str, ended_at: str) -> None:
        def change() -> None:
            if not self._ended(match_id):
                self._update(match_id, status="void", reason=reason, ended_at=ended_at)

        self.store.write(change)

    def save_rated(self, result: RatedResult, reason: str, ended_at: str,
                   standings: Sequence[Standing]) -> None:
        ratings = {e: (s.rating, s.wins, s.draws, s.losses)
                   for e, s in zip(result.entities, standings, strict=True)}

        def change() -> None:
            if self._ended(result.match_id):  # the first result wins
                return
            self._rated(result, ended_at, status="rated", ranks=list(result.ranks),
                        reason=reason, ended_at=ended_at)
            self._ratings.update(ratings)

        self.store.write(change)

    def _ended(self, match_id: str) -> bool:
        """Whether the raw row of ``match_id`` exists and is rated or void already."""
        row = self._matches.get(match_id)
        return row is not None and row.status != "live"

    def _update(self, match_id: str, **changes: Any) -> None:
        if match_id in self._matches:
            self._matches[match_id] = replace(self._matches[match_id], **changes)

    def _rated(self, result: RatedResult, at: str, **changes: Any) -> None:
        """Write one rated result's seq, ratings before and after (and ``changes``) into its
        raw row, and its history points (at ``at``)."""
        if result.match_id not in self._matches:
            return
        self._update(result.match_id, seq=result.seq, before=list(result.before),
                     after=list(result.after), **changes)
        for entity, rank, after in zip(result.entities, result.ranks, result.after,
                                       strict=True):
            self._history[(entity, result.seq)] = rating_point(
                result.seq, result.match_id, at, rank, after.mu, after.sigma)

    def replace_derived(self, book: LadderBook, results: Sequence[RatedResult],
                        ended_at: dict[str, str]) -> None:
        def change() -> None:
            self._history.clear()
            for r in results:  # the raw rows keep their ranks, reason and end time
                self._rated(r, ended_at[r.match_id])
            self._ratings = {e: (s.rating, s.wins, s.draws, s.losses)
                             for e, s in book.standings.items()}

        self.store.write(change)


def _copy_match(row: LadderMatchRow) -> LadderMatchRow:
    return replace(row, entities=list(row.entities),
                   ranks=None if row.ranks is None else list(row.ranks),
                   before=None if row.before is None else list(row.before),
                   after=None if row.after is None else list(row.after))
