"""Ratings (server/ratings.py) and the books (server/ladder_book.py): updates, ranks with
ties, seeding, the leaderboard, and rerating from raw results reproducing every rating
exactly. (How every store keeps the books and rerates them is a store contract test:
``tests/storage/test_contract_ladder.py``, where this file's store test moved.)"""

from __future__ import annotations

import random

import pytest

from server.ladder_book import LadderBook
from server.ratings import INITIAL, SEED_SIGMA, Rating, rate, result_word, seeded_rating


def test_a_win_moves_both_ratings_and_is_pinned_to_the_model() -> None:
    winner, loser = rate([INITIAL, INITIAL], [0, 1])
    assert winner.mu > INITIAL.mu > loser.mu
    assert winner.sigma < INITIAL.sigma and loser.sigma < INITIAL.sigma
    # openskill 6.2.0 Plackett-Luce (mu 25, sigma 25/3, beta 25/6, tau 25/300): a pinned
    # model and version give these figures to the last digits, which rerating relies on.
    assert winner.mu == pytest.approx(27.635389493140497, abs=1e-12)
    assert winner.sigma == pytest.approx(8.06590141354368, abs=1e-12)
    assert winner.ordinal == pytest.approx(winner.mu - 3 * winner.sigma)


def test_ties_share_the_update() -> None:
    a, b = rate([INITIAL, INITIAL], [0, 0])
    assert a == b and a.mu == pytest.approx(INITIAL.mu)
    first, second, third = rate([INITIAL, INITIAL, INITIAL], [0, 0, 1])
    assert first == second and first.mu > INITIAL.mu > third.mu
    # a three-seat order of finish: each place between its neighbours
    x, y, z = rate([INITIAL, INITIAL, INITIAL], [2, 0, 1])
    assert y.mu > z.mu > x.mu


def test_result_words() -> None:
    assert [result_word([0, 1], s) for s in (0, 1)] == ["win", "loss"]
    assert [result_word([0, 0], s) for s in (0, 1)] == ["draw", "draw"]
    assert [result_word([1, 0, 1], s) for s in (0, 1, 2)] == ["loss", "win", "loss"]
    assert [result_word([0, 1, 0], s) for s in (0, 1, 2)] == ["win", "loss", "win"]
    with pytest.raises(ValueError):
        rate([INITIAL], [0])


def test_a_seeded_version_starts_from_the_seed_with_some_doubt_again() -> None:
    sure = Rating(31.0, 1.2)
    assert seeded_rating(sure) == Rating(31.0, SEED_SIGMA)
    unsure = Rating(20.0, 7.0)
    assert seeded_rating(unsure) == unsure


def test_the_leaderboard_orders_by_ordinal_and_marks_provisional_entries() -> None:
    book = LadderBook()
    strong = book.add_entity("g", "ann", "strong", "1")
    weak = book.add_entity("g", "bob", "weak", "1")
    book.add_entity("other", "ann", "strong", "1")  # another game's ladder
    for n in range(12):
        book.rate(f"m{n}", [strong.id, weak.id] if n % 2 else [weak.id, strong.id],
                  [0, 1] if n % 2 else [1, 0])
    newcomer = book.add_entity("g", "cy", "new", "1")
    board = book.leaderboard("g", min_games=10)
    assert [(r["bot"], r["rank"]) for r in board] == [("strong", 1), ("new", 2), ("weak", 3)]
    assert [r["provisional"] for r in board] == [False, True, False]
    top = board[0]
    assert (top["games"], top["wins"], top["draws"], top["losses"]) == (12, 12, 0, 0)
    assert top["ordinal"] == pytest.approx(top["mu"] - 3 * top["sigma"])
    assert book.rank_of(newcomer.id)["rank"] == 2
    with pytest.raises(ValueError):
        book.add_entity("g", "ann", "strong", "1")
    with pytest.raises(ValueError):
        book.rate("bad", [strong.id, strong.id], [0, 1])


def random_history(seed: int) -> tuple[LadderBook, list[tuple[int, str, list[int], list[int]]]]:
    """A live book driven through joins (some seeded) and 2- and 3-seat results."""
    rng = random.Random(seed)
    book = LadderBook()
    results = []
    for n in range(120):
        if n % 15 == 0:
            account = f"acct{n // 15 % 4}"
            versions = book.versions("g", account, "bot")
            seed_from = versions[-1].id if versions and rng.random() < 0.7 else None
            book.add_entity("g", account, "bot", f"v{n}", seeded_from=seed_from)
        ids = list(book.entities)
        if len(ids) < 3:
            continue
        seated = rng.sample(ids, rng.choice((2, 3)))
        ranks = [rng.randrange(len(seated)) for _ in seated]
        result = book.rate(f"m{n}", seated, ranks)
        results.append((result.seq, result.match_id, seated, ranks))
    return book, results


def test_replaying_raw_results_gives_the_same_ratings_exactly() -> None:
    live, results = random_history(5)
    rebuilt, rated = LadderBook.replay(live.entities.values(), reversed(results))
    assert [r.seq for r in rated] == [r[0] for r in results]
    assert set(rebuilt.entities) == set(live.entities)
    for entity_id, standing in live.standings.items():
        again = rebuilt.standings[entity_id]
        assert again.rating == standing.rating  # bit for bit
        assert (again.wins, again.draws, again.losses) == (
            standing.wins, standing.draws, standing.losses)
    seeded = [e for e in live.entities.values() if e.seeded_from is not None]
    assert seeded, "the history should include seeded versions"
