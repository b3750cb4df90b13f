"""Turn structure: the deal, draws, passing, the stalemate rule, wins, and action errors."""

from __future__ import annotations

from typing import Any

import pytest

from engine.battleline import GAME
from engine.battleline.cards import TROOPS
from engine.core import CHANCE, BadOptions, IllegalAction, MalformedAction, NotToAct, Outcome

from .helpers import act, chance, claim, frozen, play, position


def test_the_deal_is_fourteen_chance_nodes_alternating_seats() -> None:
    s = GAME.initial_state(2, GAME.normalize_options(None))
    assert GAME.decision(s).chance
    assert [c for c, _ in GAME.chance_outcomes(s)] == list(TROOPS)
    cards = ["10p", "1r", "5g", "5b", "7o", "2y", "3y", "9b", "8b", "4r", "6r", "6p", "1o", "2o"]
    for n, card in enumerate(cards):
        t = GAME.apply(s, {CHANCE: card})
        (event,) = t.events
        assert event.render(None) == {"type": "deal", "seat": n % 2}
        assert event.render(n % 2)["card"] == card and "card" not in event.render(1 - n % 2)
        s = t.state
    assert s["hands"] == [sorted(cards[0::2], key=TROOPS.index),
                          sorted(cards[1::2], key=TROOPS.index)]
    assert GAME.decision(s).seats == (0,) and s["phase"] == "play"
    assert len(GAME.chance_outcomes({**s, "phase": "deal"})) == 60 - 14


def test_draw_from_the_chosen_deck_is_a_chance_node_over_its_cards() -> None:
    s = position({1: "5r|-"}, hands="1r,2r/1b,2b")
    s, _ = act(s, play("1r", 2))
    s, _ = act(s, {"type": "draw", "deck": "tactics"})
    assert GAME.decision(s).chance
    assert GAME.chance_outcomes(s) == [(t, 1) for t in
                                       ("Alexander", "Darius", "Cavalry", "Shield", "Fog",
                                        "Mud", "Scout", "Redeploy", "Deserter", "Traitor")]
    t = GAME.apply(s, {CHANCE: "Mud"})
    assert t.state["hands"][0] == ["2r", "Mud"]
    assert t.events[0].render(1) == {"type": "draw", "seat": 0, "deck": "tactics"}
    assert GAME.view(t.state, 1)["hands"][0] == {"troop": 1, "tactics": 1}


def test_no_deck_choice_when_one_deck_is_empty_and_no_draw_when_both_are() -> None:
    tactics = "Alexander,Cavalry,Shield,Fog,Mud/Darius,Scout,Redeploy,Deserter,Traitor"
    s = position(hands="1r," + tactics.replace("/", "/1b,"))
    s, _ = act(s, play("1r", 1))
    assert s["phase"] == "chance" and s["pending"] == "troop"
    # Every card named: both decks are empty, the turn ends right after the play.
    hand0, hand1 = ["1r", "2r"], ["1b"]
    rest = [t for t in TROOPS if t not in hand0 + hand1]
    board = {n: ",".join(rest[6 * n - 6:6 * n - 3]) + "<" + ",".join(rest[6 * n - 3:6 * n])
             for n in range(1, 9)}
    board[9] = ",".join(rest[48:50]) + "|" + ",".join(rest[50:53])
    s = position(board, hands=",".join(hand0) + "/" + ",".join(hand1 + rest[53:]),
                 discards=tactics)
    assert s["decks"] == {"troop": [], "tactics": []}
    s, _ = act(s, play("1r", 9))
    assert s["seat"] == 1 and s["phase"] == "play" and s["hands"][0] == ["2r"]


def test_pass_only_without_a_playable_troop_card_and_no_draw_after_it() -> None:
    s = position(hands="1r,Fog/2b")
    assert {"type": "pass"} not in GAME.legal_actions(s, 0)
    before = frozen(s)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, {0: {"type": "pass"}})
    assert err.value.rule == "pass_not_allowed" and frozen(s) == before
    # Seat 0's sides are full on every flag: it may pass (or still play Fog).
    full = {n: f"{n}r,{n}o,{n}y|-" for n in range(1, 10)}
    s = position(full, hands="10r,Fog/2b")
    legal = GAME.legal_actions(s, 0)
    assert legal[-1] == {"type": "pass"} and play("Fog", 1) in legal
    s, events = act(s, {"type": "pass"})
    assert events[0].render(None) == {"type": "pass", "seat": 0}
    assert s["seat"] == 1 and s["phase"] == "play" and s["hands"][0] == ["10r", "Fog"]


