"""Rules §14.3–14.4: capturing pieces and treasures (cases 9–18)."""

from __future__ import annotations

import pytest

from engine.boundary.params import Params
from tests.boundary.helpers import FAR_ENEMY, board, count_of

SEVEN = [(0, 0), (15, 0), (-15, 0), (0, 15), (0, -15), (10, 10), (-10, -10)]


@pytest.mark.parametrize("d, count", [(10, 8), (14, 6), (15, 4), (20, 2)])
def test_a_lone_piece_between_an_enemy_pair_case_9(d: int, count: int) -> None:
    b = board([(400, 400)], [(400, 400 - d), (400, 400 + d)])
    assert b.blobs == [(0,), (7, 8)]   # the pair is one blob
    assert count_of(b) == count


def test_triangle_and_seven_blob_case_10() -> None:
    assert count_of(board([(400, 400)], [(415, 400), (392, 387), (392, 413)])) == 8
    near = board([(400, 400)], [(415 + dx, 400 + dy) for dx, dy in SEVEN])
    assert len(near.blobs) == 2 and count_of(near) == 8
    far = board([(400, 400)], [(430 + dx, 400 + dy) for dx, dy in SEVEN])
    assert count_of(far) == 5


def test_walls_count_at_most_three_times_case_11() -> None:
    assert count_of(board([(0, 400)], [(12, 400)])) == 6
    assert count_of(board([(0, 400)], [(0, 380), (0, 420)])) == 5
    assert count_of(board([(0, 0)], [(8, 8)])) >= 6
    assert count_of(board([(0, 0)], [(12, 12)])) == 4


def test_own_colour_at_every_ray_end_case_12() -> None:
    b = board([(400 + dx, 400 + dy) for dx, dy in SEVEN], [FAR_ENEMY])
    assert b.blobs[0] == tuple(range(7))
    assert count_of(b, 0) == -8


def test_a_capture_credits_the_enemy_with_30_points_case_13() -> None:
    b = board([(400, 400)], [(400, 390), (400, 410)])
    ticks, events = b.resolve({})
    assert events == [{"tick": 1, "kind": "piece_captured", "piece": 0, "by": 1, "points": 30}]
    assert b.scores == [0, 30]
    b = board([(600, 390), (600, 410), (300, 300)], [(600, 400)])
    b.resolve({})
    assert b.scores == [30, 0]
    capture = Params(capture_points=12)
    b = board([(400, 400)], [(400, 390), (400, 410)], params=capture)
    b.resolve({})
    assert b.scores == [0, 12]


def test_capture_in_passing_case_14() -> None:
    b = board([(380, 400)], [(400, 390), (400, 410)])
    probe = board([(398, 400)], [(400, 390), (400, 410)])
    assert count_of(probe) == 7
    ticks, events = b.resolve({0: (420, 400)})
    assert events == [{"tick": 18, "kind": "piece_captured", "piece": 0, "by": 1, "points": 30}]
    assert b.pos[0] is None   # it never reached its target
    assert ticks == 18 and b.result == "elimination"   # team 0 has no piece left


def test_simultaneous_captures_on_one_snapshot_case_15() -> None:
    b = board([(200, 400), (600, 390), (600, 410)], [(200, 390), (200, 410), (600, 400)])
    ticks, events = b.resolve({})
    assert ticks == 1
    assert [(e["piece"], e["tick"]) for e in events if e["kind"] == "piece_captured"] == [
        (0, 1), (9, 1)]
    assert b.scores == [30, 30]


@pytest.mark.parametrize("piece, taken", [((417, 400), True), ((418, 400), False),
                                          ((413, 413), True), ((414, 414), False)])
def test_treasure_reach_of_a_lone_piece_case_16(piece: tuple[int, int], taken: bool) -> None:
    b = board([piece], [FAR_ENEMY], treasures=[(400, 400, 5), (700, 700, 1)])
    _, events = b.resolve({})
    assert (events == [{"tick": 1, "kind": "treasure_captured", "treasure": 0, "by": 0,
                        "points": 5}]) is taken
    assert b.scores == ([5, 0] if taken else [0, 0])


def test_a_treasure_in_both_territories_goes_to_six_of_eight_case_17() -> None:
    # Team 0 sits on the treasure, team 1 is near: team 0 owns all 8 neighbours.
    b = board([(405, 400)], [(430, 400)], treasures=[(400, 400, 3), (700, 700, 1)])
    _, events = b.resolve({})
    assert [(e["kind"], e["by"]) for e in events] == [("treasure_captured", 0)]
    # Exactly between two equal pieces the neighbours split: nobody reaches 6, it stays.
    b = board([(390, 400)], [(411, 400)], treasures=[(400, 400, 3), (700, 700, 1)])
    counts = b.snapshot()
    from engine.boundary.capture import treasure_owners
    assert treasure_owners([(400, 400)], counts, 20) == [None]
    _, events = b.resolve({})
    assert events == [] and b.taken[0] is None


def test_treasures_are_taken_only_during_ticks_case_18() -> None:
    from engine.boundary import GAME
    from engine.core import CHANCE
    state = GAME.initial_state(2, GAME.normalize_options({}))
    for layout in range(50):
        start = GAME.apply(state, {CHANCE: layout}).state
        assert start["taken"] == [None] * 15 and start["scores"] == [0, 0]
