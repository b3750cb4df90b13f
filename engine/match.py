"""The match driver: a game, a seeded RNG, the action log, hidden simultaneous commitments.

Sans-I/O and deterministic. The server wraps one :class:`Match` per live match and adds
clocks, request ids and sockets; tests and benchmarks drive it directly.

Contract::

    m = Match(game, num_seats=2, options={}, seed=7)
    events = m.advance()                 # resolve chance nodes (the deal) up to a seat decision
    while not m.is_over:
        for seat in m.awaiting():        # seats that still owe an action
            events = m.submit(seat, choose(m.view(seat), m.legal_actions(seat)))
    m.outcome, m.record()

``submit`` raises the engine's typed errors (malformed, illegal, not your turn) and then the
match is unchanged. After a successful ``submit`` chance nodes are already resolved.

Chance is resolved one of two ways (``Match(..., chance=...)``, :data:`CHANCE_MODES`):

* ``"rng"`` (the default): each chance node draws from the match's generator, weighted. The
  generator consumes one number per node, so two matches with one seed deal alike only as
  long as they take the same chance nodes in the same order.
* ``"deck"``: :class:`FixedOrder`. Every outcome has a priority fixed by the seed and a node
  takes the available outcome with the lowest: a deck shuffled once. Two matches with one
  seed draw the same n-th card from each deck whoever draws it and whenever: what a
  *duplicate* pair needs (the same deal twice, seats swapped). Only for games whose chance
  outcomes all weigh the same (draws without replacement).

The log is a list of entries, one per applied joint action, each a JSON object mapping the
seat number (as a string) to its action, or ``"chance"`` to the chance outcome. Together with
the game name, options and seat count the log replays the match exactly (:func:`replay`); the
seed (and, for a ``"deck"`` match, the record's ``chance``) is kept in the record only so that
a match could be re-run live: a server resuming a match after a restart deals again from it.
The log and the seed of a live match are secret: never send them to a client.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from engine import spaces
from engine.core import (
    CHANCE,
    Action,
    Event,
    Game,
    IllegalAction,
    NotToAct,
    Outcome,
    State,
    canonical_json,
)
from engine.rng import Rng, seed_from_text

LogEntry = dict[str, Any]
Choices = list[Action] | dict[str, Any]
"""What a seat may do: its legal actions, or, in a game that describes an action space
(``GameInfo.actions == "space"``), that space (:mod:`engine.spaces`)."""
Policy = Callable[[dict[str, Any], Choices, int], Action]
"""A local policy: ``(view, legal actions or action space, seat) -> action``."""


CHANCE_MODES = ("rng", "deck")
"""How a match resolves chance: its generator (``rng``), or a deck fixed by the seed
(``deck``, :class:`FixedOrder`)."""


class FixedOrder:
    """A chance resolver fixed by a seed: every outcome has a seeded priority and a chance
    node takes the available outcome with the lowest one (a deck shuffled once). Needs
    outcomes of equal weight (draws without replacement); raises ``ValueError`` otherwise.

    Two games with the same seed draw alike at every chance node that offers the same
    outcomes, whatever happened in between: the duplicate pairs of ``arena bench strength``
    and of the server (``Match(..., chance="deck")``)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._priority: dict[str, int] = {}

    def priority(self, outcome: Any) -> int:
        key = canonical_json(outcome)
        found = self._priority.get(key)
        if found is None:
            found = seed_from_text(f"{self.seed}/{key}")
            self._priority[key] = found
        return found

    def pick(self, game: Game, state: State) -> Any:
        outcomes = game.chance_outcomes(state)
        if len({w for _, w in outcomes}) > 1:
            raise ValueError(f"{game.info.name}: chance outcomes of unequal weight cannot be "
                             f"fixed in advance like a shuffled deck")
        return min((o for o, _ in outcomes), key=self.priority)


def entry_for(actions: Mapping[int, Action]) -> LogEntry:
    if len(actions) == 1:  # the usual step: one seat, or chance
        (seat, action), = actions.items()
        return {("chance" if seat == CHANCE else str(seat)): action}
    return {("chance" if seat == CHANCE else str(seat)): a for seat, a in sorted(actions.items())}


