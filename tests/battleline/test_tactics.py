"""The ten tactics cards, the tactics limit and the one-Leader rule."""

from __future__ import annotations

from typing import Any

import pytest

from engine.battleline import GAME
from engine.battleline.formations import Formation, can_claim, evaluate, prove_claim
from engine.core import IllegalAction

from .helpers import act, chance, flag_text, frozen, play, position


def rule_of(state: dict[str, Any], action: dict[str, Any]) -> str:
    before = frozen(state)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, {state["seat"]: action})
    assert frozen(state) == before
    return err.value.rule


def test_leader_is_wild_and_counts_as_a_tactics_card() -> None:
    s = position({1: "9r,10r|5b"}, hands="Alexander,1o/2o")
    s, _ = act(s, play("Alexander", 1))
    assert s["tactics_played"] == [1, 0] and s["leaders"] == [True, False]
    assert flag_text(s, 1) == "9r,10r,Alexander|5b"
    assert evaluate(s["flags"][0]["sides"][0]) == Formation("wedge", 27)


def test_only_one_leader_per_seat_per_game() -> None:
    # Seat 1 has played Fog, so the tactics limit lets seat 0 play a second tactics card,
    # but not its second Leader.
    s = position({1: "Alexander|-;Fog@1"}, hands="Darius,Cavalry,1o/2o")
    legal = GAME.legal_actions(s, 0)
    assert not any(a.get("card") == "Darius" for a in legal)
    assert play("Cavalry", 2) in legal
    assert rule_of(s, play("Darius", 2)) == "second_leader"


def test_tactics_limit_counts_every_tactics_card_played() -> None:
    # Seat 0 played Scout (in its discard pile); seat 1 played nothing: seat 0 must wait.
    s = position(hands="Cavalry,Fog,1o/2o", discards="Scout/-")
    assert all(a.get("card") in ("1o", None) for a in GAME.legal_actions(s, 0))
    assert rule_of(s, play("Cavalry", 1)) == "tactics_limit"
    assert rule_of(s, play("Fog", 1)) == "tactics_limit"
    # Once seat 1 has played one too (Shield on flag 3), seat 0 may play again.
    s = position({3: "-|Shield"}, hands="Cavalry,Fog,1o/2o", discards="Scout/-")
    assert play("Cavalry", 1) in GAME.legal_actions(s, 0)


def test_companion_cavalry_is_an_eight_of_any_colour() -> None:
    s = position({1: "8r,8b|-"}, hands="Cavalry,1o/2o")
    s, _ = act(s, play("Cavalry", 1))
    assert evaluate(s["flags"][0]["sides"][0]) == Formation("phalanx", 24)
    assert s["flags"][0]["order"] == [0]


def test_shield_bearers_are_a_one_two_or_three_of_any_colour() -> None:
    s = position({1: "1g,2g|-"}, hands="Shield,1o/2o")
    s, _ = act(s, play("Shield", 1))
    assert evaluate(s["flags"][0]["sides"][0]) == Formation("wedge", 6)
    assert evaluate(["Shield", "9g", "10g"], fog=True) == Formation("host", 22)


def test_fog_turns_formations_into_totals() -> None:
    s = position({1: "1r,2r,3r<10o,10y,10g"}, hands="1o/Fog,2o", turn="1:play")
    assert prove_claim(s, 0, 1).proven          # a wedge beats three tens…
    s, _ = act(s, play("Fog", 1))
    assert s["flags"][0]["env"] == {"Fog": 1}
    assert not can_claim(s, 0, 1)
    assert can_claim(s, 1, 1)                    # …but 30 beats 6 under Fog


def test_mud_needs_a_fourth_card_and_resets_completion() -> None:
    s = position({1: "8r,9r,10r<1b,2b,3b"}, hands="7r,1o/Mud,2o", turn="1:play")
    s, _ = act(s, play("Mud", 1))
    assert s["flags"][0]["order"] == []          # both sides incomplete again
    s, _ = act(s, {"type": "draw", "deck": "troop"})
    s = chance(s, "5g")
    assert play("7r", 1) in GAME.legal_actions(s, 0)
    s, _ = act(s, play("7r", 1))
    assert s["flags"][0]["order"] == [0]
    assert evaluate(s["flags"][0]["sides"][0], size=4) == Formation("wedge", 34)


