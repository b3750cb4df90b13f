"""The engine contract: one interface that every game implements.

A *game* is a stateless object (one per rule set) registered by name. A *state* is a plain
JSON value (a ``dict`` of ``str`` keys holding only dicts, lists, strings, ints, bools and
``None``) that round-trips through ``json.dumps``/``json.loads`` exactly. Games never mutate a
state they were given: :meth:`Game.apply` returns a new one.

Who acts is told by :meth:`Game.decision`:

* one seat (turn-based) or several seats (simultaneous: their actions are applied together as
  one *joint action*, and the driver keeps each commitment hidden until all are in);
* *chance* (a draw, a deal): the driver picks one of :meth:`Game.chance_outcomes` with the
  match's seeded :class:`~engine.rng.Rng` and applies it under the key :data:`CHANCE`, so the
  action log alone replays the match;
* nobody: the state is terminal and :meth:`Game.outcome` is set.

Actions are JSON values. :meth:`Game.legal_actions` lists them for one seat, unique and sorted
by :meth:`Game.action_key` (the game's canonical order). A game whose actions are not a short
list (``GameInfo.actions == "space"``: Boundary's plans are points on a field) lists none and
describes them instead with :meth:`Game.action_space`, in the JSON form of
:mod:`engine.spaces` from which a generic bot can draw a valid action. An action that is not
well formed raises :class:`MalformedAction`; a well-formed action the rules forbid now raises
:class:`IllegalAction` naming the rule. Either way the state is unchanged (states are values).

What a seat may know is :meth:`Game.view` (``seat=None`` is a spectator). Each transition also
yields :class:`Event` objects whose private parts are shown only to the seats they name, so a
seat's views, its events and its own actions tell it exactly what it may know, and nothing more.

Time belongs to the driver, not the game, with one exception: each game says what a missed
deadline means (:attr:`GameInfo.timeout`): the seat loses, or the driver applies
:meth:`Game.default_action` for it (Boundary's empty plan) and the match goes on.

The engine never reads a clock, never uses global randomness and never iterates a ``set`` of
strings (hash order varies between processes).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

JSON = Any
"""A JSON-compatible value (dict with str keys, list, str, int, float, bool, None)."""
State = dict[str, Any]
Action = Any

CHANCE: Final = -1
"""The pseudo-seat that resolves chance nodes in a joint action (``{CHANCE: outcome}``)."""

ActionsKind = Literal["list", "space"]
ACTIONS_KINDS: Final[tuple[ActionsKind, ...]] = ("list", "space")
"""How a game tells a seat what it may do (:attr:`GameInfo.actions`): a list of legal actions,
or an action space (:mod:`engine.spaces`)."""

TimeoutRule = Literal["loss", "default"]
TIMEOUT_RULES: Final[tuple[TimeoutRule, ...]] = ("loss", "default")
"""What a seat's missed deadline means (:attr:`GameInfo.timeout`): it loses the match, or the
driver applies :meth:`Game.default_action` for it and the match goes on."""


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


class EngineError(Exception):
    """Base of every error the engine raises on purpose. ``code`` is the protocol error code."""

    code = "engine_error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            out["details"] = self.details
        return out


class ActionError(EngineError):
    """An action was rejected. The state it was checked against is unchanged."""

    code = "action_error"


class MalformedAction(ActionError):
    """The action is not of this game's action shape: wrong type, unknown card or hex,
    missing or extra field. Raised before any rule is consulted."""

    code = "malformed_action"


class IllegalAction(ActionError):
    """The action is well formed but the rules forbid it now. ``rule`` names the rule broken
    (a short snake_case identifier, stable across versions, e.g. ``"slot_occupied"``)."""

    code = "illegal_action"

    def __init__(self, message: str, rule: str, **details: Any) -> None:
        super().__init__(message, rule=rule, **details)
        self.rule = rule


class NotToAct(IllegalAction):
    """The seat submitting an action is not one of the seats that must act now."""

    code = "not_your_turn"

    def __init__(self, message: str = "it is not this seat's turn to act", **details: Any):
        super().__init__(message, rule="not_to_act", **details)


class BadOptions(EngineError):
    """Unknown option, wrong type or value out of range when creating a match."""

    code = "bad_options"


class BadNotation(EngineError):
    """A position in the game's text notation could not be parsed."""

    code = "bad_notation"


