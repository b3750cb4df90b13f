"""Tiny games that exercise the server's seams without waiting for the real games.

* ``race``   — 2–3 seats, turn-based, perfect information: add 1 or 2 to a counter; whoever
  reaches the target wins.
* ``duel``   — 2 seats, a chance deal of one secret number per seat (hidden from the other
  seat and from spectators), then simultaneous rounds: both commit a card from their own
  hand, the higher card scores. Commitments stay hidden until both are in.
* ``faulty`` — like ``race`` but the engine raises on the third action (a server fault).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import (
    CHANCE,
    CHANCE_DECISION,
    TERMINAL,
    Decision,
    Event,
    Game,
    GameInfo,
    IllegalAction,
    MalformedAction,
    Outcome,
    State,
    Transition,
    check_fields,
    simultaneous,
    turn,
)


class Race(Game):
    info = GameInfo(name="race", title="Race", min_seats=2, max_seats=3, chance=False,
                    hidden_information=False, simultaneous=False,
                    seat_names=("first", "second", "third"), default_options={"target": 10})

    def initial_state(self, num_seats: int, options: Mapping[str, Any]) -> State:
        return {"num_seats": num_seats, "count": 0, "to_act": 0, "target": options["target"],
                "winner": None}

    def decision(self, state: State) -> Decision:
        return TERMINAL if state["winner"] is not None else turn(state["to_act"])

    def legal_actions(self, state: State, seat: int) -> list[Any]:
        if state["winner"] is not None or seat != state["to_act"]:
            return []
        return [{"add": 1}, {"add": 2}]

    def parse_action(self, raw: Any) -> Any:
        check_fields(raw, {"add": int})
        if raw["add"] not in (1, 2):
            raise IllegalAction("add 1 or 2", rule="add_range")
        return {"add": raw["add"]}

    def apply_unchecked(self, state: State, actions: Mapping[int, Any]) -> Transition:
        (seat, action), = actions.items()
        count = state["count"] + action["add"]
        new = dict(state, count=count, to_act=(seat + 1) % state["num_seats"])
        if count >= state["target"]:
            new["winner"] = seat
        return Transition(new, [Event("added", {"seat": seat, "add": action["add"],
                                                "count": count})])

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return {"count": state["count"], "to_act": state["to_act"], "target": state["target"]}

    def outcome(self, state: State) -> Outcome | None:
        if state["winner"] is None:
            return None
        return Outcome.win(state["winner"], state["num_seats"], "target")

    def to_notation(self, state: State) -> str:
        return f"{state['count']}/{state['target']}:{state['to_act']}"

    def from_notation(self, text: str, options: Mapping[str, Any] | None = None) -> State:
        raise NotImplementedError


class Faulty(Race):
    info = GameInfo(name="faulty", title="Faulty", min_seats=2, max_seats=2, chance=False,
                    hidden_information=False, simultaneous=False,
                    seat_names=("first", "second"), default_options={"target": 10})

    def apply_unchecked(self, state: State, actions: Mapping[int, Any]) -> Transition:
        if state["count"] >= 2:
            raise RuntimeError("engine bug")
        return super().apply_unchecked(state, actions)


class Duel(Game):
    info = GameInfo(name="duel", title="Duel", min_seats=2, max_seats=2, chance=True,
                    hidden_information=True, simultaneous=True, seat_names=("a", "b"),
                    default_options={"rounds": 3})

    def initial_state(self, num_seats: int, options: Mapping[str, Any]) -> State:
        return {"num_seats": 2, "secrets": None, "hands": [[1, 2, 3], [1, 2, 3]],
                "scores": [0, 0], "round": 0, "rounds": options["rounds"], "revealed": []}

    def decision(self, state: State) -> Decision:
        if state["secrets"] is None:
            return CHANCE_DECISION
        if state["round"] >= state["rounds"]:
            return TERMINAL
        return simultaneous((0, 1))

    def chance_outcomes(self, state: State) -> list[tuple[Any, int]]:
        return [([a, b], 1) for a in range(1000, 1010) for b in range(2000, 2010)]

    def legal_actions(self, state: State, seat: int) -> list[Any]:
        if self.decision(state).seats and state["hands"][seat]:
            return [{"card": c} for c in state["hands"][seat]]
        return []

    def parse_action(self, raw: Any) -> Any:
        check_fields(raw, {"card": int})
        if not 1 <= raw["card"] <= 3:
            raise MalformedAction("no such card", field="card")
        return {"card": raw["card"]}

    def explain_illegal(self, state: State, seat: int, action: Any) -> IllegalAction:
        return IllegalAction("you no longer hold that card", rule="card_not_in_hand")

    def apply_unchecked(self, state: State, actions: Mapping[int, Any]) -> Transition:
        if CHANCE in actions:
            secrets = actions[CHANCE]
            return Transition(dict(state, secrets=secrets), [
                Event("dealt", {}, {0: {"secret": secrets[0]}, 1: {"secret": secrets[1]}})])
        a, b = actions[0]["card"], actions[1]["card"]
        scores = list(state["scores"])
        if a > b:
            scores[0] += 1
        elif b > a:
            scores[1] += 1
        hands = [[c for c in state["hands"][0] if c != a], [c for c in state["hands"][1] if c != b]]
        revealed = [*state["revealed"], [a, b]]
        rounds = state["rounds"]
        if not hands[0]:
            hands = [[1, 2, 3], [1, 2, 3]]
        new = dict(state, hands=hands, scores=scores, round=state["round"] + 1,
                   revealed=revealed, rounds=rounds)
        return Transition(new, [Event("revealed", {"cards": [a, b], "scores": scores})])

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {"scores": state["scores"], "round": state["round"],
                               "revealed": state["revealed"], "hands": state["hands"]}
        if seat is not None and state["secrets"] is not None:
            out["secret"] = state["secrets"][seat]
        return out

    def outcome(self, state: State) -> Outcome | None:
        if state["secrets"] is None or state["round"] < state["rounds"]:
            return None
        s = state["scores"]
        if s[0] == s[1]:
            return Outcome.draw(2, "points", s)
        return Outcome.win(0 if s[0] > s[1] else 1, 2, "points", s)

    def to_notation(self, state: State) -> str:
        return str(state["round"])

    def from_notation(self, text: str, options: Mapping[str, Any] | None = None) -> State:
        raise NotImplementedError


RACE, DUEL, FAULTY = Race(), Duel(), Faulty()
TEST_GAMES = (RACE, DUEL, FAULTY)
