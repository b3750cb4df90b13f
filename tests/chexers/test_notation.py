"""CXN (§7.2, C15): every position of the rules' table round-trips; bad spellings and values
are rejected with BadNotation; a game from CXN has a fresh history."""

from __future__ import annotations

import json

import pytest

from engine.chexers import GAME, Position
from engine.chexers.notation import history_field, parse_game_notation
from engine.chexers.position import key_from_text, key_text
from engine.core import BadNotation

from .helpers import START, ex, mv, play, state

TABLE = [
    START,
    "4/gr3/b1r3/7/6/5/4 r 0,0,0 0",
    "4/gr3/b1r3/7/6/5/4 g 0,0,0 1",
    "4/gg3/1r4/2b4/6/5/4 g 0,0,0 1",
    "4/g4/1g4/1gb4/6/5/4 b 0,0,0 2",
    "4/5/6/2brr2/3g2/5/4 r 0,0,0 0",
    "4/5/6/2b1rr1/3g2/5/4 g 0,0,0 1",
    "4/5/6/2b1r2/3r2/3r1/4 g 0,0,0 1",
    "4/5/5r/6b/5r/3g1/2bg r 0,0,0 0",
    "4/5/5r/6b/5r/3g1/2bg b 0,0,0 2",
    "4/5/6/6b/5r/3g1/2bg g 1,0,0 1",
    "3r/5/6/7/6/5/4 r 0,0,0 0",
    "4/5/6/7/b1b3/gg3/rgb1 r 0,0,0 0",
    "4/5/6/3rb2/6/5/4 g 0,0,0 1",
    "4/5/6/b2rg2/6/5/4 b 0,0,3 767",
    "4/5/6/3bg1r/6/5/4 r 3,0,0 765",
    "gggg/5/6/r5b/r4b/r3b/r2b b 0,0,0 767",
    "rgbr/bgrbg/rgb3/7/6/5/4 r 0,0,0 0",
    "r3/5/6/7/6/5/3b g 0,3,3 4",
]


@pytest.mark.parametrize("cxn", TABLE)
def test_c15_round_trip(cxn: str) -> None:
    s = GAME.from_notation(cxn)
    assert GAME.to_notation(s) == cxn
    assert Position.from_cxn(cxn).to_cxn() == cxn
    assert json.loads(json.dumps(s)) == s
    board, to_move = cxn.split(" ")[:2]
    assert s["history"] == {f"{board} {to_move}": 1}  # a fresh history
    assert s["outcome"] is None


@pytest.mark.parametrize("bad", [
    "gggg/5/6/r5b/r4b/r3b/r2b r 0,0,0",             # three fields
    "gggg/5/6/r5b/r4b/r3b/r2b r 0,0,0 0 x",         # five
    "gggg/5/6/r5b/r4b/r3b/r2b  r 0,0,0 0",          # double space
    " gggg/5/6/r5b/r4b/r3b/r2b r 0,0,0 0",
    "gggg/5/6/r5b/r4b/r3b/r2b r 0,0,0 0\n",
    "gggg/5/6/r5b/r4b/r3b r 0,0,0 0",               # six rows
    "gggg/5/6/r5b/r4b/r3b/r2b/4 r 0,0,0 0",         # eight rows
    "ggg/5/6/r5b/r4b/r3b/r2b r 0,0,0 0",            # row 1 totals 3
    "ggggg/5/6/r5b/r4b/r3b/r2b r 0,0,0 0",          # row 1 totals 5
    "gggg/6/6/r5b/r4b/r3b/r2b r 0,0,0 0",           # row 2 totals 6
    "gggg/5/6/r5b/r4b/r3b/r3b r 0,0,0 0",           # row 7 totals 5
    "gggg/5/33/r5b/r4b/r3b/r2b r 0,0,0 0",          # two digits adjacent
    "gggg/5/6/r14b/r4b/r3b/r2b r 0,0,0 0",
    "gggg/5/06/r5b/r4b/r3b/r2b r 0,0,0 0",          # 0 is no run
    "gggg/5/8/r5b/r4b/r3b/r2b r 0,0,0 0",
    "gggg/5/6/R5b/r4b/r3b/r2b r 0,0,0 0",           # upper case
    "gggg/5/6/x5b/r4b/r3b/r2b r 0,0,0 0",
    "gggg/5/6/r5b/r4b/r3b/r2b g 0,0,0 0",           # to-move != rgb[T mod 3]
    "gggg/5/6/r5b/r4b/r3b/r2b r 0,0,0 1",
    "gggg/5/6/r5b/r4b/r3b/r2b x 0,0,0 0",
    "4/5/6/7/6/5/4 r 4,0,0 0",                      # exits > 3
    "4/5/6/7/6/5/4 r 0,0,-1 0",
    "4/5/6/7/6/5/4 r 0,0 0",
    "4/5/6/7/6/5/4 r 0,0,0,0 0",
    "4/5/6/7/6/5/4 r 00,0,0 0",
    "4/5/6/7/6/5/4 r 0, 0,0 0",
    "4/5/6/7/6/5/4 r 0,0,0 768",                    # T > 767
    "4/5/6/7/6/5/4 r 0,0,0 -3",
    "4/5/6/7/6/5/4 r 0,0,0 03",                     # not the canonical spelling
    "4/5/6/7/6/5/4 r 0,0,0 +3",
    "4/5/6/7/6/5/4 r 0,0,0 x",
    "gggg/5/6/r5b/r4b/r3b/r2b r 1,0,0 0",           # 12 pieces + 1 exit > 12
    "gggg/ggggg/6/r5b/r4b/r3b/r2b r 0,0,0 0",       # 17 pieces
    "",
])
def test_c15_rejects(bad: str) -> None:
    with pytest.raises(BadNotation):
        GAME.from_notation(bad)
    with pytest.raises(BadNotation):
        Position.from_cxn(bad)


