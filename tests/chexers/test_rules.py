"""The rules' test cases C1-C13 (shared/rules/chexers.md §10) through the JSON contract, and
the perft counts of §8 through the fast core."""

from __future__ import annotations

import pytest

from engine.chexers import GAME, Position, perft
from engine.core import IllegalAction

from .helpers import PASS, START, as_set, cxn, ex, jp, legal, mv, play, state


def test_c1_start_actions_in_canonical_order() -> None:
    assert legal(START) == [
        mv((-3, 0), (-2, -1)), mv((-3, 0), (-2, 0)), mv((-3, 1), (-2, 0)),
        mv((-3, 1), (-2, 1)), mv((-3, 2), (-2, 1)), mv((-3, 2), (-2, 2)),
        mv((-3, 3), (-2, 2)), mv((-3, 3), (-2, 3)),
    ]


@pytest.mark.parametrize(("depth", "nodes"), [(1, 8), (2, 64), (3, 512), (4, 6784)])
def test_c1_perft_shallow(depth: int, nodes: int) -> None:
    assert perft(Position.start(), depth) == nodes


def test_c1_perft_depth_5() -> None:
    # Required figure from the referee (rules §8); the fast core runs it in well under 1 s.
    pos = Position.start()
    assert perft(pos, 5) == 89752
    assert pos.to_cxn() == START and pos.history == Position.start().history


def test_perft_through_the_json_contract_matches_the_fast_core() -> None:
    def json_perft(s: dict, depth: int) -> int:
        if depth == 0:
            return 1
        seat = s["turns"] % 3
        return sum(json_perft(GAME.apply(s, {seat: a}).state, depth - 1)
                   for a in GAME.legal_actions(s, seat))
    assert json_perft(state(START), 3) == 512


def test_c2_rules_figure_2a_moves() -> None:
    assert as_set(legal("4/gr3/b1r3/7/6/5/4 r 0,0,0 0")) == as_set([
        mv((0, -2), (0, -3)), mv((0, -2), (1, -3)), mv((0, -2), (1, -2)),
        mv((0, -2), (-1, -1)),
        mv((0, -1), (-1, -1)), mv((0, -1), (-1, 0)), mv((0, -1), (0, 0)),
        mv((0, -1), (1, -2)), mv((0, -1), (1, -1)),
        jp((0, -2), (0, 0)), jp((0, -1), (0, -3)),
    ])
    assert as_set(legal("4/gr3/b1r3/7/6/5/4 g 0,0,0 1")) == as_set([
        mv((-1, -2), (0, -3)), mv((-1, -2), (-1, -1)),
        jp((-1, -2), (1, -2)), jp((-1, -2), (-3, 0)),
    ])


def test_c3_jump_converts_an_enemy_piece() -> None:
    start = "4/gg3/1r4/2b4/6/5/4 g 0,0,0 1"
    actions = legal(start)
    assert as_set(actions) == as_set([
        jp((-1, -2), (1, -2)), jp((0, -2), (-2, 0)),
        mv((-1, -2), (-2, -1)), mv((-1, -2), (0, -3)),
        mv((0, -2), (0, -3)), mv((0, -2), (0, -1)), mv((0, -2), (1, -3)), mv((0, -2), (1, -2)),
    ])
    assert jp((-1, -2), (-1, 0)) not in actions and jp((0, -2), (-2, -2)) not in actions
    after = GAME.apply(state(start), {1: jp((0, -2), (-2, 0))})
    assert cxn(after.state) == "4/g4/1g4/1gb4/6/5/4 b 0,0,0 2"
    (event,) = [e.render(None) for e in after.events]
    assert event == {"type": "action", "seat": 1, "turn": 1, "action": jp((0, -2), (-2, 0)),
                     "exited": False, "converted": [-1, -1], "converted_from": 0}


def test_c4_jumping_an_own_piece_converts_nothing() -> None:
    start = "4/5/6/2brr2/3g2/5/4 r 0,0,0 0"
    actions = legal(start)
    assert len(actions) == 11
    # canonical order: step (+1,0) comes before (0,+1)
    assert [a for a in actions if a["type"] == "JUMP"] == [
        jp((0, 0), (-2, 0)), jp((0, 0), (2, 0)), jp((0, 0), (0, 2)), jp((1, 0), (-1, 2))]
    own = GAME.apply(state(start), {0: jp((0, 0), (2, 0))})
    assert cxn(own.state) == "4/5/6/2b1rr1/3g2/5/4 g 0,0,0 1"
    assert "converted" not in own.events[0].data
    enemy = play(state(start), jp((0, 0), (0, 2)))
    assert cxn(enemy) == "4/5/6/2b1r2/3r2/3r1/4 g 0,0,0 1"


def exits_of(position: str) -> list[dict]:
    return [a for a in legal(position) if a["type"] == "EXIT"]