def stalemate_board() -> dict[int, str]:
    # Seat 0 full everywhere; seat 1 complete on flags 1-3 only (and it completed first).
    colours = "royg"
    board = {}
    for n in range(1, 10):
        mine = ",".join(f"{n}{c}" for c in colours[:3])
        theirs = f"{n}b,{n}p,{n}g" if n <= 3 else f"{n}b"
        board[n] = mine + (">" if n <= 3 else "|") + theirs
    return board


def test_stalemate_two_passes_award_flags_with_one_complete_side() -> None:
    # Seat 1 may not play its Fog (it has played one tactics card more) and has no troop.
    s = position(stalemate_board(), hands="10r/Fog", discards="-/Scout")
    # Seat 0 could claim flags 4-9 (phalanxes nobody can beat any more); it only passes.
    assert GAME.legal_actions(s, 0) == [claim(n) for n in range(4, 10)] + [{"type": "pass"}]
    s, _ = act(s, {"type": "pass"})
    # Seat 1 could claim flags 1-3 (equal phalanxes, completed first) but need not.
    assert GAME.legal_actions(s, 1) == [claim(1), claim(2), claim(3), {"type": "pass"}]
    s, events = act(s, {"type": "pass"})
    assert GAME.decision(s).terminal
    assert [f["claimed"] for f in s["flags"]] == [None, None, None, 0, 0, 0, 0, 0, 0]
    assert GAME.outcome(s) == Outcome.win(0, 2, "stalemate", [6, 0])
    assert events[-1].render(None)["reason"] == "stalemate"
    assert GAME.to_notation(s).split(" ")[5] == "1:stalemate:p2"


def test_stalemate_with_equal_flags_is_a_draw() -> None:
    # Empty hands: both seats can only pass; seat 0 passed last turn (p1).
    s = position({1: "1r,2r,3r|-", 2: "-|1b,2b,3b"}, hands="-/-", turn="1:play:p1")
    assert GAME.legal_actions(s, 1) == [{"type": "pass"}]
    s, _ = act(s, {"type": "pass"})
    assert GAME.outcome(s) == Outcome.draw(2, "stalemate", [1, 1])


def test_stalemate_option_draw_ends_drawn_without_awarding() -> None:
    s = position(stalemate_board(), hands="10r/Fog", discards="-/Scout", turn="1:play:p1",
                 options={"stalemate": "draw"})
    s, _ = act(s, {"type": "pass"})
    assert GAME.outcome(s) == Outcome.draw(2, "stalemate", [0, 0])


def test_three_adjacent_flags_win_at_once() -> None:
    s = position({1: "1r|-#0", 2: "2r|-#0", 3: "8r,9r,10r|-", 5: "-|1b#1"}, hands="5r/5b")
    s, events = act(s, claim(3))
    assert GAME.outcome(s) == Outcome.win(0, 2, "breakthrough", [3, 1])
    assert events[-1].type == "game_over" and GAME.legal_actions(s, 0) == []
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, {0: play("5r", 4)})
    assert err.value.rule == "game_over"


def test_five_flags_win_at_once() -> None:
    claimed = {1: "1r|-#0", 3: "3r|-#0", 5: "5r|-#0", 7: "7r|-#0", 2: "-|2b#1"}
    s = position({**claimed, 9: "8y,9y,10y|-"}, hands="4r/4b")
    s, _ = act(s, claim(9))
    assert GAME.outcome(s) == Outcome.win(0, 2, "five_flags", [5, 1])


