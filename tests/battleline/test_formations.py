"""Formation evaluation and completion search (engine.battleline.formations)."""

from __future__ import annotations

from itertools import combinations

import pytest

from engine.battleline.cards import TACTICS, TROOPS
from engine.battleline.formations import (
    Completion,
    Formation,
    best_completion,
    completion_beating,
    evaluate,
    side_strength,
    top_completions,
)
from engine.rng import Rng


@pytest.mark.parametrize(("cards", "category", "total"), [
    (["8b", "9b", "10b"], "wedge", 27),
    (["8r", "8b", "8g"], "phalanx", 24),
    (["1y", "4y", "8y"], "battalion", 13),
    (["2r", "3o", "4p"], "skirmish", 9),
    (["2g", "4b", "6o"], "host", 12),
    (["2g", "2b", "7o"], "host", 11),        # a pair is a Host
    (["9r", "10r", "1r"], "battalion", 20),  # no wrap-around: 9-10-1 is not a run
])
def test_every_category(cards: list[str], category: str, total: int) -> None:
    assert evaluate(cards) == Formation(category, total)


def test_category_order_beats_any_total() -> None:
    ranked = [["1r", "2r", "3r"], ["1b", "1g", "1o"], ["10y", "9y", "7y"],
              ["8o", "9p", "10g"], ["10o", "10p", "9g"]]
    strengths = [evaluate(c).strength for c in ranked]
    assert strengths == sorted(strengths, reverse=True)


def test_same_category_higher_total_wins() -> None:
    assert evaluate(["7r", "7b", "7g"]).strength > evaluate(["4r", "4b", "4g"]).strength
    assert evaluate(["3p", "4o", "5r"]).strength < evaluate(["4p", "5o", "6r"]).strength
    # Same category and total: equal strength; the game breaks the tie by completion order.
    assert evaluate(["3p", "4o", "5r"]).strength == evaluate(["3b", "4g", "5y"]).strength


def test_wild_cards_take_their_best_value() -> None:
    assert evaluate(["Alexander", "9r", "10r"]) == Formation("wedge", 27)
    assert evaluate(["Darius", "2r", "3r"]) == Formation("wedge", 9)   # 2-3-4 beats 1-2-3
    assert evaluate(["Cavalry", "8r", "8b"]) == Formation("phalanx", 24)
    assert evaluate(["Cavalry", "9r", "10r"]) == Formation("wedge", 27)
    assert evaluate(["Cavalry", "6r", "7b"]) == Formation("skirmish", 21)
    assert evaluate(["Shield", "2r", "3r"]) == Formation("wedge", 6)
    assert evaluate(["Shield", "5r", "9r"]) == Formation("battalion", 17)
    assert evaluate(["Shield", "4b", "5r"]) == Formation("skirmish", 12)
    # Cavalry (8) and Shield (1-3) never share a value or a run: best is a coloured 21.
    assert evaluate(["Alexander", "Cavalry", "Shield"]) == Formation("battalion", 21)


def test_fog_counts_totals_only() -> None:
    assert evaluate(["8b", "9b", "10b"], fog=True) == Formation("host", 27)
    assert evaluate(["10r", "10o", "9y"], fog=True).strength > \
        evaluate(["8b", "9b", "10b"], fog=True).strength
    # Morale tactics at their maximum under Fog.
    assert evaluate(["Alexander", "Cavalry", "Shield"], fog=True) == Formation("host", 21)


def test_mud_needs_four_cards() -> None:
    assert evaluate(["7g", "8g", "9g", "10g"], size=4) == Formation("wedge", 34)
    assert evaluate(["5r", "5o", "5y", "5g"], size=4) == Formation("phalanx", 20)
    assert evaluate(["1b", "3b", "5b", "9b"], size=4) == Formation("battalion", 18)
    assert evaluate(["Alexander", "7g", "8g", "9g"], size=4) == Formation("wedge", 34)
    assert evaluate(["7g", "8g", "9g", "10g"], size=4, fog=True) == Formation("host", 34)
    with pytest.raises(ValueError):
        evaluate(["7g", "8g", "9g"], size=4)


