"""Who may connect, and the budgets that connections share.

A connection's own budget lives in its :class:`protocol.ServerSession`; the budgets it shares
with other connections live here, so that a client cannot escape them by opening more
connections or by reconnecting:

* every connection from one peer address shares that **address's** budget until its session
  is open, and for as long as it is a guest's;
* a logged-in account (bot or human) shares its **account's** budget across all its
  connections instead, and does not spend its address's: the house bots of ``arena run``
  (and many bots behind one operator's address) each answer for themselves.

A shared budget is kept while a connection uses it and afterwards until it has refilled (a
full bucket is the same as a new one), so a flooder that reconnects finds it as it left it.

Plain HTTP requests for the JSON API are charged to their address's budget too
(:meth:`Admission.http_wait`; a listing costs more than a leaderboard), and refused with HTTP
429 and ``Retry-After`` when it is spent.

Guests also share one budget, server-wide, for their costly messages (those costing more
than a token: listings, replays): a flood spread over many addresses still buys at most
``Limits.guests_rate_per_s`` tokens of the server's time a second.

Two caps: at most ``Limits.max_connections_per_address`` websocket connections from one
address (more are refused at the handshake, HTTP 429), and at most ``Limits.max_guests``
guest sessions connected at once (a guest ``hello`` beyond it is answered ``rate_limited``).
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field

from protocol import Limits
from protocol.session import TokenBucket

GUEST_RETRY_AFTER_S = 5.0
"""The ``retry_after`` of a guest ``hello`` refused because the server has its fill of
guests: nothing says when one leaves, so a few seconds."""


@dataclass
class _Shared:
    bucket: TokenBucket
    holders: int = 0


@dataclass
class Admitted:
    """One admitted connection's place in the shared budgets (see :class:`Admission`)."""

    address: str
    account: str | None = None
    guest: bool = False
    left: bool = field(default=False, repr=False)


class Admission:
    """The shared budgets and the caps of one server (see the module docstring).

    Calling contract: :meth:`refusal` before accepting a connection; :meth:`enter` once it
    is accepted (then charge :meth:`budgets` with every message); :meth:`identify` when its
    session opens; :meth:`leave` when it ends. :meth:`sweep` now and then forgets refilled
    budgets nobody uses."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.connections: collections.Counter[str] = collections.Counter()
        """Open websocket connections, by peer address."""
        self.guests = 0
        """Connections that speak for a guest session."""
        self._addresses: dict[str, _Shared] = {}
        self._accounts: dict[str, _Shared] = {}
        self._guests_costly: TokenBucket | None = None

    # ---- caps --------------------------------------------------------------------------------

    def refusal(self, address: str) -> str | None:
        """Why a new connection from ``address`` must be refused, or ``None``."""
        cap = self.limits.max_connections_per_address
        if self.connections[address] >= cap:
            return f"too many connections from your address (at most {cap})"
        return None

    def guests_full(self) -> bool:
        """Whether a new guest session must be refused."""
        return self.guests >= self.limits.max_guests

    def http_wait(self, address: str, cost: float, now: float) -> float:
        """A plain HTTP request (the JSON API, the web client's files) from ``address``:
        charged to the address's budget, like a guest's message. Seconds to wait before
        asking again (0: served now, and charged ``cost``)."""
        self._hold(self._addresses, address, now)
        try:
            buckets = [self._addresses[address].bucket]
            if cost > 1:  # a listing: the guests' shared budget for costly messages too
                buckets.append(self._guests_budget(now))
            wait = max(bucket.wait(now) for bucket in buckets)
            if wait == 0.0:
                for bucket in buckets:
                    bucket.spend(cost)
            return wait
        finally:
            self._release(self._addresses, address)

    # ---- a connection's life -------------------------------------------------------------------

    def enter(self, address: str, now: float) -> Admitted:
        self.connections[address] += 1
        self._hold(self._addresses, address, now)
        return Admitted(address)

    def budgets(self, admitted: Admitted) -> tuple[TokenBucket, ...]:
        """The shared budgets this connection's messages are charged to now."""
        if admitted.account is not None:
            return (self._accounts[admitted.account].bucket,)
        return (self._addresses[admitted.address].bucket,)

    def costly(self, admitted: Admitted, now: float) -> TokenBucket | None:
        """The budget every guest (and every connection not yet welcomed) shares for its
        costly messages, or ``None`` for an account's connection."""
        return None if admitted.account is not None else self._guests_budget(now)

    def _guests_budget(self, now: float) -> TokenBucket:
        if self._guests_costly is None:
            self._guests_costly = TokenBucket(self.limits.guests_rate_per_s,
                                              self.limits.guests_burst, now, "guests")
        return self._guests_costly

    def identify(self, admitted: Admitted, account: str, kind: str, now: float) -> None:
        """The connection's session is open, for ``account`` of ``kind`` (a guest's name is
        its own, so guests are charged to their address)."""
        self._forget_identity(admitted)
        if kind == "guest":
            admitted.guest = True
            self.guests += 1
        else:
            admitted.account = account
            self._hold(self._accounts, account, now)

    def leave(self, admitted: Admitted) -> None:
        if admitted.left:
            return
        admitted.left = True
        self._forget_identity(admitted)
        self._release(self._addresses, admitted.address)
        self.connections[admitted.address] -= 1
        if self.connections[admitted.address] <= 0:
            del self.connections[admitted.address]

    def sweep(self, now: float) -> int:
        """Forget the shared budgets no connection holds that have refilled; how many."""
        forgotten = 0
        for table in (self._addresses, self._accounts):
            for key, shared in list(table.items()):
                shared.bucket.refill(now)
                if shared.holders <= 0 and shared.bucket.tokens >= shared.bucket.capacity:
                    del table[key]
                    forgotten += 1
        return forgotten

    # ---- the tables --------------------------------------------------------------------------

    def _forget_identity(self, admitted: Admitted) -> None:
        if admitted.guest:
            admitted.guest = False
            self.guests -= 1
        if admitted.account is not None:
            self._release(self._accounts, admitted.account)
            admitted.account = None

    def _hold(self, table: dict[str, _Shared], key: str, now: float) -> None:
        shared = table.get(key)
        if shared is None:
            limits = self.limits
            bucket = (TokenBucket(limits.account_rate_per_s, limits.account_burst, now,
                                  "account") if table is self._accounts else
                      TokenBucket(limits.address_rate_per_s, limits.address_burst, now,
                                  "address"))
            shared = table[key] = _Shared(bucket)
        shared.holders += 1

    def _release(self, table: dict[str, _Shared], key: str) -> None:
        shared = table.get(key)
        if shared is not None:
            shared.holders -= 1