def actions_of(entry: LogEntry) -> dict[int, Action]:
    return {(CHANCE if key == "chance" else int(key)): a for key, a in entry.items()}


class Match:
    """One match of one game, driven action by action."""

    def __init__(self, game: Game, num_seats: int, options: Mapping[str, Any] | None = None,
                 seed: int = 0, *, state: State | None = None, chance: str = "rng") -> None:
        if chance not in CHANCE_MODES:
            raise ValueError(f"chance is one of {', '.join(CHANCE_MODES)}, not {chance!r}")
        if not game.info.min_seats <= num_seats <= game.info.max_seats:
            raise ValueError(f"{game.info.name} takes {game.info.min_seats}–"
                             f"{game.info.max_seats} seats, not {num_seats}")
        self.game = game
        self.num_seats = num_seats
        self.options = game.normalize_options(options)
        self.seed = seed
        self.rng = Rng(seed)
        self.chance = chance
        self._deck = FixedOrder(seed) if chance == "deck" else None
        self.start_state: State = (state if state is not None
                                   else game.initial_state(num_seats, self.options))
        self.state: State = self.start_state
        self.log: list[LogEntry] = []
        self._committed: dict[int, Action] = {}
        self._forced: Outcome | None = None

    # ---- queries -------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def outcome(self) -> Outcome | None:
        return self._forced or self.game.outcome(self.state)

    def awaiting(self) -> tuple[int, ...]:
        """Seats that must still submit an action now (committed simultaneous seats excluded)."""
        if self._forced is not None:
            return ()
        decision = self.game.decision(self.state)
        if not self._committed:
            return decision.seats
        return tuple(s for s in decision.seats if s not in self._committed)

    def committed(self) -> tuple[int, ...]:
        """Seats that have committed their action to the current simultaneous decision and
        wait for the others (public: *that* they committed, never *what*)."""
        return tuple(sorted(self._committed))

    def commitment(self, seat: int) -> Action | None:
        """What ``seat`` committed to the current simultaneous decision, if it has: only
        ever shown to that seat."""
        return self._committed.get(seat)

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.awaiting():
            return []
        return self.game.legal_actions(self.state, seat)

    def action_space(self, seat: int) -> dict[str, Any] | None:
        """The seat's action space (games with ``info.actions == "space"``), ``None`` when it
        need not act."""
        if seat not in self.awaiting():
            return None
        return self.game.action_space(self.state, seat)

    def choices(self, seat: int) -> Choices:
        """What ``seat`` may do now: its legal actions, or its action space."""
        if self.game.info.actions == "space":
            return self.action_space(seat) or []
        return self.legal_actions(seat)

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.game.view(self.state, seat)

    # ---- transitions ---------------------------------------------------------------------

    def advance(self) -> list[Event]:
        """Resolve chance nodes (with the match RNG, or its deck) until a seat must act or
        the game ends."""
        events: list[Event] = []
        while self._forced is None:
            decision = self.game.decision(self.state)
            if not decision.chance:
                break
            if self._deck is not None:
                picked = self._deck.pick(self.game, self.state)
            else:
                outcomes = self.game.chance_outcomes(self.state)
                picked = outcomes[self.rng.weighted_index([w for _, w in outcomes])][0]
            events.extend(self._apply({CHANCE: picked}))
        return events

    def submit(self, seat: int, raw_action: Any) -> list[Event]:
        """Check and take ``seat``'s action. For a simultaneous decision the action is held
        (hidden) until every acting seat has committed; then the joint action is applied.
        Returns the events of everything applied, or, while waiting for others, one
        ``committed`` event: public ``{"seat"}`` (the others learn only *that* the seat is
        ready) with the accepted action in the seat's own copy (its acknowledgement). Raises
        the engine's typed errors, leaving the match as is."""
        if self._forced is not None:
            raise IllegalAction("the match is over", rule="game_over")
        decision = self.game.decision(self.state)
        if seat in self._committed:
            raise IllegalAction("this seat has already committed its action for this turn",
                                rule="already_committed")
        if seat not in decision.seats:
            raise NotToAct(seat=seat)
        action = self.game.check_action(self.state, seat, raw_action)
        if decision.simultaneous:
            self._committed[seat] = action
            if len(self._committed) < len(decision.seats):
                return [Event("committed", {"seat": seat}, {seat: {"action": action}})]
            joint, self._committed = self._committed, {}
        else:
            joint = {seat: action}
        events = self._apply(joint)
        events.extend(self.advance())
        return events

    def finish(self, outcome: Outcome) -> None:
        """End the match by a decision outside the rules (resignation, timeout, forfeit)."""
        self._forced = outcome
        self._committed = {}

    def _apply(self, joint: Mapping[int, Action]) -> list[Event]:
        transition = self.game.apply_unchecked(self.state, joint)
        self.state = transition.state
        self.log.append(entry_for(joint))
        return transition.events

    # ---- records -------------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """Everything needed to replay the match. Secret while the match is live. A match
        that deals from a deck says so (``"chance": "deck"``; absent: the generator)."""
        outcome = self.outcome
        record = {
            "game": self.game.info.name,
            "num_seats": self.num_seats,
            "options": self.options,
            "seed": self.seed,
            "start": None if self.start_state == self._initial() else self.start_state,
            "log": list(self.log),
            "outcome": None if outcome is None else outcome.to_json(),
        }
        if self.chance != "rng":
            record["chance"] = self.chance
        return record

    def _initial(self) -> State:
        return self.game.initial_state(self.num_seats, self.options)


def replay(game: Game, record: Mapping[str, Any]) -> Iterator[tuple[State, LogEntry | None]]:
    """Yield ``(state, entry)`` pairs: each state before the entry applied to it, and finally
    ``(final_state, None)``. Every entry is re-checked by :meth:`Game.apply`."""
    options = game.normalize_options(record.get("options"))
    state = record.get("start") or game.initial_state(int(record["num_seats"]), options)
    for entry in record["log"]:
        yield state, entry
        state = game.apply(state, actions_of(entry)).state
    yield state, None


def request_fields(game: Game, state: State, seat: int, choices: Choices | None = None
                   ) -> dict[str, Any]:
    """What a ``request`` tells ``seat`` it may do: ``legal_actions``, or ``action_space`` in a
    game that describes one; plus ``default_action`` in a game whose missed deadline plays
    one (what the server will send for the seat if it does not answer in time). ``choices``:
    the seat's legal actions or space when the caller has them already."""
    if choices is None:
        choices = (game.action_space(state, seat) if game.info.actions == "space"
                   else game.legal_actions(state, seat))
    out: dict[str, Any] = ({"action_space": choices} if game.info.actions == "space"
                           else {"legal_actions": choices})
    if game.info.timeout == "default":
        out["default_action"] = game.default_action(state, seat)
    return out


