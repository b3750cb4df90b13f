"""People's accounts: sign up, sign in and out, passwords, login tokens, and their bots.

A person signs up with a name and a password (``sign_up``, from a guest's session: the
session becomes the account's, and with ``claim`` the guest's finished matches become the
account's), or signs in (``sign_in``, likewise from a guest's session). Either answer carries
a **login token**: the browser keeps it and says ``hello {token}`` with it next time, as a bot
does with its bearer token. A person may be signed in on several browsers, one login token
each: ``sign_out`` revokes this one only (and closes the session), ``change_password`` every
other one (and closes their sessions). A person makes bots (``create_bot``), whose bearer
tokens it shows once, rotates and revokes (``rotate_bot_token``, ``revoke_bot_token``;
``list_my_bots``), as ``arena account`` does on the command line.

Passwords: kept only as argon2id hashes (``argon2-cffi``; a stored hash made with weaker
parameters is replaced at the next sign-in), never logged, never sent. The rules
(:func:`password_problem`): not empty, at least :data:`MIN_PASSWORD` characters, at most
:data:`MAX_PASSWORD`, not the name, not one of the commonest passwords.

Sign-in attempts are limited (:class:`LoginLimiter`): :data:`FAILURES_PER_NAME` failed
attempts a minute per account name (whether or not the account exists: a refusal says
nothing about that) and :data:`FAILURES_PER_ADDRESS` per address; beyond, ``rate_limited``
with ``retry_after`` and ``details.budget`` ``"login"``. Sign-ups are limited per address
(:data:`SIGN_UPS_PER_ADDRESS` per :data:`SIGN_UP_WINDOW_S`).

Every refusal is a typed error: ``bad_request`` with ``details.field`` and ``details.rule``
for a bad name or password, ``unauthorized`` for a wrong password or a session that may not
do this, ``not_found`` for a bot that is not yours.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import structlog
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from server.hub import Handler
from server.lobby import LobbyError
from server.sessions import Session, Sessions
from server.storage import (
    Account,
    Store,
    StoreError,
    is_reserved_name,
    name_key,
    token_hash,
)
from server.storage.base import check_new_account

if TYPE_CHECKING:  # (a type only: accounts do no websocket I/O of their own)
    from server.connection import Connection

log = structlog.get_logger("arena.accounts")

MIN_PASSWORD = 8
MAX_PASSWORD = 256
"""Characters; a longer password is refused (argon2 would take it, but nobody types it)."""
COMMON_PASSWORDS = frozenset("""
123456 1234567 12345678 123456789 1234567890 0123456789 987654321 11111111 00000000
12121212 123123123 password password1 password12 password123 passw0rd p@ssw0rd qwerty123
qwertyuiop qwerty12 1q2w3e4r 1q2w3e4r5t 1qaz2wsx zaq12wsx iloveyou iloveyou1 sunshine
princess football baseball welcome1 welcome123 abc12345 abcd1234 letmein1 trustno1
superman batman123 starwars dragon123 monkey123 master123 shadow123 computer internet
whatever changeme changeme1 administrator admin123 admin1234 asdfghjk asdfasdf aaaaaaaa
chess123 tabletop arena123 qazwsxedc 88888888 66666666 55555555 q1w2e3r4 q1w2e3r4t5
""".split())
"""The commonest passwords of at least :data:`MIN_PASSWORD` characters (case-folded)."""
FAILURES_PER_NAME = 5
FAILURES_PER_ADDRESS = 20
FAILURE_WINDOW_S = 60.0
SIGN_UPS_PER_ADDRESS = 20
SIGN_UP_WINDOW_S = 600.0
MAX_BOTS = 20
"""Bots one person may make."""
HASHING_AT_ONCE = 2
"""Password hashes computed at once (each takes ~19 MiB and tens of milliseconds of a core):
more sign-ins wait their turn instead of exhausting the machine."""

HASHER = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
"""argon2id with OWASP's recommended parameters (19 MiB, two passes)."""
_DUMMY_HASH = HASHER.hash("not anybody's password")
"""Verified against when the name is unknown, so that a refusal takes as long either way."""


