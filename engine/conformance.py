"""The conformance suite: the engine contract (:mod:`engine.core`) checked on any game.

Every check takes a :class:`~engine.core.Game`, a seed and a :class:`Budget`, plays a seeded
random playout (the same one ``arena play --seed`` plays: chance from ``Rng(seed)``, seat ``s``
choosing uniformly with ``Rng(seed).fork(f"seat-{s}")``) and raises :class:`AssertionError`
with a message naming the game, seed, step and position notation when the contract is broken.
Standard library only, so it ships with the engine: a new game is conformant when
``check_all(game, seed)`` passes for many seeds (``tests/test_conformance.py`` runs every check
over every registered game with hypothesis choosing the seeds).

What is checked (one function each, :data:`CHECKS` lists them):

* :func:`check_terminates` — a random playout ends within ``budget.max_steps`` joint actions.
* :func:`check_decisions` — decisions are well formed; an acting seat has non-empty, unique
  (by canonical JSON), sorted (by ``game.action_key``) legal actions that pass
  ``check_action``, or, in a game that describes an action space (``info.actions ==
  "space"``), a well-formed space (:func:`engine.spaces.check_space`) every sampled value of
  which ``check_action`` accepts as it is, and no legal list; a seat that need not act has
  neither; chance outcomes are non-empty, unique, with positive integer weights; the unchecked
  fast path agrees with ``apply``.
* :func:`check_json_round_trip` — ``json.loads(json.dumps(state)) == state`` at every checked
  position, and the round-tripped state continues identically (same transition, same events
  for every viewer); views and events are JSON too.
* :func:`check_same_seed` — the same seed gives the same match (log, outcome, final state),
  and :func:`engine.match.play` with the same seed agrees with this suite's playout.
* :func:`check_replay` — :func:`engine.match.replay` of the record passes through every state
  of the match and ends in its final state.
* :func:`check_notation` — ``from_notation(to_notation(s))`` equals ``s`` or, where the
  notation leaves something out, continues identically; the notation text is stable.
* :func:`check_views` — for each seat and the spectator, resampling what that viewer cannot see
  (``game.resample_hidden``) changes neither its view, nor who must act, nor its legal actions;
  the spectator view is unchanged under resampling of *every* seat's hidden information.
  :func:`leak_probe` additionally names any hidden string value that shows up in a view.
* :func:`check_private_events` — the spectator's view and events never contain a value an
  event keeps private (``Event.private``) that its public data does not also show.
* :func:`check_no_mutation` — no method of the game mutates the state it is given.
* :func:`check_action_errors` — garbage actions raise ``MalformedAction``; a seat that need not
  act raises ``NotToAct``; the state is unchanged after each error and the error reads the same
  whatever the hidden information.
* :func:`check_outcome` — the outcome exists exactly at terminal states and has one rank per
  seat (ints, best rank 0) and, if any, one score per seat.
* :func:`check_timeout` — ``info.timeout`` is ``"loss"`` or ``"default"``; for ``"default"``,
  ``default_action`` gives a legal, canonical action for every seat to act at every step of
  the playout, the same whatever that seat cannot see (at the checked positions).

Budget: the per-step checks are expensive (resampling, notation, errors), so they run on the
*checked positions*: ``budget.checked_steps`` positions spread over the playout (always the
first and the final one), placed by the seed; ``None`` checks every position. The playout
itself checks every step for what it needs (a decision, legal actions, valid chance weights).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engine import spaces
from engine.core import (
    ACTIONS_KINDS,
    CHANCE,
    TIMEOUT_RULES,
    Action,
    ActionError,
    Decision,
    Event,
    Game,
    IllegalAction,
    MalformedAction,
    NotToAct,
    Outcome,
    State,
    Transition,
    canonical_json,
)
from engine.match import Match, entry_for, random_policy, replay
from engine.match import play as play_match
from engine.rng import Rng

GARBAGE_ACTIONS: tuple[Any, ...] = (None, 42, "x", {"type": 7}, [], 1.5, True)
"""Values that are no game's action: each must raise :class:`MalformedAction`."""

EXTRA_FIELD = "conformance_extra_field"
"""A field no game uses, added to a legal action to make it malformed."""

SPACE_SAMPLES = 8
"""Values drawn from an action space per checked position and seat."""


@dataclass(frozen=True)
class Budget:
    """How much work one check may do.

    ``max_steps``: a playout with more joint actions fails :func:`check_terminates`.
    ``checked_steps``: positions that get the per-step checks (``None``: every position).
    ``resamples``: resampled states per viewer per checked position.
    ``num_seats``/``options``: the match set-up (default: the game's minimum, its defaults).
    """

    max_steps: int = 10_000
    checked_steps: int | None = 40
    resamples: int = 2
    num_seats: int | None = None
    options: Mapping[str, Any] | None = None


DEFAULT_BUDGET = Budget()