# --------------------------------------------------------------------------------------------
# Value types
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameInfo:
    """Static facts about a game, published to clients by the lobby.

    ``timeout`` says what a seat's missed deadline means (the clock itself is the runner's):
    ``"loss"`` ends the match with that seat last (reason ``timeout``); ``"default"`` applies
    :meth:`Game.default_action` for it and the match goes on.

    ``actions`` says how a seat learns what it may do: ``"list"`` (:meth:`Game.legal_actions`)
    or ``"space"`` (:meth:`Game.action_space`)."""

    name: str
    title: str
    min_seats: int
    max_seats: int
    chance: bool
    hidden_information: bool
    simultaneous: bool
    seat_names: tuple[str, ...]
    default_options: Mapping[str, Any] = field(default_factory=dict)
    summary: str = ""
    timeout: TimeoutRule = "loss"
    actions: ActionsKind = "list"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "min_seats": self.min_seats,
            "max_seats": self.max_seats,
            "chance": self.chance,
            "hidden_information": self.hidden_information,
            "simultaneous": self.simultaneous,
            "seat_names": list(self.seat_names),
            "default_options": dict(self.default_options),
            "summary": self.summary,
            "timeout": self.timeout,
            "actions": self.actions,
        }


@dataclass(frozen=True)
class Decision:
    """Who must act now. Exactly one of: ``seats`` non-empty, ``chance``, ``terminal``."""

    seats: tuple[int, ...] = ()
    chance: bool = False
    terminal: bool = False

    @property
    def simultaneous(self) -> bool:
        return len(self.seats) > 1

    def to_json(self) -> dict[str, Any]:
        if self.terminal:
            return {"kind": "terminal"}
        if self.chance:
            return {"kind": "chance"}
        return {"kind": "seats", "seats": list(self.seats)}


def turn(seat: int) -> Decision:
    return Decision(seats=(seat,))


def simultaneous(seats: Sequence[int]) -> Decision:
    return Decision(seats=tuple(seats))


CHANCE_DECISION: Final = Decision(chance=True)
TERMINAL: Final = Decision(terminal=True)


@dataclass(frozen=True)
class Outcome:
    """A finished game's result.

    ``ranks[seat]`` is 0 for the best place; tied seats share a rank (a draw between two
    seats is ``(0, 0)``). ``reason`` is a stable snake_case word (``"flags"``,
    ``"breakthrough"``, ``"exits"``, ``"repetition"``, ``"turn_limit"``, ``"stalemate"``,
    ``"timeout"``, ``"resignation"``, ``"forfeit"`` …). ``scores`` are per-seat numbers where
    the game has them (flags held, exits made, …).
    """

    ranks: tuple[int, ...]
    reason: str
    scores: tuple[float, ...] | None = None

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats ranked first, or ``()`` when every seat shares the first rank (a draw)."""
        if all(r == 0 for r in self.ranks):
            return ()
        return tuple(s for s, r in enumerate(self.ranks) if r == 0)

    @property
    def is_draw(self) -> bool:
        return all(r == 0 for r in self.ranks)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ranks": list(self.ranks), "reason": self.reason}
        if self.scores is not None:
            out["scores"] = list(self.scores)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        scores = data.get("scores")
        return cls(
            ranks=tuple(int(r) for r in data["ranks"]),
            reason=str(data["reason"]),
            scores=None if scores is None else tuple(scores),
        )

    @classmethod
    def win(cls, winner: int, num_seats: int, reason: str, scores: Sequence[float] | None = None
            ) -> Outcome:
        ranks = tuple(0 if s == winner else 1 for s in range(num_seats))
        return cls(ranks, reason, None if scores is None else tuple(scores))

    @classmethod
    def draw(cls, num_seats: int, reason: str, scores: Sequence[float] | None = None) -> Outcome:
        return cls((0,) * num_seats, reason, None if scores is None else tuple(scores))


@dataclass(frozen=True)
class Event:
    """Something that happened in a transition, rendered per viewer.

    ``data`` is what every viewer (every seat and spectators) sees. ``private[seat]`` holds
    fields only that seat sees; they are merged over ``data`` when rendering for it. Nothing
    hidden may be put in ``data``.
    """

    type: str
    data: Mapping[str, Any] = field(default_factory=dict)
    private: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)

    def render(self, seat: int | None) -> dict[str, Any]:
        out = {"type": self.type, **self.data}
        if seat is not None and seat in self.private:
            out.update(self.private[seat])
        return out


@dataclass(frozen=True)
class Transition:
    state: State
    events: list[Event]


# --------------------------------------------------------------------------------------------
# Helpers shared by games
# --------------------------------------------------------------------------------------------


def canonical_json(value: Any) -> str:
    """One spelling per JSON value: sorted keys, no spaces. Used for keys and identity."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def check_fields(raw: Any, required: Mapping[str, type | tuple[type, ...]],
                 optional: Mapping[str, type | tuple[type, ...]] | None = None) -> dict[str, Any]:
    """Shape check for a dict action: exact keys, exact types (``bool`` is not an ``int``).

    Raises :class:`MalformedAction` naming the first problem found.
    """
    if not isinstance(raw, dict):
        raise MalformedAction(f"an action must be a JSON object, got {type(raw).__name__}")
    optional = optional or {}
    for key in raw:
        if not isinstance(key, str) or (key not in required and key not in optional):
            raise MalformedAction(f"unknown field {key!r} in action", field=str(key))
    for key in required:
        if key not in raw:
            raise MalformedAction(f"missing field {key!r} in action", field=key)
    for key, types in {**required, **optional}.items():
        if key in raw and not _is_instance(raw[key], types):
            raise MalformedAction(
                f"field {key!r} has the wrong type ({type(raw[key]).__name__})", field=key)
    return raw


