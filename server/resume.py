"""Resuming the live matches a stopped or crashed server left in its store.

A live match is stored as it goes (:class:`~server.recorder.MatchRecorder`): its seed,
options, seats and clock when it starts; its new log entries, move count and ``live_state``
(the seats' banks, and the SHA-256 of each seated session's resume token) a few times a
second. :func:`resume_match` rebuilds a :class:`~server.runner.MatchRunner` from that row
(:meth:`MatchRunner.resumed`: the seed deals again, from the generator or from the deck the
match was stored with, and the logged actions are replayed and re-checked) and restores its
seated sessions, away (:meth:`Sessions.restore`), so that

* a client that says ``hello`` with its old resume token, or logs in to the account that
  held the seat, gets the seat back: ``match_start`` and its pending request, as after any
  reconnect;
* a seat nobody claims within the grace period forfeits, as after any disconnect;
* each bank is what it was at the last stored action (after a crash) or at the stop (after
  a graceful one): the time the server was down is nobody's; each open decision starts
  again with a new ``request_id``. A simultaneous commitment not yet resolved is not
  stored: that seat is asked again.

What cannot be rebuilt (an unknown game, a log that no longer replays) is reported; the
caller ends it void.
"""

from __future__ import annotations

from typing import Protocol

from engine import registry
from server.clocks import Clock
from server.render import SeatInfo
from server.runner import MatchRunner, Outgoing
from server.sessions import Session
from server.storage import MatchRow


class Restorer(Protocol):
    """Makes the away session of a resumed seat (:meth:`server.sessions.Sessions.restore`;
    a cluster node makes placeholders that a seat's home node attaches)."""

    def restore(self, name: str, kind: str, resume_hash: str | None, now: float
                ) -> Session: ...


def resume_match(row: MatchRow, sessions: Restorer, now: float, grace_s: float
                 ) -> tuple[MatchRunner, list[Outgoing], list[Session]]:
    """The runner of the stored live match ``row``, what it has to send at once (a
    ``match_end`` if its last stored action ended it), and its seating: the restored away
    sessions. Raises :class:`ValueError` (or :class:`KeyError` for a game this server does
    not have) when it cannot be resumed."""
    game = registry.get(row.game)
    state = row.live_state or {}
    seats = [SeatInfo(str(seat["name"]), str(seat["kind"]))
             for seat in sorted(row.seats, key=lambda s: int(s["seat"]))]
    if len(seats) != row.num_seats:
        raise ValueError(f"{len(seats)} seats stored for {row.num_seats}")
    runner, out = MatchRunner.resumed(
        row.id, game, seats, row.options, row.seed, row.log, now,
        clock=Clock.from_json(row.clock), banks_ms=state.get("clocks_ms"), grace_s=grace_s,
        start_state=row.start, chance=row.chance, pair=row.pair)
    hashes = list(state.get("resume") or [])
    hashes += [None] * (len(seats) - len(hashes))
    seating = [sessions.restore(info.name, info.kind, hashes[seat], now)
               for seat, info in enumerate(seats)]
    return runner, out, seating