def test_four_cards_after_mud_left_count_their_best_three() -> None:
    assert evaluate(["1r", "8b", "9b", "10b"], size=3) == Formation("wedge", 27)


def best(cards: list[str], available: list[str]) -> Completion:
    found = best_completion(cards, available)
    assert found is not None
    return found


def test_best_completion_walks_from_the_strongest() -> None:
    every = list(TROOPS)
    assert best(["9r"], every) == Completion(Formation("wedge", 27), ("8r", "10r"))
    without_10r = [c for c in every if c != "10r"]
    assert best(["9r"], without_10r).formation == Formation("wedge", 24)  # 7-8-9
    # With 8r gone as well no red run holds the 9: three nines are the best left.
    without_8r_10r = [c for c in without_10r if c != "8r"]
    assert best(["9r"], without_8r_10r).formation == Formation("phalanx", 27)
    assert best_completion(["4g", "5g"], []) is None


def test_completion_beating_is_none_when_nothing_beats() -> None:
    every = list(TROOPS)
    three_eights = evaluate(["8r", "8b", "8g"])
    assert completion_beating(["4g", "5b"], every, three_eights) is None
    better = completion_beating(["4g", "5g"], every, three_eights)
    assert better is not None and better.formation == Formation("wedge", 15)


def brute_best(cards: list[str], available: list[str], size: int, fog: bool) -> int | None:
    need = size - len(cards)
    best = None
    for extra in combinations(available, need):
        value = side_strength(cards + list(extra), size, fog)
        best = value if best is None or value > best else best
    return best


@pytest.mark.parametrize("seed", range(12))
def test_search_agrees_with_brute_force(seed: int) -> None:
    """The mask search equals trying every combination, wild cards and Mud included."""
    rng = Rng(seed)
    for _ in range(25):
        troops = list(TROOPS)
        rng.shuffle(troops)
        size = 4 if rng.below(3) == 0 else 3
        fog = rng.below(4) == 0
        wild_pool = list(TACTICS[:4])
        rng.shuffle(wild_pool)
        wilds = wild_pool[:rng.below(2)]
        placed = troops[:rng.below(size - len(wilds) + 1)]
        cards = wilds + placed
        available = troops[len(placed):len(placed) + 9]
        found = best_completion(cards, available, size, fog)
        expect = brute_best(cards, available, size, fog)
        assert (None if found is None else found.formation.strength) == expect, (cards, size)
        if found is not None:
            assert set(found.cards) <= set(available)
            assert side_strength(cards + list(found.cards), size, fog) == expect


@pytest.mark.parametrize("seed", range(8))
def test_top_completions_are_the_strongest_distinct_completions(seed: int) -> None:
    rng = Rng(100 + seed)
    for _ in range(15):
        troops = list(TROOPS)
        rng.shuffle(troops)
        size = 4 if rng.below(4) == 0 else 3
        fog = rng.below(5) == 0
        wild_pool = list(TACTICS[:4])
        rng.shuffle(wild_pool)
        wilds = wild_pool[:rng.below(2)]
        placed = troops[:rng.below(size - len(wilds))]
        cards = wilds + placed
        available = troops[len(placed):len(placed) + 12]
        need = size - len(cards)
        every = sorted((side_strength(cards + list(extra), size, fog)
                        for extra in combinations(available, need)), reverse=True)
        top = top_completions(cards, available, 4, size, fog)
        assert [c.formation.strength for c in top] == every[:4], (cards, size, fog)
        assert len({c.cards for c in top}) == len(top)
        for c in top:
            assert side_strength(cards + list(c.cards), size, fog) == c.formation.strength


def test_top_completions_of_a_lone_nine() -> None:
    top = top_completions(["9r"], TROOPS, 4)
    assert [(c.formation.category, c.formation.total, c.cards) for c in top] == [
        ("wedge", 27, ("8r", "10r")), ("wedge", 24, ("7r", "8r")),
        ("phalanx", 27, ("9o", "9y")), ("phalanx", 27, ("9o", "9g"))]
