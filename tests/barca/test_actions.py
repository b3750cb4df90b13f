"""Actions through the JSON contract: malformed and illegal actions get typed errors naming
the rule (rules §5-§7), the state is never changed by a rejected action, and events."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.barca import GAME, RULES
from engine.core import IllegalAction, MalformedAction, NotToAct, canonical_json

from .helpers import START, act, play, state

B10 = "M2E6/1l8/10/10/10/10/3M2L3/10/10/9e w 0"


def _rule(s: dict, action: Any, seat: int = 0) -> str:
    before = copy.deepcopy(s)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, {seat: action})
    assert s == before
    assert err.value.rule in RULES
    assert err.value.to_json()["details"]["rule"] == err.value.rule
    with pytest.raises(IllegalAction):
        GAME.check_action(s, seat, action)
    if not isinstance(err.value, NotToAct):
        explained = GAME.explain_illegal(s, seat, GAME.parse_action(action))
        assert explained.to_json() == err.value.to_json()
    return err.value.rule


@pytest.mark.parametrize(("bpn", "text", "rule"), [
    (START, "e10-e8", "not_your_piece"),                       # moving an opponent's animal
    (START, "e3-e4", "no_piece"),
    (START, "d2-d4", "not_a_line"),                            # a lion moves diagonally
    (START, "e2-f3", "not_a_line"),                            # a mouse moves orthogonally
    (START, "e1-h5", "not_a_line"),
    (START, "e1-e1", "not_a_line"),
    (START, "e1-e3", "path_blocked"),                          # over the e2 mouse
    (START, "e1-f2", "path_blocked"),                          # onto its own mouse
    ("10/10/10/10/5l4/10/4M5/10/10/10 w 0", "e4-e6", "calm_into_danger"),
    (B10, "d10-d7", "forced_priority"),                        # ignoring a forced animal
    ("10/10/5l4/4M5/10/10/3E2L3/10/10/9e w 0", "e7-g7", "forced_into_danger"),
    ("10/10/10/10/5l4/4M5/10/10/10/E9 w 0", "a1-a2", "forced_priority"),
    (START, "pass", "pass_not_allowed"),
    (START, "claim", "no_repetition"),                         # claiming with no repetition
    (START, "d2-c3 claim", "no_repetition"),
])
def test_illegal_actions_name_their_rule(bpn: str, text: str, rule: str) -> None:
    assert _rule(state(bpn), act(text)) == rule


def test_an_illegal_error_says_where_and_why() -> None:
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state(B10), {0: act("d10-d7")})
    data = err.value.to_json()
    assert data["code"] == "illegal_action"
    assert data["details"] == {"rule": "forced_priority", "forced": ["a10"],
                               "from": "d10", "to": "d7"}
    assert "L1" in data["message"]


def test_claiming_at_count_two_is_rejected_with_the_count() -> None:
    s = play(state(START), "d2-c3", "d9-c8", "c3-d2", "c8-d9")
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, {0: {"type": "claim"}})
    assert err.value.rule == "no_repetition" and err.value.details["count"] == 2


def test_a_move_claim_short_of_three_is_rejected_with_the_count() -> None:
    s = play(state(START), "d2-c3", "d9-c8", "c3-d2")
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, {1: act("c8-d9 claim")})
    assert err.value.rule == "no_repetition" and err.value.details["count"] == 2


def test_acting_out_of_turn_is_not_to_act() -> None:
    with pytest.raises(NotToAct):
        GAME.apply(state(START), {1: act("e9-e8")})


@pytest.mark.parametrize("raw", [
    "e2-e5",
    None,
    {"type": "MOVE", "from": "e2", "to": "e5"},
    {"type": "jump", "from": "e2", "to": "e5"},
    {"type": "move", "from": "e2"},
    {"type": "move", "from": "e2", "to": "k5"},
    {"type": "move", "from": "e2", "to": "e11"},
    {"type": "move", "from": [4, 1], "to": "e5"},
    {"type": "move", "from": "e2", "to": "e5", "claim": 1},
    {"type": "move", "from": "e2", "to": "e5", "piece": "M"},
    {"type": "claim", "claim": True},
    {"type": "pass", "from": "e2"},
    {},
])
def test_malformed_actions(raw: Any) -> None:
    s = state(START)
    before = copy.deepcopy(s)
    with pytest.raises(MalformedAction):
        GAME.apply(s, {0: raw})
    with pytest.raises(MalformedAction):
        GAME.parse_action(raw)
    assert s == before


def test_squares_are_lowercased_and_a_false_claim_is_dropped() -> None:
    canonical = {"type": "move", "from": "e2", "to": "e5"}
    assert GAME.parse_action({"type": "move", "from": "E2", "to": "E5"}) == canonical
    assert GAME.parse_action({**canonical, "claim": False}) == canonical
    s = GAME.apply(state(START), {0: {"type": "move", "from": "E2", "to": "E5"}}).state
    assert s["bpn"] == "4ee4/3lmml3/10/10/10/4M5/10/10/3L1ML3/4EE4 b 1"


def test_legal_actions_are_sorted_unique_and_accepted() -> None:
    s = play(state(START), "d2-c3", "d9-c8", "c3-d2", "c8-d9", "d2-c3", "d9-c8", "c3-d2")
    legal = GAME.legal_actions(s, 1)
    assert legal == sorted(legal, key=GAME.action_key)
    assert len({canonical_json(a) for a in legal}) == len(legal)
    for a in legal:
        assert GAME.check_action(s, 1, a) == a
    assert GAME.legal_actions(s, 0) == []


def test_events_and_the_view() -> None:
    s = state(START)
    t = GAME.apply(s, {0: act("e2-e5")})
    (event,) = t.events
    assert event.render(None) == {"type": "action", "seat": 0, "ply": 0,
                                  "action": {"type": "move", "from": "e2", "to": "e5"},
                                  "text": "e2-e5"}
    view = GAME.view(t.state, 1)
    assert view == GAME.view(t.state, None) == GAME.view(t.state, 0)
    assert view["to_move"] == "black" and view["to_move_seat"] == 1 and view["ply"] == 1
    assert view["pieces"]["white"]["mouse"] == ["f2", "e5"]
    assert view["holes"] == ["d4", "g4", "d7", "g7"]
    assert view["repetitions"] == 1 and view["claim_available"] is False
    assert view["status"]["e9"] == "calm"
    won = GAME.apply(state("3E6/10/10/10/10/10/3M2M3/10/10/4e5 w 0"), {0: act("d10-d7")})
    assert won.events[0].render(1)["result"] == "holes"
    assert GAME.view(won.state, None)["to_move"] is None


def test_the_outcome_is_typed() -> None:
    won = play(state("3E6/10/10/10/10/10/3M2M3/10/10/4e5 w 0"), "d10-d7")
    out = GAME.outcome(won)
    assert out is not None and out.ranks == (0, 1) and out.reason == "holes"
    assert GAME.outcome(state(START)) is None
    capped = play(state("4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 b 299"), "d9-c8")
    out = GAME.outcome(capped)
    assert out is not None and out.ranks == (0, 0) and out.reason == "ply_cap"


def test_the_game_info() -> None:
    info = GAME.info
    assert (info.name, info.min_seats, info.max_seats) == ("barca", 2, 2)
    assert not (info.chance or info.hidden_information or info.simultaneous)
    assert info.seat_names == ("white", "black") and info.timeout == "loss"
