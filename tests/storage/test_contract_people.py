"""Store contract, people (every backend of ``contract.BACKENDS``): accounts with a password
hash and no bearer token, login tokens (one per browser), names that read alike, bots owned by
a person, and a guest's finished matches claimed by the account it became."""

from __future__ import annotations

import pytest

from server.storage import Store, StoreError, token_hash, utc_now
from tests.storage.contract import row


def test_a_person_has_a_password_hash_and_no_bearer_token(store: Store) -> None:
    account = store.create_person("zoe", "$argon2id$v=19$fake")
    assert account.kind == "human" and store.get_account("zoe") == account
    assert store.password_hash("zoe") == "$argon2id$v=19$fake"
    assert store.password_hash("nobody") is None
    store.create_account("randy", "bot")
    assert store.password_hash("randy") is None
    store.set_password_hash("zoe", "$argon2id$v=19$other")
    assert store.password_hash("zoe") == "$argon2id$v=19$other"
    with pytest.raises(StoreError):
        store.set_password_hash("nobody", "x")
    # No account read carries the hash.
    assert "argon2" not in repr(store.list_accounts())


def test_names_that_read_alike_are_one_name(store: Store) -> None:
    store.create_person("Zoe", "h")
    for clash in ("zoe", "ZOE", "ｚｏｅ"):
        with pytest.raises(StoreError, match="exists"):
            store.create_person(clash, "h")
        with pytest.raises(StoreError, match="exists"):
            store.create_account(clash, "bot")
    assert [a.name for a in store.list_accounts()] == ["Zoe"]
    assert store.similar_account("zOE") is not None and store.similar_account("zed") is None


def test_login_tokens_work_until_revoked_one_or_all_but_one(store: Store) -> None:
    store.create_person("zoe", "h")
    laptop, phone, tablet = (store.create_login("zoe") for _ in range(3))
    assert len({laptop, phone, tablet}) == 3
    for token in (laptop, phone, tablet):
        assert store.account_for_token(token).name == "zoe"  # type: ignore[union-attr]
    assert store.account_for_token_hash(token_hash(phone)).name == "zoe"  # type: ignore[union-attr]
    store.revoke_login(token_hash(phone))  # signing out on the phone only
    assert store.account_for_token(phone) is None
    assert store.account_for_token(laptop) is not None
    gone = store.revoke_logins("zoe", keep=token_hash(laptop))  # a new password, on the laptop
    assert gone == [token_hash(tablet)]
    assert store.account_for_token(tablet) is None
    assert store.account_for_token(laptop).name == "zoe"  # type: ignore[union-attr]
    store.set_banned("zoe", True)
    assert store.account_for_token(laptop).banned  # type: ignore[union-attr]
    with pytest.raises(StoreError):
        store.create_login("nobody")


def test_bots_have_owners_whose_tokens_they_rotate(store: Store) -> None:
    store.create_person("zoe", "h")
    token = store.create_account("zoes-bot", "bot", owner="zoe")
    store.create_account("stray", "bot")
    assert [b.name for b in store.owned_bots("zoe")] == ["zoes-bot"]
    assert store.get_account("zoes-bot").owner == "zoe"  # type: ignore[union-attr]
    assert store.account_for_token(token).owner == "zoe"  # type: ignore[union-attr]
    fresh = store.rotate_token("zoes-bot")
    assert store.account_for_token(token) is None and store.account_for_token(fresh)
    store.revoke_tokens("zoes-bot")
    assert store.account_for_token(fresh) is None
    for kind, owner in (("human", "zoe"), ("bot", "nobody")):
        with pytest.raises(StoreError, match="owner"):
            store.create_account("x", kind, owner=owner)
    assert store.get_account("x") is None


def test_a_guest_s_finished_matches_are_claimed(store: Store) -> None:
    store.create_person("zoe", "h")
    guest = "zoe#3f1a"
    for match_id, status in (("done", "over"), ("broken", "void"), ("going", "live"),
                             ("other", "over")):
        match = row(match_id)
        match.seats = [{"seat": 0, "name": "house-x", "kind": "bot"},
                       {"seat": 1, "name": guest if match_id != "other" else "zoe#0000",
                        "kind": "guest"}]
        store.save_match(match)
        if status != "live":
            store.update_match(match_id, log=[], moves=0, status=status,
                               outcome={"ranks": [0, 1], "reason": "flags"},
                               ended_at=utc_now())
    store.flush()
    assert store.claim_matches(guest, "zoe") == 2
    for match_id in ("done", "broken"):
        seats = store.get_match(match_id).seats  # type: ignore[union-attr]
        assert seats[1] == {"seat": 1, "name": "zoe", "kind": "human"}
        assert seats[0]["name"] == "house-x"
    assert store.get_match("going").seats[1]["name"] == guest  # type: ignore[union-attr]
    assert store.get_match("other").seats[1]["name"] == "zoe#0000"  # type: ignore[union-attr]
    assert store.claim_matches(guest, "zoe") == 0
