"""Store contract, accounts and bearer tokens (every backend of ``contract.BACKENDS``).

Moved from ``tests/server_tests/test_storage.py::test_accounts_keep_only_the_token_hash`` (its
check of the raw SQLite file is in ``test_sqlite_store.py``), with more of the contract."""

from __future__ import annotations

import pytest

from server.storage import Store, StoreError, token_hash


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


def test_house_names_are_only_for_house_bots(store: Store) -> None:
    for name in ("house-deep-barca-1", "HOUSE-x", "House_random", "house.random"):
        with pytest.raises(StoreError, match="reserved"):
            store.create_account(name, "bot")
    with pytest.raises(StoreError, match="reserved"):
        store.create_account("house-admin", "admin", house=True)  # house accounts are bots
    token = store.create_account("house-random-1", "bot", house=True)
    assert store.account_for_token(token).name == "house-random-1"  # type: ignore[union-attr]
    store.create_account("household", "human")  # only the prefix with its dash is reserved
    assert [a.name for a in store.list_accounts()] == ["house-random-1", "household"]


def test_admin_is_an_account_kind(store: Store) -> None:
    token = store.create_account("root", "admin")
    assert store.account_for_token(token) == store.get_account("root")
    assert store.get_account("root").kind == "admin"  # type: ignore[union-attr]


def test_revoked_tokens_stop_working_until_a_new_one_is_issued(store: Store) -> None:
    token = store.create_account("alice", "human")
    other = store.create_account("bob", "bot")
    store.revoke_tokens("alice")
    assert store.account_for_token(token) is None
    assert store.get_account("alice") is not None  # the account stays
    assert store.account_for_token(other).name == "bob"  # type: ignore[union-attr]
    fresh = store.rotate_token("alice")
    assert store.account_for_token(fresh).name == "alice"  # type: ignore[union-attr]
    with pytest.raises(StoreError):
        store.revoke_tokens("nobody")


def test_banned_accounts_are_marked_and_can_be_unbanned(store: Store) -> None:
    token = store.create_account("mallory", "bot")
    store.create_account("alice", "human")
    assert store.get_account("mallory").banned is False  # type: ignore[union-attr]
    store.set_banned("mallory", True)
    banned = store.account_for_token(token)
    assert banned is not None and banned.name == "mallory" and banned.banned
    assert [a.banned for a in store.list_accounts()] == [False, True]
    store.set_banned("mallory", False)
    assert store.get_account("mallory").banned is False  # type: ignore[union-attr]
    with pytest.raises(StoreError):
        store.set_banned("nobody", True)


def test_token_hash_lookup_matches_token_lookup(store: Store) -> None:
    token = store.create_account("alice", "human")
    assert store.account_for_token_hash(token_hash(token)) == store.account_for_token(token)
    store.rotate_token("alice")
    assert store.account_for_token_hash(token_hash(token)) is None
