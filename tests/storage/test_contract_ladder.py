"""Store contract, the ladder's sub-store: entities, raw results, ratings, history and
rerating (every backend of ``contract.BACKENDS``).

The first test moved from ``tests/ladder/test_ladder_ratings.py``
(``test_the_store_keeps_the_books_and_rerates_them``, there on SQLite only)."""

from __future__ import annotations

import random

import pytest

from server.ladder_book import LadderBook
from server.ratings import INITIAL, Rating
from server.storage import Store, StoreError


def test_the_store_keeps_the_books_and_rerates_them(store: Store) -> None:
    ladder = store.ladder()
    book = LadderBook()
    a = book.add_entity("g", "ann", "a", "1")
    ladder.save_entity(a, book.standings[a.id].rating)
    b = book.add_entity("g", "bob", "b", "1")
    ladder.save_entity(b, book.standings[b.id].rating)
    c = book.add_entity("g", "cy", "c", "1")
    ladder.save_entity(c, book.standings[c.id].rating)
    rng = random.Random(1)
    for n in range(30):
        seated = rng.sample([a.id, b.id, c.id], 2)
        before = [book.standings[e].rating for e in seated]
        book.started(seated, float(n))
        ladder.save_start(f"m{n}", "g", seated, before, float(n), f"t{n}")
        if n % 10 == 9:
            ladder.save_void(f"m{n}", "void", f"e{n}")
            continue
        ranks = [0, 1] if rng.random() < 0.7 else [1, 0]
        result = book.rate(f"m{n}", seated, ranks)
        ladder.save_rated(result, "flags", f"e{n}", [book.standings[e] for e in seated])
        if n == 14:  # a new version, seeded, mid-way
            a2 = book.add_entity("g", "ann", "a", "2", seeded_from=a.id)
            ladder.save_entity(a2, book.standings[a2.id].rating)
    ladder.save_start("live1", "g", [a.id, b.id], [INITIAL, INITIAL], 99.0, "t99")
    ladder.flush()

    loaded = store.ladder().load_book()
    assert loaded.seq == book.seq == 27
    for entity_id, standing in book.standings.items():
        got = loaded.standings[entity_id]
        assert got.rating == standing.rating
        assert (got.wins, got.losses, got.started) == (
            standing.wins, standing.losses, standing.started + (entity_id in (a.id, b.id)))
    ladder.save_void("live1", "interrupted", "t100")  # what a restart does with one it lost
    ladder.flush()
    statuses = [m.status for m in ladder.matches()]
    assert statuses.count("rated") == 27 and statuses.count("void") == 4

    points = ladder.history(a.id)
    assert [p["seq"] for p in points] == sorted(p["seq"] for p in points)
    assert points[-1]["mu"] == book.standings[a.id].rating.mu

    rerated, results = ladder.rerate()
    assert len(results) == 27
    for entity_id, standing in book.standings.items():
        assert rerated.standings[entity_id].rating == standing.rating
    again = store.ladder().load_book()
    for entity_id, standing in book.standings.items():
        assert again.standings[entity_id].rating == standing.rating
    assert ladder.history(a.id) == points


def test_raw_results_read_back_newest_first_and_filtered(store: Store) -> None:
    ladder = store.ladder()
    assert store.ladder() is ladder
    book = LadderBook()
    x = book.add_entity("g", "ann", "x", "1", created_at="2024-01-01T00:00:00.000Z")
    y = book.add_entity("g", "bob", "y", "1")
    z = book.add_entity("h", "cy", "z", "1")
    for entity in (x, y, z):
        ladder.save_entity(entity, book.standings[entity.id].rating)
    ladder.save_start("g1", "g", [x.id, y.id], [INITIAL, INITIAL], 1.0, "t1")
    ladder.save_start("h1", "h", [z.id, z.id], [INITIAL, INITIAL], 2.0, "t2")
    ladder.save_start("g2", "g", [y.id, x.id], [INITIAL, INITIAL], 3.0, "t3")
    result = book.rate("g2", [y.id, x.id], [1, 0])
    ladder.save_rated(result, "flags", "e3", [book.standings[y.id], book.standings[x.id]])
    ladder.save_void("g1", "server_fault", "e1")
    ladder.flush()

    assert ladder.entities() == [x, y, z]
    assert [m.match_id for m in ladder.matches()] == ["g2", "h1", "g1"]
    assert [m.match_id for m in ladder.matches(game="g")] == ["g2", "g1"]
    assert [m.match_id for m in ladder.matches(status="live")] == ["h1"]
    assert [m.match_id for m in ladder.matches(limit=1)] == ["g2"]
    rated, voided = ladder.matches(game="g")
    assert (rated.status, rated.ranks, rated.reason, rated.seq) == ("rated", [1, 0], "flags", 1)
    assert rated.entities == [y.id, x.id] and rated.started == 3.0
    assert rated.before == [INITIAL, INITIAL] and rated.after == list(result.after)
    assert (rated.started_at, rated.ended_at) == ("t3", "e3")
    assert (voided.status, voided.reason, voided.ended_at) == ("void", "server_fault", "e1")
    assert voided.ranks is None and voided.seq is None and voided.after is None

    standings = ladder.standings()
    assert standings[x.id].rating == result.after[1] and standings[x.id].wins == 1
    assert standings[y.id].losses == 1 and standings[z.id].rating == INITIAL