def test_c5_exits() -> None:
    # Blue's pieces stand on Red's and Green's exit hexes, not on its own: no exit.
    board = "4/5/5r/6b/5r/3g1/2bg"
    assert exits_of(f"{board} r 0,0,0 0") == [ex((3, -1))]
    assert exits_of(f"{board} g 0,0,0 1") == [ex((0, 3))]
    assert exits_of(f"{board} b 0,0,0 2") == []
    after = GAME.apply(state(f"{board} r 0,0,0 0"), {0: ex((3, -1))})
    assert cxn(after.state) == "4/5/6/6b/5r/3g1/2bg g 1,0,0 1"
    assert after.events[0].data["exited"] is True


def test_c6_a_piece_on_an_exit_hex_may_also_move() -> None:
    assert legal("3r/5/6/7/6/5/4 r 0,0,0 0") == [
        ex((3, -3)), mv((3, -3), (2, -3)), mv((3, -3), (3, -2)), mv((3, -3), (2, -2))]


def test_c7_blocked_player_passes() -> None:
    s = state("4/5/6/7/b1b3/gg3/rgb1 r 0,0,0 0")
    assert GAME.legal_actions(s, 0) == [PASS]
    after = play(s, PASS)
    assert after["turns"] == 1 and GAME.decision(after).seats == (1,)
    assert after["outcome"] is None


def test_c8_knocked_out_player_still_gets_its_turn_and_passes() -> None:
    s = state("4/5/6/3rb2/6/5/4 g 0,0,0 1")
    assert GAME.decision(s).seats == (1,)
    assert GAME.legal_actions(s, 1) == [PASS]


def test_c9_pass_is_rejected_when_anything_else_is_possible() -> None:
    s = state(START)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, {0: PASS})
    assert err.value.rule == "pass_not_allowed"


C10_OUT = [mv((-3, 3), (-2, 3)), mv((0, -3), (0, -2)), mv((3, 0), (2, 0))]
C10_BACK = [mv((-2, 3), (-3, 3)), mv((0, -2), (0, -3)), mv((2, 0), (3, 0))]


def test_c10_fourth_occurrence_of_the_start_is_a_draw() -> None:
    s = state(START)
    start_key = "gggg/5/6/r5b/r4b/r3b/r2b r"
    assert s["history"] == {start_key: 1}
    for cycle in range(3):
        for action in C10_OUT + C10_BACK:
            assert GAME.outcome(s) is None
            s = play(s, action)
        assert s["history"][start_key] == cycle + 2
    assert s["turns"] == 18
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.is_draw and outcome.reason == "repetition"
    assert GAME.decision(s).terminal
    with pytest.raises(IllegalAction):
        GAME.apply(s, {0: mv((-3, 3), (-2, 3))})


def test_c10_the_game_goes_on_after_turn_12() -> None:
    s = state(START)
    for action in (C10_OUT + C10_BACK) * 2:
        s = play(s, action)
    assert s["turns"] == 12 and GAME.outcome(s) is None
    assert GAME.view(s, None)["repetitions"] == 3


def test_c11_a_draw_beats_a_win_on_the_same_turn() -> None:
    s = play(state("4/5/6/b2rg2/6/5/4 b 0,0,3 767"), ex((-3, 0)))
    assert s["exits"] == {"r": 0, "g": 0, "b": 4} and s["turns"] == 768
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.is_draw and outcome.reason == "turn_limit"
    assert outcome.scores == (0, 0, 4)


def test_c12_a_win_just_before_the_cap() -> None:
    s = play(state("4/5/6/3bg1r/6/5/4 r 3,0,0 765"), ex((3, 0)))
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.winners == (0,) and outcome.reason == "exits"
    assert outcome.ranks == (0, 1, 1) and outcome.scores == (4, 0, 0)
    assert GAME.decision(s).terminal and GAME.legal_actions(s, 1) == []


@pytest.mark.parametrize("index", range(8))
def test_c13_any_blue_action_on_turn_767_hits_the_cap(index: int) -> None:
    s = state("gggg/5/6/r5b/r4b/r3b/r2b b 0,0,0 767")
    actions = GAME.legal_actions(s, 2)
    after = play(s, actions[index % len(actions)])
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.is_draw and outcome.reason == "turn_limit"


def test_repetition_is_reported_over_the_turn_limit_when_both_fire() -> None:
    # Walk the C10 cycle to the brink of a fourth occurrence on turn 768 exactly.
    s = state("gggg/5/6/r5b/r4b/r3b/r2b r 0,0,0 750")
    for action in (C10_OUT + C10_BACK) * 3:
        s = play(s, action)
    outcome = GAME.outcome(s)
    assert s["turns"] == 768 and outcome is not None and outcome.reason == "repetition"


def test_a_win_on_the_4th_exit_needs_exactly_the_mover() -> None:
    s = play(state("4/5/6/b2rg2/6/5/4 b 0,0,3 2"), ex((-3, 0)))
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.winners == (2,) and outcome.reason == "exits"
