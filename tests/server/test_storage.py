"""SQLite storage: hashed tokens, queued match writes, listing, voiding interrupted matches."""

from __future__ import annotations

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