def _is_instance(value: Any, types: type | tuple[type, ...]) -> bool:
    if isinstance(value, bool):
        wanted = types if isinstance(types, tuple) else (types,)
        return bool in wanted
    return isinstance(value, types)


# --------------------------------------------------------------------------------------------
# The contract
# --------------------------------------------------------------------------------------------


class Game(ABC):
    """One rule set. Stateless: every method is a pure function of its arguments.

    Subclasses set :attr:`info` and implement the abstract methods. The public
    :meth:`apply` checks the joint action (who acts, shape, legality) and then calls
    :meth:`apply_unchecked`, the fast path a bot may call directly with actions it took from
    :meth:`legal_actions`.
    """

    info: GameInfo

    # ---- options and set-up -----------------------------------------------------------------

    def normalize_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Merge ``options`` over the defaults. Unknown keys and wrong types raise
        :class:`BadOptions`. Games with ranges or enums override :meth:`check_options`."""
        merged = dict(self.info.default_options)
        for key, value in (options or {}).items():
            if key not in merged:
                raise BadOptions(f"unknown option {key!r} for {self.info.name}", option=key)
            default = merged[key]
            if default is not None and not _is_instance(value, type(default)):
                raise BadOptions(f"option {key!r} must be {type(default).__name__}", option=key)
            merged[key] = value
        self.check_options(merged)
        return merged

    def check_options(self, options: Mapping[str, Any]) -> None:  # noqa: B027 (optional hook)
        """Validate option values (after type checks). Raise :class:`BadOptions`."""

    @abstractmethod
    def initial_state(self, num_seats: int, options: Mapping[str, Any]) -> State:
        """The state before any action (often a chance node: the deal). ``options`` has been
        through :meth:`normalize_options`."""

    # ---- who acts and what they may do ---------------------------------------------------------

    @abstractmethod
    def decision(self, state: State) -> Decision:
        """Who must act in ``state``."""

    @abstractmethod
    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Legal actions of ``seat``, unique and sorted by :meth:`action_key`; empty when the
        seat need not act, and always empty in a game that describes an action space
        instead (:meth:`action_space`)."""

    def action_space(self, state: State, seat: int) -> dict[str, Any] | None:
        """For a game whose ``info.actions`` is ``"space"``: the description
        (:mod:`engine.spaces`) of what ``seat`` may do now, ``None`` when it need not act.
        Every value of the space is accepted by :meth:`check_action` (the conformance suite
        samples it), and ``check_action`` names the rule an action outside it breaks. Games
        that list their actions return ``None``."""
        return None

    def action_key(self, action: Action) -> Any:
        """Sort key of the canonical action order. Default: canonical JSON text."""
        return canonical_json(action)

    def chance_outcomes(self, state: State) -> list[tuple[Action, int]]:
        """At a chance node: every outcome with an integer weight, in canonical order."""
        raise NotImplementedError(f"{self.info.name} has no chance nodes")

    @abstractmethod
    def parse_action(self, raw: Any) -> Action:
        """Shape check only: return the canonical form of ``raw`` or raise
        :class:`MalformedAction` (wrong type, unknown card, off-board hex, extra field)."""

    def check_action(self, state: State, seat: int, raw: Any) -> Action:
        """Full check of one seat's action: ``NotToAct``, ``MalformedAction`` or
        ``IllegalAction`` (with the rule), else the canonical action."""
        decision = self.decision(state)
        if seat not in decision.seats:
            raise NotToAct()
        action = self.parse_action(raw)
        if action not in self.legal_actions(state, seat):
            raise self.explain_illegal(state, seat, action)
        return action

    def default_action(self, state: State, seat: int) -> Action:
        """The action taken for ``seat`` when it misses its deadline, for a game whose
        ``info.timeout`` is ``"default"`` (Boundary: the empty plan). ``seat`` must act in
        ``state``; the result is one of its legal actions (or a value of its action space),
        canonical, and depends only on
        what ``seat`` may know (its view): the driver applies it exactly as if the seat had
        sent it, and on a simultaneous turn commits it hidden like any other commitment.
        The conformance suite checks this at every step of random playouts. Games whose
        timeout is a loss need not implement it."""
        raise NotImplementedError(f"{self.info.name}: a timeout is a loss, there is no "
                                  "default action")

    def explain_illegal(self, state: State, seat: int, action: Action) -> IllegalAction:
        """Build the error for a well-formed action that is not legal. Games override this to
        name the precise rule (and, for Battle Line claims, a counter-example)."""
        return IllegalAction("that action is not legal now", rule="not_legal")

    # ---- transitions -----------------------------------------------------------------------------

    def apply(self, state: State, actions: Mapping[int, Action]) -> Transition:
        """Apply a joint action: ``{seat: action}`` for exactly the seats that must act, or
        ``{CHANCE: outcome}`` at a chance node. Checks everything first; on any error the
        state is untouched (it is never mutated anyway)."""
        decision = self.decision(state)
        if decision.terminal:
            raise IllegalAction("the game is over", rule="game_over")
        if decision.chance:
            if set(actions) != {CHANCE}:
                raise NotToAct("a chance outcome is due, not a seat's action")
            outcome = actions[CHANCE]
            if outcome not in [o for o, _ in self.chance_outcomes(state)]:
                raise IllegalAction("not a possible chance outcome", rule="chance_outcome")
            return self.apply_unchecked(state, {CHANCE: outcome})
        if set(actions) != set(decision.seats):
            for seat in actions:
                if seat not in decision.seats:
                    raise NotToAct(seat=seat)
            raise IllegalAction("every acting seat must act together",
                                rule="incomplete_joint_action")
        checked = {seat: self.check_action(state, seat, a) for seat, a in sorted(actions.items())}
        return self.apply_unchecked(state, checked)

    @abstractmethod
    def apply_unchecked(self, state: State, actions: Mapping[int, Action]) -> Transition:
        """Apply a joint action known to be legal and canonical. Must not mutate ``state``."""

    # ---- what seats see ------------------------------------------------------------------------

    @abstractmethod
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` may know now (``None``: a spectator, who sees only what every
        seat sees). JSON-compatible."""

    def resample_hidden(self, state: State, seat: int | None, rng: Any) -> State:
        """A state drawn from those ``seat`` cannot tell apart from ``state`` (``None``: what
        a spectator cannot tell apart): every card or commitment hidden from that viewer is
        re-dealt consistently with everything it knows (OpenSpiel's resampling from an
        information state). ``rng`` is an :class:`~engine.rng.Rng`. The view of ``seat`` must
        be the same for both states; the conformance suite checks exactly that. Games with
        perfect information return ``state`` unchanged."""
        return state

    @abstractmethod
    def outcome(self, state: State) -> Outcome | None:
        """The result once terminal, else ``None``."""

    def num_seats(self, state: State) -> int:
        return int(state["num_seats"])

    # ---- notation ------------------------------------------------------------------------------

    @abstractmethod
    def to_notation(self, state: State) -> str:
        """The position in the game's documented text notation."""

    @abstractmethod
    def from_notation(self, text: str, options: Mapping[str, Any] | None = None) -> State:
        """Parse the game's text notation (raise :class:`BadNotation`)."""

    def action_text(self, action: Action) -> str:
        """Short human-readable form of an action, for logs and golden files."""
        return canonical_json(action)
