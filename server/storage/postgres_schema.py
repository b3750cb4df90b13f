"""The PostgreSQL database's schema: numbered versions and the ordered steps between them.

The database records its version in the one row of ``schema_version`` (no table: a new,
empty database, version 0). :func:`migrate` brings a database up to :data:`SCHEMA_VERSION`
in one transaction, taking the steps it has not had yet in order, and refuses a database of
a newer release (it cannot know what that release's tables mean). Several server processes
may open the same database at once: the first to find work takes a transaction-scoped
advisory lock (:data:`MIGRATION_LOCK`) and migrates; the others wait for it, then find the
database current and change nothing. A database already current is opened without a lock.

To change the schema, append a :class:`Migration` to :data:`MIGRATIONS`; never edit one
that has shipped (databases out there have had it already). Tables (the same as SQLite's,
:mod:`server.storage.sqlite_schema`):

* ``accounts`` — name, kind, the SHA-256 of the bearer token, creation time, banned, and
  (since version 3) a person's password hash and a bot's owner; ``logins`` (version 3) —
  a person's login tokens, hashed;
* ``matches`` — one row per match (its log whole once it ended; while live, its
  ``live_state`` for a resume), and ``match_log_chunks`` — a live match's appended log
  entries, one row per run of consecutive entries;
* ``ladder_entities``, ``ladder_matches`` (the raw results), ``ladder_ratings`` and
  ``ladder_history`` (derived) — see :mod:`server.storage.ladder`;
* ``people_matches``, ``people_ratings`` and ``people_history`` (version 5) — people's
  ratings per game, see :mod:`server.storage.person_ratings`.
* ``tournaments``, ``tournament_entrants``, ``tournament_pairings`` (version 4) — see
  :mod:`server.storage.tournaments` (structured values there as JSON text, one set of
  statements with SQLite).
* (version 6) ``matches.chance`` and ``matches.pair``, ``ladder_matches.twin``: duplicate
  pairs, see :mod:`server.pairs`.

Logs, options, seats and the other structured values are ``json`` columns: PostgreSQL checks
that they are JSON but keeps the text as written (key order included, unlike ``jsonb``), so
a row reads back exactly as SQLite's does. Text that is sorted on (names, ids, times) is
``COLLATE "C"``: byte order whatever the database's locale, as SQLite and Python sort.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import asyncpg

from server.storage.base import StoreError
from server.storage.tournaments import POSTGRES_TABLES

MIGRATION_LOCK = 0x41_72_65_6E_61_53_63_68  # "ArenaSch": pg_advisory_xact_lock's key
"""The advisory lock a migrating process holds until its transaction ends (per database)."""

_VERSION_TABLE = """CREATE TABLE IF NOT EXISTS schema_version (
    one      BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
    version  INTEGER NOT NULL)"""

_TABLES_1 = (
    """CREATE TABLE accounts (
        name        TEXT COLLATE "C" PRIMARY KEY,
        kind        TEXT NOT NULL,
        token_hash  TEXT NOT NULL UNIQUE,
        created_at  TEXT COLLATE "C" NOT NULL,
        banned      BOOLEAN NOT NULL DEFAULT FALSE)""",
    """CREATE TABLE matches (
        id          TEXT COLLATE "C" PRIMARY KEY,
        game        TEXT COLLATE "C" NOT NULL,
        options     JSON NOT NULL,
        num_seats   INTEGER NOT NULL,
        seed        BIGINT NOT NULL,
        seats       JSON NOT NULL,
        clock       JSON,
        start       JSON,
        log         JSON NOT NULL,
        outcome     JSON,
        status      TEXT COLLATE "C" NOT NULL,
        moves       INTEGER NOT NULL DEFAULT 0,
        created_at  TEXT COLLATE "C" NOT NULL,
        ended_at    TEXT COLLATE "C",
        live_state  JSON)""",
    "CREATE INDEX matches_created ON matches (created_at DESC, id)",
    "CREATE INDEX matches_status ON matches (status, created_at DESC, id)",
    "CREATE INDEX matches_game ON matches (game, created_at DESC, id)",
    """CREATE TABLE match_log_chunks (
        match_id    TEXT COLLATE "C" NOT NULL,
        first       INTEGER NOT NULL,
        entries     JSON NOT NULL,
        PRIMARY KEY (match_id, first))""",
    """CREATE TABLE ladder_entities (
        id            BIGINT PRIMARY KEY,
        game          TEXT COLLATE "C" NOT NULL,
        account       TEXT COLLATE "C" NOT NULL,
        bot           TEXT COLLATE "C" NOT NULL,
        version       TEXT COLLATE "C" NOT NULL,
        seeded_from   BIGINT,
        created_after BIGINT NOT NULL,
        created_at    TEXT COLLATE "C" NOT NULL,
        UNIQUE (game, account, bot, version))""",
    """CREATE TABLE ladder_matches (
        match_id    TEXT COLLATE "C" PRIMARY KEY,
        game        TEXT COLLATE "C" NOT NULL,
        entities    JSON NOT NULL,
        status      TEXT COLLATE "C" NOT NULL,
        ranks       JSON,
        reason      TEXT,
        seq         BIGINT UNIQUE,
        before      JSON,
        after       JSON,
        started     DOUBLE PRECISION NOT NULL,
        started_at  TEXT COLLATE "C" NOT NULL,
        ended_at    TEXT COLLATE "C")""",
    "CREATE INDEX ladder_matches_game ON ladder_matches (game, started)",
    "CREATE INDEX ladder_matches_started ON ladder_matches (started DESC, match_id)",
    """CREATE TABLE ladder_ratings (
        entity  BIGINT PRIMARY KEY,
        mu      DOUBLE PRECISION NOT NULL,
        sigma   DOUBLE PRECISION NOT NULL,
        wins    INTEGER NOT NULL,
        draws   INTEGER NOT NULL,
        losses  INTEGER NOT NULL)""",
    """CREATE TABLE ladder_history (
        entity    BIGINT NOT NULL,
        seq       BIGINT NOT NULL,
        match_id  TEXT COLLATE "C" NOT NULL,
        rank      INTEGER NOT NULL,
        mu        DOUBLE PRECISION NOT NULL,
        sigma     DOUBLE PRECISION NOT NULL,
        at        TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (entity, seq))""",
)


async def _create_tables(conn: asyncpg.Connection) -> None:
    for statement in _TABLES_1:
        await conn.execute(statement)


async def _add_people(conn: asyncpg.Connection) -> None:
    # As SQLite's version 5: password hashes, login tokens (hashed), bots' owners.
    await conn.execute("ALTER TABLE accounts ADD COLUMN password_hash TEXT")
    await conn.execute('ALTER TABLE accounts ADD COLUMN owner TEXT COLLATE "C"')
    await conn.execute("""CREATE TABLE logins (
        token_hash  TEXT PRIMARY KEY,
        account     TEXT COLLATE "C" NOT NULL,
        created_at  TEXT COLLATE "C" NOT NULL)""")
    await conn.execute("CREATE INDEX logins_account ON logins(account)")


@dataclass(frozen=True)
class Migration:
    """One step: ``apply`` takes a database from the version before to this one (inside
    the migration's transaction)."""

    description: str
    apply: Callable[[asyncpg.Connection], Awaitable[None]]


async def _create_fence(conn: asyncpg.Connection) -> None:
    await conn.execute("CREATE TABLE IF NOT EXISTS ladder_fence ("
                       "id INTEGER PRIMARY KEY CHECK (id = 1), token BIGINT NOT NULL)")


async def _add_tournaments(conn: asyncpg.Connection) -> None:
    # As SQLite's: the tables' definitions are in server/storage/tournaments.py.
    for statement in POSTGRES_TABLES:
        await conn.execute(statement)


async def _add_person_ratings(conn: asyncpg.Connection) -> None:
    # As SQLite's: people's ratings per game, their rated matches and history.
    await conn.execute("""CREATE TABLE people_matches (
        match_id    TEXT COLLATE "C" PRIMARY KEY,
        game        TEXT COLLATE "C" NOT NULL,
        accounts    JSON NOT NULL,
        status      TEXT NOT NULL,
        started_at  TEXT COLLATE "C" NOT NULL,
        ranks       JSON,
        reason      TEXT,
        before      JSON,
        after       JSON,
        ended_at    TEXT COLLATE "C")""")
    await conn.execute(
        "CREATE INDEX people_matches_status ON people_matches (status, started_at)")
    await conn.execute("""CREATE TABLE people_ratings (
        account     TEXT COLLATE "C" NOT NULL,
        game        TEXT COLLATE "C" NOT NULL,
        mu          DOUBLE PRECISION NOT NULL,
        sigma       DOUBLE PRECISION NOT NULL,
        wins        INTEGER NOT NULL,
        draws       INTEGER NOT NULL,
        losses      INTEGER NOT NULL,
        updated_at  TEXT COLLATE "C",
        PRIMARY KEY (account, game))""")
    await conn.execute("CREATE INDEX people_ratings_game ON people_ratings (game)")
    await conn.execute("""CREATE TABLE people_history (
        account     TEXT COLLATE "C" NOT NULL,
        game        TEXT COLLATE "C" NOT NULL,
        match_id    TEXT COLLATE "C" NOT NULL,
        at          TEXT COLLATE "C" NOT NULL,
        rank        INTEGER NOT NULL,
        mu          DOUBLE PRECISION NOT NULL,
        sigma       DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (account, game, match_id))""")
    await conn.execute("CREATE INDEX people_history_account ON people_history (account, at)")


async def _add_pairs(conn: asyncpg.Connection) -> None:
    # As SQLite's: a match's chance mode and duplicate pair, a ladder pair's second match.
    await conn.execute("ALTER TABLE matches ADD COLUMN chance TEXT, ADD COLUMN pair JSON")
    await conn.execute('ALTER TABLE ladder_matches ADD COLUMN twin TEXT COLLATE "C"')


MIGRATIONS: tuple[Migration, ...] = (
    Migration("1: accounts, matches and their log chunks, the ladder's tables",
              _create_tables),
    Migration("2: the ladder's fencing token (the newest leader of a cluster's ladder)",
              _create_fence),
    Migration("3: people: password hashes, login tokens, bots' owners", _add_people),
    Migration("4: tournaments, their entrants and pairings", _add_tournaments),
    Migration("5: people's ratings per game, their rated matches and history",
              _add_person_ratings),
    Migration("6: duplicate pairs: matches.chance and .pair, ladder_matches.twin",
              _add_pairs),
)
SCHEMA_VERSION = len(MIGRATIONS)
"""The version this code writes: migration ``n`` (1-based) takes a database to version
``n``."""


async def schema_version(conn: asyncpg.Connection) -> int:
    """The database's version (0: no ``schema_version`` table yet, a new database)."""
    if await conn.fetchval("SELECT to_regclass('schema_version')") is None:
        return 0
    version = await conn.fetchval("SELECT version FROM schema_version")
    return 0 if version is None else int(version)


def _newer(where: str, found: int) -> StoreError:
    return StoreError(
        f"{where} has storage schema version {found}, but this Tabletop Arena knows versions "
        f"up to {SCHEMA_VERSION}: it was written by a newer release; open it with that "
        f"release (or newer)")


async def migrate(conn: asyncpg.Connection, where: str) -> int:
    """Bring the database open on ``conn`` to :data:`SCHEMA_VERSION`, all steps in one
    transaction under :data:`MIGRATION_LOCK`, and return the version it had. Raises
    :class:`StoreError` for a database of a newer version, or if a step fails (the database
    is left as it was). ``where`` names the database in messages (no password)."""
    found = await schema_version(conn)
    if found == SCHEMA_VERSION:
        return found  # the common case takes no lock
    async with conn.transaction():
        # Concurrent openers queue here; each then reads the version the one before left.
        await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        await conn.execute(_VERSION_TABLE)
        found = await schema_version(conn)
        if found > SCHEMA_VERSION:
            raise _newer(where, found)
        for step in MIGRATIONS[found:]:
            try:
                await step.apply(conn)
            except (asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                raise StoreError(f"migrating {where} to schema version "
                                 f"{step.description} failed: {exc}") from exc
        if found < SCHEMA_VERSION:
            await conn.execute(
                "INSERT INTO schema_version (one, version) VALUES (TRUE, $1) "
                "ON CONFLICT (one) DO UPDATE SET version = EXCLUDED.version", SCHEMA_VERSION)
    return found
