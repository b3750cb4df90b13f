"""What is true of the SQLite backend's file only: tokens hashed on disk, a live match's
progress kept in chunk rows, a restart on the same file, writes off the calling thread.

Moved from ``tests/server_tests/test_storage.py`` (its tests of the contract itself went to
``test_contract_accounts.py`` and ``test_contract_matches.py``)."""

from __future__ import annotations

import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from server.storage import SqliteStore, StoreError, token_hash
from tests.storage.contract import append_interleaved, row


def test_accounts_keep_only_the_token_hash(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "arena.sqlite3")
    try:
        token = store.create_account("alice", "human")
        bot_token = store.create_account("randy", "bot")
    finally:
        store.close()
    raw = sqlite3.connect(tmp_path / "arena.sqlite3").execute(
        "SELECT token_hash FROM accounts").fetchall()
    stored = {h for (h,) in raw}
    assert stored == {token_hash(token), token_hash(bot_token)}
    assert token not in str(raw)


def test_interleaved_progress_of_several_matches_is_stored_in_chunks(tmp_path: Path) -> None:
    """Each match's consecutive new entries become one row (the contract test of the same
    batches, ``test_contract_matches.py``, checks what reads back)."""
    store = SqliteStore(tmp_path / "arena.sqlite3")
    try:
        append_interleaved(store)
        chunks = store.query("SELECT match_id, first FROM match_log_chunks ORDER BY 1, 2")
        assert chunks == [("a", 0), ("a", 3), ("a", 4), ("a", 9), ("b", 0), ("b", 2)]
        store.update_match("a", log=[], moves=0, status="over")
        store.flush()
        assert store.query("SELECT DISTINCT match_id FROM match_log_chunks") == [("b",)]
    finally:
        store.close()


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


def test_writes_happen_off_the_calling_thread(tmp_path: Path) -> None:
    # save_match returns before the write is committed: a reader may not see it yet,
    # and after flush() it must.
    store = SqliteStore(tmp_path / "arena.sqlite3")
    try:
        writers: list[str] = []
        store.write_later(lambda conn: writers.append(threading.current_thread().name))
        store.save_match(row("m2"))
        store.flush()
        assert store.get_match("m2") is not None
        assert writers == ["arena-store-writer"]
    finally:
        store.close()


def test_a_file_whose_folder_was_removed_is_not_writable(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    store = SqliteStore(folder / "arena.sqlite3")
    try:
        store.check_writable()
        shutil.rmtree(folder)  # the open file lives on, unlinked: writes would be lost
        with pytest.raises(StoreError, match="No such file"):
            store.check_writable()
    finally:
        store.close()


def test_a_file_replaced_under_the_store_is_not_writable(tmp_path: Path) -> None:
    path = tmp_path / "arena.sqlite3"
    store = SqliteStore(path)
    try:
        path.rename(tmp_path / "moved.sqlite3")
        SqliteStore(path).close()  # a new file at the old path
        with pytest.raises(StoreError, match="no longer the file"):
            store.check_writable()
    finally:
        store.close()