def test_mud_removed_from_a_four_card_side_keeps_it_by_its_best_three() -> None:
    board = {1: "1y,8r,9r,10r|1b,2b;Mud@1", 2: "-|5p"}
    s = position(board, hands="Deserter,1o/2o")
    s, _ = act(s, {"type": "play", "card": "Deserter", "flag": 1, "target": "Mud"})
    assert s["discards"] == [["Deserter"], ["Mud"]]
    f = s["flags"][0]
    assert f["env"] == {} and f["sides"][0] == ["1y", "8r", "9r", "10r"]
    assert f["order"] == [0]
    assert evaluate(f["sides"][0]) == Formation("wedge", 27)
    # Seat 0 cannot add a card beside flag 1 any more; seat 1 may add its third card.
    s = position({1: "1y,8r,9r,10r|1b,2b", 2: "-|5p"}, hands="1o/2o")
    assert play("1o", 1) not in GAME.legal_actions(s, 0)
    s = position({1: "1y,8r,9r,10r|1b,2b", 2: "-|5p"}, hands="1o/3b", turn="1:play")
    assert play("3b", 1) in GAME.legal_actions(s, 1)


def test_mud_excess_forbid_option_keeps_mud_in_place() -> None:
    board = {1: "1y,8r,9r,10r|1b,2b;Mud@1", 2: "-|5p"}
    s = position(board, hands="Deserter,1o/2o", options={"mud_excess": "forbid"})
    desert = {"type": "play", "card": "Deserter", "flag": 1, "target": "Mud"}
    assert desert not in GAME.legal_actions(s, 0)
    assert rule_of(s, desert) == "mud_excess"


def scout_turn() -> dict[str, Any]:
    s = position({1: "5r|-"}, hands="Scout,1o,2o,3o,4o,5o,6o/1b,2b,3b,4b,5b,6b,7b")
    s, _ = act(s, {"type": "play", "card": "Scout"})
    return s


def test_scout_draws_three_then_returns_two_known_only_to_the_scout() -> None:
    s = scout_turn()
    assert s["discards"][0] == ["Scout"] and s["phase"] == "draw" and s["scout"] == 3
    s, _ = act(s, {"type": "draw", "deck": "tactics"})
    s = chance(s, "Fog")
    s, _ = act(s, {"type": "draw", "deck": "troop"})
    s = chance(s, "10g")
    s, _ = act(s, {"type": "draw", "deck": "troop"})
    s = chance(s, "9g")
    assert s["phase"] == "return" and len(s["hands"][0]) == 9
    s, events = act(s, {"type": "return", "card": "1o"})
    assert events[0].render(None) == {"type": "return", "seat": 0, "deck": "troop"}
    assert events[0].render(0)["card"] == "1o" and "card" not in events[0].render(1)
    s, _ = act(s, {"type": "return", "card": "Fog"})
    assert s["seat"] == 1 and len(s["hands"][0]) == 7
    assert GAME.view(s, 0)["known_tops"] == {"troop": ["1o"], "tactics": ["Fog"]}
    assert GAME.view(s, 1)["known_tops"] == {"troop": [None], "tactics": [None]}
    assert "known_tops" not in GAME.view(s, None)
    assert GAME.view(s, 1)["decks"] == GAME.view(s, 0)["decks"]
    # Seat 1 draws the returned troop card: no chance node, and seat 0 knows where it went.
    s, _ = act(s, play("1b", 2))
    s, events = act(s, {"type": "draw", "deck": "troop"})
    assert s["seat"] == 0 and "1o" in s["hands"][1]
    assert events[0].render(1)["card"] == "1o" and events[0].render(0)["card"] == "1o"
    assert "card" not in events[0].render(None)
    assert GAME.view(s, 0)["opponent_known"] == ["1o"]
    assert GAME.view(s, 1)["opponent_known"] == []


def test_scout_with_small_decks_draws_what_there_is() -> None:
    # Only one troop card left and no tactics: one forced draw, then two returns.
    troops = [f"{v}{c}" for c in "royg" for v in range(1, 11)]
    hand0 = "Scout," + ",".join(troops[:6])
    hand1 = ",".join(troops[6:13])
    used = troops[:13]
    rest = [t for t in troops + [f"{v}{c}" for c in "bp" for v in range(1, 11)]
            if t not in used]
    board = {n: ",".join(rest[6 * (n - 1):6 * (n - 1) + 3]) + "<"
             + ",".join(rest[6 * (n - 1) + 3:6 * n]) for n in range(1, 8)}
    left = rest[42:]
    board[8] = ",".join(left[:3]) + "|" + left[3]
    disc = "Alexander,Cavalry,Fog,Redeploy/Darius,Shield,Mud,Deserter,Traitor"
    s = position(board, hands=f"{hand0}/{hand1}", discards=disc)
    assert len(s["decks"]["troop"]) == 1 and s["decks"]["tactics"] == []
    s, _ = act(s, {"type": "play", "card": "Scout"})
    assert s["phase"] == "chance" and s["pending"] == "troop"
    s = chance(s, s["decks"]["troop"][0])
    assert s["phase"] == "return" and s["returns"] == 2


