"""The ladder page: the leaderboard, a rating-history chart, recent matches to replay.

Three random bots play on the Battle Line ladder of the test server. The page must show
exactly the leaderboard the server sent it, in its order, and chart every point of the
selected bot version's history; another row switches the chart; a recent match opens its
replay. The leaderboard also agrees with the HTTP view of the same ladder.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from web_arena import WebArena
from web_pages import TIMEOUT_MS, FrameLog, console_errors, open_app, shot, wait_until

ROWS = """() => [...document.querySelectorAll('#leaderboard tbody tr')].map((tr) => ({
    rank: Number(tr.dataset.rank), bot: tr.dataset.bot, version: tr.dataset.version,
    account: tr.dataset.account, cells: [...tr.cells].map((td) => td.innerText.trim()),
}))"""


@pytest.mark.timeout(120)
def test_leaderboard_and_rating_history(arena: WebArena, context: Any, artifacts: Path) -> None:
    deadline = time.monotonic() + 40
    while arena.rated_matches() < 6:
        assert time.monotonic() < deadline, "the ladder bots rated too few matches"
        time.sleep(0.2)

    page = context.new_page()
    errors = console_errors(page)
    frames = FrameLog(page)
    open_app(page, arena.http_url, "#/ladder/battleline")
    page.wait_for_selector("#leaderboard tbody tr", timeout=TIMEOUT_MS)
    page.wait_for_selector("#rating-chart .dot", timeout=TIMEOUT_MS)

    board = frames.received_of("leaderboard", game="battleline")[-1]
    entries = board["entries"]
    assert len(entries) == 3
    rows = page.evaluate(ROWS)
    assert [(r["rank"], r["bot"], r["version"], r["account"]) for r in rows] == \
        [(e["rank"], e["bot"], e["version"], e["account"]) for e in entries]
    for row, entry in zip(rows, entries, strict=True):
        assert row["cells"][3] == f'{entry["ordinal"]:.2f}'
        assert row["cells"][7] == f'{entry["wins"]}–{entry["draws"]}–{entry["losses"]}'
    ordinals = [e["ordinal"] for e in entries]
    assert ordinals == sorted(ordinals, reverse=True)
    # The same standings over HTTP (the protocol's /api/ladder/<game>).
    with urllib.request.urlopen(f"{arena.http_url}/api/ladder/battleline", timeout=10) as r:
        http_board = json.loads(r.read())["leaderboard"]
    assert {(e["bot"], e["version"]) for e in http_board} == \
        {(e["bot"], e["version"]) for e in entries}

    def chart_of(entry: dict[str, Any]) -> dict[str, Any]:
        history = wait_until(page, lambda: [m for m in frames.received_of("rating_history")
                                            if m["bot"] == entry["bot"]
                                            and m["version"] == entry["version"]],
                             what=f"the rating history of {entry['bot']}")[-1]
        page.wait_for_function(
            "(bot) => document.querySelector('.chart-card h2').innerText.includes(bot)",
            arg=entry["bot"], timeout=TIMEOUT_MS)
        dots = page.eval_on_selector_all("#rating-chart .dot",
                                         "els => els.map(e => e.dataset.matchId)")
        assert history["points"], history
        # The chart may have been redrawn from a newer history: compare with the latest.
        latest = [m for m in frames.received_of("rating_history")
                  if m["bot"] == entry["bot"] and m["version"] == entry["version"]][-1]
        assert dots == [p["match_id"] for p in latest["points"]]
        return latest

    top = chart_of(entries[0])
    assert page.get_attribute("#leaderboard tbody tr.selected", "data-bot") == entries[0]["bot"]
    assert len(top["points"]) >= 2
    shot(page, artifacts, "ladder-battleline.png")

    page.click(f'#leaderboard tbody tr[data-bot="{entries[2]["bot"]}"]')
    chart_of(entries[2])
    assert page.get_attribute("#leaderboard tbody tr.selected", "data-bot") == entries[2]["bot"]

    # A recent ladder match opens its replay.
    page.click(".ladder-matches [data-action='replay']")
    page.wait_for_selector("#replay-step", timeout=TIMEOUT_MS)
    assert page.url.split("#/replay/")[1] in {m["match_id"] for m in
                                              frames.received_of("ladder_matches")[-1]["matches"]}
    assert not errors, errors
