"""B25 (shared/rules/barca.md §13): the incremental move update of §12.6
(:mod:`engine.barca.incremental`) equals from-scratch generation.

After every move of 200 seeded random games played to their end, and after runs of undos in
them, the incremental position and a fresh :class:`Position` of the same placement agree on
the legal move sets of both sides (canonical order), the statuses, the forced flags and the
danger sets; every 25 plies also on the danger counters and the reach of every animal; in the
first 60 plies of each game and at those checks also on the evaluation features MOBILITY,
SCARE_THREATS and HOLE_REACH (plus SCARED, TRAPPED, BLOCKED) read from the caches versus
``bots/barca/evaluation.features``.
Undo restores every cache exactly (a full snapshot), and perft through the incremental class
gives the golden counts."""

from __future__ import annotations

import random

import pytest

from bots.barca.evaluation import FEATURES, features
from engine.barca import PASS, PLY_CAP, Position, perft
from engine.barca.geometry import N8, NUM_SQUARES
from engine.barca.incremental import (
    FORCED_CODE,
    STATUS_NAMES,
    TRAPPED_CODE,
    IncrementalPosition,
    move_features,
)

GAMES = 200
"""Seeded random games, each played to its end (a win, fivefold or the ply cap of 300)."""
FEATURE_PLIES = 60
"""Move sets, statuses, forced flags and danger sets are compared after every move; the
evaluation features (a few hundred microseconds from scratch) in each game's first
``FEATURE_PLIES`` plies and at every full check."""
CHECKED = ("MOBILITY", "SCARE_THREATS", "HOLE_REACH", "SCARED", "TRAPPED", "BLOCKED")
_INDEX = [FEATURES.index(name) for name in CHECKED]


