"""The conformance suite (engine/conformance.py) run over every registered game.

Every game in ``engine.registry`` (built-ins still under construction are skipped by the
registry) plus the test-only Goofspiel, for every check, with hypothesis choosing the seeds.
The second half proves the suite has teeth: deliberately broken variants of Goofspiel must
each fail the check meant for their defect.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
from games.goofspiel import GAME as GOOFSPIEL
from games.goofspiel import Goofspiel
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from engine import conformance, registry
from engine.conformance import CHECKS, Budget
from engine.core import (
    CHANCE,
    CHANCE_DECISION,
    Action,
    Decision,
    Event,
    Game,
    Outcome,
    State,
    Transition,
)
from engine.rng import Rng

# Sized so that the whole file stays well under a minute on a shared 2-core machine: long games
# get their expensive per-step checks on a sample of positions (every position still gets the
# cheap ones through the playout itself). A game not listed gets Budget() and DEFAULT_EXAMPLES;
# list it here if that is too slow.
BUDGETS: dict[str, Budget] = {
    "barca": Budget(checked_steps=20, resamples=1),
    "battleline": Budget(checked_steps=30, resamples=2),
    # Random plans rarely end a game early: a short variant keeps each playout under a second.
    "boundary": Budget(checked_steps=6, resamples=1,
                       options={"pieces": 3, "treasures": 4, "turn_limit": 8}),
    "chexers": Budget(checked_steps=12, resamples=1),
    "goofspiel": Budget(checked_steps=None),
}
EXAMPLES: dict[str, int] = {"barca": 4, "battleline": 8, "boundary": 3, "chexers": 4}
DEFAULT_EXAMPLES = 10
# A seed has no structure to shrink (seed 5 is not a "smaller" game than seed 5000), and
# shrinking replays whole games for minutes: report the failing seed as found.
PHASES = (Phase.explicit, Phase.reuse, Phase.generate)


def game_names() -> list[str]:
    """Registered games (importable built-ins) and the test-only Goofspiel."""
    return sorted(set(registry.names()) | {GOOFSPIEL.info.name})


@pytest.fixture(scope="module", autouse=True)
def goofspiel_registered() -> Iterator[None]:
    registry.register(GOOFSPIEL, replace=True)
    yield
    registry.unregister(GOOFSPIEL.info.name)


def _run(name: str, check: Callable[..., Any], seed: int) -> None:
    check(registry.get(name), seed, BUDGETS.get(name, Budget()))


# One hypothesis test per game: examples are budgeted per game, and each example runs every
# check on its seed (a failure names the check, the seed and the position).
def _conformance_test(name: str) -> Callable[[], None]:
    @settings(max_examples=EXAMPLES.get(name, DEFAULT_EXAMPLES), deadline=None, phases=PHASES)
    @given(seed=st.integers(min_value=0, max_value=2**64 - 1))
    def property_test(seed: int) -> None:
        for check in CHECKS:
            _run(name, check, seed)
    return property_test


@pytest.mark.parametrize("name", game_names())
def test_every_registered_game_conforms(name: str) -> None:
    _conformance_test(name)()


# Non-default options change rules (claim timing, stalemate, deck sizes): each must conform too.
OPTION_VARIANTS: dict[str, list[dict[str, Any]]] = {
    "battleline": [{"claim_timing": "after_play"}, {"mud_excess": "forbid", "stalemate": "draw"}],
    "goofspiel": [{"cards": 1}, {"cards": 2}, {"cards": 13}],
}


@pytest.mark.parametrize("name,options", [
    (name, options) for name in game_names() for options in OPTION_VARIANTS.get(name, [])])
@settings(max_examples=3, deadline=None, phases=PHASES)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1))
def test_games_conform_with_other_options(name: str, options: dict[str, Any], seed: int) -> None:
    base = BUDGETS.get(name, Budget())
    budget = Budget(max_steps=base.max_steps, checked_steps=base.checked_steps,
                    resamples=1, options=options)
    conformance.check_all(registry.get(name), seed, budget)


def test_the_registry_lists_goofspiel_only_inside_this_module() -> None:
    assert "goofspiel" in registry.names()
    assert registry.get("goofspiel") is GOOFSPIEL


def test_checked_positions_spread_over_the_playout() -> None:
    picked = conformance.checked_indices(101, seed=3, budget=Budget(checked_steps=10))
    assert picked[0] == 0 and picked[-1] == 100
    assert 10 <= len(picked) <= 12 and picked == sorted(set(picked))
    assert max(b - a for a, b in zip(picked, picked[1:], strict=False)) <= 11
    assert conformance.checked_indices(7, 3, Budget(checked_steps=None)) == list(range(7))


# --------------------------------------------------------------------------------------------
# The suite has teeth: broken variants of Goofspiel fail the matching check.
# --------------------------------------------------------------------------------------------


class UnsortedActions(Goofspiel):
    def legal_actions(self, state: State, seat: int) -> list[Action]:
        return list(reversed(super().legal_actions(state, seat)))


class EmptyActions(Goofspiel):
    def legal_actions(self, state: State, seat: int) -> list[Action]:
        legal = super().legal_actions(state, seat)
        return [] if len(legal) == 3 else legal


class ZeroWeights(Goofspiel):
    def chance_outcomes(self, state: State) -> list[tuple[Action, int]]:
        return [(k, 0 if i == 0 else 1) for i, (k, _) in
                enumerate(super().chance_outcomes(state))]


class TupleState(Goofspiel):
    def apply_unchecked(self, state: State, actions: Mapping[int, Action]) -> Transition:
        t = super().apply_unchecked(state, actions)
        return Transition({**t.state, "scores": tuple(t.state["scores"])}, t.events)


class NeverEnds(Goofspiel):
    """Instead of ending, deals a fresh game (a chance node) forever."""

    def decision(self, state: State) -> Decision:
        d = super().decision(state)
        return CHANCE_DECISION if d.terminal else d

    def chance_outcomes(self, state: State) -> list[tuple[Action, int]]:
        return super().chance_outcomes(state) or [(0, 1)]

    def apply_unchecked(self, state: State, actions: Mapping[int, Action]) -> Transition:
        if actions.get(CHANCE) == 0:
            return Transition(self.initial_state(2, {"cards": state["cards"]}), [])
        return super().apply_unchecked(state, actions)


class Nondeterministic(Goofspiel):
    calls = 0

    def apply_unchecked(self, state: State, actions: Mapping[int, Action]) -> Transition:
        Nondeterministic.calls += 1
        t = super().apply_unchecked(state, actions)
        return Transition({**t.state, "noise": Nondeterministic.calls}, t.events)


class MutatingApply(Goofspiel):
    def apply_unchecked(self, state: State, actions: Mapping[int, Action]) -> Transition:
        state.setdefault("touched", True)  # the bug: a mutation a second call would not repeat
        return super().apply_unchecked(state, actions)


class MutatingView(Goofspiel):
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        state["scores"].sort()  # the bug: "harmless" tidying of the caller's state
        return super().view(state, seat)


class MutatingResample(Goofspiel):
    def resample_hidden(self, state: State, seat: int | None, rng: Any) -> State:
        state["hands"][0].reverse()
        return state


class LossyNotation(Goofspiel):
    def to_notation(self, state: State) -> str:
        return super().to_notation(state).rsplit("/", 1)[0] + "/"

    def from_notation(self, text: str, options: Mapping[str, Any] | None = None) -> State:
        n, prizes, bids0, _ = text.split("/")
        bids1 = ",".join(bids0.split(",")[::-1]) if bids0 else ""
        return super().from_notation(f"{n}/{prizes}/{bids0}/{bids1}")


class LooseParser(Goofspiel):
    def parse_action(self, raw: Any) -> Action:
        if isinstance(raw, dict) and "bid" in raw:
            return {"bid": raw["bid"]}  # the bug: extra fields are ignored
        return super().parse_action(raw)


class WrongRanks(Goofspiel):
    def outcome(self, state: State) -> Outcome | None:
        out = super().outcome(state)
        return None if out is None else Outcome((0,), out.reason)


class Secretive(Goofspiel):
    """Adds a hidden string per seat (a 'hand colour' nobody else may see)."""

    COLOURS = ("amber", "cobalt", "crimson", "jade", "violet")

    def initial_state(self, num_seats: int, options: Mapping[str, Any]) -> State:
        return {**super().initial_state(num_seats, options), "colours": ["amber", "jade"]}

    def apply_unchecked(self, state: State, actions: Mapping[int, Action]) -> Transition:
        t = super().apply_unchecked(state, actions)
        return Transition({**t.state, "colours": list(state["colours"])}, t.events)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out = super().view(state, seat)
        if seat is not None:
            out["colour"] = state["colours"][seat]
        return out

    def resample_hidden(self, state: State, seat: int | None, rng: Any) -> State:
        colours = list(state["colours"])
        for s in range(2):
            if s != seat:
                colours[s] = rng.choice(self.COLOURS)
        return {**state, "colours": colours}

    def to_notation(self, state: State) -> str:
        return super().to_notation(state) + "/" + ",".join(state["colours"])

    def from_notation(self, text: str, options: Mapping[str, Any] | None = None) -> State:
        head, colours = text.rsplit("/", 1)
        return {**super().from_notation(head), "colours": colours.split(",")}


class LeakyView(Secretive):
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out = super().view(state, seat)
        out["rival_colour"] = state["colours"][1 - (seat or 0)]
        return out


class LeakyLegalActions(Secretive):
    def legal_actions(self, state: State, seat: int) -> list[Action]:
        legal = super().legal_actions(state, seat)
        return legal[:1] if state["colours"][1 - seat] == "crimson" and legal else legal

    def resample_hidden(self, state: State, seat: int | None, rng: Any) -> State:
        return {**state, "colours": [state["colours"][0], "crimson"] if seat == 0
                else ["crimson", state["colours"][1]] if seat == 1 else ["crimson", "crimson"]}


class LeakyEvents(Secretive):
    def apply_unchecked(self, state: State, actions: Mapping[int, Action]) -> Transition:
        t = super().apply_unchecked(state, actions)
        secret = Event("colour", {"seat": 0}, {0: {"colour": state["colours"][0]}})
        leak = Event("note", {"text": state["colours"][0]})  # the bug: public data
        return Transition(t.state, [*t.events, secret, leak])


class LeakyErrors(Secretive):
    def parse_action(self, raw: Any) -> Action:
        if raw == "x":
            from engine.core import MalformedAction
            raise MalformedAction("no", colours=list(self._last))
        return super().parse_action(raw)

    def check_action(self, state: State, seat: int, raw: Any) -> Action:
        self._last = state["colours"]
        return super().check_action(state, seat, raw)


class IllegalDefault(Goofspiel):
    def default_action(self, state: State, seat: int) -> Action:
        return {"bid": state["cards"] + 1}  # a card nobody holds


class MissingDefault(Goofspiel):
    """Declares a default action for timeouts but never wrote one."""

    default_action = Game.default_action


class UnknownTimeoutRule(Goofspiel):
    info = dataclasses.replace(Goofspiel.info, timeout="draw")  # type: ignore[arg-type]


class PeekingDefault(Secretive):
    """Its default bid depends on the rival's hidden colour."""

    def default_action(self, state: State, seat: int) -> Action:
        hand = state["hands"][seat]
        return {"bid": max(hand) if state["colours"][1 - seat] == "crimson" else min(hand)}


