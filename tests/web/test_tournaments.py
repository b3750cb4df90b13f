"""The tournament page: a guest opens a round robin of three bots while it is open; the
admin starts it over the protocol, and the page follows it live to the end — its standings
and crosstable exactly what the server exports (``/api/tournaments/<id>``), every game with
a replay link; the list page shows it."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from web_arena import WebArena
from web_pages import TIMEOUT_MS, console_errors, open_app, shot, wait_until

from bots.random_bot import RandomBot
from clients.connection import connect

STANDINGS = """() => [...document.querySelectorAll('#standings tbody tr')].map((tr) =>
    [tr.dataset.name, ...[...tr.cells].map((td) => td.innerText.trim())])"""
CROSS = """() => [...document.querySelectorAll('#crosstable tbody tr')].map((tr) =>
    [...tr.cells].slice(1).map((td) => td.innerText.trim()))"""


def points(x: float) -> str:
    whole, rest = int(x), x - int(x)
    return str(whole) if rest == 0 else f"{whole or ''}½" if rest == 0.5 else str(round(x, 2))


@pytest.mark.timeout(120)
def test_a_round_robin_followed_live(arena: WebArena, context: Any, artifacts: Path) -> None:
    bots = [f"tour-bot-{n}" for n in (1, 2, 3)]
    runners = [arena.add_bot(name, RandomBot(seed=40 + n), games=["battleline"])
               for n, name in enumerate(bots)]
    admin_token = arena.create_account("tour-admin", "admin")
    assert arena.server is not None
    url = arena.server.ws_url

    async def create() -> str:
        conn = await connect(url, admin_token)
        async with conn:
            made = await conn.request("tournament_create", game="battleline",
                                      format="round_robin", name="Web cup", clock=None)
            return str(made["tournament_id"])

    tid = arena.call(create())
    page = context.new_page()
    errors = console_errors(page)
    open_app(page, arena.http_url, f"#/tournament/{tid}")
    page.wait_for_selector("#tournament-status[data-status='open']", timeout=TIMEOUT_MS)

    async def enter_and_start() -> None:
        async with await connect(url, admin_token) as conn:
            for name in bots:
                await conn.request("tournament_join", tournament_id=tid, account=name)
            await conn.request("tournament_start", tournament_id=tid)

    wait_until(page, lambda: all(r._session_offered is not None  # noqa: SLF001
                                 for r in runners), what="the bots' autoplay offers")
    arena.call(enter_and_start())
    page.wait_for_selector("#tournament-status[data-status='over']", timeout=60_000)
    shot(page, artifacts, "tournament-over.png")

    with urllib.request.urlopen(f"{arena.http_url}/api/tournaments/{tid}") as reply:
        export = json.loads(reply.read())
    assert export["status"] == "over" and len(export["pairings"]) == 3
    shown = page.evaluate(STANDINGS)
    assert [row[0] for row in shown] == [s["name"] for s in export["standings"]]
    assert [row[3] for row in shown] == [points(s["points"]) for s in export["standings"]]
    cross = page.evaluate(CROSS)
    for i, row in enumerate(export["crosstable"]["cells"]):
        assert cross[i] == ["·" if c is None else " ".join(points(x) for x in c) for c in row]
    assert page.locator(".rounds a.button").count() == 3  # a replay link per game

    open_app(page, arena.http_url, "#/tournaments")
    page.wait_for_selector(f"#tournament-list tr[data-tournament-id='{tid}']",
                           timeout=TIMEOUT_MS)
    assert not errors, errors