# --------------------------------------------------------------------------------------------
# Playouts
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One joint action of a playout: the state before it, who had to act, the joint action
    (``{CHANCE: outcome}`` at a chance node) and what ``game.apply`` returned."""

    index: int
    state: State
    decision: Decision
    joint: dict[int, Action]
    transition: Transition


@dataclass(frozen=True)
class Playout:
    game: Game
    seed: int
    num_seats: int
    options: dict[str, Any]
    steps: list[Step]
    final: State

    @property
    def positions(self) -> list[State]:
        """Every state of the match, the final one included."""
        return [s.state for s in self.steps] + [self.final]

    def log(self) -> list[dict[str, Any]]:
        return [entry_for(s.joint) for s in self.steps]

    def where(self, index: int) -> str:
        """A pointer for failure messages: game, seed, step and (if it works) the notation."""
        state = self.final if index >= len(self.steps) else self.steps[index].state
        try:
            notation = self.game.to_notation(state)
        except Exception as exc:  # the notation itself may be what is broken
            notation = f"<to_notation failed: {exc!r}>"
        return (f"{self.game.info.name} seed={self.seed} step={index} "
                f"options={canonical_json(self.options)} position: {notation}")


def playout(game: Game, seed: int, budget: Budget = DEFAULT_BUDGET, *,
            watch: bool = False) -> Playout:
    """Play one seeded random match through ``game.apply`` (the checked path), recording every
    step. Raises :class:`AssertionError` if it has not ended after ``budget.max_steps``.

    With ``watch`` each step compares the state's canonical JSON before and after the step's
    calls (and names the culprit), so that even a mutation a second call would not repeat
    (``setdefault``) is caught the first time it happens."""
    num_seats = budget.num_seats or game.info.min_seats
    options = game.normalize_options(budget.options)
    chance_rng = Rng(seed)
    # The same generators engine.match.play uses with random policies: the two must agree.
    policies = [random_policy(Rng(seed).fork(f"seat-{s}")) for s in range(num_seats)]
    state = game.initial_state(num_seats, options)
    steps: list[Step] = []
    for index in range(budget.max_steps + 1):
        before = canonical_json(state) if watch else None
        decision = game.decision(state)
        if decision.terminal:
            return Playout(game, seed, num_seats, options, steps, state)
        if index == budget.max_steps:
            break
        if decision.chance:
            outcomes = game.chance_outcomes(state)
            _check_chance(outcomes, f"{game.info.name} seed={seed} step={index}")
            picked = outcomes[chance_rng.weighted_index([w for _, w in outcomes])][0]
            joint = {CHANCE: picked}
        else:
            joint = {}
            for seat in decision.seats:
                choices = _choices(game, state, seat)
                _require(bool(choices), f"{game.info.name} seed={seed} step={index}: seat "
                                        f"{seat} must act but has no legal action")
                joint[seat] = policies[seat](game.view(state, seat), choices, seat)
        transition = game.apply(state, joint)
        if before is not None and canonical_json(state) != before:
            culprit = _mutating_call(game, json.loads(before), joint)
            raise AssertionError(
                f"{game.info.name} seed={seed} step={index}: {culprit} mutated its input state: "
                f"{_difference(json.loads(before), state)}")
        steps.append(Step(index, state, decision, joint, transition))
        state = transition.state
    raise AssertionError(f"{game.info.name} seed={seed}: the playout did not end within "
                         f"{budget.max_steps} joint actions (position: {game.to_notation(state)})")


def checked_indices(n_positions: int, seed: int, budget: Budget) -> list[int]:
    """Positions (``0..n_positions-1``) that get the per-step checks: ``budget.checked_steps``
    of them spread evenly with a seed-chosen offset, always the first and the last."""
    if budget.checked_steps is None or budget.checked_steps >= n_positions:
        return list(range(n_positions))
    count = max(budget.checked_steps, 2)
    stride = n_positions / count
    offset = Rng(seed).fork("checked-steps").random() * stride
    picked = {int(offset + i * stride) for i in range(count)} | {0, n_positions - 1}
    return sorted(i for i in picked if i < n_positions)


def _checked(p: Playout, budget: Budget) -> Iterator[tuple[int, State, Step | None]]:
    """``(index, state, step)`` for each checked position; ``step`` is ``None`` at the end."""
    for i in checked_indices(len(p.steps) + 1, p.seed, budget):
        if i < len(p.steps):
            yield i, p.steps[i].state, p.steps[i]
        else:
            yield i, p.final, None


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------


def check_terminates(game: Game, seed: int, budget: Budget = DEFAULT_BUDGET) -> Playout:
    """A random playout ends within ``budget.max_steps`` joint actions (returns it)."""
    return playout(game, seed, budget)


def check_decisions(game: Game, seed: int, budget: Budget = DEFAULT_BUDGET) -> None:
    """Well-formed decisions, legal actions and chance outcomes at every checked position."""
    p = playout(game, seed, budget)
    for i, state, step in _checked(p, budget):
        where = p.where(i)
        decision = game.decision(state)
        kinds = [bool(decision.seats), decision.chance, decision.terminal]
        _require(sum(kinds) == 1, f"{where}: a decision must be exactly one of seats, chance, "
                                  f"terminal; got {decision}")
        _require(all(0 <= s < p.num_seats for s in decision.seats)
                 and len(set(decision.seats)) == len(decision.seats),
                 f"{where}: decision names invalid or repeated seats {decision.seats}")
        _require(game.info.actions in ACTIONS_KINDS,
                 f"{where}: info.actions must be one of {ACTIONS_KINDS}")
        for seat in range(p.num_seats):
            legal = game.legal_actions(state, seat)
            space = game.action_space(state, seat)
            if game.info.actions == "space":
                _require(legal == [], f"{where}: a game with an action space lists no legal "
                                      f"actions, but seat {seat} has {_short(legal)}")
                if seat in decision.seats:
                    _check_space(game, state, seat, space, Rng(seed).fork(f"space-{i}"), where)
                else:
                    _require(space is None, f"{where}: seat {seat} need not act but has an "
                                            "action space")
                continue
            _require(space is None, f"{where}: a game that lists its actions has no action "
                                    f"space, but seat {seat} has {_short(space)}")
            if seat in decision.seats:
                _check_legal_list(game, state, seat, legal, where)
            else:
                _require(legal == [], f"{where}: seat {seat} need not act but has legal "
                                      f"actions {_short(legal)}")
        if decision.chance:
            _check_chance(game.chance_outcomes(state), where)
        if step is not None:
            fast = game.apply_unchecked(state, step.joint)
            _require_same_transition(game, p.num_seats, step.transition, fast,
                                     f"{where}: apply_unchecked disagrees with apply")


def check_json_round_trip(game: Game, seed: int, budget: Budget = DEFAULT_BUDGET) -> None:
    """Each checked state survives ``json.dumps``/``json.loads`` exactly and the copy
    continues identically (same next state, same events for every viewer)."""
    p = playout(game, seed, budget)
    for i, state, step in _checked(p, budget):
        where = p.where(i)
        copy = json.loads(json.dumps(state))
        if copy != state:
            raise AssertionError(f"{where}: the state does not round-trip through JSON: "
                                 f"{_difference(state, copy)}")
        for viewer in _viewers(p.num_seats):
            _require_json(game.view(state, viewer), f"{where}: view of {_who(viewer)}")
        if step is not None:
            again = game.apply(copy, step.joint)
            _require_same_transition(game, p.num_seats, step.transition, again,
                                     f"{where}: the JSON copy of the state continues "
                                     "differently")
            for event in step.transition.events:
                for viewer in _viewers(p.num_seats):
                    _require_json(event.render(viewer),
                                  f"{where}: event {event.type!r} for {_who(viewer)}")


def check_same_seed(game: Game, seed: int, budget: Budget = DEFAULT_BUDGET) -> None:
    """The same seed gives the same match, and :func:`engine.match.play` plays it too."""
    first, second = playout(game, seed, budget), playout(game, seed, budget)
    _require(first.log() == second.log(),
             f"{game.info.name} seed={seed}: two playouts with the same seed differ: "
             f"{_difference(first.log(), second.log())}")
    _require(first.final == second.final,
             f"{game.info.name} seed={seed}: same log, different final states: "
             f"{_difference(first.final, second.final)}")
    _require(_outcome_json(game, first.final) == _outcome_json(game, second.final),
             f"{game.info.name} seed={seed}: same match, different outcomes")
    match = _driver_match(game, first, budget)
    _require(match.log == first.log(),
             f"{game.info.name} seed={seed}: engine.match.play with the same seed plays a "
             f"different match: {_difference(first.log(), match.log)}")
    _require(match.state == first.final and match.outcome == game.outcome(first.final),
             f"{game.info.name} seed={seed}: engine.match.play ends elsewhere")


def check_replay(game: Game, seed: int, budget: Budget = DEFAULT_BUDGET) -> None:
    """:func:`engine.match.replay` of the match record visits every state and ends in the
    final one; the record survives JSON."""
    p = playout(game, seed, budget)
    record = json.loads(json.dumps(_driver_match(game, p, budget).record()))
    states = [state for state, _ in replay(game, record)]
    _require(len(states) == len(p.steps) + 1,
             f"{game.info.name} seed={seed}: replay yields {len(states)} states for "
             f"{len(p.steps)} log entries")
    for i, (replayed, original) in enumerate(zip(states, p.positions, strict=True)):
        if replayed != original:
            raise AssertionError(f"{p.where(i)}: the replayed state differs: "
                                 f"{_difference(original, replayed)}")
    _require(record["outcome"] == _outcome_json(game, p.final),
             f"{game.info.name} seed={seed}: the record's outcome differs from the game's")


def check_notation(game: Game, seed: int, budget: Budget = DEFAULT_BUDGET) -> None:
    """``from_notation(to_notation(s))`` equals ``s``, or continues identically where the
    notation leaves out something invisible to play; writing it again gives the same text."""
    p = playout(game, seed, budget)
    for i, state, step in _checked(p, budget):
        where = p.where(i)
        text = game.to_notation(state)
        _require(isinstance(text, str) and text != "", f"{where}: to_notation gave {text!r}")
        parsed = game.from_notation(text, p.options)
        again = game.to_notation(parsed)
        _require(again == text, f"{where}: notation is not stable: {text!r} was read back "
                                f"and written as {again!r}")
        if parsed == state:
            continue
        # Not equal: the parsed state must still behave identically.
        context = (f"{where}: from_notation(to_notation(state)) differs from the state "
                   f"({_difference(state, parsed)}) and")
        _require(game.decision(parsed) == game.decision(state),
                 f"{context} has a different decision")
        for viewer in _viewers(p.num_seats):
            _require(game.view(parsed, viewer) == game.view(state, viewer),
                     f"{context} shows {_who(viewer)} a different view")
        for seat in range(p.num_seats):
            _require(game.legal_actions(parsed, seat) == game.legal_actions(state, seat),
                     f"{context} gives seat {seat} different legal actions")
            _require(game.action_space(parsed, seat) == game.action_space(state, seat),
                     f"{context} gives seat {seat} a different action space")
        _require(_outcome_json(game, parsed) == _outcome_json(game, state),
                 f"{context} has a different outcome")
        if step is not None:
            if step.decision.chance:
                _require(game.chance_outcomes(parsed) == game.chance_outcomes(state),
                         f"{context} has different chance outcomes")
            nxt = game.apply(parsed, step.joint)
            _require_same_events(p.num_seats, step.transition.events, nxt.events,
                                 f"{context} yields different events")
            _require(game.to_notation(nxt.state) == game.to_notation(step.transition.state),
                     f"{context} continues to a different position")


def check_views(game: Game, seed: int, budget: Budget = DEFAULT_BUDGET) -> None:
    """Resampling what a viewer cannot see changes nothing that viewer is shown: its view,
    the decision and (for a seat) its legal actions; the spectator view survives resampling
    of every seat's hidden information. :func:`leak_probe` then names hidden values seen."""
    p = playout(game, seed, budget)
    rng = Rng(seed).fork("resample")
    for i, state, _ in _checked(p, budget):
        where = p.where(i)
        decision = game.decision(state)
        for viewer in _viewers(p.num_seats):
            view = game.view(state, viewer)
            samples = [game.resample_hidden(state, viewer, rng) for _ in range(budget.resamples)]
            if viewer is None:
                # Both seats' hidden information at once: resample for every seat in turn.
                chained = state
                for seat in range(p.num_seats):
                    chained = game.resample_hidden(chained, seat, rng)
                samples.append(chained)
            for other in samples:
                _require(json.loads(json.dumps(other)) == other,
                         f"{where}: resample_hidden for {_who(viewer)} returned a state that "
                         "does not round-trip through JSON")
                other_view = game.view(other, viewer)
                if other_view != view:
                    raise AssertionError(
                        f"{where}: the view of {_who(viewer)} tells apart states it must not: "
                        f"after resample_hidden the view differs ({_difference(view, other_view)})"
                        f"; hidden state changed: {_differences(state, other)}")
                _require(game.decision(other) == decision,
                         f"{where}: who acts depends on information hidden from "
                         f"{_who(viewer)} ({_differences(state, other)})")
                if viewer is not None:
                    a, b = game.legal_actions(state, viewer), game.legal_actions(other, viewer)
                    _require(game.action_space(state, viewer)
                             == game.action_space(other, viewer),
                             f"{where}: the action space of seat {viewer} depends on "
                             "information hidden from it")
                    _require(a == b, f"{where}: the legal actions of seat {viewer} depend on "
                                     f"information hidden from it: {_difference(a, b)}")
            findings = leak_probe(game, state, viewer, rng, budget.resamples)
            _require(not findings, f"{where}: hidden values are visible to {_who(viewer)}: "
                                   + "; ".join(findings))


