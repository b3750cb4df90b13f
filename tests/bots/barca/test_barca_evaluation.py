"""The evaluation vector of rules §12.2: B21 and B22 exactly, and its symmetry."""

from __future__ import annotations

import random

from bots.barca import DEFAULT_WEIGHTS, FEATURES, evaluate, feature_vector, features
from bots.barca.evaluation import side_features
from engine.barca import START_BPN, Position
from tests.bots.barca.reference_features import reference_features

B9 = "10/10/5l4/4M5/10/10/3E2L3/10/10/9e w 0"
WHITE, BLACK = 0, 1
RULE_BOOK_POSITIONS = (  # B1-B14 of rules §13: fear, forced, trapped, holes
    "10/10/10/10/5l4/4M5/10/10/10/10 w 0", "10/10/10/10/5l4/10/4M5/10/10/10 w 0",
    "10/10/10/10/5l4/4M5/10/10/10/E9 w 0", "10/10/10/10/10/10/10/E9/1l8/M1L7 w 0",
    "10/8l1/7M2/10/10/10/10/E9/1l8/M1L7 w 0", "10/10/10/10/5l4/4M5/10/10/1l8/M9 w 0",
    "3E6/10/10/10/10/10/3M2M3/10/10/4e5 w 0", "10/3L6/2lME5/10/3M6/10/3E2L3/10/10/9e w 0",
    "M2E6/1l8/10/10/10/10/3M2L3/10/10/9e w 0", "10/10/10/10/10/l2M6/3ML1E3/2l7/3L6/9e w 0",
    "10/10/10/10/10/10/10/10/e9/Me8 w 0", "10/10/10/10/10/4e5/4M5/10/10/10 b 1",
    "10/10/10/10/10/4L5/4M5/10/10/9e w 0",
)


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


def _random_game_positions(seed: int) -> list[Position]:
    """Every position of a seeded random game, as independent copies."""
    rng = random.Random(seed)
    pos = Position.from_bpn(START_BPN)
    out = [pos.copy()]
    while pos.result is None:
        pos.apply(rng.choice(pos.legal_moves()))
        out.append(pos.copy())
    return out


def test_fast_features_equal_the_literal_reading_of_the_table() -> None:
    """side_features (bit sets, both sides at once) equals the one-side-at-a-time oracle
    on every position of 25 seeded random games, plus the hand-made rule-book positions."""
    positions = [p for seed in range(25) for p in _random_game_positions(seed)]
    positions += [Position.from_bpn(b) for b in (B9, *RULE_BOOK_POSITIONS)]
    assert len(positions) > 2000
    for pos in positions:
        white, black = side_features(pos)
        assert white == reference_features(pos, WHITE), pos
        assert black == reference_features(pos, BLACK), pos


def test_cached_evaluation_equals_a_fresh_computation() -> None:
    """evaluate's per-position cache gives what the features give, for any weights and both
    sides to move at the same placement (TEMPO differs, so they are different entries)."""
    rng = random.Random(5)
    for pos in _random_game_positions(3)[::7]:
        weights = [rng.randint(-1000, 1000) for _ in FEATURES]
        for _ in range(2):  # the second call reads the cache
            for side in (WHITE, BLACK):
                expected = sum(w * (a - b) for w, a, b in zip(
                    weights, reference_features(pos, side), reference_features(pos, 1 - side),
                    strict=True))
                assert evaluate(pos, side, weights) == expected
