"""BPN (rules §9.1), the game notation with its history, and action text (§9.2): case B18,
round trips and rejections."""

from __future__ import annotations

import json
import random

import pytest

from engine.barca import GAME, Position, action_text, parse_action_text
from engine.barca.notation import parse_bpn, to_bpn
from engine.core import BadNotation, MalformedAction

from .helpers import START, bpn, play, seat, state

CASES = [
    START,
    "10/10/10/10/5l4/4M5/10/10/10/10 w 0",
    "10/10/10/10/5l4/10/4M5/10/10/10 w 0",
    "10/10/10/10/5l4/4M5/10/10/10/E9 w 0",
    "10/10/10/10/10/10/10/E9/1l8/M1L7 w 0",
    "10/8l1/7M2/10/10/10/10/E9/1l8/M1L7 w 0",
    "10/10/10/10/5l4/4M5/10/10/1l8/M9 w 0",
    "3E6/10/10/10/10/10/3M2M3/10/10/4e5 w 0",
    "10/3L6/2lME5/10/3M6/10/3E2L3/10/10/9e w 0",
    "10/10/5l4/4M5/10/10/3E2L3/10/10/9e w 0",
    "M2E6/1l8/10/10/10/10/3M2L3/10/10/9e w 0",
    "10/10/10/10/10/l2M6/3ML1E3/2l7/3L6/9e w 0",
    "10/10/10/10/10/10/10/10/e9/Me8 w 0",
    "10/10/10/10/10/10/10/10/e9/Me8 b 1",
    "10/10/10/10/10/4e5/4M5/10/10/10 w 0",
    "10/10/10/10/10/4e5/4M5/10/10/10 b 1",
    "10/10/10/10/10/4L5/4M5/10/10/9e w 0",
    "4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 w 299",
    "3E6/10/10/10/10/10/3M2M3/10/10/4e5 w 299",
]


@pytest.mark.parametrize("text", CASES)
def test_b18_every_rule_position_round_trips(text: str) -> None:
    assert to_bpn(*parse_bpn(text)) == text
    assert GAME.to_notation(GAME.from_notation(text)) == text
    assert Position.from_bpn(text).to_bpn() == text


def test_b18_the_start_position() -> None:
    assert GAME.to_notation(GAME.initial_state(2, {})) == START
    assert Position.start().to_bpn() == START


def test_the_ply_may_be_left_out() -> None:
    assert bpn(state("4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 w")) == START
    assert bpn(state("4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 b")) == \
        "4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 b 0"


@pytest.mark.parametrize("text", [
    "4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 x 0",     # side x
    "4ee4/3lmml3/9/10/10/10/10/10/3LMML3/4EE4 w 0",      # a rank summing to 9
    "4ee4/3lmml3/10/1M9/10/10/10/10/3LMML3/4EE4 w 0",    # a rank summing to 11
    "4ee4/3lmml3/55/10/10/10/10/10/3LMML3/4EE4 w 0",     # digit run 55
    "4ee4/3lmml3/0M9/10/10/10/10/10/3LMML3/4EE4 w 0",    # digit run 0
    "4ee4/3lmml3/010/10/10/10/10/10/3LMML3/4EE4 w 0",    # digit run 010
    "4ee4/3lmml3/M9/10/10/10/10/10/3LMML3/4EE4 w 0",     # three white mice
    "10/10/10/3M2M3/10/10/3E6/10/10/4e5 w 0",            # white already on 3 holes
    "4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 w 300",   # ply >= 300
    "4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 w 07",    # ply with a leading zero
    "4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 w -1",
    "4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4  w 0",    # two spaces
    "4ee4/3lmml3/10/10/10/10/10/10/3LMML3 w 0",          # nine ranks
    "4ee4/3lmml3/10/10/10/10/10/10/3LMMX3/4EE4 w 0",     # unknown letter
    "10/10/10/10/10/10/10/10/10/4EE4 w 0",               # black has no piece
    "4eeee/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 w 0",    # rank too short / 4 elephants
    "4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 w 0 extra",
    "",
])
def test_b18_bad_positions_are_rejected(text: str) -> None:
    with pytest.raises(BadNotation):
        parse_bpn(text)
    with pytest.raises(BadNotation):
        GAME.from_notation(text)


