"""The position notation: exact round trips over random playouts, and rejection of bad text."""

from __future__ import annotations

import pytest

from engine.battleline import GAME, notation
from engine.core import CHANCE, BadNotation
from engine.match import random_policy
from engine.rng import Rng

from .helpers import position

EMPTY = "/".join(["-|-"] * 9)


def random_states(seed: int, options: dict[str, str] | None = None) -> list[dict]:
    rng = Rng(seed)
    policy = random_policy(rng.fork("policy"))
    state = GAME.initial_state(2, GAME.normalize_options(options))
    states = [state]
    while not GAME.decision(state).terminal:
        decision = GAME.decision(state)
        if decision.chance:
            outcomes = GAME.chance_outcomes(state)
            joint = {CHANCE: outcomes[rng.below(len(outcomes))][0]}
        else:
            seat = decision.seats[0]
            joint = {seat: policy(GAME.view(state, seat), GAME.legal_actions(state, seat), seat)}
        state = GAME.apply_unchecked(state, joint).state
        states.append(state)
    return states


@pytest.mark.parametrize(("seed", "options"), [
    (seed, options) for seed in range(6)
    for options in (None, {"claim_timing": "after_play", "mud_excess": "forbid"})])
def test_every_reachable_state_round_trips_exactly(seed: int, options: dict | None) -> None:
    for state in random_states(seed, options):
        text = GAME.to_notation(state)
        back = GAME.from_notation(text)
        assert back == state, text
        assert GAME.to_notation(back) == text


def test_the_documented_example_reads_back() -> None:
    example = ("-|-/8r,9r,10r|3b,5g#0/-|-/-|-/7p|-;Fog@1/-|-/-|-/-|-/-|- "
               "1o,2o,4y,6y,9y,10y,Alexander/1b,2b,4b,6p,8p,9p,Mud 5r/- -/- -/- 1:play")
    assert example in notation.__doc__.replace("\n    ", " ")
    s = GAME.from_notation(example)
    assert s["flags"][1]["claimed"] == 0 and s["flags"][4]["env"] == {"Fog": 1}
    assert s["tactics_played"] == [0, 1] and s["seat"] == 1
    assert s["options"] == {"claim_timing": "start", "mud_excess": "keep",
                            "stalemate": "resolve"}
    assert GAME.to_notation(s) == example + " claim_timing=start,mud_excess=keep,stalemate=resolve"


def test_scout_tops_and_knowledge_are_written() -> None:
    s = position(hands="1o,2o/3b,Fog", tops="7r@0,8g@1/Mud@0", known="Fog/-",
                 turn="1:play")
    assert [c for c, _ in s["tops"]["troop"]] == ["8g", "7r"]   # 7r on top
    assert s["known"] == [["Fog"], []]
    assert GAME.view(s, 0)["known_tops"] == {"troop": ["7r", None], "tactics": ["Mud"]}
    assert GAME.view(s, 1)["known_tops"] == {"troop": [None, "8g"], "tactics": [None]}
    assert GAME.to_notation(s).split(" ")[3:5] == ["7r@0,8g@1/Mud@0", "Fog/-"]


def test_options_in_the_text_win_over_the_arguments() -> None:
    text = f"{EMPTY} 1r/2r -/- -/- -/- 0:play claim_timing=after_play"
    assert GAME.from_notation(text)["options"]["claim_timing"] == "after_play"
    s = GAME.from_notation(f"{EMPTY} 1r/2r -/- -/- -/- 0:play", {"stalemate": "draw"})
    assert s["options"]["stalemate"] == "draw"


@pytest.mark.parametrize("text", [
    "",
    f"{EMPTY} 1r/2r -/- -/- -/-",                                  # missing turn
    f"{EMPTY} 1r/2r -/- -/- -/- 0:play x=y",                       # unknown option
    f"{EMPTY} 1r/2r -/- -/- -/- 0:play claim_timing=never",
    "/".join(["-|-"] * 8) + " 1r/2r -/- -/- -/- 0:play",            # eight flags
    f"{EMPTY} 1r/11r -/- -/- -/- 0:play",                          # unknown card
    f"{EMPTY} 1r/1r -/- -/- -/- 0:play",                           # a card twice
    f"{EMPTY} 1r,2r -/- -/- -/- 0:play",                           # one hand only
    f"{EMPTY} 1r/2r -/- -/- -/- 2:play",                           # seat 2
    f"{EMPTY} 1r/2r -/- -/- -/- 0:think",                          # unknown phase
    f"{EMPTY} 1r/2r -/- -/- -/- 0:play:s2",                        # Scout draws in play
    f"{EMPTY} 1r/2r -/- -/- -/- 0:return",                         # returns without count
    f"{EMPTY} 1r/2r -/- -/- -/2r 0:play",                          # knows a card not there
    f"{EMPTY} 1r/2r -/- 3r/- -/- 0:play",                          # stack without seat
    f"{EMPTY} 1r/2r -/- Fog@0/- -/- 0:play",                       # Fog on the troop deck
    f"{EMPTY} 1r/2r -/- 3r@0/- -/- 0:chance=troop",                # chance under a known top
    f"{EMPTY} 1r/2r -/- -/- -/- 0:over",                           # nobody has won
    "1r,2r,3r<-/" + "/".join(["-|-"] * 8) + " -/- -/- -/- -/- 0:play",  # < needs both complete
    "1r,2r,3r|4r,5r,6r/" + "/".join(["-|-"] * 8) + " -/- -/- -/- -/- 0:play",  # | needs < or >
    "1r,2r|-;Rain@0/" + "/".join(["-|-"] * 8) + " -/- -/- -/- -/- 0:play",
    "1r,Fog|-/" + "/".join(["-|-"] * 8) + " -/- -/- -/- -/- 0:play",  # Fog in a formation
    "1r,2r,3r,4r,5r|-;Mud@0/" + "/".join(["-|-"] * 8) + " -/- -/- -/- -/- 0:play",  # 5 cards
    "Alexander|-/-|-/-|-/-|-/-|-/-|-/-|-/-|-/Darius|- -/- -/- -/- -/- 0:play",  # two Leaders
    "1r|-/" + "/".join(["-|-"] * 8) + " 2r/3r -/- -/- -/- 0:deal",  # table cards in the deal
])
def test_bad_notation_is_rejected(text: str) -> None:
    with pytest.raises(BadNotation):
        GAME.from_notation(text)


def test_a_non_string_is_rejected() -> None:
    with pytest.raises(BadNotation):
        GAME.from_notation(None)  # type: ignore[arg-type]
