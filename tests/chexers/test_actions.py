"""Action shapes and errors (§7.1, C9, C14): strict parsing, precise illegal-action rules,
the state untouched after every rejection, action keys, text and referee tuples."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.chexers import (
    GAME,
    HEXES,
    RULES,
    action_text,
    from_referee_tuple,
    parse_action,
    to_referee_tuple,
)
from engine.core import IllegalAction, MalformedAction, NotToAct
from engine.match import Match, random_policy
from engine.rng import Rng

from .helpers import PASS, START, ex, jp, mv, state

MALFORMED: list[Any] = [
    None,
    "MOVE -3,0 -2,0",
    ["MOVE", [-3, 0], [-2, 0]],
    {},
    {"type": "move", "from": [-3, 0], "to": [-2, 0]},
    {"type": "Move", "from": [-3, 0], "to": [-2, 0]},
    {"type": "STEP", "from": [-3, 0], "to": [-2, 0]},
    {"type": ["MOVE"], "from": [-3, 0], "to": [-2, 0]},
    {"type": "MOVE", "from": [-3.0, 0], "to": [-2, 0]},
    {"type": "MOVE", "from": [-3, 0], "to": [-2, 0.0]},
    {"type": "MOVE", "from": [-3, 0], "to": [-2, False]},
    {"type": "MOVE", "from": [True, 0], "to": [-2, 0]},
    {"type": "MOVE", "from": (-3, 0), "to": [-2, 0]},
    {"type": "MOVE", "from": [-3, 0, 0], "to": [-2, 0]},
    {"type": "MOVE", "from": [-3], "to": [-2, 0]},
    {"type": "MOVE", "from": "-3,0", "to": [-2, 0]},
    {"type": "MOVE", "from": [-3, 0]},
    {"type": "MOVE", "from": [-3, 0], "to": [-2, 0], "extra": 1},
    {"type": "MOVE", "from": [-3, 0], "to": [-4, 0]},       # off the board
    {"type": "MOVE", "from": [-3, 0], "to": [-3, -1]},      # off the board (s = 4)
    {"type": "JUMP", "from": [-3, 0], "to": [-1, -2], "via": [-2, -1]},
    {"type": "EXIT", "from": [3, -1], "to": [4, -1]},
    {"type": "EXIT"},
    {"type": "PASS", "from": [0, 0]},
    {"type": "PASS", "reason": "blocked"},
]

# (action, rule) on the start position, Red to move: C14's illegal cases and more.
ILLEGAL: list[tuple[dict[str, Any], str]] = [
    (mv((-3, 0), (-1, 0)), "not_adjacent"),
    (mv((-3, 0), (-3, 0)), "not_adjacent"),
    (jp((-3, 0), (-1, 0)), "jump_over_empty"),
    (jp((-3, 0), (-3, 2)), "landing_occupied"),
    (jp((-3, 1), (-3, 3)), "landing_occupied"),
    (jp((-3, 0), (-2, 1)), "not_a_jump"),
    (jp((-3, 0), (0, 0)), "not_a_jump"),
    (ex((-3, 0)), "not_an_exit_hex"),
    (mv((0, -3), (0, -2)), "not_your_piece"),
    (ex((3, 0)), "not_your_piece"),
    (mv((0, 0), (1, 0)), "no_piece"),
    (PASS, "pass_not_allowed"),
    (mv((-3, 1), (-3, 0)), "target_occupied"),
]


@pytest.mark.parametrize("raw", MALFORMED)
def test_c14_malformed_actions_are_rejected_and_the_state_is_unchanged(raw: Any) -> None:
    s = state(START)
    before = copy.deepcopy(s)
    with pytest.raises(MalformedAction):
        GAME.parse_action(raw)
    with pytest.raises(MalformedAction):
        GAME.apply(s, {0: raw})
    assert s == before


@pytest.mark.parametrize(("action", "rule"), ILLEGAL)
def test_c14_illegal_actions_name_the_rule_and_leave_the_state(action: dict, rule: str
                                                               ) -> None:
    s = state(START)
    before = json.dumps(s)
    assert GAME.parse_action(action) == action  # well formed
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, {0: action})
    assert err.value.rule == rule and err.value.code == "illegal_action"
    assert err.value.message == RULES[rule]
    assert GAME.explain_illegal(s, 0, action).rule == rule
    assert json.dumps(s) == before


def test_every_rule_is_documented_in_the_package_header() -> None:
    import engine.chexers as package
    assert package.__doc__ is not None
    for rule in RULES:
        assert f"``{rule}``" in package.__doc__


def test_illegal_exit_and_jump_over_empty_away_from_the_start() -> None:
    s = state("4/5/6/3r3/6/5/4 r 0,0,0 0")
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, {0: jp((0, 0), (2, 0))})
    assert err.value.rule == "jump_over_empty"
    blocked = state("4/5/6/7/b1b3/gg3/rgb1 r 0,0,0 0")
    with pytest.raises(IllegalAction) as err:
        GAME.apply(blocked, {0: ex((-3, 3))})
    assert err.value.rule == "not_an_exit_hex"


def test_acting_out_of_turn_is_not_to_act() -> None:
    s = state(START)
    with pytest.raises(NotToAct):
        GAME.apply(s, {1: mv((0, -3), (0, -2))})
    with pytest.raises(NotToAct):
        GAME.check_action(s, 2, mv((3, 0), (2, 0)))
    assert GAME.legal_actions(s, 1) == [] and GAME.legal_actions(s, 2) == []


def _all_well_formed_actions() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [PASS]
    for a in HEXES:
        out.append(ex(a))
        for b in HEXES:
            d = (abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[0] + a[1] - b[0] - b[1])) // 2
            if d <= 2:  # farther ones are all rejected by the same geometry check
                out.append(mv(a, b))
                out.append(jp(a, b))
    return out


ALL_ACTIONS = _all_well_formed_actions()


def test_check_action_accepts_exactly_the_legal_list_along_random_games() -> None:
    """Over every well-formed action up to distance 2, ``check_action`` accepts exactly the
    members of ``legal_actions`` (as the referee's ``action in available_actions`` does)."""
    checked = 0
    for seed in range(3):
        rng = Rng(seed)
        match = Match(GAME, 3, seed=seed)
        policy = random_policy(rng)
        while not match.is_over and match.state["turns"] < 60:
            s = match.state
            seat = s["turns"] % 3
            legal = GAME.legal_actions(s, seat)
            if s["turns"] % 7 == 0:
                for action in ALL_ACTIONS:
                    try:
                        accepted = GAME.check_action(s, seat, action) == action
                    except IllegalAction:
                        accepted = False
                    assert accepted == (action in legal), action
                    checked += 1
            match.submit(seat, policy(match.view(seat), legal, seat))
    assert checked > 10_000


def test_action_key_sorts_legal_lists_in_canonical_order() -> None:
    s = state("4/5/6/2brr2/3g2/5/4 r 0,0,0 0")
    legal = GAME.legal_actions(s, 0)
    assert sorted(legal, key=GAME.action_key) == legal
    assert GAME.action_key(mv((-3, 0), (-2, -1))) == (-3, 0, 3)  # step (+1,-1) is index 2
    assert GAME.action_key(jp((0, 0), (0, 2))) == (0, 0, 5)      # step (0,+1) is index 4
    assert GAME.action_key(ex((3, -1))) == (3, -1, 0)
    assert GAME.action_key(PASS) == (-9, -9, -1)


def test_legal_lists_are_sorted_by_unique_keys_along_random_games() -> None:
    for seed in range(5):
        match = Match(GAME, 3, seed=seed)
        policy = random_policy(Rng(seed))
        while not match.is_over and match.state["turns"] < 150:
            seat = match.state["turns"] % 3
            legal = match.legal_actions(seat)
            keys = [GAME.action_key(a) for a in legal]
            assert keys == sorted(set(keys))
            match.submit(seat, policy(match.view(seat), legal, seat))


@pytest.mark.parametrize(("action", "text", "ref"), [
    (mv((-3, 3), (-2, 3)), "MOVE -3,3 -2,3", ("MOVE", ((-3, 3), (-2, 3)))),
    (jp((0, 0), (2, 0)), "JUMP 0,0 2,0", ("JUMP", ((0, 0), (2, 0)))),
    (ex((3, -1)), "EXIT 3,-1", ("EXIT", (3, -1))),
    (PASS, "PASS", ("PASS", None)),
])
def test_text_and_referee_tuples(action: dict, text: str, ref: tuple) -> None:
    assert GAME.action_text(action) == action_text(action) == text
    assert to_referee_tuple(action) == ref
    assert from_referee_tuple(ref) == action


@pytest.mark.parametrize("raw", [
    ("MOVE", [[-3, 3], [-2, 3]]),        # lists instead of tuples: the referee rejects them
    ("MOVE", ([-3, 3], [-2, 3])),
    ["EXIT", (3, -1)],
    ("EXIT", [3, -1]),
    ("EXIT", (3.0, -1)),
    ("PASS", ()),
    ("PASS",),
    ("HOP", None),
    ("MOVE", ((-3, 3),)),
])
def test_c14_referee_tuples_are_strict(raw: Any) -> None:
    with pytest.raises(MalformedAction):
        from_referee_tuple(raw)


def test_parse_action_returns_a_fresh_canonical_copy() -> None:
    raw = {"to": [-2, 3], "from": [-3, 3], "type": "MOVE"}
    parsed = parse_action(raw)
    assert parsed == raw and parsed is not raw and parsed["from"] is not raw["from"]
    assert list(parsed) == ["type", "from", "to"]


# ---- fuzz: any JSON value either parses to a canonical action or is MalformedAction ----------

_coord = st.one_of(st.integers(-5, 5), st.floats(-4, 4), st.booleans(), st.none(),
                   st.text(max_size=2))
_hex = st.one_of(st.lists(_coord, max_size=3), st.tuples(_coord, _coord), _coord)
_raw_action = st.one_of(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["MOVE", "JUMP", "EXIT", "PASS", "move", "Pass", "", 1])},
        optional={"from": _hex, "to": _hex, "extra": _coord}),
    st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=3),
                 lambda inner: st.lists(inner, max_size=3)
                 | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=6),
)


@settings(max_examples=400, deadline=None)
@given(raw=_raw_action)
def test_parse_action_is_total_and_strict(raw: object) -> None:
    s = state(START)
    before = json.dumps(s)
    try:
        action = parse_action(raw)
    except MalformedAction:
        with pytest.raises(MalformedAction):
            GAME.apply(s, {0: raw})
    else:
        assert action == raw and json.loads(json.dumps(action)) == action
        assert all(type(v) is int for key in ("from", "to") if key in action
                   for v in action[key])
        try:
            GAME.apply(s, {0: raw})
        except IllegalAction as err:
            assert err.rule in RULES
        else:
            assert action in GAME.legal_actions(s, 0)
    assert json.dumps(s) == before


def test_apply_never_mutates_its_input() -> None:
    s = state(START)
    for action in [mv((-3, 3), (-2, 3)), mv((0, -3), (0, -2)), mv((3, 0), (2, 0))]:
        frozen = copy.deepcopy(s)
        nxt = GAME.apply(s, {s["turns"] % 3: action}).state
        assert s == frozen and nxt is not s and nxt["history"] is not s["history"]
        s = nxt
