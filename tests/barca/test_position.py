"""The fast core (:mod:`engine.barca.position`) against an independent plain model of the
rules and against the JSON contract, over seeded random games."""

from __future__ import annotations

import random

import pytest

from engine.barca import GAME, PASS, SQUARE_NAMES, Position
from engine.barca.position import key_from_text

from . import oracle
from .helpers import START, seat, state


def _text(move: int) -> str:
    return "pass" if move == PASS else f"{SQUARE_NAMES[move // 100]}-{SQUARE_NAMES[move % 100]}"


def _random_positions(seed: int, plies: int = 300) -> list[Position]:
    """Positions of one seeded random game played on the fast core (copies)."""
    rng = random.Random(seed)
    pos = Position.start()
    out = [pos.copy()]
    while pos.result is None and len(out) <= plies:
        moves = pos.legal_moves()
        pos.apply(moves[int(rng.random() * len(moves))])
        out.append(pos.copy())
    return out


@pytest.mark.parametrize("seed", range(20))
def test_moves_equal_the_plain_model_for_both_sides(seed: int) -> None:
    for pos in _random_positions(seed)[::3]:
        placement = pos.placement()
        for side in (0, 1):
            got = {_text(m) for m in pos.moves(side)}
            assert got == oracle.legal_moves(placement, "wb"[side]), (seed, pos.to_bpn(), side)


@pytest.mark.parametrize("seed", range(5))
def test_undo_restores_everything(seed: int) -> None:
    rng = random.Random(seed)
    pos = Position.start()
    snapshots = []
    while pos.result is None:
        snapshots.append((pos.to_bpn(), pos.key, dict(pos.history), list(pos.bb)))
        moves = pos.legal_moves()
        assert moves == sorted(moves)
        move = moves[int(rng.random() * len(moves))]
        expected = pos.count_after(move)
        pos.apply(move)
        assert pos.count() == expected
    while snapshots:
        pos.undo()
        assert (pos.to_bpn(), pos.key, pos.history, pos.bb) == snapshots.pop()
        assert pos.result is None


@pytest.mark.parametrize("seed", range(3))
def test_the_fast_core_agrees_with_the_json_contract(seed: int) -> None:
    rng = random.Random(seed)
    s = state(START)
    while not GAME.decision(s).terminal:
        pos = GAME.position(s)
        assert pos.to_bpn() == s["bpn"]
        assert pos.history == {key_from_text(k): n for k, n in s["history"].items()}
        assert pos.can_claim() == GAME.view(s, None)["claim_available"]
        listed = GAME.legal_actions(s, seat(s))
        plain = [GAME.action_text(a) for a in listed
                 if a["type"] != "claim" and not a.get("claim")]
        assert plain == [_text(m) for m in pos.legal_moves()]
        claims = {GAME.action_text(a)[:-len(" claim")] for a in listed if a.get("claim")}
        assert claims == {_text(m) for m in pos.legal_moves() if pos.count_after(m) >= 3}
        action = listed[int(rng.random() * len(listed))]
        s = GAME.apply(s, {seat(s): action}).state


def test_a_pass_changes_only_the_side_and_the_ply() -> None:
    pos = Position.from_bpn("10/10/10/10/10/10/10/10/e9/Me8 w 0")
    assert pos.legal_moves() == [PASS]
    pos.apply(PASS)
    assert pos.to_bpn() == "10/10/10/10/10/10/10/10/e9/Me8 b 1"
    pos.undo()
    assert pos.to_bpn() == "10/10/10/10/10/10/10/10/e9/Me8 w 0"


@pytest.mark.parametrize(("bpn", "count"), [
    ("10/10/10/10/5l4/4M5/10/10/10/10 w 0", 14),
    ("10/10/10/10/10/10/10/E9/1l8/M1L7 w 0", 33),
    ("10/8l1/7M2/10/10/10/10/E9/1l8/M1L7 w 0", 14),
    ("10/3L6/2lME5/10/3M6/10/3E2L3/10/10/9e w 0", 72),
    ("10/10/10/10/10/l2M6/3ML1E3/2l7/3L6/9e w 0", 62),
    ("10/10/10/10/10/10/10/10/e9/Me8 w 0", 0),
    ("10/10/10/10/10/10/10/10/e9/Me8 b 1", 48),
    ("10/10/10/10/10/4e5/4M5/10/10/10 b 1", 27),
])
def test_the_plain_model_itself_reproduces_the_rule_cases(bpn: str, count: int) -> None:
    placement, side, _ = bpn.split(" ")
    assert len(oracle.legal_moves(placement, side)) == count


def test_random_games_exercise_forced_and_trapped_animals() -> None:
    seen = set()
    for seed in range(20):
        for pos in _random_positions(seed)[::3]:
            seen |= set(pos.statuses(pos.side).values())
    assert seen == {"calm", "forced", "trapped"}