def test_b18_move_text_is_lowercased() -> None:
    assert parse_action_text("E2-E5") == {"type": "move", "from": "e2", "to": "e5"}
    assert parse_action_text("j10-A1 CLAIM") == {"type": "move", "from": "j10", "to": "a1",
                                                 "claim": True}
    assert parse_action_text("claim") == {"type": "claim"}
    assert parse_action_text("Pass") == {"type": "pass"}


@pytest.mark.parametrize("action", [
    {"type": "move", "from": "e2", "to": "e5"},
    {"type": "move", "from": "j10", "to": "a1", "claim": True},
    {"type": "claim"},
    {"type": "pass"},
])
def test_action_text_round_trips(action: dict) -> None:
    assert parse_action_text(action_text(action)) == action


@pytest.mark.parametrize("text", ["e2e5", "e2-k5", "e2-e11", "e2-e5 now", "claim pass", "",
                                  "e0-e5", "move e2 e5"])
def test_bad_action_text_is_malformed(text: str) -> None:
    with pytest.raises(MalformedAction):
        parse_action_text(text)


def _random_game(seed: int, plies: int) -> list[dict]:
    rng = random.Random(seed)
    s = state(START)
    states = [s]
    while not GAME.decision(s).terminal and len(states) <= plies:
        actions = GAME.legal_actions(s, seat(s))
        s = GAME.apply(s, {seat(s): actions[int(rng.random() * len(actions))]}).state
        states.append(s)
    return states


@pytest.mark.parametrize("seed", range(3))
def test_every_state_of_a_game_round_trips_through_notation_and_json(seed: int) -> None:
    for s in _random_game(seed, 300):
        text = GAME.to_notation(s)
        assert GAME.from_notation(text) == s
        assert json.loads(json.dumps(s)) == s
        assert GAME.to_notation(json.loads(json.dumps(s))) == text


def test_the_game_notation_carries_the_history_and_a_claim() -> None:
    s = play(state(START), "d2-c3", "d9-c8", "c3-d2", "c8-d9")
    text = GAME.to_notation(s)
    assert text.startswith(f"{START[:-1]}4 ")
    assert text.split(" ")[3].startswith(f"{START[:-2].replace(' ', ',')}=2;")
    assert GAME.from_notation(text) == s
    claimed = play(s, "d2-c3", "d9-c8", "c3-d2", "c8-d9", "claim")
    text = GAME.to_notation(claimed)
    assert text.endswith(" claim")
    back = GAME.from_notation(text)
    assert back == claimed and GAME.decision(back).terminal


def test_a_won_game_reads_back_as_won() -> None:
    s = play(state("3E6/10/10/10/10/10/3M2M3/10/10/4e5 w 0"), "d10-d7")
    text = GAME.to_notation(s)
    assert len(text.split(" ")) == 4  # the history field is written: the game is over
    back = GAME.from_notation(text)
    assert back == s


@pytest.mark.parametrize("text", [
    # a fresh history must be plain BPN
    f"{START} {START[:-2].replace(' ', ',')}=1",
    # the history must contain the current position
    f"{START} 4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4,b=1",
    # count 6 is not a count
    f"{START} {START[:-2].replace(' ', ',')}=6",
    # a claim needs count 3
    f"{START} {START[:-2].replace(' ', ',')}=2 claim",
    # a history position with other pieces
    f"{START} {START[:-2].replace(' ', ',')}=2;10/10/10/10/10/10/10/10/10/4EEe3,b=1",
    # listed twice
    f"{START} {START[:-2].replace(' ', ',')}=2;{START[:-2].replace(' ', ',')}=1",
    # a bad digit run in a history placement
    f"{START} {START[:-2].replace(' ', ',')}=2;4ee4/3lmml3/55/10/10/10/10/10/3LMML3/4EE4,b=1",
])
def test_bad_game_notation_is_rejected(text: str) -> None:
    with pytest.raises(BadNotation):
        GAME.from_notation(text)
