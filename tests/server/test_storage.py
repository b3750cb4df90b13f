"""SQLite storage: hashed tokens, queued match writes, listing, voiding interrupted matches."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from server.storage import MatchRow, SqliteStore, StoreError, token_hash


def test_accounts_keep_only_the_token_hash(store: SqliteStore, tmp_path: Path) -> None:
    token = store.create_account("alice", "human")
    bot_token = store.create_account("randy", "bot")
    assert store.account_for_token(token).name == "alice"  # type: ignore[union-attr]
    assert store.account_for_token(bot_token).kind == "bot"  # type: ignore[union-attr]
    assert store.account_for_token("not-a-token") is None
    assert [a.name for a in store.list_accounts()] == ["alice", "randy"]
    raw = sqlite3.connect(tmp_path / "arena.sqlite3").execute(
        "SELECT token_hash FROM accounts").fetchall()
    stored = {h for (h,) in raw}
    assert stored == {token_hash(token), token_hash(bot_token)}
    assert token not in str(raw)
    fresh = store.rotate_token("alice")
    assert store.account_for_token(token) is None
    assert store.account_for_token(fresh).name == "alice"  # type: ignore[union-attr]
    with pytest.raises(StoreError):
        store.rotate_token("nobody")
    with pytest.raises(StoreError):
        store.create_account("alice", "bot")
    with pytest.raises(StoreError):
        store.create_account("eve", "robot")
    with pytest.raises(StoreError):
        store.create_account("bad name!", "bot")


def row(match_id: str, created: str = "2024-01-01T00:00:00.000Z") -> MatchRow:
    return MatchRow(id=match_id, game="race", options={"target": 5}, num_seats=2,
                    seed=2**62 + 3, seats=[{"seat": 0, "name": "a", "kind": "bot"},
                                           {"seat": 1, "name": "b", "kind": "guest"}],
                    clock={"initial_ms": 1000, "increment_ms": 0}, created_at=created)


def test_match_progress_is_written_in_order_and_read_back(store: SqliteStore) -> None:
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
    assert "seed" not in got.record() and "seed" not in got.summary()
    assert store.get_match("nope") is None


def test_interleaved_progress_of_several_matches_is_stored_in_chunks(
        store: SqliteStore) -> None:
    """Each match's consecutive new entries become one row; interleaved batches of several
    matches, gaps and rewritten entries read back exactly."""
    for match_id in ("a", "b"):
        store.save_match(row(match_id))
    store.append_actions([("a", 0, {"n": 0}), ("b", 0, {"n": 100}), ("a", 1, {"n": 1}),
                          ("a", 2, {"n": 2}), ("b", 1, {"n": 101})], {"a": 3, "b": 2})
    store.append_actions([("b", 2, {"n": 102}), ("a", 3, {"n": 3}), ("a", 4, {"n": 4})],
                         {"a": 5, "b": 3})
    store.append_actions([("a", 4, {"n": "4 again"}), ("a", 9, {"n": "after a gap"})],
                         {"a": 6})
    store.flush()
    chunks = store._read("SELECT match_id, first FROM match_log_chunks ORDER BY 1, 2")
    assert chunks == [("a", 0), ("a", 3), ("a", 4), ("a", 9), ("b", 0), ("b", 2)]
    a, b = store.get_match("a"), store.get_match("b")
    assert a is not None and b is not None
    assert a.log == [{"n": 0}, {"n": 1}, {"n": 2}, {"n": 3}, {"n": "4 again"}]
    assert b.log == [{"n": 100}, {"n": 101}, {"n": 102}] and b.moves == 3


def test_progress_written_as_single_entries_before_chunks_still_reads(
        store: SqliteStore) -> None:
    """A database from before chunks (one row per entry in match_actions) keeps its live
    matches' logs, and new chunks continue them."""
    store.save_match(row("m1"))
    store.flush()
    store.write_later(lambda conn: conn.executemany(
        "INSERT INTO match_actions (match_id, idx, entry) VALUES (?,?,?)",
        [("m1", i, json.dumps({"old": i})) for i in range(3)]))
    store.append_actions([("m1", 3, {"new": 3}), ("m1", 4, {"new": 4})], {"m1": 5})
    store.flush()
    got = store.get_match("m1")
    assert got is not None
    assert got.log == [{"old": 0}, {"old": 1}, {"old": 2}, {"new": 3}, {"new": 4}]
    store.update_match("m1", log=got.log, moves=5, status="over",
                       outcome={"ranks": [0, 1], "reason": "target"})
    store.flush()
    assert store._read("SELECT COUNT(*) FROM match_actions")[0][0] == 0
    assert store._read("SELECT COUNT(*) FROM match_log_chunks")[0][0] == 0


def test_listing_filters_and_orders_newest_first(store: SqliteStore) -> None:
    store.save_match(row("old", "2024-01-01T00:00:00.000Z"))
    store.save_match(row("new", "2024-02-01T00:00:00.000Z"))
    store.update_match("old", log=[], moves=0, status="over",
                       outcome={"ranks": [0, 0], "reason": "x"})
    store.flush()
    assert [m.id for m in store.list_matches()] == ["new", "old"]
    assert [m.id for m in store.list_matches(status="live")] == ["new"]
    assert store.list_matches(game="chexers") == []
    assert len(store.list_matches(limit=1)) == 1


def test_a_restart_voids_matches_left_live_and_keeps_their_logs(tmp_path: Path) -> None:
    first = SqliteStore(tmp_path / "a.sqlite3")
    first.save_match(row("m1"))
    first.append_actions([("m1", 0, {"0": {"add": 2}})], {"m1": 1})
    first.close()
    second = SqliteStore(tmp_path / "a.sqlite3")
    try:
        assert [m.id for m in second.list_matches(status="live")] == ["m1"]
        assert second.void_live_matches() == 1
        got = second.get_match("m1")
        assert got is not None and got.status == "void" and got.log == [{"0": {"add": 2}}]
        assert got.outcome == {"ranks": [0, 0], "reason": "void"}
    finally:
        second.close()


def test_writes_happen_off_the_calling_thread(store: SqliteStore) -> None:
    # save_match returns before the write is committed: a reader may not see it yet,
    # and after flush() it must.
    store.save_match(row("m2"))
    store.flush()
    assert store.get_match("m2") is not None
