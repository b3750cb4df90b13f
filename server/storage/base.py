"""The storage interface: what the server needs from any backend, and the rows it trades in.

:class:`Store` holds accounts and matches and hands out the ladder's sub-store
(:meth:`Store.ladder`, a :class:`~server.storage.ladder.LadderStore`) and the tournaments'
(:meth:`Store.tournaments`, a :class:`~server.storage.tournaments.TournamentStore`). Every
backend implements them all and passes the contract suite in ``tests/storage/``.

Contract:

* Bearer tokens are never stored: an account keeps the SHA-256 of its token
  (:func:`token_hash`). :meth:`Store.create_account` returns the token once. Likewise a
  person's login tokens (:meth:`Store.create_login`, one per signed-in browser), and a
  password is kept only as the hash :mod:`server.accounts` made of it, which no read but
  :meth:`Store.password_hash` returns (an :class:`Account` never carries it).
  :meth:`Store.revoke_tokens` leaves an account with no working token;
  :meth:`Store.set_banned` bans or unbans one. ``house-`` names are the house bots' only.
* Match writes (:meth:`Store.save_match`, :meth:`Store.append_actions`,
  :meth:`Store.update_match`) and the ladder's writes return at once: a backend may apply
  them later (SQLite: on a writer thread, many per commit), but in the order they were
  made, so the event loop never waits for the disk. :meth:`Store.flush` blocks until
  everything queued so far is committed, and raises :class:`StoreError` if a queued write
  failed.
* A live match's progress is appended, not rewritten: :meth:`Store.append_actions` adds new
  log entries, so the cost per action stays constant however long the match.
  :meth:`Store.update_match` writes the whole log once, when the match ends.
* Reads (``get_*``/``list_*``) see what is committed; they may touch the disk, so the server
  calls them off the event loop where they may be slow (replays).
* A match is stored as game + options + seat count + seed + action log (+ a custom start
  state, its chance mode, and its duplicate pair if it is one of one), so replays cost
  nothing; live matches are written as they go (status ``live``),
  with their ``live_state`` (the seats' clocks at the last stored action, and the hashes
  of the seated sessions' resume tokens), so a restarted server resumes them. The
  ``live_state`` is dropped once the match ends.
* Results are written once: a match stored ``over`` or ``void`` is final, and a later
  :meth:`Store.update_match` of it, or appended progress of it (moves, ``live_state``), is
  ignored; likewise the ladder's :meth:`~server.storage.ladder.LadderStore.save_rated` and
  :meth:`~server.storage.ladder.LadderStore.save_void` of a match whose raw result is rated or
  void already (its ratings are not touched). The first result wins: a second server that
  resumed the same match cannot overwrite or double it.
"""

from __future__ import annotations

import hashlib
import secrets
import sys
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from server.storage.ladder import LadderStore
    from server.storage.person_ratings import PersonRatingsStore
    from server.storage.tournaments import TournamentStore

ACCOUNT_KINDS = ("human", "bot", "admin")
MATCH_STATUSES = ("live", "over", "void")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A bearer token: 256 random bits, URL-safe, prefixed so that it never starts with ``-``
    (a token pasted after ``--token`` must not read as an option) and is recognisable in a
    secret scanner."""
    return "arena_" + secrets.token_urlsafe(32)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


HOUSE_PREFIX = "house-"
"""Account names that start with this are the house bots' (``arena run`` makes them): nobody
else may take one, as an account or as a guest's name (:func:`is_reserved_name`)."""


def name_key(name: str) -> str:
    """What two names that look alike have in common: NFKC-normalised (full-width letters,
    ligatures, …), case-folded, and every dash, space, dot or underscore read as ``-``; so
    ``ＨＯＵＳＥ_deep`` and ``House–deep`` both read ``house-deep``."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join("-" if unicodedata.category(c) in ("Pd", "Zs", "Pc") or c == "." else c
                   for c in folded)


def is_reserved_name(name: str) -> bool:
    """Whether ``name`` reads as a house bot's (see :func:`name_key`)."""
    return name_key(name).startswith(HOUSE_PREFIX)


@dataclass(frozen=True)
class Account:
    name: str
    kind: str
    created_at: str
    banned: bool = False
    """A banned account cannot log in (``hello`` is refused); its data stays."""
    owner: str | None = None
    """A bot made by a person (:meth:`Store.create_account` with ``owner``): that person's
    account name; the person makes and revokes its tokens."""


