"""Store contract, matches: saving, appending a live match's progress, updating, reading,
listing and voiding what a stopped server left live (every backend of
``contract.BACKENDS``).

The first four tests moved from ``tests/server_tests/test_storage.py`` (there, on SQLite only; the
check of SQLite's chunk rows and of a restart on the same file stay SQLite tests, in
``test_sqlite_store.py``)."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from server.storage import Store, StoreError
from tests.storage.contract import append_interleaved, row


def test_match_progress_is_written_in_order_and_read_back(store: Store) -> None:
    store.save_match(row("m1"))
    for n in range(0, 50, 10):
        store.append_actions([("m1", i, {"0": {"add": i}}) for i in range(n, n + 10)],
                             {"m1": n + 10})
    store.flush()
    live = store.get_match("m1")
    assert live is not None and live.status == "live" and live.moves == 50
    assert live.log == [{"0": {"add": i}} for i in range(50)]
    store.update_match("m1", log=[{"0": {"add": 1}}] * 50, moves=50, status="over",
                       outcome={"ranks": [0, 1], "reason": "target"},
                       ended_at="2024-01-01T00:01:00.000Z")
    store.flush()
    got = store.get_match("m1")
    assert got is not None
    assert got.status == "over" and got.moves == 50 and len(got.log) == 50
    assert got.seed == 2**62 + 3 and got.outcome == {"ranks": [0, 1], "reason": "target"}
    assert got.ended_at == "2024-01-01T00:01:00.000Z"
    assert "seed" not in got.record() and "seed" not in got.summary()
    assert store.get_match("nope") is None


def test_interleaved_progress_of_several_matches_reads_back_exactly(store: Store) -> None:
    """Interleaved batches of several matches, gaps and rewritten entries read back
    exactly."""
    append_interleaved(store)
    a, b = store.get_match("a"), store.get_match("b")
    assert a is not None and b is not None
    assert a.log == [{"n": 0}, {"n": 1}, {"n": 2}, {"n": 3}, {"n": "4 again"}]
    assert b.log == [{"n": 100}, {"n": 101}, {"n": 102}] and b.moves == 3


def test_listing_filters_and_orders_newest_first(store: Store) -> None:
    store.save_match(row("old", "2024-01-01T00:00:00.000Z"))
    store.save_match(row("new", "2024-02-01T00:00:00.000Z"))
    store.update_match("old", log=[], moves=0, status="over",
                       outcome={"ranks": [0, 0], "reason": "x"})
    store.flush()
    assert [m.id for m in store.list_matches()] == ["new", "old"]
    assert [m.id for m in store.list_matches(status="live")] == ["new"]
    assert store.list_matches(game="chexers") == []
    assert len(store.list_matches(limit=1)) == 1


def test_matches_left_live_are_voided_with_their_logs(store: Store) -> None:
    store.save_match(row("m1"))
    store.append_actions([("m1", 0, {"0": {"add": 2}})], {"m1": 1})
    store.save_match(row("done"))
    store.update_match("done", log=[], moves=0, status="over",
                       outcome={"ranks": [0, 1], "reason": "target"})
    store.flush()
    assert [m.id for m in store.list_matches(status="live")] == ["m1"]
    assert store.void_live_matches() == 1
    got = store.get_match("m1")
    assert got is not None and got.status == "void" and got.log == [{"0": {"add": 2}}]
    assert got.outcome == {"ranks": [0, 0], "reason": "void"} and got.moves == 1
    assert got.ended_at is not None
    done = store.get_match("done")
    assert done is not None and done.status == "over"
    assert store.void_live_matches() == 0


def test_live_matches_come_back_whole_with_their_live_state(store: Store) -> None:
    """What a restarted server resumes from: every live match with its whole log and its
    latest live state (oldest first); the state goes with the end of the match."""
    first = row("m1", "2024-01-01T00:00:00.000Z")
    first.live_state = {"clocks_ms": [60000, 60000], "resume": ["h0", None]}
    store.save_match(first)
    store.save_match(row("m2", "2024-02-01T00:00:00.000Z"))
    store.append_actions([("m1", 0, {"0": {"add": 2}}), ("m1", 1, {"1": {"add": 1}})],
                         {"m1": 2}, {"m1": {"clocks_ms": [59000, 58500],
                                            "resume": ["h0", None]}})
    store.flush()
    live = store.live_matches()
    assert [m.id for m in live] == ["m1", "m2"]
    assert live[0].log == [{"0": {"add": 2}}, {"1": {"add": 1}}] and live[0].moves == 2
    assert live[0].live_state == {"clocks_ms": [59000, 58500], "resume": ["h0", None]}
    assert live[1].live_state is None

    store.update_match("m1", log=live[0].log, moves=2, status="over",
                       outcome={"ranks": [0, 1], "reason": "target"})
    store.append_actions([], {}, {"m1": {"clocks_ms": [1, 1], "resume": [None, None]}})
    store.void_match(live[1], "unresumable")
    store.flush()
    over = store.get_match("m1")
    assert over is not None and over.live_state is None  # ended: the state is dropped
    void = store.get_match("m2")
    assert void is not None and void.status == "void"
    assert void.outcome == {"ranks": [0, 0], "reason": "unresumable"}
    assert store.live_matches() == []


def test_listing_is_newest_first_then_by_id(store: Store) -> None:
    for match_id in ("c", "a", "b"):
        store.save_match(row(match_id, "2024-03-01T00:00:00.000Z", game="chexers"))
    store.save_match(row("z", "2024-01-01T00:00:00.000Z"))
    store.flush()
    assert [m.id for m in store.list_matches()] == ["a", "b", "c", "z"]
    assert [m.id for m in store.list_matches(game="chexers", limit=2)] == ["a", "b"]
    assert [m.id for m in store.list_matches(game="race", status="live")] == ["z"]


def test_an_update_keeps_what_it_does_not_name(store: Store) -> None:
    """``None`` for outcome or end time keeps the stored one; ending a match makes its log
    the whole log (appended entries are dropped)."""
    store.save_match(row("m"))
    store.append_actions([("m", 0, {"n": 0}), ("m", 1, {"n": 1})], {"m": 2})
    store.update_match("m", log=[{"n": "whole"}], moves=1, status="over",
                       outcome={"ranks": [1, 0], "reason": "flags"},
                       ended_at="2024-01-01T00:02:00.000Z")
    store.update_match("m", log=[{"n": "whole"}], moves=1, status="over")
    store.update_match("unknown", log=[], moves=0, status="over")
    store.flush()
    got = store.get_match("m")
    assert got is not None and got.log == [{"n": "whole"}] and got.moves == 1
    assert got.outcome == {"ranks": [1, 0], "reason": "flags"}
    assert got.ended_at == "2024-01-01T00:02:00.000Z"
    assert store.get_match("unknown") is None
    with pytest.raises(StoreError):
        store.update_match("m", log=[], moves=0, status="paused")


def test_a_saved_row_is_a_copy(store: Store) -> None:
    """What a caller changes in a row after saving it, or in a row it read, is not stored:
    every backend hands rows over by value, as a database would."""
    saved = row("m")
    saved.start = {"hands": [[1, 2], [3]]}
    store.save_match(saved)
    store.flush()
    saved.options["target"] = 99
    saved.start["hands"][0].append(7)
    read = store.get_match("m")
    assert read is not None
    read.seats[0]["name"] = "mallory"
    again = store.get_match("m")
    assert again is not None and again.options == {"target": 5}
    assert again.start == {"hands": [[1, 2], [3]]} and again.seats[0]["name"] == "a"
    assert again.clock == {"initial_ms": 1000, "increment_ms": 0}


def test_the_first_result_wins(store: Store) -> None:
    """A match stored over or void keeps its result: a later end of it (a second server that
    resumed the same match and finished it again), or late progress of it, is ignored."""
    store.save_match(row("m"))
    store.append_actions([("m", 0, {"n": 0}), ("m", 1, {"n": 1})], {"m": 2},
                         {"m": {"clocks_ms": [1, 2], "resume": [None, None]}})
    store.update_match("m", log=[{"n": 0}, {"n": 1}], moves=2, status="over",
                       outcome={"ranks": [0, 1], "reason": "target"},
                       ended_at="2024-01-01T00:01:00.000Z")
    store.update_match("m", log=[{"n": "other"}] * 3, moves=3, status="over",
                       outcome={"ranks": [1, 0], "reason": "flags"},
                       ended_at="2024-01-01T00:02:00.000Z")
    store.append_actions([("m", 2, {"n": 2})], {"m": 3},
                         {"m": {"clocks_ms": [0, 0], "resume": [None, None]}})
    store.update_match("m", log=[], moves=0, status="live")
    store.flush()
    first = store.get_match("m")
    assert first is not None
    store.void_match(first, "unresumable")
    store.flush()
    got = store.get_match("m")
    assert got is not None and got.status == "over" and got.moves == 2
    assert got.log == [{"n": 0}, {"n": 1}] and got.live_state is None
    assert got.outcome == {"ranks": [0, 1], "reason": "target"}
    assert got.ended_at == "2024-01-01T00:01:00.000Z"
    assert store.list_matches(status="void") == []

    store.save_match(row("v"))
    store.void_match(row("v"), "unresumable")
    store.update_match("v", log=[{"n": 0}], moves=1, status="over",
                       outcome={"ranks": [0, 1], "reason": "target"}, ended_at="later")
    store.flush()
    voided = store.get_match("v")
    assert voided is not None and voided.status == "void" and voided.log == []
    assert voided.outcome == {"ranks": [0, 0], "reason": "unresumable"}
    assert voided.ended_at != "later"


def test_writes_and_reads_from_many_threads(store: Store) -> None:
    """The store is thread-safe: threads queueing progress of their own matches and reading
    them back meanwhile each see their own writes once flushed."""
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            match_id = f"t{n}"
            store.save_match(row(match_id))
            for i in range(0, 40, 4):
                store.append_actions([(match_id, j, {"n": j}) for j in range(i, i + 4)],
                                     {match_id: i + 4})
                store.get_match(match_id)
            store.flush()
            got = store.get_match(match_id)
            assert got is not None and got.moves == 40
            assert got.log == [{"n": j} for j in range(40)]
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(m.id for m in store.list_matches(status="live")) == [
        f"t{n}" for n in range(6)]


def test_a_match_keeps_its_chance_mode_and_its_duplicate_pair(store: Store) -> None:
    """What a resumed match of a duplicate pair needs (server/pairs.py): it deals again
    from the same deck, and it knows its pair; a match of no pair deals from the
    generator."""
    pair = {"id": "p1", "game": 2, "twin": "m1"}
    store.save_match(replace(row("m2"), chance="deck", pair=pair))
    store.save_match(row("single"))
    store.flush()
    got, single = store.get_match("m2"), store.get_match("single")
    assert got is not None and single is not None
    assert (got.chance, got.pair) == ("deck", pair)
    assert (single.chance, single.pair) == ("rng", None)
    assert got.summary()["pair"] == pair and "pair" not in single.summary()
    (live,) = [r for r in store.live_matches() if r.id == "m2"]
    assert (live.chance, live.pair) == ("deck", pair)
