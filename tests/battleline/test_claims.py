"""Claims: direct comparison, proofs that hold and that fail, tie-breaks, claim timing."""

from __future__ import annotations

import pytest

from engine.battleline import GAME
from engine.battleline.formations import (
    Formation,
    can_claim,
    claimable_flags,
    prove_claim,
    unseen_troops,
)
from engine.core import IllegalAction

from .helpers import act, chance, claim, frozen, play, position


def test_unbeatable_wedge_is_claimed_before_the_opponent_plays_there() -> None:
    # 8-9-10 is the best wedge there is; the opponent's equal 8-9-10 would complete later.
    s = position({1: "8r,9r,10r|-"}, hands="1o,2o/3o,4o")
    assert claim(1) in GAME.legal_actions(s, 0)
    proof = prove_claim(s, 0, 1)
    assert proof.proven and proof.formation == Formation("wedge", 27)
    after, events = act(s, claim(1))
    assert after["flags"][0]["claimed"] == 0
    assert events[0].render(None) == {"type": "claim", "seat": 0, "flag": 1}


def test_failed_proof_names_a_counter_example_and_changes_nothing() -> None:
    s = position({1: "7r,7b,7g|3o"}, hands="1r/2r")
    assert claim(1) not in GAME.legal_actions(s, 0)
    before = frozen(s)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, {0: claim(1)})
    assert err.value.rule == "claim_not_proven"
    counter = err.value.details["counter_example"]
    assert counter["category"] == "wedge"
    assert set(counter["cards"]) <= set(unseen_troops(s))
    assert "3o" not in counter["cards"] and len(counter["cards"]) == 2
    assert frozen(s) == before


def test_a_card_in_the_claimers_own_hand_still_defeats_the_proof() -> None:
    # Only 10y completes the opponent's 8y-9y into a winning wedge (7y is on the table),
    # and 10y is in the claimer's own hand: the claim still fails.
    board = {1: "10r,10b,10g|8y,9y", 2: "7y|-"}
    s = position(board, hands="10y,1r/2r")
    proof = prove_claim(s, 0, 1)
    assert not proof.proven
    assert proof.counter_example is not None and proof.counter_example.cards == ("10y",)
    with pytest.raises(IllegalAction) as err:
        GAME.check_action(s, 0, claim(1))
    assert err.value.details["counter_example"] == {"cards": ["10y"], "category": "wedge",
                                                    "total": 27}
    # Once 10y is on the table the same flag is proven.
    shown = position({1: "10r,10b,10g|8y,9y", 2: "7y,10y|-"}, hands="1r/2r")
    assert can_claim(shown, 0, 1) and claim(1) in GAME.legal_actions(shown, 0)


def test_proof_counts_morale_tactics_on_the_opponents_side_at_their_best() -> None:
    # 2b and 4b are gone, so 3b alone cannot join a blue run; a Leader fills the gap
    # (3b-4L-5b), Companion Cavalry (always an 8) cannot.
    gone = {2: "2b,4b|-"}
    three_tens = "10r,10o,10y"
    assert can_claim(position({1: f"{three_tens}|9b,3b", **gone}, hands="1r/2r"), 0, 1)
    assert can_claim(position({1: f"{three_tens}|Cavalry,3b", **gone}, hands="1r/2r"), 0, 1)
    s = position({1: f"{three_tens}|Alexander,3b", **gone}, hands="1r/-")
    proof = prove_claim(s, 0, 1)
    assert not proof.proven and proof.counter_example is not None
    assert proof.counter_example.cards == ("5b",)
    assert proof.counter_example.formation == Formation("wedge", 12)


def test_both_complete_higher_category_then_higher_total() -> None:
    s = position({1: "1r,2r,3r>10o,10y,10g", 2: "7r,7b,7g<4o,4p,4g"}, hands="1b/2b")
    assert claimable_flags(s, 0) == [1, 2]     # wedge beats phalanx; 21 beats 12
    assert claimable_flags(s, 1) == []
    with pytest.raises(IllegalAction) as err:
        GAME.check_action(position({1: "1r,2r,3r<10o,10y,10g"}, hands="-/2b", turn="1:play"),
                          1, claim(1))
    assert err.value.rule == "claim_not_proven"
    assert err.value.details["opponent"] == {"category": "wedge", "total": 6}


def test_equal_formations_go_to_the_side_that_completed_first() -> None:
    s = position({1: "3p,4o|3b,4g"}, hands="5r,1r/5y,2y")
    s, _ = act(s, play("5r", 1))            # seat 0 completes first
    assert s["flags"][0]["order"] == [0]
    s, _ = act(s, {"type": "draw", "deck": "troop"})
    s = chance(s, "6p")
    s, _ = act(s, play("5y", 1))            # seat 1 completes the same skirmish, 12
    assert s["flags"][0]["order"] == [0, 1]
    assert "<" in GAME.to_notation(s).split("/")[0]
    assert not can_claim(s, 1, 1)
    s, _ = act(s, {"type": "draw", "deck": "troop"})
    s = chance(s, "6o")
    assert s["seat"] == 0 and claim(1) in GAME.legal_actions(s, 0)


