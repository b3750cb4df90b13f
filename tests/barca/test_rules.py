"""The rules' test cases B1-B17, B19 and B20 (shared/rules/barca.md §13) through the JSON
contract, and the perft counts of §10 through the fast core."""

from __future__ import annotations

import random

import pytest

from engine.barca import GAME, START_BPN, Position, perft
from engine.core import IllegalAction

from .helpers import START, act, bpn, legal, moves, play, seat, state


def _dests(frm: str, squares: str) -> set[str]:
    return {f"{frm}-{sq}" for sq in squares.split()}


B1_MOVES = _dests("e5", "a5 b5 c5 d5 h5 i5 j5 e1 e2 e3 e4 e8 e9 e10")


def test_b1_diagonal_fear_forces_and_the_mouse_slides_past_danger() -> None:
    s = state("10/10/10/10/5l4/4M5/10/10/10/10 w 0")
    assert GAME.piece_status(s, "e5") == "forced"
    assert moves(s) == B1_MOVES and len(legal(s)) == 14
    assert not {"e5-e6", "e5-e7", "e5-f5", "e5-g5"} & moves(s)


def test_b2_a_calm_piece_may_not_enter_danger() -> None:
    s = state("10/10/10/10/5l4/10/4M5/10/10/10 w 0")
    assert GAME.piece_status(s, "e4") == "calm"
    assert moves(s) == _dests("e4", "a4 b4 c4 d4 f4 g4 h4 i4 j4 e1 e2 e3 e8 e9 e10")
    assert len(legal(s)) == 15


def test_b3_a_forced_piece_freezes_the_rest() -> None:
    assert moves("10/10/10/10/5l4/4M5/10/10/10/E9 w 0") == B1_MOVES


def test_b4_a_trapped_piece_does_not_force() -> None:
    s = state("10/10/10/10/10/10/10/E9/1l8/M1L7 w 0")
    assert GAME.piece_status(s, "a1") == "trapped"
    assert GAME.view(s, 0)["status"] == {"a1": "trapped", "c1": "calm", "a3": "calm"}
    got = moves(s)
    assert len(got) == 33
    assert {"a1-a2", "a1-b1"} <= got
    assert len({m for m in got if m.startswith("a3-")}) == 24
    assert {m for m in got if m.startswith("c1-")} == _dests("c1", "d2 e3 f4 g5 h6 i7 j8")


def test_b5_forced_beats_trapped() -> None:
    s = state("10/8l1/7M2/10/10/10/10/E9/1l8/M1L7 w 0")
    assert GAME.piece_status(s, "h8") == "forced"
    assert GAME.piece_status(s, "a1") == "trapped"
    assert moves(s) == _dests("h8", "a8 b8 c8 d8 e8 f8 g8 h1 h2 h3 h4 h5 h6 h7")


def test_b6_two_forced_pieces_either_may_move() -> None:
    s = state("10/10/10/10/5l4/4M5/10/10/1l8/M9 w 0")
    assert GAME.piece_status(s, "a1") == "forced"
    a1 = _dests("a1", "a4 a5 a6 a7 a8 a9 a10 d1 e1 f1 g1 h1 i1 j1")
    assert moves(s) == a1 | B1_MOVES and len(legal(s)) == 28


def test_b7_win_on_three_holes_ends_the_game() -> None:
    s = state("3E6/10/10/10/10/10/3M2M3/10/10/4e5 w 0")
    assert len(legal(s)) == 50
    winners = []
    for a in GAME.legal_actions(s, 0):
        out = GAME.outcome(GAME.apply(s, {0: a}).state)
        if out is not None:
            assert out.winners == (0,) and out.reason == "holes"
            winners.append(GAME.action_text(a))
    assert winners == ["d10-d7", "d10-g7"]
    done = play(s, "d10-d7")
    assert GAME.decision(done).terminal
    assert GAME.legal_actions(done, 0) == [] == GAME.legal_actions(done, 1)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(done, {1: act("e1-e2")})
    assert err.value.rule == "game_over"


def test_b8_a_trapped_piece_may_move_into_danger_and_win() -> None:
    s = state("10/3L6/2lME5/10/3M6/10/3E2L3/10/10/9e w 0")
    assert GAME.piece_status(s, "d8") == "trapped"
    assert "forced" not in GAME.view(s, 0)["status"].values()
    assert len(legal(s)) == 72
    for winning in ("d8-d7", "e8-d7"):
        out = GAME.outcome(play(s, winning))
        assert out is not None and out.winners == (0,)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, {0: act("d6-d7")})
    assert err.value.rule == "calm_into_danger"


def test_b9_forced_escape_onto_a_hole_wins() -> None:
    s = state("10/10/5l4/4M5/10/10/3E2L3/10/10/9e w 0")
    assert GAME.piece_status(s, "e7") == "forced"
    assert len(legal(s)) == 14
    assert "e7-d7" in moves(s) and "e7-g7" not in moves(s)
    out = GAME.outcome(play(s, "e7-d7"))
    assert out is not None and out.winners == (0,) and out.reason == "holes"
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, {0: act("e7-g7")})
    assert err.value.rule == "forced_into_danger"


def test_b10_a_forced_move_overrides_a_win() -> None:
    s = state("M2E6/1l8/10/10/10/10/3M2L3/10/10/9e w 0")
    assert moves(s) == _dests("a10", "a1 a2 a3 a4 a5 a6 a7")
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, {0: act("d10-d7")})
    assert err.value.rule == "forced_priority"
    assert err.value.details["forced"] == ["a10"]