BROKEN: list[tuple[Game, Callable[..., Any], str]] = [
    (UnsortedActions(), conformance.check_decisions, "not sorted"),
    (EmptyActions(), conformance.check_terminates, "no legal action"),
    (ZeroWeights(), conformance.check_decisions, "weights are positive"),
    (TupleState(), conformance.check_json_round_trip, "round-trip through JSON"),
    (NeverEnds(), conformance.check_terminates, "did not end"),
    (Nondeterministic(), conformance.check_same_seed, "differ"),
    (MutatingApply(), conformance.check_no_mutation, "apply mutated its input"),
    (MutatingView(), conformance.check_no_mutation, "view.* mutated its input"),
    (MutatingResample(), conformance.check_no_mutation, "resample_hidden.* mutated its input"),
    (LossyNotation(), conformance.check_notation, "differs from the state"),
    (LooseParser(), conformance.check_action_errors, "expected MalformedAction"),
    (WrongRanks(), conformance.check_outcome, "ranks for 2 seats"),
    (LeakyView(), conformance.check_views, "tells apart states it must not"),
    (LeakyLegalActions(), conformance.check_views, "legal actions of seat"),
    (LeakyEvents(), conformance.check_private_events, "kept private"),
    (LeakyErrors(), conformance.check_action_errors, "depends on information hidden"),
    (IllegalDefault(), conformance.check_timeout, "not one of its legal actions"),
    (MissingDefault(), conformance.check_timeout, "default_action for seat 0 raised"),
    (UnknownTimeoutRule(), conformance.check_timeout, "info.timeout must be one of"),
    (PeekingDefault(), conformance.check_timeout, "default action of seat . depends on"),
]


