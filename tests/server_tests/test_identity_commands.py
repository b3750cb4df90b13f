"""Identity from the command line (issue #22): ``arena account`` admin/revoke/ban/unban on a
real SQLite file, ``arena bot``'s token sources, and house bot processes started by
``arena run``'s own function with the token kept off their command line."""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path

import pytest

from server.app import ArenaServer
from server.storage import SqliteStore
from tests.server_tests.wsclient import WsClient, play_random
from tools.cli import main
from tools.commands.bot import TOKEN_ENV, token_of
from tools.commands.run import HouseBot, start_bot, stop_bot

ROOT = Path(__file__).resolve().parents[2]


def last_line(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().out.strip().splitlines()[-1]


def test_account_admin_revoke_ban_and_unban(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "a.sqlite3")
    assert main(["account", "create", "house-random-1", "--kind", "bot", "--db", db]) == 1
    assert "reserved" in capsys.readouterr().err
    assert main(["account", "create", "root", "--kind", "admin", "--db", db]) == 0
    admin_token = last_line(capsys)
    assert main(["account", "create", "robo", "--kind", "bot", "--db", db]) == 0
    token = last_line(capsys)
    assert main(["account", "revoke", "robo", "--db", db]) == 0
    capsys.readouterr()
    assert main(["account", "revoke", "robo", "--new-token", "--db", db]) == 0
    fresh = last_line(capsys)
    assert main(["account", "ban", "robo", "--db", db]) == 0
    assert main(["account", "ban", "nobody", "--db", db]) == 1
    capsys.readouterr()
    assert main(["account", "list", "--db", db]) == 0
    listing = capsys.readouterr().out
    assert any(line.startswith("robo") and line.endswith("banned")
               for line in listing.splitlines()), listing
    store = SqliteStore(db)
    try:
        assert store.account_for_token(admin_token).kind == "admin"  # type: ignore[union-attr]
        assert store.account_for_token(token) is None
        assert store.account_for_token(fresh).banned  # type: ignore[union-attr]
    finally:
        store.close()
    assert main(["account", "unban", "robo", "--db", db]) == 0
    store = SqliteStore(db)
    try:
        assert not store.account_for_token(fresh).banned  # type: ignore[union-attr]
    finally:
        store.close()


def test_the_bot_token_comes_from_argv_a_private_file_or_the_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def args(token: str | None = None, token_file: str | None = None) -> argparse.Namespace:
        return argparse.Namespace(token=token, token_file=token_file)

    monkeypatch.setenv(TOKEN_ENV, "from-env")
    assert token_of(args()) == "from-env"
    assert TOKEN_ENV not in os.environ  # nothing the bot starts inherits it
    assert token_of(args()) is None
    secret = tmp_path / "bot.token"
    secret.write_text("from-file\n")
    secret.chmod(0o600)
    assert token_of(args(token_file=str(secret))) == "from-file"
    assert token_of(args("from-argv", str(secret))) == "from-argv"
    secret.chmod(0o644)
    with pytest.raises(SystemExit, match="may be read by others"):
        token_of(args(token_file=str(secret)))
    with pytest.raises(SystemExit, match="cannot read"):
        token_of(args(token_file=str(tmp_path / "missing")))


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads /proc (Linux)")
async def test_a_house_bot_process_gets_its_token_off_its_command_line_and_plays(
        server: ArenaServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.chdir(ROOT)
    token = await asyncio.to_thread(server.store.create_account, "house-random-1", "bot",
                                    house=True)
    bot = HouseBot("random", "house-random-1", token=token, games=("battleline",))
    await start_bot(bot, server.ws_url, 1, "warning")
    assert bot.process is not None
    try:
        cmdline = Path(f"/proc/{bot.process.pid}/cmdline").read_bytes()
        assert b"bot" in cmdline and b"random" in cmdline
        assert token.encode() not in cmdline
        visitor = await WsClient.open(server.ws_url)
        await visitor.hello(name="visitor")
        for _ in range(300):  # until the bot process has connected and offered itself
            ref = await visitor.send({"type": "play_bot", "game": "battleline"})
            start = await visitor.expect_reply(ref)
            if start["type"] == "match_start":
                break
            assert start["code"] == "not_found", start
            assert bot.process.returncode is None, "the bot process exited"
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the house bot never offered itself")
        assert [s["name"] for s in start["seats"]][1:] == ["house-random-1"]
        end = await play_random(visitor, start["match_id"], 3)
        assert len(end["outcome"]["ranks"]) == 2
        await visitor.close()
    finally:
        await stop_bot(bot)