def hash_password(password: str) -> str:
    return HASHER.hash(password)


def verify_password(stored: str | None, password: str) -> tuple[bool, str | None]:
    """Whether ``password`` matches the ``stored`` hash (``None``: no account or no
    password; checked against a dummy hash so that it takes as long), and a new hash to
    store when the stored one was made with weaker parameters."""
    try:
        HASHER.verify(stored or _DUMMY_HASH, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False, None
    if stored is None:
        return False, None
    return True, hash_password(password) if HASHER.check_needs_rehash(stored) else None


def password_problem(name: str, password: str) -> tuple[str, str] | None:
    """``(rule, message)`` when ``password`` may not be ``name``'s password, else ``None``.
    Rules: ``empty``, ``too_short``, ``too_long``, ``same_as_name``, ``common``."""
    if not password:
        return "empty", "the password is empty"
    if len(password) < MIN_PASSWORD:
        return "too_short", f"a password has at least {MIN_PASSWORD} characters"
    if len(password) > MAX_PASSWORD:
        return "too_long", f"a password has at most {MAX_PASSWORD} characters"
    if name_key(password) == name_key(name) or password.casefold() in name.casefold():
        return "same_as_name", "the password must not be the account's name"
    if password.casefold() in COMMON_PASSWORDS:
        return "common", "that password is one of the commonest: choose another"
    return None


def name_problem(name: str, kind: str = "human") -> tuple[str, str] | None:
    """``(rule, message)`` when ``name`` may not name a new account, else ``None``. Rules:
    ``reserved`` (a house bot's), ``invalid`` (see
    :func:`server.storage.base.check_new_account`)."""
    if is_reserved_name(name):
        return "reserved", "names starting 'house-' are the house bots'"
    try:
        check_new_account(name, kind)
    except StoreError:
        return "invalid", "account names are 1-64 letters, digits, '-', '_' or '.'"
    return None


def _bad(field: str, problem: tuple[str, str], **more: Any) -> LobbyError:
    rule, message = problem
    return LobbyError("bad_request", message, field=field, rule=rule, **more)


class _Window:
    """Events in a sliding window, per key."""

    def __init__(self, limit: int, window_s: float) -> None:
        self.limit = limit
        self.window_s = window_s
        self._times: dict[str, collections.deque[float]] = {}

    def wait(self, key: str, now: float) -> float:
        """Seconds until one more event of ``key`` is allowed (0: now)."""
        times = self._times.get(key)
        if times is None:
            return 0.0
        while times and times[0] <= now - self.window_s:
            times.popleft()
        if not times:
            del self._times[key]
            return 0.0
        return max(0.0, times[0] + self.window_s - now) if len(times) >= self.limit else 0.0

    def add(self, key: str, now: float) -> None:
        self._times.setdefault(key, collections.deque()).append(now)

    def sweep(self, now: float) -> None:
        for key in list(self._times):
            self.wait(key, now)


@dataclass
class AccountLimits:
    failures_per_name: int = FAILURES_PER_NAME
    failures_per_address: int = FAILURES_PER_ADDRESS
    failure_window_s: float = FAILURE_WINDOW_S
    sign_ups_per_address: int = SIGN_UPS_PER_ADDRESS
    sign_up_window_s: float = SIGN_UP_WINDOW_S


class LoginLimiter:
    """Failed password checks per account name and per address, and sign-ups per address,
    each in a sliding window. Calling contract: :meth:`login_wait` before checking a
    password, :meth:`failed` after a wrong one; :meth:`sign_up_wait` before a sign-up,
    :meth:`signed_up` after one."""

    def __init__(self, limits: AccountLimits | None = None) -> None:
        limits = limits or AccountLimits()
        self._names = _Window(limits.failures_per_name, limits.failure_window_s)
        self._addresses = _Window(limits.failures_per_address, limits.failure_window_s)
        self._sign_ups = _Window(limits.sign_ups_per_address, limits.sign_up_window_s)

    def login_wait(self, name: str, address: str, now: float) -> float:
        return max(self._names.wait(name_key(name), now), self._addresses.wait(address, now))

    def failed(self, name: str, address: str, now: float) -> None:
        self._names.add(name_key(name), now)
        self._addresses.add(address, now)

    def sign_up_wait(self, address: str, now: float) -> float:
        return self._sign_ups.wait(address, now)

    def signed_up(self, address: str, now: float) -> None:
        self._sign_ups.add(address, now)

    def sweep(self, now: float) -> None:
        for window in (self._names, self._addresses, self._sign_ups):
            window.sweep(now)


class AccountHost(Protocol):
    """What the accounts service needs of the server."""

    @property
    def store(self) -> Store: ...
    @property
    def sessions(self) -> Sessions: ...

    def add_handlers(self, handlers: Mapping[str, Handler]) -> None: ...
    def address_of(self, conn: Connection) -> str:
        """The peer address of a connection."""
    def identified(self, conn: Connection, session: Session) -> None:
        """``session`` (``conn``'s) is now who its ``name`` and ``kind`` say: charge its
        messages accordingly."""
    def close_session(self, session: Session, why: str, code: int = 1008) -> None:
        """Forget ``session`` now and close its connection (its seats go away)."""
    def expel(self, name: str, why: str) -> int: ...
    def renamed_seats(self, guest: str, account: Account) -> None:
        """The recent finished matches in memory name ``account`` where they named the
        guest ``guest`` (what :meth:`server.storage.Store.claim_matches` did in storage)."""


class AccountService:
    """The account messages of one server (see the module docstring). ``clock``: seconds,
    monotonic (injected for tests)."""

    def __init__(self, host: AccountHost, limits: AccountLimits | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.host = host
        self.limiter = LoginLimiter(limits)
        self._clock = clock
        self._hashing = asyncio.Semaphore(HASHING_AT_ONCE)
        host.add_handlers(self.handlers())

    def handlers(self) -> dict[str, Handler]:
        return {"sign_up": self._sign_up, "sign_in": self._sign_in,
                "sign_out": self._sign_out, "change_password": self._change_password,
                "create_bot": self._create_bot, "rotate_bot_token": self._rotate_bot_token,
                "revoke_bot_token": self._revoke_bot_token, "list_my_bots": self._list_my_bots}

    # ---- helpers -------------------------------------------------------------------------------

    @property
    def store(self) -> Store:
        return self.host.store

    async def _hash(self, password: str) -> str:
        async with self._hashing:
            return await asyncio.to_thread(hash_password, password)

    async def _verify(self, stored: str | None, password: str) -> tuple[bool, str | None]:
        async with self._hashing:
            return await asyncio.to_thread(verify_password, stored, password)

    @staticmethod
    def _reply(conn: Connection, msg: dict[str, Any], reply: dict[str, Any]) -> None:
        conn.protocol.reply(msg, reply)

    @staticmethod
    def _as_guest_without_seats(session: Session, what: str) -> None:
        if session.kind != "guest":
            raise LobbyError("bad_request", f"already signed in: sign_out first to {what}")
        if session.seats:
            raise LobbyError("bad_request", f"finish your live matches first to {what}")

    @staticmethod
    def _signed_in(session: Session) -> None:
        if session.kind not in ("human", "admin"):
            raise LobbyError("unauthorized", "sign in to a person's account first")

    def _become(self, conn: Connection, session: Session, account: Account, login: str
                ) -> None:
        """A guest's session becomes the account's, logged in with login token ``login``."""
        session.name, session.kind = account.name, account.kind
        session.credential = token_hash(login)
        self.host.identified(conn, session)

    def _limited(self, wait: float, what: str) -> LobbyError:
        return LobbyError("rate_limited", f"too many {what}; try again later",
                            retry_after=wait, budget="login")

    def _failures_wait(self, name: str, address: str) -> None:
        wait = self.limiter.login_wait(name, address, self._clock())
        if wait > 0:
            raise self._limited(wait, "failed sign-ins")

    async def _owned_bot(self, session: Session, bot: str) -> Account:
        account = await asyncio.to_thread(self.store.get_account, bot)
        if account is None or account.kind != "bot" or account.owner != session.name:
            raise LobbyError("not_found", "you have no bot of that name")
        return account

    # ---- handlers ----------------------------------------------------------------------------

    def _sign_up(self, conn: Connection, session: Session, msg: dict[str, Any]
                 ) -> Any:
        self._as_guest_without_seats(session, "sign up")
        name, password = msg["name"], msg["password"]
        problem = name_problem(name)
        if problem is not None:
            raise _bad("name", problem)
        problem = password_problem(name, password)
        if problem is not None:
            raise _bad("password", problem, min_length=MIN_PASSWORD)
        address = self.host.address_of(conn)
        wait = self.limiter.sign_up_wait(address, self._clock())
        if wait > 0:
            raise self._limited(wait, "sign-ups from your address")
        return self._finish_sign_up(conn, session, msg, name, password, address)

    async def _finish_sign_up(self, conn: Connection, session: Session, msg: dict[str, Any],
                              name: str, password: str, address: str) -> None:
        taken = LobbyError("bad_request", "that name is taken", field="name", rule="taken")
        if await asyncio.to_thread(self.store.similar_account, name) is not None:
            raise taken
        hashed = await self._hash(password)
        try:
            account = await asyncio.to_thread(self.store.create_person, name, hashed)
        except StoreError:
            raise taken from None  # (another sign-up took it meanwhile)
        self.limiter.signed_up(address, self._clock())
        login = await asyncio.to_thread(self.store.create_login, name)
        guest = session.name
        claimed = 0
        if msg.get("claim"):
            claimed = await asyncio.to_thread(self.store.claim_matches, guest, name)
            self.host.renamed_seats(guest, account)
        self._become(conn, session, account, login)
        conn.log.info("signed_up", claimed=claimed)
        self._reply(conn, msg, {"type": "signed_in", "account": session.account,
                                "login_token": login, "claimed": claimed})

    def _sign_in(self, conn: Connection, session: Session, msg: dict[str, Any]) -> Any:
        self._as_guest_without_seats(session, "sign in")
        address = self.host.address_of(conn)
        self._failures_wait(msg["name"], address)
        return self._finish_sign_in(conn, session, msg, address)

    async def _finish_sign_in(self, conn: Connection, session: Session, msg: dict[str, Any],
                              address: str) -> None:
        name, password = msg["name"], msg["password"]

        def find() -> tuple[Account | None, str | None]:
            account = self.store.get_account(name) or self.store.similar_account(name)
            return account, None if account is None else self.store.password_hash(account.name)

        account, stored = await asyncio.to_thread(find)
        ok, rehashed = await self._verify(stored, password)
        if not ok or account is None:
            self.limiter.failed(name, address, self._clock())
            conn.log.info("sign_in_refused")
            raise LobbyError("unauthorized", "wrong name or password")
        if account.banned:
            raise LobbyError("unauthorized", "this account is banned")
        if rehashed is not None:
            await asyncio.to_thread(self.store.set_password_hash, account.name, rehashed)
        login = await asyncio.to_thread(self.store.create_login, account.name)
        self._become(conn, session, account, login)
        conn.log.info("signed_in")
        self._reply(conn, msg, {"type": "signed_in", "account": session.account,
                                "login_token": login})

    async def _sign_out(self, conn: Connection, session: Session, msg: dict[str, Any]
                        ) -> None:
        if session.kind == "guest":
            raise LobbyError("bad_request", "a guest is not signed in")
        if session.credential is not None:
            await asyncio.to_thread(self.store.revoke_login, session.credential)
        conn.log.info("signed_out")
        self._reply(conn, msg, {"type": "ok"})
        conn.flush()
        # Closed once the reply is written (its write is scheduled first).
        asyncio.get_running_loop().call_soon(self.host.close_session, session,
                                             "signed out", 1000)

    def _change_password(self, conn: Connection, session: Session, msg: dict[str, Any]
                         ) -> Any:
        self._signed_in(session)
        address = self.host.address_of(conn)
        self._failures_wait(session.name, address)
        problem = password_problem(session.name, msg["new"])
        if problem is not None:
            raise _bad("new", problem, min_length=MIN_PASSWORD)
        return self._finish_change(conn, session, msg, address)

    async def _finish_change(self, conn: Connection, session: Session, msg: dict[str, Any],
                             address: str) -> None:
        stored = await asyncio.to_thread(self.store.password_hash, session.name)
        # An account made on the command line has no password yet: its first one is set
        # with an empty ``old`` (the session proved who it is with the account's token).
        if stored is not None or msg["old"]:
            ok, _ = await self._verify(stored, msg["old"])
            if not ok:
                self.limiter.failed(session.name, address, self._clock())
                raise LobbyError("unauthorized", "wrong password")
        hashed = await self._hash(msg["new"])
        await asyncio.to_thread(self.store.set_password_hash, session.name, hashed)
        revoked = set(await asyncio.to_thread(self.store.revoke_logins, session.name,
                                              session.credential))
        others = [s for s in self.host.sessions.of_account(session.name)
                  if s is not session and s.credential in revoked]
        for other in others:
            self.host.close_session(other, "password changed")
        conn.log.info("password_changed", signed_out=len(others))
        self._reply(conn, msg, {"type": "ok"})

    async def _create_bot(self, conn: Connection, session: Session, msg: dict[str, Any]
                          ) -> None:
        self._signed_in(session)
        name = msg["name"]
        problem = name_problem(name, "bot")
        if problem is not None:
            raise _bad("name", problem)
        mine = await asyncio.to_thread(self.store.owned_bots, session.name)
        if len(mine) >= MAX_BOTS:
            raise LobbyError("bad_request", f"a person may make at most {MAX_BOTS} bots",
                               field="name", rule="too_many")
        try:
            token = await asyncio.to_thread(self.store.create_account, name, "bot",
                                            owner=session.name)
        except StoreError:
            raise LobbyError("bad_request", "that name is taken", field="name",
                               rule="taken") from None
        conn.log.info("bot_created", bot=name)
        self._reply(conn, msg, {"type": "bot_token", "bot": name, "token": token})

    async def _rotate_bot_token(self, conn: Connection, session: Session,
                                msg: dict[str, Any]) -> None:
        self._signed_in(session)
        bot = await self._owned_bot(session, msg["bot"])
        token = await asyncio.to_thread(self.store.rotate_token, bot.name)
        self.host.expel(bot.name, "bot token replaced")
        conn.log.info("bot_token_rotated", bot=bot.name)
        self._reply(conn, msg, {"type": "bot_token", "bot": bot.name, "token": token})

    async def _revoke_bot_token(self, conn: Connection, session: Session,
                                msg: dict[str, Any]) -> None:
        self._signed_in(session)
        bot = await self._owned_bot(session, msg["bot"])
        await asyncio.to_thread(self.store.revoke_tokens, bot.name)
        self.host.expel(bot.name, "bot token revoked")
        conn.log.info("bot_token_revoked", bot=bot.name)
        self._reply(conn, msg, {"type": "ok"})

    async def _list_my_bots(self, conn: Connection, session: Session, msg: dict[str, Any]
                            ) -> None:
        self._signed_in(session)
        bots = await asyncio.to_thread(self.store.owned_bots, session.name)
        online = {name for name in (b.name for b in bots) if self.host.sessions.online(name)}
        self._reply(conn, msg, {"type": "my_bots", "bots": bot_rows(bots, online)})


def bot_rows(bots: Iterable[Account], online: set[str]) -> list[dict[str, Any]]:
    """``my_bots.bots``: each bot's name, creation time, ban and whether it is connected."""
    return [{"name": b.name, "created_at": b.created_at, "banned": b.banned,
             "online": b.name in online} for b in bots]
