"""Store contract, people's ratings (:mod:`server.storage.person_ratings`): rated matches
live → rated or void once, ratings per game with counts, history, the leaderboard's order,
and a person's recent matches read from the matches table (every backend)."""

from __future__ import annotations

from server.ratings import INITIAL, rate
from server.storage import MatchRow, Store
from server.storage.person_ratings import PersonResult


def _result(match_id: str, accounts: tuple[str, ...], ranks: tuple[int, ...],
            at: str, game: str = "g") -> PersonResult:
    before = tuple(INITIAL for _ in accounts)
    return PersonResult(match_id, game, accounts, ranks, before,
                        tuple(rate(before, ranks)), "flags", at)


def test_a_rated_match_is_rated_once(store: Store) -> None:
    people = store.person_ratings()
    people.save_start("m1", "g", ["ann", "bob"], "t1")
    people.save_start("m1", "g", ["x", "y"], "t9")  # a second start changes nothing
    people.flush()
    (live,) = people.live_rated()
    assert (live.match_id, live.accounts, live.status) == ("m1", ["ann", "bob"], "live")
    first = _result("m1", ("ann", "bob"), (0, 1), "e1")
    people.save_rated(first)
    people.save_rated(_result("m1", ("ann", "bob"), (1, 0), "e2"))  # the first result wins
    people.save_void("m1", "void", "e3")
    people.flush()
    row = people.rated_match("m1")
    assert row is not None and row.status == "rated" and row.ranks == [0, 1]
    assert row.after == list(first.after) and row.ended_at == "e1"
    assert people.live_rated() == []
    ann = people.ratings_for("g", ["ann", "bob", "cy"])
    assert set(ann) == {"ann", "bob"}
    assert (ann["ann"].mu, ann["ann"].wins, ann["ann"].losses) == (first.after[0].mu, 1, 0)
    assert (ann["bob"].wins, ann["bob"].losses, ann["bob"].games) == (0, 1, 1)
    assert len(people.history("ann")) == 1


def test_a_void_match_changes_no_rating(store: Store) -> None:
    people = store.person_ratings()
    people.save_start("m1", "g", ["ann", "bob"], "t1")
    people.save_void("m1", "aborted", "e1")
    people.save_rated(_result("m1", ("ann", "bob"), (0, 1), "e2"))
    people.flush()
    row = people.rated_match("m1")
    assert row is not None and (row.status, row.reason) == ("void", "aborted")
    assert people.ratings_of("ann") == [] and people.history("ann") == []


def test_ratings_history_and_leaderboard(store: Store) -> None:
    people = store.person_ratings()
    people.save_rated(_result("m1", ("ann", "bob"), (0, 1), "2026-01-01T00:00:01Z"))
    people.save_rated(_result("m2", ("ann", "cy"), (0, 0), "2026-01-01T00:00:02Z"))
    people.save_rated(_result("m3", ("ann", "bob"), (0, 1), "2026-01-01T00:00:03Z", "h"))
    people.flush()
    assert [r.game for r in people.ratings_of("ann")] == ["g", "h"]
    (g,) = [r for r in people.ratings_of("ann") if r.game == "g"]
    assert (g.wins, g.draws, g.losses, g.games) == (1, 1, 0, 2)
    assert g.mu == people.history("ann", "g")[-1]["mu"]
    assert [p["match_id"] for p in people.history("ann")] == ["m1", "m2", "m3"]
    assert [p["match_id"] for p in people.history("ann", "g", limit=1)] == ["m2"]
    point = people.history("bob", "h")[0]
    assert point["rank"] == 1 and point["ordinal"] == point["mu"] - 3 * point["sigma"]
    board = people.leaderboard("g")
    ordinals = [r.rating.ordinal for r in board]
    assert ordinals == sorted(ordinals, reverse=True) and len(board) == 3
    assert board[0].account == "ann" and board[-1].account == "bob"
    assert [r.account for r in people.leaderboard("g", limit=1)] == ["ann"]
    assert people.leaderboard("nothing") == []


def test_a_persons_recent_matches_come_from_the_matches_table(store: Store) -> None:
    for n, seats in enumerate([("ann", "bob"), ("bob", "cy"), ("cy", "ann")]):
        store.save_match(MatchRow(
            id=f"m{n}", game="g", options={}, num_seats=2, seed=1,
            seats=[{"seat": i, "name": name, "kind": "human"} for i, name in enumerate(seats)],
            created_at=f"2026-01-01T00:00:0{n}Z"))
    store.update_match("m0", log=[], moves=3, status="over",
                       outcome={"ranks": [0, 1], "reason": "flags"}, ended_at="e")
    store.flush()
    people = store.person_ratings()
    recent = people.matches_of("ann")
    assert [m["match_id"] for m in recent] == ["m2", "m0"]
    assert recent[1]["outcome"] == {"ranks": [0, 1], "reason": "flags"}
    assert recent[1]["status"] == "over" and recent[1]["moves"] == 3
    assert [m["match_id"] for m in people.matches_of("ann", limit=1)] == ["m2"]
    assert people.matches_of("nobody") == []
