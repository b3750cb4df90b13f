"""The SQLite file's versioned schema: files of older releases migrate forward with their
data; a file of a newer release is refused; a failed migration leaves the file as it was.

The old files are written here as raw SQL: the tables exactly as the release before
versioning created them (``PRAGMA user_version`` 0; ``match_actions`` held a live match's
appended entries one row each, before chunks; the ladder's tables existed once a ladder
ran), so no later change to the code can change what "an old file" means."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from server.ladder_book import Entity
from server.ratings import Rating
from server.storage import SqliteStore, StoreError, sqlite_schema, token_hash
from server.storage.sqlite_schema import SCHEMA_VERSION, Migration

TABLES_BEFORE_VERSIONING = """
CREATE TABLE accounts (
    name TEXT PRIMARY KEY, kind TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL);
CREATE TABLE matches (
    id TEXT PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL,
    num_seats INTEGER NOT NULL, seed INTEGER NOT NULL, seats TEXT NOT NULL, clock TEXT,
    start TEXT, log TEXT NOT NULL, outcome TEXT, status TEXT NOT NULL,
    moves INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, ended_at TEXT);
CREATE INDEX matches_status ON matches(status, created_at);
CREATE TABLE match_actions (
    match_id TEXT NOT NULL, idx INTEGER NOT NULL, entry TEXT NOT NULL,
    PRIMARY KEY (match_id, idx)) WITHOUT ROWID;
CREATE TABLE match_log_chunks (
    match_id TEXT NOT NULL, first INTEGER NOT NULL, entries TEXT NOT NULL,
    PRIMARY KEY (match_id, first)) WITHOUT ROWID;
"""

LADDER_TABLES_BEFORE_VERSIONING = """
CREATE TABLE ladder_entities (
    id INTEGER PRIMARY KEY, game TEXT NOT NULL, account TEXT NOT NULL, bot TEXT NOT NULL,
    version TEXT NOT NULL, seeded_from INTEGER, created_after INTEGER NOT NULL,
    created_at TEXT NOT NULL, UNIQUE (game, account, bot, version));
CREATE TABLE ladder_matches (
    match_id TEXT PRIMARY KEY, game TEXT NOT NULL, entities TEXT NOT NULL,
    status TEXT NOT NULL, ranks TEXT, reason TEXT, seq INTEGER UNIQUE, before TEXT,
    after TEXT, started REAL NOT NULL, started_at TEXT NOT NULL, ended_at TEXT);
CREATE INDEX ladder_matches_game ON ladder_matches(game, started);
CREATE TABLE ladder_ratings (
    entity INTEGER PRIMARY KEY, mu REAL NOT NULL, sigma REAL NOT NULL,
    wins INTEGER NOT NULL, draws INTEGER NOT NULL, losses INTEGER NOT NULL);
CREATE TABLE ladder_history (
    entity INTEGER NOT NULL, seq INTEGER NOT NULL, match_id TEXT NOT NULL,
    rank INTEGER NOT NULL, mu REAL NOT NULL, sigma REAL NOT NULL, at TEXT NOT NULL,
    PRIMARY KEY (entity, seq));