def _danger_counts(pos: Position, code: int) -> list[int]:
    """From scratch: per square, the opposing animals next to it that ``code`` fears."""
    feared = pos.bb[3 - 3 * (code // 3) + (code % 3 + 1) % 3]
    squares = [s for s in range(NUM_SQUARES) if feared >> s & 1]
    return [sum(N8[s] >> i & 1 for s in squares) for i in range(NUM_SQUARES)]


def _cached_features(pos: IncrementalPosition, side: int) -> list[int]:
    """The :data:`CHECKED` features of ``side`` from the caches alone."""
    mobility, threats, hole_reach = move_features(pos, side)
    squares = list(pos.statuses(side))
    scared = sum(1 for q in squares if pos.status_code(q) != 0)
    trapped = sum(1 for q in squares if pos.status_code(q) == TRAPPED_CODE)
    blocked = sum(1 for q in squares if not pos.reach_mask(q))
    return [mobility, threats, hole_reach, scared, trapped, blocked]


def assert_matches_scratch(pos: IncrementalPosition, *, full: bool = False,
                           with_features: bool = True) -> None:
    """The incremental position agrees with a fresh :class:`Position` of its placement: move
    sets of both sides, statuses, forced flags, danger sets, the :data:`CHECKED` features;
    with ``full``, also every animal's reach and move list and every danger counter."""
    scratch = Position(pos.cells, pos.side, pos.ply)
    for side in (0, 1):
        assert pos.legal_moves(side) == scratch.legal_moves(side), (pos, side)
        statuses = scratch.statuses(side)
        assert pos.statuses(side) == statuses, (pos, side)
        forced = sum(1 << q for q, status in statuses.items() if status == "forced")
        assert pos.forced_mask(side) == forced, (pos, side)
        assert pos.danger(side) == scratch.danger(side), (pos, side)
        if with_features or full:
            expected = features(scratch, side)
            assert _cached_features(pos, side) == [expected[k] for k in _INDEX], (pos, side)
        if full:
            for q in statuses:
                assert pos.reach(q) == scratch.reach(q), (pos, q)
                assert pos.reach_mask(q) == sum(1 << s for s in scratch.reach(q))
                assert STATUS_NAMES[pos.status_code(q)] == scratch.piece_status(q)
    if full:
        for code in range(6):
            expected = _danger_counts(scratch, code)
            assert [pos.danger_count(code, s) for s in range(NUM_SQUARES)] == expected


def _play_and_check(seed: int, limit: int) -> dict[str, int]:
    """One seeded random game on the incremental core, to its end or ``limit`` plies, checked
    after every move; now and then a run of undos (checked, and compared with the snapshots
    taken on the way) and a replay; at the end, undo to the start. Returns what the game
    exercised."""
    rng = random.Random(seed)
    pos = IncrementalPosition.start()
    played: list[int] = []
    snapshots = [pos.snapshot()]
    seen = {"forced": 0, "trapped": 0, "double danger": 0, "undo runs": 0}
    while pos.result is None and len(played) < limit:
        moves = pos.legal_moves()
        move = moves[int(rng.random() * len(moves))]
        pos.apply(move)
        played.append(move)
        snapshots.append(pos.snapshot())
        assert_matches_scratch(pos, full=len(played) % 25 == 0,
                               with_features=len(played) <= FEATURE_PLIES)
        for side in (0, 1):
            if pos.forced_mask(side):
                seen["forced"] += 1
            if any(pos.status_code(q) == TRAPPED_CODE for q in pos.statuses(side)):
                seen["trapped"] += 1
        if len(played) % 10 == 0 and any(pos.danger_count(c, s) == 2 for c in range(6)
                                         for s in range(NUM_SQUARES)):
            seen["double danger"] += 1
        if pos.result is None and rng.random() < 0.05:
            seen["undo runs"] += 1
            back = min(len(played), 1 + int(rng.random() * 6))
            redo = played[-back:]
            for _ in range(back):
                pos.undo()
                played.pop()
                snapshots.pop()
                assert pos.snapshot() == snapshots[-1]
                assert_matches_scratch(pos)
            for move in redo:
                pos.apply(move)
                played.append(move)
                snapshots.append(pos.snapshot())
            assert_matches_scratch(pos)
    while played:
        pos.undo()
        played.pop()
        snapshots.pop()
        assert pos.snapshot() == snapshots[-1]
    assert pos.to_bpn() == IncrementalPosition.start().to_bpn()
    return seen


def test_b25_incremental_equals_scratch_in_200_random_games() -> None:
    totals = {"forced": 0, "trapped": 0, "double danger": 0, "undo runs": 0}
    for seed in range(GAMES):
        for name, n in _play_and_check(seed, PLY_CAP).items():
            totals[name] += n
    # The games reach the cases the caches must get right.
    assert all(n > 0 for n in totals.values()), totals


@pytest.mark.parametrize("bpn", [
    "10/10/10/10/5l4/4M5/10/10/10/10 w 0",            # B1: forced, slides past danger
    "10/10/10/10/5l4/4M5/10/10/10/E9 w 0",            # B3: a forced animal freezes the rest
    "10/10/10/10/10/10/10/E9/1l8/M1L7 w 0",           # B4: trapped does not force
    "10/8l1/7M2/10/10/10/10/E9/1l8/M1L7 w 0",         # B5: forced beats trapped
    "10/3L6/2lME5/10/3M6/10/3E2L3/10/10/9e w 0",
    "10/10/10/10/10/l2M6/3ML1E3/2l7/3L6/9e w 0",
    "10/10/10/10/10/10/10/10/e9/Me8 w 0",             # B12: no move, pass
    "10/10/10/10/10/4e5/4M5/10/10/10 b 1",
])
def test_rule_case_positions_and_every_move_from_them(bpn: str) -> None:
    pos = IncrementalPosition.from_bpn(bpn)
    assert_matches_scratch(pos, full=True)
    before = pos.snapshot()
    for move in pos.legal_moves():
        pos.apply(move)
        assert_matches_scratch(pos, full=True)
        for reply in pos.legal_moves():
            pos.apply(reply)
            assert_matches_scratch(pos)
            pos.undo()
        pos.undo()
        assert pos.snapshot() == before


def test_a_pass_changes_no_cache() -> None:
    pos = IncrementalPosition.from_bpn("10/10/10/10/10/10/10/10/e9/Me8 w 0")
    assert pos.legal_moves() == [PASS]
    before = pos.snapshot()
    pos.apply(PASS)
    assert pos.snapshot() == before and pos.to_bpn().endswith(" b 1")
    assert_matches_scratch(pos, full=True)
    pos.undo()
    assert pos.snapshot() == before and pos.to_bpn().endswith(" w 0")


def test_two_animals_of_a_kind_cover_a_square_and_one_leaves() -> None:
    """A counter, not a flag: f5 is next to both black lions (e6, g6); when one moves away,
    f5 stays dangerous for the white mouse (count 2 → 1), and becomes safe when both have
    gone."""
    pos = IncrementalPosition.from_bpn("10/10/10/10/4l1l3/10/10/10/10/M9 b 1")
    f5 = 45
    mouse = 0  # code of the white mouse
    assert pos.danger_count(mouse, f5) == 2 and pos.danger(0)[0] >> f5 & 1
    pos.apply(100 * 54 + 87)  # e6-h9
    assert pos.danger_count(mouse, f5) == 1 and pos.danger(0)[0] >> f5 & 1
    assert_matches_scratch(pos, full=True)
    pos.apply(100 * 0 + 10)  # a1-a2
    pos.apply(100 * 56 + 29)  # g6-j3
    assert pos.danger_count(mouse, f5) == 0 and not pos.danger(0)[0] >> f5 & 1
    assert_matches_scratch(pos, full=True)


@pytest.mark.parametrize(("depth", "nodes"), [(1, 38), (2, 1404), (3, 66286)])
def test_perft_through_the_incremental_core(depth: int, nodes: int) -> None:
    pos = IncrementalPosition.start()
    before = pos.snapshot()
    assert perft(pos, depth) == nodes
    assert pos.snapshot() == before


def test_copy_and_json_state_build_incremental_positions() -> None:
    pos = IncrementalPosition.start()
    pos.apply(pos.legal_moves()[5])
    copy = pos.copy()
    assert isinstance(copy, IncrementalPosition) and copy.snapshot() == pos.snapshot()
    assert copy.history == pos.history
    assert STATUS_NAMES[FORCED_CODE] == "forced"
