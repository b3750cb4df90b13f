"""The evaluation vector of rules §12.2: B21 and B22 exactly, and its symmetry."""

from __future__ import annotations

from bots.barca import DEFAULT_WEIGHTS, FEATURES, evaluate, feature_vector, features
from engine.barca import START_BPN, Position

B9 = "10/10/5l4/4M5/10/10/3E2L3/10/10/9e w 0"
WHITE, BLACK = 0, 1


def test_default_weights_are_the_rule_books() -> None:
    assert list(DEFAULT_WEIGHTS) == [100, 250, 400, 30, 60, -40, -30, -20, 15, 1, -10, 20, 5,
                                     -5, 10]
    assert len(FEATURES) == 15


def test_b21_start_position() -> None:
    pos = Position.from_bpn(START_BPN)
    phi = feature_vector(pos, WHITE)
    assert phi == [0] * 14 + [1]  # TEMPO only
    assert evaluate(pos, WHITE) == 10
    assert evaluate(pos, BLACK) == -10
    mobility, hole_dist = FEATURES.index("MOBILITY"), FEATURES.index("HOLE_DIST")
    for side in (WHITE, BLACK):
        h = features(pos, side)
        assert (h[mobility], h[hole_dist]) == (38, 12)


def test_b22_b9_position() -> None:
    pos = Position.from_bpn(B9)
    assert features(pos, WHITE) == [1, 1, 1, 1, 2, 0, 1, 0, 0, 14, 1, 1, 3, 0, 1]
    assert features(pos, BLACK) == [0, 0, 0, 1, 0, 0, 0, 0, 1, 28, 2, 1, 0, 0, 0]
    assert evaluate(pos, WHITE) == 846
    assert evaluate(pos, BLACK) == -846


def test_evaluation_is_antisymmetric_and_leaves_the_position_alone() -> None:
    pos = Position.from_bpn(B9)
    before = pos.to_bpn()
    weights = [3, -7, 11, 0, 5, 1, -2, 9, 4, 1, -1, 2, 6, -8, 13]
    assert evaluate(pos, WHITE, weights) == -evaluate(pos, BLACK, weights)
    assert pos.to_bpn() == before