def check_private_events(game: Game, seed: int, budget: Budget = DEFAULT_BUDGET) -> None:
    """No string an event keeps private (and its public data does not show) reaches the
    spectator, through the spectator's view after the transition or any event rendered for
    it. (Strings only: small numbers legitimately recur as counts.)"""
    p = playout(game, seed, budget)
    for step in p.steps:
        secrets: dict[str, str] = {}
        for event in step.transition.events:
            public = set(_string_leaves(event.data))
            for seat, fields in event.private.items():
                for value in _string_leaves(fields):
                    if value not in public:
                        secrets.setdefault(value, f"event {event.type!r} private to seat {seat}")
        if not secrets:
            continue
        where = p.where(step.index)
        shown = {"the spectator view after the step":
                 game.view(step.transition.state, None)}
        for n, event in enumerate(step.transition.events):
            shown[f"event #{n} ({event.type!r}) rendered for the spectator"] = event.render(None)
        for what, seen in shown.items():
            for leaf, path in _string_leaves_with_paths(seen):
                if leaf in secrets:
                    raise AssertionError(f"{where}: {what} contains {leaf!r} at {path}, a "
                                         f"value kept private ({secrets[leaf]})")


def check_no_mutation(game: Game, seed: int, budget: Budget = DEFAULT_BUDGET) -> None:
    """No method of the game changes the state it is given: a watched playout (every call
    compared before/after), then every method on a fresh copy of each checked position."""
    p = playout(game, seed, budget, watch=True)
    rng = Rng(seed).fork("mutation")
    for i, state, step in _checked(p, budget):
        where = p.where(i)
        before = canonical_json(state)
        calls: list[tuple[str, Callable[[State], Any]]] = [
            ("decision", game.decision),
            ("outcome", game.outcome),
            ("to_notation", game.to_notation),
        ]
        for seat in range(p.num_seats):
            calls.append((f"legal_actions(seat {seat})", _bind(game.legal_actions, seat)))
            calls.append((f"action_space(seat {seat})", _bind(game.action_space, seat)))
        for viewer in _viewers(p.num_seats):
            calls.append((f"view({_who(viewer)})", _bind(game.view, viewer)))
            calls.append((f"resample_hidden({_who(viewer)})",
                          _bind(game.resample_hidden, viewer, rng)))
        if step is not None:
            if step.decision.chance:
                calls.append(("chance_outcomes", game.chance_outcomes))
            calls.append(("apply", _bind(game.apply, step.joint)))
            calls.append(("apply_unchecked", _bind(game.apply_unchecked, step.joint)))
        for what, call in calls:
            copy = json.loads(before)
            call(copy)
            if canonical_json(copy) != before:
                raise AssertionError(f"{where}: {what} mutated its input state: "
                                     f"{_difference(json.loads(before), copy)}")
        if step is not None:
            joint_before = canonical_json(step.joint)
            game.apply(state, step.joint)
            _require(canonical_json(step.joint) == joint_before,
                     f"{where}: apply mutated the joint action it was given")