"""

SEATS = [{"seat": 0, "name": "a", "kind": "bot"}, {"seat": 1, "name": "b", "kind": "bot"}]
MATCH = f"""'race', '{{"target":5}}', 2, 7, '{json.dumps(SEATS)}', NULL, NULL"""
"""The columns of a match row from ``game`` to ``start``, as SQL values."""


def old_file(path: Path, *, version: int = 0, ladder: bool = True) -> str:
    """A file as an older release left it, with an account, a finished match, a live match
    whose progress was appended one entry per row and then in a chunk, and (``ladder``) a
    rated ladder match. Returns the account's token. A ``version`` above 0 is that file after
    the shipped steps up to it (they never change once shipped)."""
    token = "arena_old-token"
    conn = sqlite3.connect(path)
    conn.executescript(TABLES_BEFORE_VERSIONING
                       + (LADDER_TABLES_BEFORE_VERSIONING if ladder else ""))
    conn.execute("INSERT INTO accounts VALUES ('ann', 'bot', ?, '2024-01-01T00:00:00.000Z')",
                 (token_hash(token),))
    conn.execute(f"INSERT INTO matches VALUES ('over1', {MATCH}, '[{{\"0\":1}}]', "
                 "'{\"ranks\":[0,1],\"reason\":\"target\"}', 'over', 1, "
                 "'2024-01-01T00:00:00.000Z', '2024-01-01T00:01:00.000Z')")
    conn.execute(f"INSERT INTO matches VALUES ('live1', {MATCH}, '[]', NULL, 'live', 5, "
                 "'2024-01-02T00:00:00.000Z', NULL)")
    conn.executemany("INSERT INTO match_actions VALUES ('live1', ?, ?)",
                     [(i, json.dumps({"old": i})) for i in range(3)])
    conn.execute("INSERT INTO match_log_chunks VALUES ('live1', 3, ?)",
                 (json.dumps([{"new": 3}, {"new": 4}]),))
    if ladder:
        conn.executescript("""
            INSERT INTO ladder_entities VALUES (1, 'race', 'ann', 'r', '1', NULL, 0, 't0');
            INSERT INTO ladder_entities VALUES (2, 'race', 'bob', 'r', '1', NULL, 0, 't0');
            INSERT INTO ladder_matches VALUES ('over1', 'race', '[1,2]', 'rated', '[0,1]',
                'target', 1, '[[25,8],[25,8]]', '[[27,7],[23,7]]', 1.5, 't1', 'e1');
            INSERT INTO ladder_ratings VALUES (1, 27, 7, 1, 0, 0);
            INSERT INTO ladder_ratings VALUES (2, 23, 7, 0, 0, 1);
            INSERT INTO ladder_history VALUES (1, 1, 'over1', 0, 27, 7, 'e1');
            INSERT INTO ladder_history VALUES (2, 1, 'over1', 1, 23, 7, 'e1');""")
    for step in sqlite_schema.MIGRATIONS[:version]:
        step.apply(conn)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()
    return token


def file_version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return sqlite_schema.schema_version(conn)
    finally:
        conn.close()


def tables(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        conn.close()


@pytest.mark.parametrize("version", range(SCHEMA_VERSION))
def test_an_older_file_migrates_forward_with_its_data(tmp_path: Path, version: int) -> None:
    """Moved in part from ``tests/server_tests/test_storage.py``
    (``test_progress_written_as_single_entries_before_chunks_still_reads``): a live match
    appended one entry per row keeps its log, and new chunks continue it."""
    path = tmp_path / "old.sqlite3"
    token = old_file(path, version=version)
    store = SqliteStore(path)
    try:
        assert file_version(path) == SCHEMA_VERSION
        assert "match_actions" not in tables(path)
        assert store.account_for_token(token) == store.get_account("ann")
        assert store.get_account("ann").banned is False  # type: ignore[union-attr]
        over = store.get_match("over1")
        assert over is not None and over.log == [{"0": 1}] and over.seed == 7
        assert over.outcome == {"ranks": [0, 1], "reason": "target"}
        live = store.get_match("live1")
        assert live is not None and live.moves == 5
        assert live.log == [{"old": 0}, {"old": 1}, {"old": 2}, {"new": 3}, {"new": 4}]
        store.append_actions([("live1", 5, {"newer": 5})], {"live1": 6})
        store.flush()
        assert store.get_match("live1").log[3:] == [  # type: ignore[union-attr]
            {"new": 3}, {"new": 4}, {"newer": 5}]

        ladder = store.ladder()
        assert ladder.entities() == [Entity(1, "race", "ann", "r", "1", None, 0, "t0"),
                                     Entity(2, "race", "bob", "r", "1", None, 0, "t0")]
        book = ladder.load_book()
        assert book.seq == 1 and book.standings[1].rating == Rating(27, 7)
        assert (book.standings[2].losses, book.standings[2].started) == (1, 1)
        assert [p["mu"] for p in ladder.history(1)] == [27]
    finally:
        store.close()
    again = SqliteStore(path)  # opening a current file changes nothing
    try:
        assert again.get_match("live1").log[-1] == {"newer": 5}  # type: ignore[union-attr]
    finally:
        again.close()
    assert file_version(path) == SCHEMA_VERSION


def test_a_file_where_no_ladder_ran_gets_the_ladder_tables(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old_file(path, ladder=False)
    store = SqliteStore(path)
    try:
        assert store.ladder().entities() == [] and store.ladder().load_book().seq == 0
        assert store.get_account("ann") is not None
    finally:
        store.close()
    assert {"ladder_entities", "ladder_matches", "ladder_ratings",
            "ladder_history"} <= tables(path)


def test_a_new_file_is_created_at_the_current_version(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    SqliteStore(path).close()
    assert file_version(path) == SCHEMA_VERSION
    assert tables(path) == {"accounts", "matches", "match_log_chunks", "ladder_entities",
                            "ladder_matches", "ladder_ratings", "ladder_history", "logins",
                            "tournaments", "tournament_entrants", "tournament_pairings",
                            "people_matches", "people_ratings", "people_history"}


def test_a_file_of_a_newer_release_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    SqliteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=(
            f"schema version {SCHEMA_VERSION + 1}, but this Tabletop Arena knows versions "
            f"up to {SCHEMA_VERSION}: it was written by a newer release")):
        SqliteStore(path)
    assert file_version(path) == SCHEMA_VERSION + 1


def test_a_failed_step_leaves_the_file_as_it_was(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """All steps run in one transaction: a step that fails undoes the earlier ones too."""
    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO nowhere VALUES (1)")

    steps = (*sqlite_schema.MIGRATIONS, Migration("3: a broken step", broken))
    monkeypatch.setattr(sqlite_schema, "MIGRATIONS", steps)
    monkeypatch.setattr(sqlite_schema, "SCHEMA_VERSION", len(steps))
    path = tmp_path / "old.sqlite3"
    old_file(path)
    with pytest.raises(StoreError, match="3: a broken step failed: no such table: nowhere"):
        SqliteStore(path)
    assert file_version(path) == 0 and "match_actions" in tables(path)