@dataclass
class MatchRow:
    """One stored match. ``seats`` is ``[{"seat", "name", "kind"}]``; ``seed`` is secret."""

    id: str
    game: str
    options: dict[str, Any]
    num_seats: int
    seed: int
    seats: list[dict[str, Any]]
    clock: dict[str, Any] | None = None
    start: dict[str, Any] | None = None
    log: list[dict[str, Any]] = field(default_factory=list)
    outcome: dict[str, Any] | None = None
    status: str = "live"
    moves: int = 0
    created_at: str = field(default_factory=utc_now)
    ended_at: str | None = None
    live_state: dict[str, Any] | None = None
    """While live: what a restarted server needs beyond the log to resume the match
    (``{"clocks_ms": [...] | None, "resume": [token hash | None per seat]}``); secret, and
    ``None`` once the match has ended."""
    chance: str = "rng"
    """How the match resolves chance (:data:`engine.match.CHANCE_MODES`): a resumed match
    deals again the same way."""
    pair: dict[str, Any] | None = None
    """One of a duplicate pair (:mod:`server.pairs`): ``{"id", "game", "twin"}``."""

    def record(self) -> dict[str, Any]:
        """The replay record **without** the seed (what a client of a finished match gets)."""
        return {"game": self.game, "num_seats": self.num_seats, "options": self.options,
                "start": self.start, "log": self.log, "outcome": self.outcome}

    def summary(self) -> dict[str, Any]:
        """Public facts, fit for any client at any time (no log, no seed)."""
        out = {"match_id": self.id, "game": self.game, "seats": self.seats,
               "status": self.status, "started_at": self.created_at,
               "ended_at": self.ended_at, "moves": self.moves, "outcome": self.outcome}
        if self.pair is not None:
            out["pair"] = self.pair
        return out


class StoreError(Exception):
    pass


def check_new_account(name: str, kind: str, house: bool = False) -> None:
    """Raise :class:`StoreError` unless ``name`` and ``kind`` make a valid account (every
    backend checks the same rules before it looks for a clash): a house bot's name
    (:func:`is_reserved_name`) only for a bot made with ``house=True``."""
    if kind not in ACCOUNT_KINDS:
        raise StoreError(f"account kind must be one of {', '.join(ACCOUNT_KINDS)}")
    if not name or len(name) > 64 or not name.replace("-", "").replace("_", "").replace(
            ".", "").isalnum():
        raise StoreError("account names are 1-64 letters, digits, '-', '_' or '.'")
    if is_reserved_name(name) and not (house and kind == "bot"):
        raise StoreError(f"names starting {HOUSE_PREFIX!r} are reserved for the house bots "
                         "that `arena run` makes")


def claimed_seats(seats: Sequence[dict[str, Any]], guest: str, name: str
                  ) -> list[dict[str, Any]] | None:
    """A match's ``seats`` with the guest ``guest``'s seats given to account ``name`` (see
    :meth:`Store.claim_matches`), or ``None`` if the guest held none."""
    if not any(s.get("name") == guest and s.get("kind") == "guest" for s in seats):
        return None
    return [{**s, "name": name, "kind": "human"}
            if s.get("name") == guest and s.get("kind") == "guest" else dict(s)
            for s in seats]


def check_status(status: str) -> None:
    if status not in MATCH_STATUSES:
        raise StoreError(f"unknown match status {status!r}")


def merge_log(stored: Sequence[dict[str, Any]],
              runs: Iterable[tuple[int, Sequence[dict[str, Any]]]]) -> list[dict[str, Any]]:
    """A live match's log: the row's ``stored`` log continued by appended ``runs`` of
    consecutive entries, ``(first index, entries)`` each, in the order given. An entry at an
    index the log has already rewrites it, one just past the end extends it, and one beyond
    a gap is dropped (the server never leaves one)."""
    log = list(stored)
    for first, entries in runs:
        for idx, entry in enumerate(entries, first):
            if idx == len(log):
                log.append(entry)
            elif idx < len(log):
                log[idx] = entry
    return log