def check_action_errors(game: Game, seed: int, budget: Budget = DEFAULT_BUDGET) -> None:
    """Garbage raises MalformedAction, a seat that need not act raises NotToAct, a chance
    outcome is not a seat's action and the reverse, a finished game takes no action; the
    state is unchanged after every error, and the error a seat gets does not depend on what
    is hidden from it."""
    p = playout(game, seed, budget)
    rng = Rng(seed).fork("errors")
    for i, state, step in _checked(p, budget):
        where = p.where(i)
        before = canonical_json(state)
        decision = game.decision(state)
        # A legal-looking action: the one the first acting seat took.
        sample: Action = None
        if step is not None and not decision.chance:
            sample = step.joint[decision.seats[0]]
        for seat in decision.seats:
            assert step is not None  # a position where seats act is never the last one
            others = {s: a for s, a in step.joint.items() if s != seat}
            legal = _examples(game, state, seat, Rng(seed).fork(f"examples-{i}"))
            legal_keys = {canonical_json(a) for a in legal}
            garbage = [g for g in GARBAGE_ACTIONS if canonical_json(g) not in legal_keys]
            garbage += [{**a, EXTRA_FIELD: 1} for a in legal[:3] if isinstance(a, dict)]
            twin = game.resample_hidden(state, seat, rng)
            for bad in garbage:
                what = f"seat {seat} submitting {_short(bad)}"
                error = _expect(MalformedAction, f"{where}: check_action, {what}",
                                game.check_action, state, seat, bad)
                _expect(MalformedAction, f"{where}: apply, {what}",
                        game.apply, state, {**others, seat: bad})
                twin_error = _expect(MalformedAction,
                                     f"{where}: check_action on a resampled state, {what}",
                                     game.check_action, twin, seat, bad)
                _require(error.to_json() == twin_error.to_json(),
                         f"{where}: the error for {what} depends on information hidden from "
                         f"seat {seat}: {error.to_json()} vs {twin_error.to_json()}")
                _require_unchanged(state, before, f"{where}: after the error for {what}")
            if decision.simultaneous:
                _expect(IllegalAction, f"{where}: apply with only seat {seat} of the "
                                       f"simultaneous seats {decision.seats}",
                        game.apply, state, {seat: legal[0]})
        for seat in range(p.num_seats):
            if seat in decision.seats or sample is None:
                continue
            what = f"seat {seat} (not to act) submitting {_short(sample)}"
            error = _expect(NotToAct, f"{where}: check_action, {what}",
                            game.check_action, state, seat, sample)
            _expect(NotToAct, f"{where}: apply, {what}", game.apply, state, {seat: sample})
            twin = game.resample_hidden(state, seat, rng)
            twin_error = _expect(NotToAct, f"{where}: check_action on a resampled state, {what}",
                                 game.check_action, twin, seat, sample)
            _require(error.to_json() == twin_error.to_json(),
                     f"{where}: the error for {what} depends on information hidden from it")
            _require_unchanged(state, before, f"{where}: after the error for {what}")
        if decision.chance:
            _expect(IllegalAction, f"{where}: apply with a seat's action at a chance node",
                    game.apply, state, {0: {"type": "pass"}})
            _expect(ActionError, f"{where}: apply with an impossible chance outcome",
                    game.apply, state, {CHANCE: {EXTRA_FIELD: None}})
        elif decision.seats:
            _expect(IllegalAction, f"{where}: apply with a chance outcome where seats must act",
                    game.apply, state, {CHANCE: sample})
        else:
            for seat in range(p.num_seats):
                _expect(IllegalAction, f"{where}: apply at a terminal state",
                        game.apply, state, {seat: "x"})
        _require_unchanged(state, before, f"{where}: after the errors")