def random_policy(rng: Rng) -> Policy:
    """Uniform choice over the legal actions (or a uniform draw from the action space),
    from its own generator."""
    def choose(view: dict[str, Any], legal: Choices, seat: int) -> Action:
        if isinstance(legal, dict):
            return spaces.sample(legal, rng)
        return legal[rng.below(len(legal))]
    return choose


def play(game: Game, policies: Sequence[Policy], seed: int = 0,
         options: Mapping[str, Any] | None = None, *, max_steps: int = 1_000_000,
         on_step: Callable[[Match, Mapping[int, Action]], None] | None = None,
         chance: str = "rng") -> Match:
    """Play a whole match in-process with one policy per seat; returns the finished match.
    Policies see only ``game.view(state, seat)`` and the seat's legal actions (or action
    space). ``chance``: how chance is resolved (:data:`CHANCE_MODES`)."""
    match = Match(game, len(policies), options, seed, chance=chance)
    match.advance()
    steps = 0
    while not match.is_over:
        steps += 1
        if steps > max_steps:
            raise RuntimeError(f"{game.info.name}: no result after {max_steps} steps")
        chosen: dict[int, Action] = {}
        for seat in match.awaiting():
            chosen[seat] = policies[seat](match.view(seat), match.choices(seat), seat)
        if on_step is not None:
            on_step(match, chosen)
        for seat, action in chosen.items():
            match.submit(seat, action)
    return match