def test_history_gives_the_latest_points_oldest_first(store: Store) -> None:
    ladder = store.ladder()
    book = LadderBook()
    p = book.add_entity("g", "ann", "p", "1")
    q = book.add_entity("g", "bob", "q", "1")
    for entity in (p, q):
        ladder.save_entity(entity, book.standings[entity.id].rating)
    for n in range(5):
        ladder.save_start(f"m{n}", "g", [p.id, q.id], [INITIAL, INITIAL], float(n), f"t{n}")
        result = book.rate(f"m{n}", [p.id, q.id], [0, 1])
        ladder.save_rated(result, "flags", f"e{n}",
                          [book.standings[p.id], book.standings[q.id]])
    ladder.flush()
    points = ladder.history(p.id)
    assert [pt["seq"] for pt in points] == [1, 2, 3, 4, 5]
    assert [pt["match_id"] for pt in points] == [f"m{n}" for n in range(5)]
    assert [pt["at"] for pt in points] == [f"e{n}" for n in range(5)]
    last = book.standings[p.id].rating
    assert points[-1] == {"seq": 5, "match_id": "m4", "at": "e4", "rank": 0, "mu": last.mu,
                          "sigma": last.sigma, "ordinal": Rating(last.mu, last.sigma).ordinal}
    assert ladder.history(p.id, 2) == points[-2:]
    assert [pt["rank"] for pt in ladder.history(q.id)] == [1] * 5
    assert ladder.history(99) == []


def test_an_entity_stored_twice_fails_the_flush(store: Store) -> None:
    ladder = store.ladder()
    book = LadderBook()
    a = book.add_entity("g", "ann", "a", "1")
    ladder.save_entity(a, INITIAL)
    ladder.flush()
    with pytest.raises(StoreError):
        ladder.save_entity(a, INITIAL)
        ladder.flush()
    assert ladder.entities() == [a]
    ladder.flush()  # the failure was reported once; the store goes on


def test_a_result_is_written_once(store: Store) -> None:
    """A second rating or voiding of a match already rated or void (a second server that
    resumed it) is ignored: its raw row, the ratings and the history keep the first."""
    ladder = store.ladder()
    book = LadderBook()
    a = book.add_entity("g", "ann", "a", "1")
    b = book.add_entity("g", "bob", "b", "1")
    for entity in (a, b):
        ladder.save_entity(entity, book.standings[entity.id].rating)
    ladder.save_start("m1", "g", [a.id, b.id], [INITIAL, INITIAL], 1.0, "t1")
    ladder.save_start("m2", "g", [a.id, b.id], [INITIAL, INITIAL], 2.0, "t2")
    first = book.rate("m1", [a.id, b.id], [0, 1])
    after_first = [book.standings[a.id], book.standings[b.id]]
    ladder.save_rated(first, "target", "e1", after_first)
    ladder.save_void("m2", "server_fault", "e2")
    ladder.flush()
    standings = ladder.standings()

    other = LadderBook()  # another server's book: it rates m1 again, the other way round
    for entity in (a, b):
        other.restore(entity, book.standings[entity.id])
    other.seq = book.seq
    again = other.rate("m1", [a.id, b.id], [1, 0])
    ladder.save_rated(again, "flags", "e9", [other.standings[a.id], other.standings[b.id]])
    ladder.save_void("m1", "void", "e9")
    late = other.rate("m2", [a.id, b.id], [1, 0])
    ladder.save_rated(late, "flags", "e9", [other.standings[a.id], other.standings[b.id]])
    ladder.flush()

    assert ladder.standings() == standings
    rated, voided = ladder.matches(game="g")[::-1]
    assert (rated.status, rated.ranks, rated.reason, rated.seq) == ("rated", [0, 1],
                                                                    "target", first.seq)
    assert rated.ended_at == "e1" and rated.after == list(first.after)
    assert (voided.status, voided.reason, voided.ended_at, voided.seq) == (
        "void", "server_fault", "e2", None)
    assert [p["match_id"] for p in ladder.history(a.id)] == ["m1"]
    assert [p["rank"] for p in ladder.history(b.id)] == [1]


def test_a_duplicate_pair_is_one_raw_result_naming_its_twin(store: Store) -> None:
    """A ladder pair (server/pairs.py) is one row, game 1's, whose ``twin`` is game 2: rated
    once; its entities count a start in each seat when the book is loaded."""
    ladder = store.ladder()
    book = LadderBook()
    p, q = (book.add_entity("g", name, "x", "1") for name in ("ann", "bob"))
    for entity in (p, q):
        ladder.save_entity(entity, INITIAL)
    ladder.save_start("g1", "g", [p.id, q.id], [INITIAL, INITIAL], 1.0, "t1", twin="g2")
    ladder.save_start("solo", "g", [q.id, p.id], [INITIAL, INITIAL], 2.0, "t2")
    result = book.rate("g1", [p.id, q.id], [0, 1])
    ladder.save_rated(result, "duplicate 1.5-0.5", "e1",
                      [book.standings[p.id], book.standings[q.id]])
    ladder.flush()
    solo, pair = ladder.matches()
    assert (pair.match_id, pair.twin, pair.status) == ("g1", "g2", "rated")
    assert pair.seatings() == [[p.id, q.id], [q.id, p.id]] and solo.twin is None
    loaded = ladder.load_book()
    assert loaded.standings[p.id].seat_counts == [1, 2]
    assert loaded.standings[p.id].started == loaded.standings[q.id].started == 3
    rerated, results = ladder.rerate()
    assert [r.match_id for r in results] == ["g1"]
    assert rerated.standings[p.id].rating == result.after[0]