def check_outcome(game: Game, seed: int, budget: Budget = DEFAULT_BUDGET) -> None:
    """``outcome`` is ``None`` until the game is terminal; then it has one rank per seat (ints,
    the best is 0), a reason, at most one score per seat, and nobody has a legal action."""
    p = playout(game, seed, budget)
    for i, state, _ in _checked(p, budget):
        where = p.where(i)
        terminal = game.decision(state).terminal
        outcome = game.outcome(state)
        if not terminal:
            _require(outcome is None, f"{where}: outcome {outcome} before the game is over")
            continue
        _require(isinstance(outcome, Outcome), f"{where}: terminal state without an outcome")
        assert outcome is not None
        ranks = outcome.ranks
        _require(len(ranks) == p.num_seats,
                 f"{where}: outcome has {len(ranks)} ranks for {p.num_seats} seats")
        _require(all(type(r) is int and r >= 0 for r in ranks) and min(ranks) == 0,
                 f"{where}: ranks must be ints with 0 for the best seat, got {ranks}")
        _require(isinstance(outcome.reason, str) and outcome.reason != "",
                 f"{where}: an outcome needs a reason")
        if outcome.scores is not None:
            _require(len(outcome.scores) == p.num_seats,
                     f"{where}: outcome has {len(outcome.scores)} scores for "
                     f"{p.num_seats} seats")
        _require_json(outcome.to_json(), f"{where}: outcome")
        _require(Outcome.from_json(json.loads(json.dumps(outcome.to_json()))) == outcome,
                 f"{where}: the outcome does not survive to_json/from_json")
        for seat in range(p.num_seats):
            _require(game.legal_actions(state, seat) == [],
                     f"{where}: seat {seat} has legal actions in a finished game")
            _require(game.action_space(state, seat) is None,
                     f"{where}: seat {seat} has an action space in a finished game")


