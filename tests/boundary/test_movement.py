"""Rules §14.6: movement radii and interpolation, plans validated (cases 25–29)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.boundary import GAME, board_of, position_at, state_of, steps_to
from engine.core import IllegalAction, MalformedAction, NotToAct
from tests.boundary.helpers import FAR_ENEMY, board


def state_for(team0: list[tuple[int, int]], team1: list[tuple[int, int]]) -> dict[str, Any]:
    return state_of(board(team0, team1), 0, None)


def plan(moves: dict[str, Any], turn: int = 0) -> dict[str, Any]:
    return {"turn": turn, "moves": moves}


def rule_of(state: dict[str, Any], seat: int, action: Any) -> str:
    with pytest.raises(IllegalAction) as error:
        GAME.check_action(state, seat, action)
    return error.value.rule


def test_a_lone_piece_reaches_40_px_a_pair_80_case_25() -> None:
    state = state_for([(400, 400)], [FAR_ENEMY])
    assert GAME.check_action(state, 0, plan({"0": [440, 400]})) == plan({"0": [440, 400]})
    assert rule_of(state, 0, plan({"0": [441, 400]})) == "out_of_reach"
    assert rule_of(state, 0, plan({"0": [429, 429]})) == "out_of_reach"   # D2 = 1682
    pair = state_for([(400, 400), (420, 400)], [FAR_ENEMY])
    assert pair["blobs"][0] == [0, 1]
    GAME.check_action(pair, 0, plan({"0": [480, 400], "1": [420, 320]}))
    assert rule_of(pair, 0, plan({"0": [481, 400]})) == "out_of_reach"


def test_interpolation_case_26() -> None:
    assert steps_to((0, 0), (3, 1)) == 4
    assert [position_at((0, 0), (3, 1), 4, k) for k in (1, 2, 3, 4)] == [
        (1, 0), (2, 1), (2, 1), (3, 1)]
    assert steps_to((0, 0), (100, 100)) == 142
    path = [position_at((0, 0), (100, 100), 142, k) for k in range(1, 143)]
    assert path[-1] == (100, 100) and path[-2] != (100, 100)
    assert all(abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1
               for a, b in zip([(0, 0), *path], path, strict=False))


def test_bad_plans_are_rejected_and_the_seat_may_resubmit_case_27() -> None:
    state = state_for([(400, 400), (200, 200)], [(600, 600)])
    state["pieces"][1] = None          # piece 1 has been captured
    state["blobs"] = [[0], [7]]
    assert rule_of(state, 0, plan({"7": [600, 610]})) == "not_your_piece"
    assert rule_of(state, 0, plan({"1": [200, 210]})) == "piece_captured"
    assert rule_of(state, 0, plan({"0": [400, 800]})) == "off_field"
    assert rule_of(state, 0, plan({"0": [-1, 400]})) == "off_field"
    assert rule_of(state, 0, plan({"0": [410, 400]}, turn=3)) == "stale_turn"
    bad: Any
    for bad in (plan({"0": [400.5, 400]}), plan({"0": ["400", 400]}), plan({"0": [400]}),
                plan({"x": [400, 400]}), plan({"01": [400, 400]}), plan({"14": [1, 1]}),
                {"moves": {}}, {"turn": 0}, {"turn": 0, "moves": [], "extra": 1},
                {"turn": True, "moves": {}}, plan({"0": [True, 400]})):
        with pytest.raises(MalformedAction):
            GAME.check_action(state, 0, bad)
    # After every refusal the same seat's good plan is accepted: nothing changed.
    assert GAME.check_action(state, 0, plan({"0": [410, 400]})) == plan({"0": [410, 400]})
    with pytest.raises(NotToAct):
        GAME.check_action({**state, "result": "treasures"}, 0, plan({}))


def test_a_piece_id_beyond_a_small_variant_is_named() -> None:
    from engine.boundary.params import Params
    small = state_of(board([(400, 400)], [(600, 600)], params=Params(pieces=2)), 0, None)
    assert rule_of(small, 0, plan({"5": [400, 400]})) == "no_such_piece"


def test_a_missed_plan_is_the_empty_plan_case_28() -> None:
    state = state_for([(380, 400)], [(400, 390), (400, 410)])
    empty = GAME.default_action(state, 1)
    assert empty == plan({})
    out = GAME.apply(state, {0: plan({"0": [420, 400]}), 1: empty})
    (resolution,) = [e.data for e in out.events]
    assert resolution["events"][0]["kind"] == "piece_captured"   # evaluated: the turn ran
    quiet = state_for([(200, 200)], [(600, 600)])
    out = GAME.apply(quiet, {0: GAME.default_action(quiet, 0), 1: GAME.default_action(quiet, 1)})
    assert out.events[0].data["ticks"] == 1 and out.state["turn"] == 1


def test_the_move_radius_is_taken_at_the_start_of_the_turn_case_29() -> None:
    # A pair 60 px apart (one blob: it splits only beyond 80) may each go 80 px; moving
    # apart, they split during the turn, and what was legal stays legal.
    state = state_of(board([(300, 300), (360, 300)], [FAR_ENEMY], blobs=[(0, 1), (7,)]), 0,
                     None)
    action = plan({"0": [222, 300], "1": [438, 300]})
    assert GAME.check_action(state, 0, action) == action
    out = GAME.apply(state, {0: action, 1: plan({})})
    kinds = [e["kind"] for e in out.events[0].data["events"]]
    assert "split" in kinds
    after = board_of(out.state)
    assert after.pos[0] == (222, 300) and after.pos[1] == (438, 300)
    assert [b for b in after.blobs if b[0] < 7] == [(0,), (1,)]
