"""The lobby's bookkeeping: seeks, challenges, and choosing house bots. No I/O.

The server validates a request into a :class:`MatchSpec` (game, normalized options, clock,
seat count), asks the lobby what to do, and starts the matches the lobby says are ready.

* Seeks with equal specs are paired first come, first served; a session never pairs with
  itself.
* A challenge names the other accounts; it becomes a match when every one of them has
  accepted (any connected session of the account may accept); one decline ends it.
* House bots are ordinary connected clients that sent ``autoplay``; :meth:`Lobby.pick_bots`
  chooses among them by free capacity, and :func:`bot_listing` lists them (``list_bots``).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine import registry
from engine.core import BadOptions, canonical_json
from server.clocks import Clock
from server.sessions import AutoplayOffer, Session


class LobbyError(Exception):
    """A request the lobby refuses; ``code`` is the protocol error code, ``details`` its
    error's ``details`` and ``retry_after`` (``rate_limited``) its ``retry_after``."""

    def __init__(self, code: str, message: str, *, retry_after: float | None = None,
                 **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after
        self.details = details


@dataclass(frozen=True)
class MatchSpec:
    game: str
    options: Mapping[str, Any]
    clock: Clock | None
    num_seats: int
    rated: bool = False
    """Rated for people (:mod:`server.people`): a rated seek pairs with rated seeks only."""
    duplicate: bool = False
    """A duplicate pair (:mod:`server.pairs`): two matches, one deal, seats swapped."""

    @property
    def key(self) -> str:
        clock = None if self.clock is None else self.clock.to_json()
        key: list[Any] = [self.game, dict(self.options), clock, self.num_seats]
        if self.rated:
            key.append("rated")
        if self.duplicate:
            key.append("duplicate")
        return canonical_json(key)

    @classmethod
    def parse(cls, game: Any, options: Any = None, clock: Any = None, seats: Any = None,
              rated: Any = False, duplicate: Any = False) -> MatchSpec:
        """Check a client's match request; raises :class:`LobbyError` (``not_found`` for an
        unknown game, ``bad_request`` for bad options, clock, seat count, ``rated`` or
        ``duplicate``: a duplicate pair is for a two-seat game with chance, and casual;
        ``details.reason`` says which of ``no_chance``, ``seats``, ``rated``)."""
        if not isinstance(rated, bool) or not isinstance(duplicate, bool):
            raise LobbyError("bad_request", "rated and duplicate are true or false")
        try:
            engine_game = registry.get(str(game))
        except KeyError:
            raise LobbyError("not_found", "no such game here: list_games lists them"
                             ) from None
        try:
            normalized = engine_game.normalize_options(options or {})
        except BadOptions as exc:
            raise LobbyError("bad_request", exc.message) from None
        try:
            parsed_clock = Clock.from_json(clock)
        except ValueError as exc:
            raise LobbyError("bad_request", str(exc)) from None
        info = engine_game.info
        num = info.min_seats if seats is None else seats
        if not isinstance(num, int) or not info.min_seats <= num <= info.max_seats:
            raise LobbyError("bad_request", f"{info.name} takes {info.min_seats}-"
                                            f"{info.max_seats} seats, not {seats}")
        if duplicate:
            check_duplicate(info.name, info.chance, num, rated)
        return cls(info.name, normalized, parsed_clock, num, rated, duplicate)


def check_duplicate(game: str, chance: bool, num_seats: int, rated: bool) -> None:
    """Raise ``bad_request`` (``details.reason``) unless a duplicate pair of ``game`` at
    ``num_seats`` seats can be played: the game has chance (without it both matches would
    start alike and the pair would be two ordinary games), two seats (a pair swaps them), and
    it is casual (people's ratings count single matches; bots are rated in pairs on a
    ladder that plays them)."""
    if not chance:
        raise LobbyError("bad_request", f"{game} has no chance: a duplicate pair deals one "
                                        "deal twice, and this game has none",
                         reason="no_chance")
    if num_seats != 2:
        raise LobbyError("bad_request", f"a duplicate pair swaps two seats: {game} with 2 "
                                        f"seats only, not {num_seats}", reason="seats")
    if rated:
        raise LobbyError("bad_request", "a duplicate pair is casual: people's ratings count "
                                        "single matches", reason="rated")


@dataclass(eq=False)
class Seek:
    seek_id: str
    session: Session
    spec: MatchSpec


@dataclass(eq=False)
class Challenge:
    challenge_id: str
    challenger: Session
    targets: tuple[str, ...]
    spec: MatchSpec
    accepted: dict[str, Session] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return all(name in self.accepted for name in self.targets)

    def seating(self) -> list[Session]:
        """Challenger first, then the invited accounts in the order named."""
        return [self.challenger, *(self.accepted[name] for name in self.targets)]


class Lobby:
    def __init__(self) -> None:
        self._seeks: dict[str, Seek] = {}
        self._queues: dict[str, list[Seek]] = {}     # spec key -> seeks, oldest first
        self.challenges: dict[str, Challenge] = {}

    # ---- seeks ---------------------------------------------------------------------------

    def seek(self, session: Session, spec: MatchSpec) -> tuple[str, list[Session] | None]:
        """Queue a seek. Returns its id and, when enough seekers of the same spec are
        waiting, the sessions to seat (their seeks are then removed)."""
        queue = self._queues.setdefault(spec.key, [])
        for existing in queue:
            if existing.session is session:
                return existing.seek_id, None  # one seek per session per spec
        seek = Seek(secrets.token_hex(8), session, spec)
        queue.append(seek)
        self._seeks[seek.seek_id] = seek
        session.seeks.add(seek.seek_id)
        if len(queue) < spec.num_seats:
            return seek.seek_id, None
        group = queue[:spec.num_seats]
        del queue[:spec.num_seats]
        for taken in group:
            self._remove_seek(taken)
        return seek.seek_id, [taken.session for taken in group]

    def cancel_seek(self, session: Session, seek_id: str) -> bool:
        seek = self._seeks.get(seek_id)
        if seek is None or seek.session is not session:
            return False
        self._queues[seek.spec.key].remove(seek)
        self._remove_seek(seek)
        return True

    def _remove_seek(self, seek: Seek) -> None:
        self._seeks.pop(seek.seek_id, None)
        seek.session.seeks.discard(seek.seek_id)
        queue = self._queues.get(seek.spec.key)
        if queue is not None and not queue:
            del self._queues[seek.spec.key]

    def seeks_waiting(self) -> int:
        return len(self._seeks)

    # ---- challenges ----------------------------------------------------------------------

    def challenge(self, challenger: Session, targets: Sequence[str], spec: MatchSpec
                  ) -> Challenge:
        names = tuple(targets)
        if len(set(names)) != len(names) or challenger.name in names:
            raise LobbyError("bad_request", "name each other player once, yourself never")
        if len(names) + 1 != spec.num_seats:
            game = registry.get(spec.game).info
            if not game.min_seats <= len(names) + 1 <= game.max_seats:
                raise LobbyError("bad_request", f"{game.name} takes {game.min_seats}-"
                                                f"{game.max_seats} seats")
            spec = replace(spec, num_seats=len(names) + 1)
        challenge = Challenge(secrets.token_hex(8), challenger, names, spec)
        self.challenges[challenge.challenge_id] = challenge
        return challenge

    def accept(self, challenge_id: str, session: Session) -> Challenge:
        """Record ``session``'s acceptance; the caller starts the match when
        ``challenge.complete`` (and the challenge is then removed)."""
        challenge = self._invited(challenge_id, session)
        challenge.accepted[session.name] = session
        if challenge.complete:
            del self.challenges[challenge_id]
        return challenge

    def decline(self, challenge_id: str, session: Session) -> Challenge:
        challenge = self._invited(challenge_id, session)
        del self.challenges[challenge_id]
        return challenge

    def _invited(self, challenge_id: str, session: Session) -> Challenge:
        challenge = self.challenges.get(challenge_id)
        if challenge is None or session.name not in challenge.targets:
            raise LobbyError("not_found", "no such challenge for you")
        return challenge

    # ---- leaving -------------------------------------------------------------------------

    def forget(self, session: Session) -> list[Challenge]:
        """A session left for good (or went away): drop its seeks and the challenges it
        made. Returns those challenges so their invitees can be told."""
        for seek_id in list(session.seeks):
            seek = self._seeks.get(seek_id)
            if seek is not None:
                self._queues[seek.spec.key].remove(seek)
                self._remove_seek(seek)
        dropped = [c for c in self.challenges.values() if c.challenger is session]
        for challenge in dropped:
            del self.challenges[challenge.challenge_id]
        return dropped

    # ---- house bots ----------------------------------------------------------------------

    @staticmethod
    def pick_bots(candidates: Iterable[Session], game: str, count: int,
                  bot: str | None = None, exclude: Session | None = None,
                  slots: int = 1) -> list[Session]:
        """``count`` seats' worth of autoplay sessions of bot accounts (never a guest's or a
        person's) for ``game`` (if ``bot`` is named: of that account, or running the bot of
        that name, :meth:`Session.answers_to`) with room for ``slots`` matches (2 for a
        duplicate pair): distinct bots first, most free capacity first; when there are fewer
        bots than seats, bots take several seats of the match. Raises ``not_found`` if none."""
        pool = [s for s in candidates
                if s is not exclude and s.kind == "bot" and (bot is None or s.answers_to(bot))
                and s.free_autoplay_slots(game) >= slots]
        if not pool:
            who = "bot of that name" if bot else "house bot"
            room = " with room for both matches of a pair" if slots > 1 else ""
            raise LobbyError("not_found", f"no {who}{room} is available for {game} right now "
                                          "(list_bots lists those that are)")
        pool.sort(key=lambda s: (-s.free_autoplay_slots(game), s.name))
        return [pool[i % len(pool)] for i in range(count)]


def bot_listing(candidates: Iterable[Session], game: str | None = None
                ) -> list[dict[str, Any]]:
    """The ``bots`` of ``list_bots``: every session with an autoplay offer (for ``game`` if
    named), one entry per account, bot and version (an account may run one process per
    game), most free capacity first, then by account name."""
    groups: dict[tuple[str, str | None, str | None],
                 list[tuple[Session, AutoplayOffer]]] = {}
    for session in candidates:
        offer = session.autoplay
        if offer is not None and (game is None or game in offer.games):
            key = (session.name, offer.bot, offer.version)
            groups.setdefault(key, []).append((session, offer))
    out: list[dict[str, Any]] = []
    for (account, bot, version), offers in groups.items():
        entry: dict[str, Any] = {"account": account}
        if bot is not None:
            entry["bot"] = bot
        if version is not None:
            entry["version"] = version
        entry["games"] = sorted({g for _, o in offers for g in o.games
                                 if game is None or g == game})
        entry["free"] = sum(s.free_autoplay_slots(game) for s, _ in offers)
        entry["max_matches"] = sum(o.max_matches for _, o in offers)
        entry["online"] = any(s.connected for s, _ in offers)
        out.append(entry)
    out.sort(key=lambda e: (-e["free"], e["account"]))
    return out