def check_timeout(game: Game, seed: int, budget: Budget = DEFAULT_BUDGET) -> None:
    """``info.timeout`` is one of :data:`~engine.core.TIMEOUT_RULES`. For ``"default"``:
    at every step, each seat that must act has a default action that is legal (in
    ``legal_actions``, or a value of its action space that ``check_action`` accepts),
    canonical (``parse_action`` leaves it as is) and JSON; at the checked
    positions it does not change when what the seat cannot see is resampled (a default may
    only use what the seat knows: it is applied as if the seat had sent it)."""
    rule = game.info.timeout
    _require(rule in TIMEOUT_RULES, f"{game.info.name} seed={seed}: info.timeout must be one of "
                                    f"{TIMEOUT_RULES}, not {rule!r}")
    if rule != "default":
        return
    p = playout(game, seed, budget)
    checked = {i for i, _, _ in _checked(p, budget)}
    rng = Rng(seed).fork("default-action")
    for step in p.steps:
        where = p.where(step.index)
        for seat in step.decision.seats:
            try:
                action = game.default_action(step.state, seat)
            except Exception as exc:
                raise AssertionError(f"{where}: the game's timeout is a default action, but "
                                     f"default_action for seat {seat} raised {exc!r}") from exc
            _require_json(action, f"{where}: the default action of seat {seat}")
            if game.info.actions == "space":
                space = game.action_space(step.state, seat)
                _require(space is not None and spaces.contains(space, action),
                         f"{where}: the default action {_short(action)} of seat {seat} is not "
                         "in its action space")
                game.check_action(step.state, seat, action)
            else:
                legal = game.legal_actions(step.state, seat)
                _require(action in legal, f"{where}: the default action {_short(action)} of "
                                          f"seat {seat} is not one of its legal actions")
            _require(game.parse_action(action) == action,
                     f"{where}: the default action {_short(action)} of seat {seat} is not "
                     "canonical (parse_action changes it)")
            if step.index not in checked:
                continue
            for _ in range(budget.resamples):
                other = game.resample_hidden(step.state, seat, rng)
                _require(game.default_action(other, seat) == action,
                         f"{where}: the default action of seat {seat} depends on information "
                         f"hidden from it ({_differences(step.state, other)})")


CHECKS: tuple[Callable[[Game, int, Budget], Any], ...] = (
    check_terminates,
    check_decisions,
    check_json_round_trip,
    check_same_seed,
    check_replay,
    check_notation,
    check_views,
    check_private_events,
    check_no_mutation,
    check_action_errors,
    check_outcome,
    check_timeout,
)
"""Every check, in the order :func:`check_all` runs them."""


def check_all(game: Game, seed: int, budget: Budget = DEFAULT_BUDGET) -> None:
    """Run every check in :data:`CHECKS` for one seed."""
    for check in CHECKS:
        check(game, seed, budget)


# --------------------------------------------------------------------------------------------
# The leak probe
# --------------------------------------------------------------------------------------------


def hidden_paths(game: Game, state: State, viewer: int | None, rng: Rng,
                 samples: int = 4) -> dict[str, Any]:
    """Paths of ``state`` (``/key/0/...``) whose value ``resample_hidden`` changed for
    ``viewer`` in any of ``samples`` draws, mapped to the original value there: the hidden
    cards and commitments (as far as resampling shows them)."""
    changed: dict[str, Any] = {}
    for _ in range(samples):
        other = game.resample_hidden(state, viewer, rng)
        for path, value, _ in json_differences(state, other):
            if value is not MISSING:
                changed.setdefault(path, value)
    return changed


