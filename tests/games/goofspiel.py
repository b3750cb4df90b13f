"""Goofspiel: a tiny simultaneous-move game, for tests only.

| | |
|---|---|
| seats | 2 |
| option | ``cards`` (int, 1–13, default 5): each seat holds the cards 1..N; the prizes are 1..N |
| chance | each round a prize card is revealed, uniformly from the prizes not yet revealed |
| actions | ``{"bid": k}`` with ``k`` a card still in the seat's hand; both seats bid at once |
| hidden | only the commitments: the driver holds a bid until both seats have bid |
| views | own hand (seats only), revealed prizes, both bid histories (after each reveal), scores |
| outcome | higher total of prizes won ranks first; equal totals draw (reason ``"score"``) |
| timeout | a default action: the seat's lowest card (``GameInfo.timeout = "default"``) |

The higher bid wins the current prize; on equal bids the prize is discarded. Hands are
derivable from the public bid histories, so the state between joint actions holds no secret:
the hidden part of this game is exactly the commitment the driver keeps (what the conformance
suite and ``tests/test_match.py`` exercise).

Notation: ``N/prizes/bids0/bids1`` with comma-separated card lists, e.g. ``5/3,1/2/4``:
five cards per suit, prizes 3 then 1 revealed, seat 0 bid 2, seat 1 bid 4, and prize 1 (the
one more prize than bids) is up for bidding.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import (
    CHANCE,
    CHANCE_DECISION,
    TERMINAL,
    Action,
    BadNotation,
    BadOptions,
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
)

MAX_CARDS = 13


class Goofspiel(Game):
    info = GameInfo(
        name="goofspiel",
        title="Goofspiel",
        min_seats=2,
        max_seats=2,
        chance=True,
        hidden_information=True,
        simultaneous=True,
        seat_names=("north", "south"),
        default_options={"cards": 5},
        summary="Bid cards simultaneously for prizes revealed one by one (test-only game).",
        timeout="default",
    )

    def check_options(self, options: Mapping[str, Any]) -> None:
        if not 1 <= options["cards"] <= MAX_CARDS:
            raise BadOptions(f"cards must be 1–{MAX_CARDS}", option="cards")

    def initial_state(self, num_seats: int, options: Mapping[str, Any]) -> State:
        return _state(options["cards"], [], [[], []])

    def decision(self, state: State) -> Decision:
        if len(state["bids"][0]) == state["cards"]:
            return TERMINAL
        if state["current"] is None:
            return CHANCE_DECISION
        return simultaneous((0, 1))

    def chance_outcomes(self, state: State) -> list[tuple[Action, int]]:
        revealed = set(state["prizes"])
        return [(k, 1) for k in range(1, state["cards"] + 1) if k not in revealed]

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["current"] is None or len(state["bids"][0]) == state["cards"]:
            return []
        return [{"bid": k} for k in state["hands"][seat]]

    def default_action(self, state: State, seat: int) -> Action:
        # The seat's lowest card: the cheapest bid, known from its own hand.
        return {"bid": min(state["hands"][seat])}

    def action_key(self, action: Action) -> Any:
        # Numeric order: canonical JSON text would put {"bid":10} before {"bid":2}.
        return action["bid"]

    def parse_action(self, raw: Any) -> Action:
        check_fields(raw, {"bid": int})
        if not 1 <= raw["bid"] <= MAX_CARDS:
            raise MalformedAction(f"no card {raw['bid']} in Goofspiel", field="bid")
        return {"bid": raw["bid"]}

    def explain_illegal(self, state: State, seat: int, action: Action) -> IllegalAction:
        return IllegalAction(f"card {action['bid']} is not in this seat's hand",
                             rule="card_not_in_hand")

    def apply_unchecked(self, state: State, actions: Mapping[int, Action]) -> Transition:
        if CHANCE in actions:
            prize = actions[CHANCE]
            return Transition(_state(state["cards"], [*state["prizes"], prize], state["bids"]),
                              [Event("prize", {"card": prize})])
        bids = [actions[0]["bid"], actions[1]["bid"]]
        new = _state(state["cards"], state["prizes"],
                     [[*state["bids"][s], bids[s]] for s in (0, 1)])
        winner = None if bids[0] == bids[1] else (0 if bids[0] > bids[1] else 1)
        return Transition(new, [Event("reveal", {"bids": bids, "prize": state["current"],
                                                 "winner": winner})])

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "cards": state["cards"],
            "prizes": list(state["prizes"]),
            "current": state["current"],
            "bids": [list(b) for b in state["bids"]],
            "scores": list(state["scores"]),
        }
        if seat is not None:
            out["hand"] = list(state["hands"][seat])
        return out

    def outcome(self, state: State) -> Outcome | None:
        if len(state["bids"][0]) < state["cards"]:
            return None
        a, b = state["scores"]
        if a == b:
            return Outcome.draw(2, "score", state["scores"])
        return Outcome.win(0 if a > b else 1, 2, "score", state["scores"])

    def to_notation(self, state: State) -> str:
        def cards(xs: list[int]) -> str:
            return ",".join(str(x) for x in xs)
        return "/".join([str(state["cards"]), cards(state["prizes"]),
                         cards(state["bids"][0]), cards(state["bids"][1])])

    def from_notation(self, text: str, options: Mapping[str, Any] | None = None) -> State:
        parts = text.strip().split("/")
        if len(parts) != 4:
            raise BadNotation("Goofspiel notation is N/prizes/bids0/bids1")
        try:
            n = int(parts[0])
            prizes, bids0, bids1 = ([int(x) for x in p.split(",")] if p else [] for p in parts[1:])
        except ValueError:
            raise BadNotation("card lists are comma-separated integers") from None
        if not 1 <= n <= MAX_CARDS:
            raise BadNotation(f"N must be 1–{MAX_CARDS}")
        for cards in (prizes, bids0, bids1):
            if len(set(cards)) != len(cards) or any(not 1 <= c <= n for c in cards):
                raise BadNotation("a card list repeats a card or names a card not in 1..N")
        if len(bids0) != len(bids1) or len(prizes) - len(bids0) not in (0, 1):
            raise BadNotation("both seats bid once per prize; at most one prize is open")
        return _state(n, prizes, [bids0, bids1])


def _state(cards: int, prizes: list[int], bids: list[list[int]]) -> State:
    """The whole state, derived from the public history (so notation and state agree)."""
    scores = [0, 0]
    for prize, b0, b1 in zip(prizes, bids[0], bids[1], strict=False):
        if b0 != b1:
            scores[0 if b0 > b1 else 1] += prize
    return {
        "num_seats": 2,
        "cards": cards,
        "prizes": list(prizes),
        "current": prizes[-1] if len(prizes) > len(bids[0]) else None,
        "bids": [list(b) for b in bids],
        "hands": [[k for k in range(1, cards + 1) if k not in b] for b in bids],
        "scores": scores,
    }


GAME = Goofspiel()