@pytest.mark.parametrize("game,check,message", BROKEN,
                         ids=[type(g).__name__ for g, _, _ in BROKEN])
def test_a_broken_game_fails_its_check(game: Game, check: Callable[..., Any],
                                       message: str) -> None:
    budget = Budget(max_steps=200, checked_steps=None)
    with pytest.raises(AssertionError, match=message) as failure:
        for seed in range(3):
            check(game, seed, budget)
    assert "goofspiel seed=" in str(failure.value)  # the message says where to look


def test_the_correct_variant_with_hidden_state_passes() -> None:
    for seed in range(3):
        conformance.check_all(Secretive(), seed, Budget(checked_steps=None))


def test_leak_probe_names_the_hidden_value_in_the_view() -> None:
    game = LeakyView()
    state = game.initial_state(2, game.normalize_options(None))
    findings = conformance.leak_probe(game, state, 0, Rng(1), samples=8)
    assert len(findings) == 1
    assert "'jade'" in findings[0] and "/colours/1" in findings[0]
    assert "/rival_colour" in findings[0]
    assert conformance.leak_probe(Secretive(), state, 0, Rng(1), samples=8) == []
    assert set(conformance.hidden_paths(game, state, None, Rng(1), samples=8)) == {
        "/colours/0", "/colours/1"}


def test_failure_messages_carry_a_reproducible_position() -> None:
    with pytest.raises(AssertionError) as failure:
        conformance.check_decisions(UnsortedActions(), 0, Budget(checked_steps=None))
    text = str(failure.value)
    position = text.split("position: ", 1)[1].split(":", 1)[0]
    state = GOOFSPIEL.from_notation(position)
    assert json.loads(json.dumps(state)) == state
