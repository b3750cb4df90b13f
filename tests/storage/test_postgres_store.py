"""What is true of the PostgreSQL backend beyond the contract (``test_contract_*.py`` run it
too): its chunk rows, a restart on the same database, a failing write losing only itself,
a writer that reconnects when the database drops it, health when the database is gone,
readable errors without passwords, its thread, and reads made from inside an event loop.

Each test gets a new database on the session's PostgreSQL server (``postgres_database``)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from server.ladder_book import LadderBook
from server.ratings import INITIAL
from server.storage import PostgresStore, StoreError, describe_db, open_store
from server.storage.postgres import redact
from tests.storage.contract import POSTGRES, append_interleaved, row
from tools.services import PostgresServer


@pytest.fixture
def store(postgres_database: str) -> Iterator[PostgresStore]:
    opened = PostgresStore(postgres_database)
    try:
        yield opened
    finally:
        with contextlib.suppress(StoreError):
            opened.close()


def database_name(dsn: str) -> str:
    return urlsplit(dsn).path.lstrip("/")


def test_interleaved_progress_is_stored_in_chunks(store: PostgresStore) -> None:
    """Each match's consecutive new entries of a batch become one row, as in SQLite."""
    append_interleaved(store)
    chunks = store.query("SELECT match_id, first FROM match_log_chunks ORDER BY 1, 2")
    assert chunks == [("a", 0), ("a", 3), ("a", 4), ("a", 9), ("b", 0), ("b", 2)]
    store.update_match("a", log=[], moves=0, status="over")
    store.flush()
    assert store.query("SELECT DISTINCT match_id FROM match_log_chunks") == [("b",)]


def test_a_restart_finds_the_live_matches_and_their_logs(postgres_database: str) -> None:
    first = PostgresStore(postgres_database)
    first.save_match(row("m1"))
    first.append_actions([("m1", 0, {"0": {"add": 2}})], {"m1": 1},
                         {"m1": {"clocks_ms": [5, 6], "resume": [None, "h"]}})
    first.close()
    second = PostgresStore(postgres_database)
    try:
        (live,) = second.live_matches()
        assert live.log == [{"0": {"add": 2}}] and live.live_state == {
            "clocks_ms": [5, 6], "resume": [None, "h"]}
        assert second.void_live_matches() == 1
        got = second.get_match("m1")
        assert got is not None and got.status == "void" and got.log == [{"0": {"add": 2}}]
    finally:
        second.close()


def test_a_failing_write_loses_only_itself(store: PostgresStore) -> None:
    """The writes queued with a failing one in the same batch are applied all the same (the
    batch is applied again a write at a time), and the failure is reported once."""
    ladder = store.ladder()
    entity = LadderBook().add_entity("g", "ann", "a", "1")
    store.save_match(row("before"))
    ladder.save_entity(entity, INITIAL)
    ladder.save_entity(entity, INITIAL)  # a second time: refused
    store.save_match(row("after"))
    with pytest.raises(StoreError, match="a queued write failed: duplicate key"):
        store.flush()
    assert [m.id for m in store.list_matches()] == ["after", "before"]
    assert ladder.entities() == [entity]
    store.flush()  # reported once; the store goes on


def test_the_writer_reconnects_after_the_database_drops_it(store: PostgresStore,
                                                           postgres_server: PostgresServer
                                                           ) -> None:
    store.create_account("ann", "bot")
    postgres_server.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        f"WHERE datname = '{database_name(store.dsn)}' AND pid <> pg_backend_pid()")
    store.save_match(row("m1"))
    with contextlib.suppress(StoreError):  # the batch the connection dropped in may fail
        store.flush()
    store.save_match(row("m2"))
    store.flush()
    store.check_writable()
    assert store.get_match("m2") is not None and store.get_account("ann") is not None


def test_a_database_that_is_gone_is_reported(postgres_database: str) -> None:
    store = PostgresStore(postgres_database)
    store.check_writable()
    POSTGRES.drop_database(postgres_database)
    with pytest.raises(StoreError, match="cannot be written"):
        store.check_writable()
    store.save_match(row("m1"))
    with pytest.raises(StoreError, match="a queued write failed"):
        store.flush()
    with pytest.raises(StoreError):
        store.get_match("m1")
    store.close()
    assert not store._thread.is_alive()


def test_an_unreachable_database_is_refused_without_its_password() -> None:
    threads = threading.active_count()
    with pytest.raises(StoreError, match="cannot open") as refused:
        open_store("postgresql://arena:s3cret@127.0.0.1:1/arena")
    assert "s3cret" not in str(refused.value) and "arena:***@127.0.0.1:1" in str(refused.value)
    assert threading.active_count() == threads


def test_urls_choose_postgres_and_hide_passwords(postgres_database: str) -> None:
    assert redact("postgresql://u:pw@h:5/db?sslmode=require&password=x") == (
        "postgresql://u:***@h:5/db?sslmode=require&password=***")
    assert redact("postgres://u@h/db") == "postgres://u@h/db"
    assert describe_db("arena.sqlite3") == "arena.sqlite3"
    assert describe_db("postgres://u:pw@h/db") == "postgres://u:***@h/db"
    for url in (postgres_database, postgres_database.replace("postgresql://", "postgres://")):
        opened = open_store(url)
        try:
            assert isinstance(opened, PostgresStore)
        finally:
            opened.close()


def test_a_closed_store_stops_its_thread_and_refuses_reads(store: PostgresStore) -> None:
    store.save_match(row("m1"))
    store.close()
    assert not store._thread.is_alive()
    with pytest.raises(StoreError, match="closed"):
        store.get_match("m1")
    with pytest.raises(StoreError, match="closed"):
        store.save_match(row("m2"))
    store.close()  # again: nothing


async def test_reads_and_writes_from_inside_an_event_loop(store: PostgresStore) -> None:
    """The store's loop is its own: a coroutine of another loop may call it directly (it
    blocks that loop for the round trip, as SQLite's reads do) or from a worker thread."""
    store.save_match(row("m1"))
    store.append_actions([("m1", 0, {"n": 0})], {"m1": 1})
    await asyncio.to_thread(store.flush)
    got = store.get_match("m1")
    assert got is not None and got.log == [{"n": 0}]
    others = await asyncio.gather(*(asyncio.to_thread(store.get_match, "m1")
                                    for _ in range(8)))
    assert all(other == got for other in others)


def test_a_deposed_ladder_leader_is_fenced_off(postgres_database: str) -> None:
    """Two processes' stores on one database: once the store of a newer lock token has
    written, the ladder writes of an older one are refused (not applied, reported at flush),
    and the newer one's go on."""
    old, new = PostgresStore(postgres_database), PostgresStore(postgres_database)
    try:
        book = LadderBook()
        first, second, third = (book.add_entity("g", name, "b", "1")
                                for name in ("ann", "bob", "cy"))
        old.ladder().fence(1)
        old.ladder().save_entity(first, INITIAL)
        old.flush()
        new.ladder().fence(2)  # a new leader took the lock
        new.ladder().save_entity(second, INITIAL)
        new.flush()
        old.ladder().save_entity(third, INITIAL)  # the deposed one, not knowing yet
        with pytest.raises(StoreError, match="fenced off"):
            old.flush()
        assert [e.account for e in new.ladder().entities()] == ["ann", "bob"]
        old.save_match(row("not a ladder write"))  # the fence is the ladder's only
        old.flush()
        assert [m.id for m in new.list_matches()] == ["not a ladder write"]
    finally:
        old.close()
        new.close()