def leak_probe(game: Game, state: State, viewer: int | None, rng: Rng,
               samples: int = 4) -> list[str]:
    """Hidden string values that appear in ``game.view(state, viewer)``.

    A value is *hidden* when it sits at a path ``resample_hidden`` can change (see
    :func:`hidden_paths`) and nowhere else in the state (so shared words such as ``"deck"``
    are not suspects). Returns one finding per leaked value (``[]`` when clean). Numbers are
    not probed (they recur as counts); the resample-invariance of :func:`check_views` is the
    real test, this probe only names the value that leaks.
    """
    hidden = hidden_paths(game, state, viewer, rng, samples)
    suspects: dict[str, str] = {}
    for path, value in hidden.items():
        for leaf, sub in _string_leaves_with_paths(value, path):
            suspects.setdefault(leaf, sub)
    if not suspects:
        return []
    for leaf, path in _string_leaves_with_paths(state):
        if leaf in suspects and not any(path == p or path.startswith(p + "/") for p in hidden):
            del suspects[leaf]  # also known from a place resampling never changes
    findings = []
    for leaf, path in _string_leaves_with_paths(game.view(state, viewer)):
        if leaf in suspects:
            findings.append(f"{leaf!r} (hidden at state {suspects[leaf]}) is shown at view "
                            f"{path}")
    return findings


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def _require_unchanged(state: State, before: str, message: str) -> None:
    if canonical_json(state) != before:
        raise AssertionError(f"{message}: the state changed: "
                             f"{_difference(json.loads(before), state)}")


