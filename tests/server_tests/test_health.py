"""``GET /healthz`` says whether the store takes writes (a real server, a real SQLite file)."""

from __future__ import annotations

import asyncio
import json
import shutil
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from server.app import ArenaServer
from server.storage import SqliteStore


def health(server: ArenaServer) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(server.http_url + "/healthz", timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def test_healthz_fails_once_the_store_file_is_gone(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    store = SqliteStore(folder / "arena.sqlite3")
    server = ArenaServer(store)
    await server.start("127.0.0.1", 0)
    try:
        status, body = await asyncio.to_thread(health, server)
        assert status == 200
        assert body["ok"] is True and body["store"] == {"writable": True, "error": None}
        shutil.rmtree(folder)
        status, body = await asyncio.to_thread(health, server)
        assert status == 503
        assert body["ok"] is False and body["store"]["writable"] is False
        assert "arena.sqlite3" in body["store"]["error"]
    finally:
        await server.close()
        store.close()