class Store(ABC):
    """What the server needs from storage. Implementations are thread-safe."""

    # accounts
    def create_account(self, name: str, kind: str, *, house: bool = False,
                       owner: str | None = None) -> str:
        """Create an account and return its bearer token (shown once, stored hashed).
        Raises :class:`StoreError` if the name is taken (by a name that reads the same,
        :func:`name_key`) or invalid, or the kind unknown; a ``house-`` name only with
        ``house=True`` (a house bot of ``arena run``). ``owner``: a bot made by that person
        (an existing account)."""
        check_new_account(name, kind, house)
        if owner is not None and (kind != "bot" or self.get_account(owner) is None):
            raise StoreError("only a bot has an owner, and the owner must be an account")
        self._check_name_free(name)
        token = new_token()
        self._add_account(Account(name, kind, utc_now(), owner=owner), token_hash(token))
        return token

    def create_person(self, name: str, password_hash: str) -> Account:
        """Create a person's account (kind ``human``) that signs in with a password whose
        hash is ``password_hash``; it has no bearer token. Same name rules as
        :meth:`create_account`."""
        check_new_account(name, "human")
        self._check_name_free(name)
        account = Account(name, "human", utc_now())
        # A hash of a token nobody ever saw: no bearer token works for this account.
        self._add_account(account, "none:" + token_hash(new_token()), password_hash)
        return account

    def _check_name_free(self, name: str) -> None:
        if self.get_account(name) is not None or self.similar_account(name) is not None:
            raise StoreError(f"an account named {name!r} exists already")

    def similar_account(self, name: str) -> Account | None:
        """The account whose name reads as ``name`` does (:func:`name_key`: case, width
        and dashes aside), if any."""
        key = name_key(name)
        return next((a for a in self.list_accounts() if name_key(a.name) == key), None)

    def password_hash(self, name: str) -> str | None:
        """The stored password hash of an account (``None``: none set, or no such
        account). Only for checking a password: never logged or sent."""
        return self._password_hash(name)

    def set_password_hash(self, name: str, password_hash: str) -> None:
        """Replace an account's password hash, committed on return. Raises
        :class:`StoreError` for an unknown account."""
        if self.get_account(name) is None:
            raise StoreError(f"no account named {name!r}")
        self._set_password_hash(name, password_hash)

    def create_login(self, name: str) -> str:
        """A new login token for account ``name`` (one per signed-in browser; stored hashed,
        returned once); it works wherever the account's bearer token does
        (:meth:`account_for_token`). Raises :class:`StoreError` for an unknown account."""
        if self.get_account(name) is None:
            raise StoreError(f"no account named {name!r}")
        token = new_token()
        self._add_login(name, token_hash(token), utc_now())
        return token

    def revoke_login(self, hashed_token: str) -> None:
        """Make the login token with this :func:`token_hash` stop working (sign out);
        committed on return. Unknown hashes are ignored."""
        self._delete_logins([hashed_token])

    def revoke_logins(self, name: str, keep: str | None = None) -> list[str]:
        """Revoke every login token of account ``name`` but the one whose hash is ``keep``;
        committed on return. Returns the hashes revoked."""
        gone = [h for h in self._login_hashes(name) if h != keep]
        self._delete_logins(gone)
        return gone

    def owned_bots(self, owner: str) -> list[Account]:
        """The bots whose owner is ``owner``, by name."""
        return [a for a in self.list_accounts() if a.owner == owner]

    @abstractmethod
    def claim_matches(self, guest: str, name: str) -> int:
        """Give the finished matches (``over`` or ``void``) in which the guest ``guest``
        (its whole name, ``zoe#3f1a``) held a seat to account ``name``: each such seat is
        then ``{"name": name, "kind": "human"}``. Committed on return; returns how many
        matches changed."""

    @abstractmethod
    def _password_hash(self, name: str) -> str | None: ...

    @abstractmethod
    def _set_password_hash(self, name: str, password_hash: str) -> None:
        """Committed on return."""

    @abstractmethod
    def _add_login(self, name: str, hashed_token: str, created_at: str) -> None:
        """Committed on return."""

    @abstractmethod
    def _login_hashes(self, name: str) -> list[str]: ...

    @abstractmethod
    def _delete_logins(self, hashed_tokens: Sequence[str]) -> None:
        """Committed on return."""

    def rotate_token(self, name: str) -> str:
        """Give an existing account a new bearer token (the old one stops working) and
        return it. Raises :class:`StoreError` for an unknown account."""
        if self.get_account(name) is None:
            raise StoreError(f"no account named {name!r}")
        token = new_token()
        self._set_token_hash(name, token_hash(token))
        return token

    def revoke_tokens(self, name: str) -> None:
        """Invalidate the account's bearer token and issue none (:meth:`rotate_token` gives
        it a new one). Raises :class:`StoreError` for an unknown account."""
        if self.get_account(name) is None:
            raise StoreError(f"no account named {name!r}")
        # A hash of a token nobody ever saw: no token matches it.
        self._set_token_hash(name, "revoked:" + token_hash(new_token()))

    def set_banned(self, name: str, banned: bool) -> None:
        """Ban (``True``) or unban an account, committed on return. Raises
        :class:`StoreError` for an unknown account."""
        if self.get_account(name) is None:
            raise StoreError(f"no account named {name!r}")
        self._set_banned(name, banned)

    @abstractmethod
    def _set_banned(self, name: str, banned: bool) -> None:
        """Set an existing account's ban flag, committed on return."""

    @abstractmethod
    def _add_account(self, account: Account, hashed_token: str,
                     password_hash: str | None = None) -> None:
        """Store a new account (with its owner, and a password hash if given), committed on
        return (:class:`StoreError` if the name is taken after all)."""

    @abstractmethod
    def _set_token_hash(self, name: str, hashed_token: str) -> None:
        """Replace an account's token hash, committed on return."""

    def account_for_token(self, token: str) -> Account | None:
        """The account whose bearer token or login token (:meth:`create_login`) this is
        (``None`` for an unknown token); a banned account is returned too (with ``banned``
        set): the caller refuses it."""
        return self._account_by_token_hash(token_hash(token))

    def account_for_token_hash(self, hashed_token: str) -> Account | None:
        """:meth:`account_for_token` for a token known only by its :func:`token_hash` (the
        server keeps a session's, to see at a resume that it still holds)."""
        return self._account_by_token_hash(hashed_token)

    @abstractmethod
    def _account_by_token_hash(self, hashed_token: str) -> Account | None: ...

    @abstractmethod
    def get_account(self, name: str) -> Account | None: ...

    @abstractmethod
    def list_accounts(self) -> list[Account]:
        """Every account, by name."""

    # matches
    @abstractmethod
    def save_match(self, row: MatchRow) -> None:
        """Queue an insert-or-replace of the whole row."""

    @abstractmethod
    def append_actions(self, entries: Sequence[tuple[str, int, dict[str, Any]]],
                       moves: Mapping[str, int],
                       live_states: Mapping[str, dict[str, Any]] | None = None) -> None:
        """Queue new log entries of live matches, ``(match_id, index, entry)`` each (each
        match's in order), their move counts, and their new ``live_state`` (replacing the
        stored one). A live match read back has its row's log continued by these
        (:func:`merge_log`). The moves and state of a match that has ended are not
        changed."""

    @abstractmethod
    def update_match(self, match_id: str, *, log: Sequence[dict[str, Any]], moves: int,
                     status: str = "live", outcome: dict[str, Any] | None = None,
                     ended_at: str | None = None) -> None:
        """Queue a write of a match's whole log and status (and, when it ends, its
        result; ``None`` keeps what is stored). Once the status is not ``live`` the log
        is the whole log: appended entries and the ``live_state`` are dropped. Raises
        :class:`StoreError` for an unknown status; an unknown match, and one that has ended
        already (``over`` or ``void``: the first result wins), are left alone."""

    def live_matches(self) -> list[MatchRow]:
        """At start-up: the matches still ``live``, each whole (log and ``live_state``),
        oldest first: cut off by a stop or a crash of an earlier server, to resume."""
        rows = [self.get_match(row.id) for row in self.list_matches(status="live",
                                                                    limit=sys.maxsize)]
        return [row for row in reversed(rows) if row is not None]

    def void_match(self, row: MatchRow, reason: str = "void") -> None:
        """End a stored live match ``void`` (unrated, log kept): one that cannot be
        resumed."""
        self.update_match(row.id, log=row.log, moves=row.moves, status="void",
                          outcome={"ranks": [0] * row.num_seats, "reason": reason},
                          ended_at=utc_now())

    def void_live_matches(self) -> int:
        """Mark every match still ``live`` ``void`` (unrated, logs kept) and return how
        many: for a server started with resuming turned off."""
        live = self.live_matches()
        for row in live:
            self.void_match(row)
        self.flush()
        return len(live)

    @abstractmethod
    def get_match(self, match_id: str) -> MatchRow | None:
        """The match with its whole log (a live one's appended entries included)."""

    @abstractmethod
    def list_matches(self, *, status: str | None = None, game: str | None = None,
                     limit: int = 100) -> list[MatchRow]:
        """Matches newest first (``created_at``, then ``id``). A live match's ``log`` here
        may lack its appended entries: :meth:`get_match` reads a whole one."""

    # the ladder
    @abstractmethod
    def ladder(self) -> LadderStore:
        """The ladder's tables in this store (the same object every call); its writes are
        queued in order with this store's."""

    @abstractmethod
    def person_ratings(self) -> PersonRatingsStore:
        """People's ratings per game in this store (:mod:`server.storage.person_ratings`;
        the same object every call); its writes are queued in order with this store's."""

    @abstractmethod
    def tournaments(self) -> TournamentStore:
        """The tournaments' tables in this store (:mod:`server.storage.tournaments`; the
        same object every call); its writes are queued in order with this store's."""

    @abstractmethod
    def check_writable(self) -> None:
        """Make one small real write now, in order with the queued ones, and return once it
        is committed; raise :class:`StoreError` saying why when it cannot be (a closed
        store, a file that is gone or read-only, a full disk). The writes queued before it
        are not reported here: :meth:`flush` reports them. For ``/healthz``."""

    @abstractmethod
    def flush(self) -> None:
        """Block until every queued write is committed; raise :class:`StoreError` if one
        failed since the last flush."""

    @abstractmethod
    def close(self) -> None:
        """Flush and release the backend; the store is not used again."""
