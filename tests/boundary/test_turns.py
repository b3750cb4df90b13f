"""Rules §14.7: the end of a turn and of the game, what each seat may see, determinism and
the setup (cases 30–35)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from engine.boundary import GAME, board_of, layout, state_of
from engine.boundary.capture import surround_counts, treasure_owners
from engine.boundary.params import (
    ALLY_MIN,
    EDGE_MARGIN,
    ENEMY_MIN,
    TP_MIN,
    TT_MIN,
    Params,
)
from engine.core import CHANCE, canonical_json
from engine.match import Match, random_policy
from engine.rng import Rng
from tests.boundary.helpers import FAR_ENEMY, board


def plan(turn: int, moves: dict[str, list[int]] | None = None) -> dict[str, Any]:
    return {"turn": turn, "moves": moves or {}}


def test_the_game_ends_at_the_tick_of_the_last_treasure_case_30() -> None:
    # The only treasure is 30 px ahead: it is taken at tick 12, from 18 px (on this side the
    # neighbour pixel 399 samples its cell at 398.5, one pixel nearer than case 16's right
    # side); the remaining movement of that turn is not played.
    b = board([(370, 400)], [FAR_ENEMY], treasures=[(400, 400, 4)])
    ticks, events = b.resolve({0: (405, 400)})
    assert ticks == 12 and events[-1]["kind"] == "treasure_captured" and events[-1]["tick"] == 12
    assert b.result == "treasures" and b.pos[0] == (382, 400) and b.turn == 1
    # The same for a side losing its last piece (case 14 ends that way too).
    b = board([(380, 400)], [(400, 390), (400, 410), (100, 100)])
    ticks, _ = b.resolve({0: (420, 400), 9: (100, 140)})
    assert ticks == 18 and b.result == "elimination"
    assert b.pos[9] == (100, 118)   # team 1's walk stopped with the game


def test_turn_limit_and_draws_case_31() -> None:
    state = state_of(board([(200, 200)], [(600, 600)], params=Params(turn_limit=3)), 0, None)
    for turn in range(3):
        assert GAME.decision(state).seats == (0, 1)
        state = GAME.apply(state, {0: plan(turn), 1: plan(turn)}).state
    assert state["result"] == "turn_limit"
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.is_draw and outcome.scores == (0, 0)
    assert GAME.decision(state).terminal
    state["scores"] = [31, 30]
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.ranks == (0, 1) and outcome.reason == "turn_limit"


def test_only_the_ready_flag_of_a_plan_is_seen_before_resolution_case_32() -> None:
    match = Match(GAME, 2, seed=32)
    match.advance()
    before = [canonical_json(match.view(v)) for v in (0, 1, None)]
    secret = {"0": [match.state["pieces"][0][0] + 7, match.state["pieces"][0][1]]}
    events = match.submit(0, plan(0, secret))
    assert [e.render(1) for e in events] == [{"type": "committed", "seat": 0}]
    assert [e.render(None) for e in events] == [{"type": "committed", "seat": 0}]
    assert events[0].render(0)["action"] == plan(0, secret)
    assert [canonical_json(match.view(v)) for v in (0, 1, None)] == before
    events = match.submit(1, plan(0))
    (resolution,) = [e.render(1) for e in events]
    assert resolution["type"] == "resolution" and resolution["plans"] == [secret, {}]


def playout_record(seed: int, turns: int = 6) -> list[str]:
    options = {"turn_limit": turns}
    match = Match(GAME, 2, options, seed=seed)
    events = [canonical_json([e.render(None) for e in match.advance()])]
    policies = [random_policy(Rng(seed).fork(f"seat-{s}")) for s in (0, 1)]
    hashes = []
    while not match.is_over:
        for seat in match.awaiting():
            events.append(canonical_json([e.render(None) for e in match.submit(
                seat, policies[seat](match.view(seat), match.choices(seat), seat))]))
        hashes.append(hashlib.sha256(canonical_json(match.state).encode()).hexdigest())
    return events + hashes


def test_the_same_seed_and_plans_give_the_same_match_case_33() -> None:
    first, second = playout_record(33), playout_record(33)
    assert first == second
    assert playout_record(34) != first
    # Replaying the log alone gives the same states (the layout is its first entry).
    match = Match(GAME, 2, {"turn_limit": 6}, seed=33)
    match.advance()
    policies = [random_policy(Rng(33).fork(f"seat-{s}")) for s in (0, 1)]
    while not match.is_over:
        for seat in match.awaiting():
            match.submit(seat, policies[seat](match.view(seat), match.choices(seat), seat))
    state = GAME.initial_state(2, match.options)
    for entry in match.log:
        joint = {(CHANCE if k == "chance" else int(k)): v for k, v in entry.items()}
        state = GAME.apply(state, joint).state
    assert state == match.state


def test_setup_vector_for_seed_1_case_34() -> None:
    start = layout(1, Params())
    assert start.pieces[:7] == ((485, 579), (661, 508), (180, 130), (764, 742), (295, 21),
                                (386, 384), (753, 496))
    assert start.pieces[7:] == ((490, 375), (345, 153), (757, 290), (396, 679), (474, 172),
                                (745, 616), (313, 261))
    assert start.treasures == (
        (28, 304, 2), (59, 735, 4), (701, 732, 6), (338, 519, 4), (468, 668, 4), (59, 83, 7),
        (118, 646, 3), (779, 680, 5), (598, 472, 4), (95, 498, 4), (207, 562, 3),
        (73, 269, 3), (619, 374, 7), (421, 533, 7), (252, 770, 1))
    state = GAME.apply(GAME.initial_state(2, GAME.normalize_options({})), {CHANCE: 1}).state
    assert state["blobs"] == [[p] for p in range(14)]
    assert state["pieces"][0] == [485, 579] and state["treasures"][14] == [252, 770, 1]


def _far(a: tuple[int, int], b: tuple[int, int], limit: int) -> bool:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 >= limit * limit


@pytest.mark.slow
def test_setup_invariants_over_10000_layouts_case_35() -> None:
    params = Params()
    for number in range(10_000):
        start = layout(number, params)
        pieces, treasures = start.pieces, [t[:2] for t in start.treasures]
        for p, xy in enumerate(pieces):
            assert all(EDGE_MARGIN <= v <= 799 - EDGE_MARGIN for v in xy)
            for q in range(p):
                same = (p < 7) == (q < 7)
                assert _far(xy, pieces[q], ALLY_MIN if same else ENEMY_MIN), (number, p, q)
        for t, xy in enumerate(treasures):
            assert all(EDGE_MARGIN <= v <= 799 - EDGE_MARGIN for v in xy)
            assert all(_far(xy, p, TP_MIN) for p in pieces)
            assert all(_far(xy, u, TT_MIN) for u in treasures[:t])
            assert 1 <= start.treasures[t][2] <= 7
        b = board_of(state_of(_board(params, start), number, None))
        assert len(b.blobs) == 14
        quiet = b.copy()
        assert quiet.resolve({}) == (1, [])   # a zero-length turn captures nothing
        if number % 50:
            continue   # and on every 50th layout, every count computed with no pruning
        snapshot = b.snapshot()
        counts = surround_counts([(*pieces[p], 0 if p < 7 else 1) for p in range(14)],
                                 snapshot, 20)
        assert max(counts) < 6
        assert treasure_owners(treasures, snapshot, 20) == [None] * 15


def _board(params: Params, start: Any) -> Any:
    from engine.boundary.board import Board
    return Board.from_layout(params, start)


def test_a_view_is_the_same_for_every_seat_and_json() -> None:
    match = Match(GAME, 2, seed=5)
    match.advance()
    views = [match.view(v) for v in (0, 1, None)]
    assert views[0] == views[1] == views[2]
    assert json.loads(json.dumps(views[0])) == views[0]
    assert {"turn", "scores", "pieces", "blobs", "treasures", "territory"} <= set(views[0])