@pytest.mark.parametrize("bad", [
    None, 3, "claim", [], {"type": 7}, {"type": "move"}, {"card": "7r", "flag": 1},
    {"type": "play", "card": "7x", "flag": 1},            # unknown card
    {"type": "play", "card": "Joker", "flag": 1},
    {"type": "play", "card": "7r", "flag": 0},             # flag off the board
    {"type": "play", "card": "7r", "flag": 10},
    {"type": "play", "card": "7r", "flag": "3"},
    {"type": "play", "card": "7r", "flag": True},
    {"type": "play", "card": "7r", "flag": 1.0},
    {"type": "play", "card": "7r", "flag": 1, "target": "1b"},   # extra field
    {"type": "play", "card": "7r"},                              # missing field
    {"type": "play", "card": "Scout", "flag": 1},
    {"type": "play", "card": "Traitor", "from_flag": 1, "target": "1b", "to_flag": None},
    {"type": "play", "card": "Redeploy", "from_flag": 1, "target": "1b"},
    {"type": "claim", "flag": 1, "why": "because"},
    {"type": "draw", "deck": "discard"},
    {"type": "return"},
    {"type": "pass", "flag": 1},
])
def test_malformed_actions_are_rejected_before_the_rules(bad: Any) -> None:
    s = position({1: "5r|-"}, hands="7r/2b")
    before = frozen(s)
    with pytest.raises(MalformedAction):
        GAME.check_action(s, 0, bad)
    with pytest.raises(MalformedAction):
        GAME.apply(s, {0: bad})
    assert frozen(s) == before


@pytest.mark.parametrize(("action", "rule"), [
    (play("8r", 2), "not_in_hand"),
    (play("7r", 1), "slot_full"),
    (play("7r", 4), "flag_claimed"),
    ({"type": "draw", "deck": "troop"}, "wrong_phase"),
    ({"type": "return", "card": "7r"}, "wrong_phase"),
    ({"type": "end_claims"}, "wrong_phase"),
    (claim(2), "side_incomplete"),
])
def test_illegal_actions_name_the_rule_and_change_nothing(action: Any, rule: str) -> None:
    s = position({1: "1r,2r,3r|-", 2: "5r|-", 4: "-|9p#1"}, hands="7r/2b")
    before = frozen(s)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, {0: action})
    assert err.value.rule == rule
    assert err.value.to_json()["details"]["rule"] == rule
    assert frozen(s) == before


def test_seat_not_to_act_is_told_so() -> None:
    s = position(hands="7r/2b")
    with pytest.raises(NotToAct):
        GAME.apply(s, {1: play("2b", 1)})
    assert GAME.legal_actions(s, 1) == []


def test_options_are_validated() -> None:
    assert GAME.normalize_options({"claim_timing": "after_play"})["claim_timing"] == "after_play"
    for bad in ({"claim_timing": "end"}, {"mud_excess": "discard"}, {"stalemate": 2},
                {"timing": "start"}):
        with pytest.raises(BadOptions):
            GAME.normalize_options(bad)


def test_action_text_is_short() -> None:
    texts = [GAME.action_text(a) for a in (
        claim(3), play("7r", 3), play("Fog", 5), {"type": "play", "card": "Scout"},
        {"type": "play", "card": "Redeploy", "from_flag": 2, "target": "5b", "to_flag": 4},
        {"type": "play", "card": "Redeploy", "from_flag": 2, "target": "5b", "to_flag": None},
        {"type": "play", "card": "Deserter", "flag": 4, "target": "9g"},
        {"type": "play", "card": "Traitor", "from_flag": 2, "target": "9g", "to_flag": 4},
        {"type": "draw", "deck": "troop"}, {"type": "return", "card": "7r"}, {"type": "pass"},
        {"type": "end_claims"}, "7r")]
    assert texts == ["claim 3", "7r→3", "Fog→5", "Scout", "Redeploy 5b 2→4",
                     "Redeploy 5b 2→discard", "Deserter 9g@4", "Traitor 9g 2→4", "draw troop",
                     "return 7r", "pass", "end claims", "7r"]


def test_chance_after_draw_continues_the_turn_order() -> None:
    s = position(hands="7r/2b")
    s, _ = act(s, play("7r", 1))
    s, _ = act(s, {"type": "draw", "deck": "troop"})
    s = chance(s, "3g")
    assert s["seat"] == 1 and s["hands"][0] == ["3g"]
