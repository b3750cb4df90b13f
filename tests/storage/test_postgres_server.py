"""The arena on PostgreSQL, end to end: the ``arena account`` and ``arena replay`` commands
with a ``postgresql://`` ``--db``, and a real server over :class:`PostgresStore` playing a
match with real websocket clients (:mod:`clients.connection`) to its end, read back from the
store with its log and outcome.

Each test gets a new database on the session's PostgreSQL server (``postgres_database``)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clients.connection import Connection, connect
from engine import registry
from server.app import ArenaServer
from server.logs import configure_logging
from server.storage import PostgresStore
from tests.server_tests.minigames import TEST_GAMES
from tools import cli

ROOT = Path(__file__).resolve().parents[2]


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    """``arena ARGS…`` in a process of its own."""
    return subprocess.run([sys.executable, "-m", "tools.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_accounts_are_created_and_listed_with_a_postgres_url(postgres_database: str) -> None:
    created = arena("account", "create", "alice", "--kind", "bot", "--db", postgres_database)
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip().splitlines()[-1]
    assert token.startswith("arena_")
    other_scheme = postgres_database.replace("postgresql://", "postgres://")
    admin = arena("account", "create", "root", "--kind", "admin", "--db", other_scheme)
    assert admin.returncode == 0, admin.stderr
    clash = arena("account", "create", "alice", "--kind", "human", "--db", postgres_database)
    assert clash.returncode == 1 and "exists already" in clash.stderr

    listed = arena("account", "list", "--db", postgres_database)
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[:2] for line in listed.stdout.splitlines()] == [
        ["alice", "bot"], ["root", "admin"]]
    store = PostgresStore(postgres_database)
    try:
        assert store.account_for_token(token) == store.get_account("alice")
    finally:
        store.close()


def test_an_unreachable_database_is_one_line_without_its_password() -> None:
    done = arena("account", "list", "--db", "postgresql://arena:s3cret@127.0.0.1:1/arena")
    assert done.returncode == 1
    assert "cannot open postgresql://arena:***@127.0.0.1:1/arena" in done.stderr
    assert "s3cret" not in done.stderr and "Traceback" not in done.stderr


@pytest.fixture
def test_games() -> Iterator[None]:
    """The tiny test games (``race``), registered only while the test runs."""
    for game in TEST_GAMES:
        registry.register(game, replace=True)
    yield
    for game in TEST_GAMES:
        registry.unregister(game.info.name)


async def next_of_type(conn: Connection, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` (the ones before it are skipped)."""
    while True:
        message = await conn.next_message(timeout=30)
        if message["type"] == kind:
            return message


async def play_to_the_end(conn: Connection, match_id: str) -> dict[str, Any]:
    """Answer each request of ``match_id`` with its first legal action; its ``match_end``."""
    async for message in conn:
        if message.get("match_id") != match_id:
            continue
        if message["type"] == "request":
            await conn.act(message, message["legal_actions"][0])
        elif message["type"] == "match_end":
            return message
    raise AssertionError("the connection closed before the match ended")


async def test_a_server_over_postgres_plays_a_match_and_keeps_it(
        postgres_database: str, test_games: None, capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("warning")
    store = await asyncio.to_thread(PostgresStore, postgres_database)
    server = ArenaServer(store, grace_s=5.0)
    await server.start("127.0.0.1", 0)
    try:
        tokens = [await asyncio.to_thread(store.create_account, name, "bot")
                  for name in ("ann", "bob")]
        ann, bob = [await connect(server.ws_url, token) for token in tokens]
        challenge_id = await ann.challenge(["bob"], "race", options={"target": 7})
        invite = await next_of_type(bob, "challenge")
        assert invite["challenge_id"] == challenge_id
        await bob.accept(challenge_id)
        starts = [await next_of_type(conn, "match_start") for conn in (ann, bob)]
        match_id = starts[0]["match_id"]
        assert [s["your_seat"] for s in starts] == [0, 1]
        ends = await asyncio.wait_for(asyncio.gather(
            play_to_the_end(ann, match_id), play_to_the_end(bob, match_id)), 60)
        assert ends[0]["outcome"] == ends[1]["outcome"]
        assert ends[0]["outcome"]["reason"] == "target"
        await ann.close()
        await bob.close()
    finally:
        await server.close()
        await asyncio.to_thread(store.close)

    # A new store on the same database: what was committed, read back.
    again = await asyncio.to_thread(PostgresStore, postgres_database)
    try:
        row = await asyncio.to_thread(again.get_match, match_id)
        assert row is not None and row.status == "over" and row.game == "race"
        assert row.outcome == ends[0]["outcome"] and row.ended_at is not None
        # first legal action each time: add 1 until the count reaches 7, seats alternating
        assert row.log == [{str(n % 2): {"add": 1}} for n in range(7)] and row.moves == 7
        assert [s["name"] for s in row.seats] == ["ann", "bob"] and row.live_state is None
        assert [m.id for m in await asyncio.to_thread(again.list_matches, status="over")] == [
            match_id]
    finally:
        await asyncio.to_thread(again.close)

    capsys.readouterr()
    assert await asyncio.to_thread(
        cli.main, ["replay", match_id, "--json", "--db", postgres_database]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["record"]["log"] == row.log and "seed" not in exported["record"]
    assert exported["match"]["outcome"] == ends[0]["outcome"]
