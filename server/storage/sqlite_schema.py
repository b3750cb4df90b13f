"""The SQLite file's schema: numbered versions and the ordered steps between them.

The file records its version in ``PRAGMA user_version`` (0 in a new file, and in a file of a
release from before versioning). :func:`migrate` brings a file up to :data:`SCHEMA_VERSION`
in one transaction, taking the steps it has not had yet in order, and refuses a file from a
newer release (it cannot know what that release's tables mean).

To change the schema, append a :class:`Migration` to :data:`MIGRATIONS`; never edit one
that has shipped (files out there have had it already). Tables:

* ``accounts`` — name, kind, the SHA-256 of the bearer token, creation time, (since
  version 3) whether it is banned, and (since version 5) a person's password hash and a
  bot's owner; ``logins`` (version 5) — a person's login tokens, hashed;
* ``matches`` — one row per match (its log whole once it ended; while live, since version
  4, its ``live_state`` for a resume), and ``match_log_chunks`` —
  a live match's appended log entries, one row per run of consecutive entries;
* ``ladder_entities``, ``ladder_matches`` (the raw results), ``ladder_ratings`` and
  ``ladder_history`` (derived) — see :mod:`server.storage.ladder`;
* ``tournaments``, ``tournament_entrants``, ``tournament_pairings`` (version 6) — see
  :mod:`server.storage.tournaments`;
* ``people_matches``, ``people_ratings`` and ``people_history`` (version 7) —
  people's ratings per game, see :mod:`server.storage.person_ratings`;
* (version 8) ``matches.chance`` (how it deals: NULL the generator, ``deck`` a deck fixed by
  the seed) and ``matches.pair`` (its duplicate pair, JSON), ``ladder_matches.twin`` (a
  ladder pair's second match) — see :mod:`server.pairs`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from server.storage.base import StoreError, merge_log
from server.storage.tournaments import SQLITE_TABLES

_TABLES_BEFORE_VERSIONING = (
    """CREATE TABLE IF NOT EXISTS accounts (
        name        TEXT PRIMARY KEY,
        kind        TEXT NOT NULL,
        token_hash  TEXT NOT NULL UNIQUE,
        created_at  TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS matches (
        id          TEXT PRIMARY KEY,
        game        TEXT NOT NULL,
        options     TEXT NOT NULL,
        num_seats   INTEGER NOT NULL,
        seed        INTEGER NOT NULL,
        seats       TEXT NOT NULL,
        clock       TEXT,
        start       TEXT,
        log         TEXT NOT NULL,
        outcome     TEXT,
        status      TEXT NOT NULL,
        moves       INTEGER NOT NULL DEFAULT 0,
        created_at  TEXT NOT NULL,
        ended_at    TEXT)""",
    "CREATE INDEX IF NOT EXISTS matches_status ON matches(status, created_at)",
    """CREATE TABLE IF NOT EXISTS match_actions (
        match_id    TEXT NOT NULL,
        idx         INTEGER NOT NULL,
        entry       TEXT NOT NULL,
        PRIMARY KEY (match_id, idx)) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS match_log_chunks (
        match_id    TEXT NOT NULL,
        first       INTEGER NOT NULL,
        entries     TEXT NOT NULL,
        PRIMARY KEY (match_id, first)) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS ladder_entities (
        id            INTEGER PRIMARY KEY,
        game          TEXT NOT NULL,
        account       TEXT NOT NULL,
        bot           TEXT NOT NULL,
        version       TEXT NOT NULL,
        seeded_from   INTEGER,
        created_after INTEGER NOT NULL,
        created_at    TEXT NOT NULL,
        UNIQUE (game, account, bot, version))""",
    """CREATE TABLE IF NOT EXISTS ladder_matches (
        match_id    TEXT PRIMARY KEY,
        game        TEXT NOT NULL,
        entities    TEXT NOT NULL,
        status      TEXT NOT NULL,
        ranks       TEXT,
        reason      TEXT,
        seq         INTEGER UNIQUE,
        before      TEXT,
        after       TEXT,
        started     REAL NOT NULL,
        started_at  TEXT NOT NULL,
        ended_at    TEXT)""",
    "CREATE INDEX IF NOT EXISTS ladder_matches_game ON ladder_matches(game, started)",
    """CREATE TABLE IF NOT EXISTS ladder_ratings (
        entity  INTEGER PRIMARY KEY,
        mu      REAL NOT NULL,
        sigma   REAL NOT NULL,
        wins    INTEGER NOT NULL,
        draws   INTEGER NOT NULL,
        losses  INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS ladder_history (
        entity    INTEGER NOT NULL,
        seq       INTEGER NOT NULL,
        match_id  TEXT NOT NULL,
        rank      INTEGER NOT NULL,
        mu        REAL NOT NULL,
        sigma     REAL NOT NULL,
        at        TEXT NOT NULL,
        PRIMARY KEY (entity, seq))""",
)


def _create_tables(conn: sqlite3.Connection) -> None:
    # IF NOT EXISTS: a file from before versioning has some or all of these already (the
    # ladder's tables only once a ladder ran on it).
    for statement in _TABLES_BEFORE_VERSIONING:
        conn.execute(statement)


def _fold_single_entries_into_chunks(conn: sqlite3.Connection) -> None:
    # Before chunks, a live match's appended entries were one row each in match_actions.
    # Each such match's appended log (single entries first, then chunks, as they were read)
    # becomes one chunk from index 0, which reads back the same over the row's log.
    matches = [m for (m,) in conn.execute("SELECT DISTINCT match_id FROM match_actions")]
    for match_id in matches:
        runs = [(idx, [json.loads(entry)]) for idx, entry in conn.execute(
            "SELECT idx, entry FROM match_actions WHERE match_id=? ORDER BY idx", (match_id,))]
        runs += [(first, json.loads(entries)) for first, entries in conn.execute(
            "SELECT first, entries FROM match_log_chunks WHERE match_id=? ORDER BY first",
            (match_id,))]
        stored = conn.execute("SELECT log FROM matches WHERE id=?", (match_id,)).fetchone()
        log = merge_log([] if stored is None else json.loads(stored[0]), runs)
        conn.execute("DELETE FROM match_log_chunks WHERE match_id=?", (match_id,))
        conn.execute("INSERT INTO match_log_chunks (match_id, first, entries) VALUES (?,0,?)",
                     (match_id, json.dumps(log, separators=(",", ":"))))
    conn.execute("DROP TABLE match_actions")


def _add_account_bans(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE accounts ADD COLUMN banned INTEGER NOT NULL DEFAULT 0")


def _add_live_state(conn: sqlite3.Connection) -> None:
    # What a restarted server needs to resume a live match beyond its log: the clocks at
    # the last stored action and the seated sessions' resume-token hashes (JSON).
    conn.execute("ALTER TABLE matches ADD COLUMN live_state TEXT")


def _add_people(conn: sqlite3.Connection) -> None:
    # People sign in with a password (only its argon2 hash is kept) from several browsers
    # (one login token each, kept hashed); a bot a person made has that person as owner.
    conn.execute("ALTER TABLE accounts ADD COLUMN password_hash TEXT")
    conn.execute("ALTER TABLE accounts ADD COLUMN owner TEXT")
    conn.execute("""CREATE TABLE logins (
        token_hash  TEXT PRIMARY KEY,
        account     TEXT NOT NULL,
        created_at  TEXT NOT NULL)""")
    conn.execute("CREATE INDEX logins_account ON logins(account)")


def _add_tournaments(conn: sqlite3.Connection) -> None:
    # Tournaments: their headers, entrants and pairings with results (the tables'
    # definitions are shared with PostgreSQL: server/storage/tournaments.py).
    for statement in SQLITE_TABLES:
        conn.execute(statement)


def _add_person_ratings(conn: sqlite3.Connection) -> None:
    # People's ratings per game (server.storage.person_ratings): the rated matches (live,
    # then rated or void once), the current ratings, one history point per rated match.
    conn.execute("""CREATE TABLE people_matches (
        match_id    TEXT PRIMARY KEY,
        game        TEXT NOT NULL,
        accounts    TEXT NOT NULL,
        status      TEXT NOT NULL,
        started_at  TEXT NOT NULL,
        ranks       TEXT,
        reason      TEXT,
        before      TEXT,
        after       TEXT,
        ended_at    TEXT)""")
    conn.execute("CREATE INDEX people_matches_status ON people_matches(status, started_at)")
    conn.execute("""CREATE TABLE people_ratings (
        account     TEXT NOT NULL,
        game        TEXT NOT NULL,
        mu          REAL NOT NULL,
        sigma       REAL NOT NULL,
        wins        INTEGER NOT NULL,
        draws       INTEGER NOT NULL,
        losses      INTEGER NOT NULL,
        updated_at  TEXT,
        PRIMARY KEY (account, game))""")
    conn.execute("CREATE INDEX people_ratings_game ON people_ratings(game)")
    conn.execute("""CREATE TABLE people_history (
        account     TEXT NOT NULL,
        game        TEXT NOT NULL,
        match_id    TEXT NOT NULL,
        at          TEXT NOT NULL,
        rank        INTEGER NOT NULL,
        mu          REAL NOT NULL,
        sigma       REAL NOT NULL,
        PRIMARY KEY (account, game, match_id))""")
    conn.execute("CREATE INDEX people_history_account ON people_history(account, at)")


def _add_pairs(conn: sqlite3.Connection) -> None:
    # Duplicate pairs (server.pairs): a match's chance mode and its pair, so that a resumed
    # match deals again from the same deck and its pair is rebuilt; a ladder pair is one raw
    # result whose second match is its twin.
    conn.execute("ALTER TABLE matches ADD COLUMN chance TEXT")
    conn.execute("ALTER TABLE matches ADD COLUMN pair TEXT")
    conn.execute("ALTER TABLE ladder_matches ADD COLUMN twin TEXT")


@dataclass(frozen=True)
class Migration:
    """One step: ``apply`` takes a file from the version before to this one."""

    description: str
    apply: Callable[[sqlite3.Connection], None]


MIGRATIONS: tuple[Migration, ...] = (
    Migration("1: the tables as they were before versioning", _create_tables),
    Migration("2: appended log entries only in chunks (match_actions folded in)",
              _fold_single_entries_into_chunks),
    Migration("3: accounts may be banned", _add_account_bans),
    Migration("4: matches.live_state, to resume live matches after a restart",
              _add_live_state),
    Migration("5: people: password hashes, login tokens, bots' owners", _add_people),
    Migration("6: tournaments, their entrants and pairings", _add_tournaments),
    Migration("7: people's ratings per game, their rated matches and history",
              _add_person_ratings),
    Migration("8: duplicate pairs: matches.chance and .pair, ladder_matches.twin",
              _add_pairs),
)
SCHEMA_VERSION = len(MIGRATIONS)
"""The version this code writes: migration ``n`` (1-based) takes a file to version ``n``."""


def schema_version(conn: sqlite3.Connection) -> int:
    (version,) = conn.execute("PRAGMA user_version").fetchone()
    return int(version)


def migrate(conn: sqlite3.Connection, path: str) -> int:
    """Bring the file open on ``conn`` (an autocommit connection: ``isolation_level=None``)
    to :data:`SCHEMA_VERSION`, all steps in one transaction, and return the version it had.
    Raises :class:`StoreError` for a file of a newer version, or if a step fails (the file is
    left as it was)."""
    if schema_version(conn) == SCHEMA_VERSION:
        return SCHEMA_VERSION  # the common case takes no write lock
    conn.execute("BEGIN IMMEDIATE")  # one process migrates; others wait, then see it done
    try:
        found = schema_version(conn)
        if found > SCHEMA_VERSION:
            raise StoreError(
                f"{path} has storage schema version {found}, but this Tabletop Arena knows "
                f"versions up to {SCHEMA_VERSION}: it was written by a newer release; open it "
                f"with that release (or newer)")
        for step in MIGRATIONS[found:]:
            try:
                step.apply(conn)
            except sqlite3.Error as exc:
                raise StoreError(f"migrating {path} to schema version "
                                 f"{step.description} failed: {exc}") from exc
        if found < SCHEMA_VERSION:
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return found
