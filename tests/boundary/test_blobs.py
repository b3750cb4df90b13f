"""Rules §14.5: merging and splitting (cases 19–24)."""

from __future__ import annotations

from engine.boundary.blobs import regroup
from engine.boundary.params import Params
from engine.rng import Rng
from tests.boundary.helpers import FAR_ENEMY, board

P = Params()


def test_two_lone_allies_merge_at_40_px_case_19() -> None:
    assert board([(300, 300), (340, 300)], [FAR_ENEMY]).blobs[0] == (0, 1)
    assert board([(300, 300), (341, 300)], [FAR_ENEMY]).blobs[:2] == [(0,), (1,)]


def test_a_pair_splits_beyond_80_px_case_20() -> None:
    b = board([(300, 300), (380, 300)], [FAR_ENEMY], blobs=[(0, 1), (7,)])
    b.regroup()
    assert b.blobs[0] == (0, 1)
    b = board([(300, 300), (381, 300)], [FAR_ENEMY], blobs=[(0, 1), (7,)])
    events = b.regroup()
    assert b.blobs[:2] == [(0,), (1,)]
    assert events == [{"kind": "split", "team": 0, "blob": [0, 1], "into": [[0], [1]]}]


def test_a_pair_absorbs_an_ally_within_60_px_case_21() -> None:
    b = board([(300, 300), (330, 300), (390, 300)], [FAR_ENEMY], blobs=[(0, 1), (2,), (7,)])
    events = b.regroup()
    assert b.blobs[0] == (0, 1, 2)
    assert events == [{"kind": "merge", "team": 0, "blobs": [[0, 1], [2]], "into": [0, 1, 2]}]
    b = board([(300, 300), (330, 300), (391, 300)], [FAR_ENEMY], blobs=[(0, 1), (2,), (7,)])
    assert b.regroup() == [] and b.blobs[:2] == [(0, 1), (2,)]


def test_a_line_of_three_with_a_long_gap_splits_case_22() -> None:
    b = board([(200, 300), (260, 300), (361, 300)], [FAR_ENEMY], blobs=[(0, 1, 2), (7,)])
    b.regroup()
    assert b.blobs[:2] == [(0, 1), (2,)]   # 60 ≤ SPLIT(2) = 80; 101 > SPLIT(3) = 100
    b = board([(200, 300), (260, 300), (360, 300)], [FAR_ENEMY], blobs=[(0, 1, 2), (7,)])
    b.regroup()
    assert b.blobs[0] == (0, 1, 2)


def test_two_far_halves_of_a_six_blob_split_case_23() -> None:
    half = [(0, 0), (30, 0), (15, 25)]
    team0 = [(200 + x, 300 + y) for x, y in half] + [(400 + x, 300 + y) for x, y in half]
    b = board(team0, [FAR_ENEMY], blobs=[tuple(range(6)), (7,)])
    events = b.regroup()
    assert b.blobs[:2] == [(0, 1, 2), (3, 4, 5)]
    assert events == [{"kind": "split", "team": 0, "blob": [0, 1, 2, 3, 4, 5],
                       "into": [[0, 1, 2], [3, 4, 5]]}]


def test_regrouping_does_not_depend_on_order_case_24() -> None:
    rng = Rng(24)
    for _ in range(200):
        pos = [(100 + rng.below(300), 100 + rng.below(300)) for _ in range(14)]
        blobs = [tuple(range(k, min(k + 3, 7))) for k in range(0, 7, 3)] + \
                [tuple(range(k, min(k + 2, 14))) for k in range(7, 14, 2)]
        first = regroup(blobs, pos, P.team_of, P.merge_distance, P.split_distance)
        shuffled = [tuple(reversed(b)) for b in reversed(blobs)]
        rng.shuffle(shuffled)
        second = regroup(shuffled, pos, P.team_of, P.merge_distance, P.split_distance)
        assert first == second
        assert sorted(p for b in first.blobs for p in b) == list(range(14))
