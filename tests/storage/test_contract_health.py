"""Store contract, the write probe behind ``/healthz`` (every backend of
``contract.BACKENDS``)."""

from __future__ import annotations

import pytest

from server.storage import Store, StoreError
from tests.storage.contract import row


def test_an_open_store_is_writable_and_its_earlier_writes_are_in(store: Store) -> None:
    store.save_match(row("m1"))
    store.check_writable()
    found = store.get_match("m1")
    assert found is not None and found.status == "live"
    store.check_writable()  # as often as asked


def test_a_closed_store_is_not_writable(store: Store) -> None:
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.check_writable()