def test_redeploy_moves_or_discards_an_own_card_and_resets_completion() -> None:
    s = position({1: "3p,4o,5r<3b,4g,5y", 2: "-|1g"}, hands="Redeploy,1o/2o")
    move = {"type": "play", "card": "Redeploy", "from_flag": 1, "target": "5r", "to_flag": 2}
    assert move in GAME.legal_actions(s, 0)
    s2, _ = act(s, move)
    assert flag_text(s2, 1) == "3p,4o|3b,4g,5y" and flag_text(s2, 2) == "5r|1g"
    assert s2["flags"][0]["order"] == [1]
    assert s2["discards"][0] == ["Redeploy"]
    discard = {**move, "to_flag": None}
    s3, _ = act(s, discard)
    assert s3["discards"][0] == ["Redeploy", "5r"]
    assert rule_of(s, {**move, "to_flag": 1}) == "same_flag"
    assert rule_of(s, {**move, "target": "5y"}) == "no_such_card"


def test_redeploy_moves_an_own_environment_card() -> None:
    s = position({1: "3p|4b;Fog@0", 2: "-|1g", 3: "-|-;Mud@1"}, hands="Redeploy,1o/2o")
    legal = GAME.legal_actions(s, 0)
    assert {"type": "play", "card": "Redeploy", "from_flag": 1, "target": "Fog",
            "to_flag": 4} in legal
    assert not any(a.get("target") == "Mud" for a in legal)   # not seat 0's card
    s, _ = act(s, {"type": "play", "card": "Redeploy", "from_flag": 1, "target": "Fog",
                   "to_flag": 4})
    assert s["flags"][0]["env"] == {} and s["flags"][3]["env"] == {"Fog": 0}


def test_a_card_that_completes_again_completes_last() -> None:
    s = position({1: "3p,4o,5r<3b,4g,5y"}, hands="Redeploy,5p/2o")
    move = {"type": "play", "card": "Redeploy", "from_flag": 1, "target": "5r", "to_flag": 2}
    s, _ = act(s, move)
    s, _ = act(s, {"type": "draw", "deck": "troop"})
    s = chance(s, "8g")
    s, _ = act(s, play("2o", 3))
    s, _ = act(s, {"type": "draw", "deck": "troop"})
    s = chance(s, "8o")
    s, _ = act(s, play("5p", 1))
    assert s["flags"][0]["order"] == [1, 0]      # seat 1 now completed first
    assert not can_claim(s, 0, 1)


def test_deserter_discards_an_opponent_card_to_its_owners_pile() -> None:
    s = position({1: "8r,9r|10r,Alexander", 2: "-|-;Fog@1"}, hands="Deserter,1o/2o")
    legal = [a for a in GAME.legal_actions(s, 0) if a.get("card") == "Deserter"]
    assert legal == [
        {"type": "play", "card": "Deserter", "flag": 1, "target": "10r"},
        {"type": "play", "card": "Deserter", "flag": 1, "target": "Alexander"},
        {"type": "play", "card": "Deserter", "flag": 2, "target": "Fog"}]
    s2, _ = act(s, legal[1])
    assert flag_text(s2, 1) == "8r,9r|10r"
    assert s2["discards"] == [["Deserter"], ["Alexander"]]
    assert s2["tactics_played"] == [1, 2] and s2["leaders"] == [False, True]
    assert rule_of(s, {"type": "play", "card": "Deserter", "flag": 1, "target": "8r"}) \
        == "no_such_card"


def test_traitor_takes_an_opponent_troop_into_a_free_slot() -> None:
    s = position({1: "8r,9r|10r,Cavalry", 2: "-|3b"}, hands="Traitor,1o/2o")
    take = {"type": "play", "card": "Traitor", "from_flag": 1, "target": "10r", "to_flag": 1}
    assert take in GAME.legal_actions(s, 0)
    s2, _ = act(s, take)
    assert flag_text(s2, 1) == "8r,9r,10r|Cavalry"
    assert s2["flags"][0]["order"] == [0] and s2["discards"][0] == ["Traitor"]
    s3, _ = act(s, {**take, "from_flag": 2, "target": "3b", "to_flag": 5})
    assert flag_text(s3, 5) == "3b|-" and flag_text(s3, 2) == "-|-"
    assert rule_of(s, {**take, "target": "Cavalry"}) == "not_a_troop"


def test_darius_is_the_other_leader() -> None:
    s = position({2: "5g|3p,4p"}, hands="1o/Darius,2o", turn="1:play")
    s, _ = act(s, play("Darius", 2))
    assert s["leaders"] == [False, True] and s["tactics_played"] == [0, 1]
    assert evaluate(s["flags"][1]["sides"][1]) == Formation("wedge", 12)   # 3-4-5 purple
    assert s["flags"][1]["order"] == [1]
