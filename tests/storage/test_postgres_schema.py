"""The PostgreSQL database's versioned schema: a new database is created at the current
version, a current one is opened as it is, later steps are taken in order and once, a
database of a newer release is refused, a failed step leaves the database as it was, and
several servers opening one new database at once migrate it once.

Each test gets a new database on the session's PostgreSQL server (``postgres_database``)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import asyncpg
import pytest

from server.storage import PostgresStore, StoreError, postgres_schema
from server.storage.postgres_schema import SCHEMA_VERSION, Migration

TABLES = {"schema_version", "accounts", "matches", "match_log_chunks", "ladder_entities",
          "ladder_matches", "ladder_ratings", "ladder_history", "ladder_fence",
          "logins", "tournaments", "tournament_entrants", "tournament_pairings",
          "people_matches", "people_ratings", "people_history"}


def sql(dsn: str, query: str, *args: Any) -> list[tuple[Any, ...]]:
    """Rows of ``query`` on a connection of its own (committed on return)."""
    async def run() -> list[tuple[Any, ...]]:
        conn = await asyncpg.connect(dsn)
        try:
            return [tuple(r) for r in await conn.fetch(query, *args)]
        finally:
            await conn.close()

    return asyncio.run(run())


def version(dsn: str) -> int | None:
    if sql(dsn, "SELECT to_regclass('schema_version')") == [(None,)]:
        return None
    rows = sql(dsn, "SELECT version FROM schema_version")
    return rows[0][0] if rows else None


def tables(dsn: str) -> set[str]:
    return {name for (name,) in sql(
        dsn, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}


def with_steps(monkeypatch: pytest.MonkeyPatch, *steps: Migration) -> None:
    monkeypatch.setattr(postgres_schema, "MIGRATIONS", steps)
    monkeypatch.setattr(postgres_schema, "SCHEMA_VERSION", len(steps))


def test_a_new_database_is_created_at_the_current_version(postgres_database: str) -> None:
    assert version(postgres_database) is None and tables(postgres_database) == set()
    PostgresStore(postgres_database).close()
    assert version(postgres_database) == SCHEMA_VERSION
    assert tables(postgres_database) == TABLES


def test_reopening_a_current_database_changes_nothing(postgres_database: str,
                                                      monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    store = PostgresStore(postgres_database)
    token = store.create_account("ann", "bot")
    store.close()

    async def never(conn: asyncpg.Connection) -> None:
        raise AssertionError("a current database took a migration step")

    # As many steps as there are, none of which may run.
    with_steps(monkeypatch, *(Migration(step.description, never)
                              for step in postgres_schema.MIGRATIONS))
    again = PostgresStore(postgres_database)
    try:
        assert again.account_for_token(token) == again.get_account("ann")
    finally:
        again.close()
    assert version(postgres_database) == SCHEMA_VERSION


def test_later_steps_are_taken_in_order_and_once(postgres_database: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    store = PostgresStore(postgres_database)
    store.create_account("ann", "bot")
    store.close()
    taken: list[str] = []

    async def add_nickname(conn: asyncpg.Connection) -> None:
        taken.append("2")
        await conn.execute("ALTER TABLE accounts ADD COLUMN nickname TEXT")  # fails twice

    async def fill_nickname(conn: asyncpg.Connection) -> None:
        taken.append("3")
        await conn.execute("UPDATE accounts SET nickname = upper(name)")

    with_steps(monkeypatch, *postgres_schema.MIGRATIONS,
               Migration("2: accounts.nickname", add_nickname),
               Migration("3: nicknames filled in", fill_nickname))
    for _ in range(2):
        PostgresStore(postgres_database).close()
    assert taken == ["2", "3"]
    assert version(postgres_database) == SCHEMA_VERSION + 2
    assert sql(postgres_database, "SELECT name, nickname FROM accounts") == [("ann", "ANN")]


def test_a_database_of_a_newer_release_is_refused_and_left_alone(postgres_database: str
                                                                 ) -> None:
    PostgresStore(postgres_database).close()
    sql(postgres_database, "UPDATE schema_version SET version = $1", SCHEMA_VERSION + 1)
    threads = threading.active_count()
    with pytest.raises(StoreError, match=(
            f"has storage schema version {SCHEMA_VERSION + 1}, but this Tabletop Arena "
            f"knows versions up to {SCHEMA_VERSION}: it was written by a newer release")):
        PostgresStore(postgres_database)
    assert version(postgres_database) == SCHEMA_VERSION + 1
    assert threading.active_count() == threads  # the refused store left no thread behind


def test_a_failed_step_leaves_the_database_as_it_was(postgres_database: str,
                                                     monkeypatch: pytest.MonkeyPatch
                                                     ) -> None:
    """All steps run in one transaction: a step that fails undoes the earlier ones too."""
    async def broken(conn: asyncpg.Connection) -> None:
        await conn.execute("INSERT INTO nowhere VALUES (1)")

    with_steps(monkeypatch, *postgres_schema.MIGRATIONS, Migration("2: a broken step", broken))
    with pytest.raises(StoreError, match='2: a broken step failed: relation "nowhere" '
                                         'does not exist'):
        PostgresStore(postgres_database)
    assert version(postgres_database) is None and tables(postgres_database) == set()


def test_servers_opening_a_new_database_at_once_migrate_it_once(
        postgres_database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Several server processes start on one new database together: one migrates (under the
    advisory lock), the others wait and find it done. A slow step that cannot run twice
    makes them overlap."""
    async def slow_once(conn: asyncpg.Connection) -> None:
        await conn.execute("SELECT pg_sleep(0.3)")
        await conn.execute("CREATE TABLE migrated_once (n INTEGER)")

    with_steps(monkeypatch, *postgres_schema.MIGRATIONS, Migration("2: slow", slow_once))
    openers = 5
    start = threading.Barrier(openers)
    stores: list[PostgresStore] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        start.wait()
        try:
            stores.append(PostgresStore(postgres_database))
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(openers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == [] and len(stores) == openers
        assert version(postgres_database) == SCHEMA_VERSION + 1
        stores[0].create_account("ann", "bot")
        assert [a.name for a in stores[-1].list_accounts()] == ["ann"]
    finally:
        for store in stores:
            store.close()
