"""Store contract, accounts and bearer tokens (every backend of ``contract.BACKENDS``).

Moved from ``tests/server_tests/test_storage.py::test_accounts_keep_only_the_token_hash`` (its
check of the raw SQLite file is in ``test_sqlite_store.py``), with more of the contract."""

from __future__ import annotations

import pytest

from server.storage import Store, StoreError


def test_accounts_are_found_by_token_and_tokens_rotate(store: Store) -> None:
    token = store.create_account("alice", "human")
    bot_token = store.create_account("randy", "bot")
    assert token.startswith("arena_") and token != bot_token
    assert store.account_for_token(token).name == "alice"  # type: ignore[union-attr]
    assert store.account_for_token(bot_token).kind == "bot"  # type: ignore[union-attr]
    assert store.account_for_token("not-a-token") is None
    assert [a.name for a in store.list_accounts()] == ["alice", "randy"]
    fresh = store.rotate_token("alice")
    assert store.account_for_token(token) is None
    assert store.account_for_token(fresh).name == "alice"  # type: ignore[union-attr]
    assert store.account_for_token(bot_token).name == "randy"  # type: ignore[union-attr]


def test_bad_or_clashing_accounts_are_refused(store: Store) -> None:
    store.create_account("alice", "human")
    with pytest.raises(StoreError):
        store.rotate_token("nobody")
    with pytest.raises(StoreError):
        store.create_account("alice", "bot")
    with pytest.raises(StoreError):
        store.create_account("eve", "robot")
    with pytest.raises(StoreError):
        store.create_account("bad name!", "bot")
    with pytest.raises(StoreError):
        store.create_account("x" * 65, "bot")
    assert [a.name for a in store.list_accounts()] == ["alice"]


def test_an_account_keeps_its_kind_and_creation_time(store: Store) -> None:
    store.create_account("b.o_t-1", "bot")
    got = store.get_account("b.o_t-1")
    assert got is not None and got.kind == "bot" and got.created_at.endswith("Z")
    store.rotate_token("b.o_t-1")
    assert store.get_account("b.o_t-1") == got
    assert store.get_account("nobody") is None


def test_a_closed_store_takes_no_writes(store: Store) -> None:
    store.close()
    with pytest.raises(StoreError):
        store.create_account("late", "bot")