def test_fog_proofs_compare_totals_only() -> None:
    # Without Fog, 8y-9y can still become a wedge; under Fog the best is 8+9+10 = 27 < 29.
    assert not can_claim(position({1: "10r,10b,9g|8y,9y"}, hands="1r/2r"), 0, 1)
    assert can_claim(position({1: "10r,10b,9g|8y,9y;Fog@1"}, hands="1r/2r"), 0, 1)


def test_mud_side_with_three_cards_is_not_complete() -> None:
    s = position({1: "8r,9r,10r|-;Mud@1"}, hands="1o/2o")
    assert claim(1) not in GAME.legal_actions(s, 0)
    with pytest.raises(IllegalAction) as err:
        GAME.check_action(s, 0, claim(1))
    assert err.value.rule == "side_incomplete"
    assert can_claim(position({1: "7r,8r,9r,10r|-;Mud@1"}, hands="1o/2o"), 0, 1)


def test_claiming_a_claimed_flag_is_illegal() -> None:
    s = position({1: "8r,9r,10r|1b#0"}, hands="1o/2o")
    with pytest.raises(IllegalAction) as err:
        GAME.check_action(s, 0, claim(1))
    assert err.value.rule == "flag_claimed"


def test_claim_timing_start_waits_for_the_next_turn() -> None:
    s = position({1: "8r,9r|-"}, hands="10r,1o/2o,3o")
    s, _ = act(s, play("10r", 1))
    assert s["phase"] == "draw" and GAME.legal_actions(s, 0) == [
        {"type": "draw", "deck": "troop"}, {"type": "draw", "deck": "tactics"}]
    with pytest.raises(IllegalAction) as err:
        GAME.check_action(s, 0, claim(1))
    assert err.value.rule == "wrong_phase"
    s, _ = act(s, {"type": "draw", "deck": "troop"})
    s = chance(s, "5g")
    assert s["seat"] == 1           # the opponent gets a turn to react
    assert GAME.legal_actions(s, 1)[0] == play("2o", 1)
    s, _ = act(s, play("2o", 2))
    s, _ = act(s, {"type": "draw", "deck": "troop"})
    s = chance(s, "5b")
    assert GAME.legal_actions(s, 0)[0] == claim(1)


def test_claim_timing_after_play_claims_with_the_draw_choice() -> None:
    options = {"claim_timing": "after_play"}
    s = position({1: "8r,9r|-"}, hands="10r,1o/2o,3o", options=options)
    assert all(a["type"] != "claim" for a in GAME.legal_actions(s, 0))
    s, _ = act(s, play("10r", 1))
    assert s["phase"] == "draw"
    assert GAME.legal_actions(s, 0) == [claim(1), {"type": "draw", "deck": "troop"},
                                        {"type": "draw", "deck": "tactics"}]
    s, _ = act(s, claim(1))
    assert s["flags"][0]["claimed"] == 0 and s["phase"] == "draw"
    s, _ = act(s, {"type": "draw", "deck": "troop"})
    s = chance(s, "5g")
    # At the start of the next turn there is no claim window under after_play.
    assert all(a["type"] != "claim" for a in GAME.legal_actions(s, 1))


def test_after_play_with_no_deck_choice_offers_end_claims() -> None:
    options = {"claim_timing": "after_play"}
    # Tactics deck emptied: every tactics card is in a hand or discard pile.
    hands = "10r,1o,Alexander,Cavalry,Shield,Fog,Mud/2o,3o,Darius,Scout,Redeploy"
    s = position({1: "8r,9r|-"}, hands=hands, discards="Deserter/Traitor", options=options)
    s, _ = act(s, play("10r", 1))
    assert s["phase"] == "claim"
    assert GAME.legal_actions(s, 0) == [claim(1), {"type": "end_claims"}]
    ended, _ = act(s, {"type": "end_claims"})
    assert ended["phase"] == "chance" and ended["pending"] == "troop"
    claimed, _ = act(s, claim(1))   # the last claim closes the window by itself
    assert claimed["phase"] == "chance" and claimed["flags"][0]["claimed"] == 0


def test_after_play_a_seat_that_passes_may_still_claim() -> None:
    # Seat 0's sides are full everywhere, so it must pass; flag 1 is provable.
    full = {n: f"{n}o,{n}y,{n}g|-" for n in range(2, 10)}
    s = position({1: "8r,9r,10r|-", **full}, hands="1r/2b",
                 options={"claim_timing": "after_play"})
    assert GAME.legal_actions(s, 0) == [{"type": "pass"}]
    s, _ = act(s, {"type": "pass"})
    assert s["phase"] == "claim" and GAME.legal_actions(s, 0) == [claim(1), {"type": "end_claims"}]
    s, _ = act(s, claim(1))
    assert s["flags"][0]["claimed"] == 0
    assert s["seat"] == 1 and s["phase"] == "play" and s["hands"][0] == ["1r"]  # no draw