def _expect(error: type[Exception], what: str, call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)`` must raise ``error`` (or a subclass). Returns the error raised."""
    try:
        result = call(*args)
    except error as exc:
        return exc
    except Exception as exc:
        raise AssertionError(f"{what}: expected {error.__name__}, got "
                             f"{type(exc).__name__}: {exc}") from exc
    raise AssertionError(f"{what}: expected {error.__name__}, but it was accepted "
                         f"({_short(result)})")


def _viewers(num_seats: int) -> list[int | None]:
    return [*range(num_seats), None]


def _who(viewer: int | None) -> str:
    return "the spectator" if viewer is None else f"seat {viewer}"


def _short(value: Any, limit: int = 200) -> str:
    try:
        text = canonical_json(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _require_json(value: Any, what: str) -> None:
    try:
        copy = json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise AssertionError(f"{what} is not JSON: {exc}") from exc
    if copy != value:
        raise AssertionError(f"{what} does not round-trip through JSON: "
                             f"{_difference(value, copy)}")


def _check_legal_list(game: Game, state: State, seat: int, legal: list[Action],
                      where: str) -> None:
    _require(isinstance(legal, list) and len(legal) > 0,
             f"{where}: seat {seat} must act but has no legal actions")
    keys = [canonical_json(a) for a in legal]
    duplicates = sorted({k for k in keys if keys.count(k) > 1}) if len(set(keys)) < len(keys) \
        else []
    _require(not duplicates, f"{where}: seat {seat} has repeated legal actions {duplicates[:5]}")
    order = [game.action_key(a) for a in legal]
    for n in range(len(order) - 1):
        _require(order[n] < order[n + 1],
                 f"{where}: legal actions of seat {seat} are not sorted by action_key: "
                 f"{_short(legal[n])} comes before {_short(legal[n + 1])}")
    for action in legal:
        _require_json(action, f"{where}: legal action of seat {seat}")
        canonical = game.check_action(state, seat, json.loads(json.dumps(action)))
        _require(canonical == action, f"{where}: check_action changes legal action "
                                      f"{_short(action)} into {_short(canonical)}")


def _choices(game: Game, state: State, seat: int) -> list[Action] | dict[str, Any]:
    """What a policy chooses from: the legal actions, or the action space (an empty list when
    a space game gives none)."""
    if game.info.actions == "space":
        return game.action_space(state, seat) or []
    return game.legal_actions(state, seat)


def _examples(game: Game, state: State, seat: int, rng: Rng) -> list[Action]:
    """Legal actions of ``seat``: its whole list, or values drawn from its action space."""
    if game.info.actions != "space":
        return game.legal_actions(state, seat)
    space = game.action_space(state, seat)
    if space is None:
        return []
    return [spaces.sample(space, rng, include=1 + n % 3) for n in range(SPACE_SAMPLES)]


def _check_space(game: Game, state: State, seat: int, space: Any, rng: Rng, where: str
                 ) -> None:
    """A seat's action space is well formed, JSON, and everything drawn from it is accepted
    by ``check_action`` unchanged (so a generic bot drawing from it is always right)."""
    _require(space is not None, f"{where}: seat {seat} must act but has no action space")
    try:
        spaces.check_space(space)
    except ValueError as exc:
        raise AssertionError(f"{where}: the action space of seat {seat} is malformed: "
                             f"{exc}") from None
    _require_json(space, f"{where}: the action space of seat {seat}")
    for n in range(SPACE_SAMPLES):
        value = spaces.sample(space, rng, include=1 + n % 3)
        _require(spaces.contains(space, value), f"{where}: a value drawn from the action "
                                                f"space is not in it: {_short(value)}")
        try:
            canonical = game.check_action(state, seat, json.loads(json.dumps(value)))
        except ActionError as exc:
            raise AssertionError(f"{where}: {_short(value)}, drawn from seat {seat}'s action "
                                 f"space, is refused: {exc.to_json()}") from None
        _require(canonical == value, f"{where}: check_action changes {_short(value)}, drawn "
                                     f"from the action space, into {_short(canonical)}")


def _bind(method: Callable[..., Any], *args: Any) -> Callable[[State], Any]:
    """``state -> method(state, *args)``."""
    return lambda state: method(state, *args)


def _mutating_call(game: Game, state: State, joint: Mapping[int, Action]) -> str:
    """Which of the calls a playout step makes mutates ``state`` (each tried on a copy)."""
    text = canonical_json(state)
    calls: list[tuple[str, Callable[[State], Any]]] = [("decision", game.decision)]
    if CHANCE in joint:
        calls.append(("chance_outcomes", game.chance_outcomes))
    for seat in joint:
        if seat != CHANCE:
            calls.append(("legal_actions", _bind(game.legal_actions, seat)))
            calls.append(("view", _bind(game.view, seat)))
    calls.append(("apply", _bind(game.apply, joint)))
    for what, call in calls:
        copy = json.loads(text)
        call(copy)
        if canonical_json(copy) != text:
            return what
    return "a call (which one depends on the order of calls)"


def _check_chance(outcomes: list[tuple[Action, int]], where: str) -> None:
    _require(isinstance(outcomes, list) and len(outcomes) > 0,
             f"{where}: a chance node with no outcomes")
    keys = [canonical_json(o) for o, _ in outcomes]
    _require(len(set(keys)) == len(keys), f"{where}: repeated chance outcomes")
    for outcome, weight in outcomes:
        if not (type(weight) is int and weight > 0):  # (the message only when it fails:
            raise AssertionError(                    # a start has thousands of outcomes)
                f"{where}: chance outcome {_short(outcome)} has weight {weight!r}; weights "
                "are positive ints")
        _require_json(outcome, f"{where}: chance outcome")


def _rendered(events: list[Event], num_seats: int) -> dict[str, list[dict[str, Any]]]:
    return {_who(v): [e.render(v) for e in events] for v in _viewers(num_seats)}


def _require_same_events(num_seats: int, a: list[Event], b: list[Event], message: str) -> None:
    ra, rb = _rendered(a, num_seats), _rendered(b, num_seats)
    if ra != rb:
        raise AssertionError(f"{message}: {_difference(ra, rb)}")


def _require_same_transition(game: Game, num_seats: int, a: Transition, b: Transition,
                             message: str) -> None:
    if a.state != b.state:
        raise AssertionError(f"{message}: next states differ: {_difference(a.state, b.state)}")
    _require_same_events(num_seats, a.events, b.events, f"{message}: events differ")


def _outcome_json(game: Game, state: State) -> Any:
    outcome = game.outcome(state)
    return None if outcome is None else outcome.to_json()


def _driver_match(game: Game, p: Playout, budget: Budget) -> Match:
    policies = [random_policy(Rng(p.seed).fork(f"seat-{s}")) for s in range(p.num_seats)]
    return play_match(game, policies, seed=p.seed, options=p.options,
                      max_steps=budget.max_steps)


class _Missing:
    """Marks a dict key present on one side of a comparison only."""

    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()


def _step(path: str, key: Any) -> str:
    """Extend a JSON Pointer (RFC 6901: ``~`` and ``/`` in keys escaped as ``~0``, ``~1``)."""
    return f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}"


def json_differences(a: Any, b: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """Where two JSON values differ: ``(pointer, a's value, b's value)`` at the deepest place
    (a list that changed length counts as one place), in sorted key order. A key on one side
    only has :data:`MISSING` on the other. The root is ``""`` (RFC 6901)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            yield from json_differences(a.get(key, MISSING), b.get(key, MISSING),
                                        _step(path, key))
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for n, (x, y) in enumerate(zip(a, b, strict=True)):
            yield from json_differences(x, y, _step(path, n))
    elif type(a) is not type(b) or a != b:
        yield path, a, b


def _difference(a: Any, b: Any) -> str:
    """The first place two JSON values differ, for messages."""
    for path, x, y in json_differences(a, b):
        return f"at {path or '/'}: {_short(x)} vs {_short(y)}"
    return "no difference found"


def _differences(a: Any, b: Any, limit: int = 6) -> str:
    paths = [p or "/" for p, _, _ in json_differences(a, b)]
    more = f" (+{len(paths) - limit} more)" if len(paths) > limit else ""
    return ", ".join(paths[:limit]) + more if paths else "nothing"


def _string_leaves(value: Any) -> Iterator[str]:
    for leaf, _ in _string_leaves_with_paths(value):
        yield leaf


def _string_leaves_with_paths(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield value, path or "/"
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _string_leaves_with_paths(item, _step(path, key))
    elif isinstance(value, list | tuple):
        for n, item in enumerate(value):
            yield from _string_leaves_with_paths(item, _step(path, n))