def test_from_notation_rejects_non_strings() -> None:
    with pytest.raises(BadNotation):
        GAME.from_notation(None)  # type: ignore[arg-type]


def test_to_move_follows_t_mod_3() -> None:
    for t, letter in [(0, "r"), (1, "g"), (2, "b"), (3, "r"), (767, "b"), (100, "g")]:
        s = GAME.from_notation(f"4/5/6/7/6/5/4 {letter} 0,0,0 {t}")
        assert GAME.decision(s).seats == ("rgb".index(letter),)


def test_key_text_is_the_board_and_the_colour_to_move() -> None:
    for cxn in TABLE:
        pos = Position.from_cxn(cxn)
        text = key_text(pos.key())
        assert text == " ".join(cxn.split(" ")[:2])
        assert key_from_text(text) == pos.key()
    with pytest.raises(BadNotation):
        key_from_text("gggg/5/6/r5b/r4b/r3b/r2b")


def test_state_from_custom_start_plays_on() -> None:
    s = state("4/5/6/3bg1r/6/5/4 r 3,0,0 765")
    assert GAME.legal_actions(s, 0)[0] == {"type": "EXIT", "from": [3, 0]}


# ---- the game notation: CXN plus a history field (our extension) ------------------------------

C10_CYCLE = [mv((-3, 3), (-2, 3)), mv((0, -3), (0, -2)), mv((3, 0), (2, 0)),
             mv((-2, 3), (-3, 3)), mv((0, -2), (0, -3)), mv((2, 0), (3, 0))]


def _after(start: str, actions: list[dict]) -> dict:
    s = state(start)
    for a in actions:
        s = play(s, a)
    return s


def test_mid_game_states_carry_their_history_in_the_notation() -> None:
    s = _after(START, C10_CYCLE * 2)
    text = GAME.to_notation(s)
    assert text.split(" ")[:4] == START.split(" ")[:3] + ["12"]
    assert text.split(" ")[4].startswith("gggg/5/6/r5b/r4b/r3b/r2b,r=3;")
    assert GAME.from_notation(text) == s
    # one more cycle from the parsed state reaches the repetition draw as the original does
    again = GAME.from_notation(text)
    for a in C10_CYCLE:
        again = play(again, a)
    outcome = GAME.outcome(again)
    assert outcome is not None and outcome.reason == "repetition"