def test_b11_win_while_a_hole_holder_is_trapped() -> None:
    s = state("10/10/10/10/10/l2M6/3ML1E3/2l7/3L6/9e w 0")
    assert GAME.piece_status(s, "d4") == "trapped"
    assert len(legal(s)) == 62
    done = play(s, "d5-d7")
    out = GAME.outcome(done)
    assert out is not None and out.winners == (0,)
    assert "d4" in GAME.view(done, None)["scared"]


def test_b12_no_legal_move_means_pass() -> None:
    s = state("10/10/10/10/10/10/10/10/e9/Me8 w 0")
    assert legal(s) == ["pass"]
    after = play(s, "pass")
    assert bpn(after) == "10/10/10/10/10/10/10/10/e9/Me8 b 1"
    assert GAME.view(after, 1)["status"] == {"a2": "forced", "b1": "forced"}
    assert len(legal(after)) == 48


def test_b13_fear_is_one_way() -> None:
    white = state("10/10/10/10/10/4e5/4M5/10/10/10 w 0")
    assert GAME.piece_status(white, "e4") == "calm"
    assert len(legal(white)) == 12
    black = state("10/10/10/10/10/4e5/4M5/10/10/10 b 1")
    assert GAME.piece_status(black, "e5") == "forced"
    assert len(legal(black)) == 27
    assert "e5-d6" in moves(black) and "e5-d4" not in moves(black)


def test_b14_own_pieces_never_scare() -> None:
    s = state("10/10/10/10/10/4L5/4M5/10/10/9e w 0")
    assert GAME.view(s, None)["scared"] == []
    assert len(legal(s)) == 28


CYCLE = ("d2-c3", "d9-c8", "c3-d2", "c8-d9")


def test_b15_repetition_counts_and_claims() -> None:
    s = state(START)
    counts = []
    for n in range(1, 17):
        s = play(s, CYCLE[(n - 1) % 4])
        if n % 4 == 0:
            counts.append(GAME.view(s, None)["repetitions"])
            if n == 4:
                assert "claim" not in legal(s)
                with pytest.raises(IllegalAction) as err:
                    GAME.apply(s, {0: {"type": "claim"}})
                assert err.value.rule == "no_repetition"
        if n == 16:
            break
        if n == 7:
            assert "c8-d9 claim" in legal(s)
            claimed = play(s, "c8-d9 claim")
            out = GAME.outcome(claimed)
            assert out is not None and out.is_draw and out.reason == "claim"
            assert bpn(claimed) == "4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 w 8"
        if n == 8:
            assert legal(s)[-1] == "claim"
            assert GAME.view(s, 0)["claim_available"]
            out = GAME.outcome(play(s, "claim"))
            assert out is not None and out.reason == "claim"
            assert "d2-c3 claim" in legal(s)
            assert GAME.outcome(play(s, "d2-c3 claim")) is not None
    assert counts == [2, 3, 4, 5]
    out = GAME.outcome(s)
    assert out is not None and out.is_draw and out.reason == "fivefold"


def test_b15_claim_twin_follows_its_move_in_the_canonical_order() -> None:
    s = play(state(START), *CYCLE, *CYCLE[:3])
    listed = legal(s)
    i = listed.index("c8-d9")
    assert listed[i + 1] == "c8-d9 claim"
    assert sum(1 for a in listed if a.endswith("claim")) == 1


def test_b16_ply_cap() -> None:
    s = play(state("4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 w 299"), "d2-c3")
    out = GAME.outcome(s)
    assert GAME.view(s, None)["ply"] == 300
    assert out is not None and out.is_draw and out.reason == "ply_cap"


def test_b17_a_win_beats_the_cap() -> None:
    s = play(state("3E6/10/10/10/10/10/3M2M3/10/10/4e5 w 299"), "d10-d7")
    out = GAME.outcome(s)
    assert out is not None and out.winners == (0,) and out.reason == "holes"


@pytest.mark.parametrize("seed", range(12))
def test_b19_a_lion_keeps_its_square_colour(seed: int) -> None:
    """Property over seeded random games: the lion from d2 never has a legal move to g4 or
    d7, the one from g2 never to d4 or g7 (followed through the game by square)."""
    rng = random.Random(seed)
    s = state(START)
    lions = {"d2": ("g4", "d7"), "g2": ("d4", "g7")}
    while not GAME.decision(s).terminal:
        actions = GAME.legal_actions(s, seat(s))
        for a in actions:
            if a["type"] == "move" and a["from"] in lions:
                assert a["to"] not in lions[a["from"]], (seed, bpn(s), a)
        a = actions[int(rng.random() * len(actions))]
        if a["type"] == "move" and a["from"] in lions:
            lions[a["to"]] = lions.pop(a["from"])
        s = GAME.apply(s, {seat(s): a}).state


@pytest.mark.parametrize(("depth", "nodes"), [(1, 38), (2, 1404), (3, 66286)])
def test_b20_perft_shallow(depth: int, nodes: int) -> None:
    assert perft(Position.start(), depth) == nodes


def test_b20_perft_depth_4() -> None:
    # Required figure (rules §10); the fast core needs about 2 s for it.
    pos = Position.start()
    assert perft(pos, 4) == 3046014
    assert pos.to_bpn() == START_BPN and pos.history == Position.start().history


def test_perft_through_the_json_contract_matches_the_fast_core() -> None:
    def json_perft(s: dict, depth: int) -> int:
        if depth == 0:
            return 1
        return sum(json_perft(GAME.apply(s, {seat(s): a}).state, depth - 1)
                   for a in GAME.legal_actions(s, seat(s)) if not a.get("claim"))
    assert json_perft(state(START), 2) == 1404