@pytest.mark.parametrize(("start", "actions", "reason"), [
    (START, C10_CYCLE * 3, "repetition"),
    ("4/5/6/b2rg2/6/5/4 b 0,0,3 767", [ex((-3, 0))], "turn_limit"),
    ("4/5/6/3bg1r/6/5/4 r 3,0,0 765", [ex((3, 0))], "exits"),
    ("gggg/5/6/r5b/r4b/r3b/r2b b 0,0,0 767", [mv((3, 0), (2, 0))], "turn_limit"),
])
def test_finished_games_have_a_notation_that_reads_back(start: str, actions: list[dict],
                                                        reason: str) -> None:
    s = _after(start, actions)
    text = GAME.to_notation(s)
    back = GAME.from_notation(text)
    assert back == s and GAME.to_notation(back) == text
    outcome = GAME.outcome(back)
    assert outcome is not None and outcome.reason == reason
    assert Position.from_notation(text).to_notation() == text


def test_after_a_win_the_notation_is_cxn_plus_the_fresh_history() -> None:
    s = _after("4/5/6/3bg1r/6/5/4 r 3,0,0 765", [ex((3, 0))])
    assert GAME.to_notation(s) == "4/5/6/3bg2/6/5/4 g 4,0,0 766 4/5/6/3bg2/6/5/4,g=1"


@pytest.mark.parametrize("bad", [
    # a fresh history must be written as plain CXN
    f"{START} gggg/5/6/r5b/r4b/r3b/r2b,r=1",
    # the current key is missing
    "gggg/5/6/r5b/r4b/r3b/1r1b g 0,0,0 1 gggg/5/6/r5b/r4b/r3b/r2b,r=1",
    # a key with another number of pieces can never recur
    "gggg/5/6/r5b/r4b/r3b/1r1b g 0,0,0 1 gggg/5/6/r5b/r4b/r3b/1r1b,g=1;4/5/6/7/6/5/4,r=1",
    # a key other than the current one seen 4 times: the game would have ended
    "gggg/5/6/r5b/r4b/r3b/1r1b g 0,0,0 1 gggg/5/6/r5b/r4b/r3b/r2b,r=4;"
    "gggg/5/6/r5b/r4b/r3b/1r1b,g=1",
    # listed twice, bad counts, bad entries
    "gggg/5/6/r5b/r4b/r3b/1r1b g 0,0,0 1 gggg/5/6/r5b/r4b/r3b/1r1b,g=1;"
    "gggg/5/6/r5b/r4b/r3b/1r1b,g=2",
    "gggg/5/6/r5b/r4b/r3b/1r1b g 0,0,0 1 gggg/5/6/r5b/r4b/r3b/1r1b,g=5",
    "gggg/5/6/r5b/r4b/r3b/1r1b g 0,0,0 1 gggg/5/6/r5b/r4b/r3b/1r1b,g=0",
    "gggg/5/6/r5b/r4b/r3b/1r1b g 0,0,0 1 gggg/5/6/r5b/r4b/r3b/1r1b g=2",
    "gggg/5/6/r5b/r4b/r3b/1r1b g 0,0,0 1 gggg/5/6/r5b/r4b/r3b/1r1b,x=2",
    "gggg/5/6/r5b/r4b/r3b/1r1b g 0,0,0 1 gggg/5/6/r5b/r4b/r3b/2b,g=2",
    "gggg/5/6/r5b/r4b/r3b/1r1b g 0,0,0 1 ",
    # 4 exits only for the last mover of a finished game
    "4/5/6/3bg2/6/5/4 g 0,4,0 766 4/5/6/3bg2/6/5/4,g=1",
    "4/5/6/3bg2/6/5/4 g 4,0,0 766",
    # T = 768 only with a history
    "4/5/6/3bg2/6/5/4 r 0,0,0 768",
    "4/5/6/3bg2/6/5/4 r 0,0,0 769 4/5/6/3bg2/6/5/4,r=1",
    # six fields
    f"{START} gggg/5/6/r5b/r4b/r3b/r2b,r=2 x",
])
def test_game_notation_rejects(bad: str) -> None:
    with pytest.raises(BadNotation):
        GAME.from_notation(bad)


def test_history_field_round_trip() -> None:
    history = {"gggg/5/6/r5b/r4b/r3b/r2b r": 2, "gggg/5/6/r5b/r4b/r3b/1r1b g": 1}
    field = history_field(history)
    assert field == "gggg/5/6/r5b/r4b/r3b/r2b,r=2;gggg/5/6/r5b/r4b/r3b/1r1b,g=1"
    assert parse_game_notation(f"{START} {field}")[3] == history
