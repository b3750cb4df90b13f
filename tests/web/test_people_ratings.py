"""Ratings for people in the browser (issue #24): two people sign up (two browser contexts),
queue for a rated Battle Line game and are paired, one resigns; both ratings change, the
match page shows the change, and each person's profile page shows the new rating, its
history point and the match (a rated win or loss), as does the people's leaderboard. Real
Chromium, the real server of the session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_lobby import resign
from web_accounts import sign_up
from web_arena import WebArena
from web_pages import TIMEOUT_MS, FrameLog, console_errors, open_app, shot

from server.ratings import INITIAL, Rating, rate

PASSWORD = "correct horse battery"


def profile_rating(page: Any, name: str) -> tuple[float, int]:
    """Open ``name``'s profile from a link to it; its Battle Line rating and games."""
    page.click(f"a.profile-link[data-profile='{name}']")
    row = "#profile-ratings tr[data-game='battleline']"
    page.wait_for_selector(row, timeout=TIMEOUT_MS)
    assert page.inner_text("#profile-name").startswith(name)
    return (float(page.get_attribute(row, "data-ordinal") or "nan"),
            int(page.inner_text(f"{row} .games")))


@pytest.mark.timeout(180)
def test_a_rated_game_between_two_people_changes_both_ratings(
        arena: WebArena, browser: Any, artifacts: Path) -> None:
    contexts = [browser.new_context(viewport={"width": 1400, "height": 960}) for _ in range(2)]
    try:
        rita, ravi = (ctx.new_page() for ctx in contexts)
        errors = [console_errors(p) for p in (rita, ravi)]
        frames = [FrameLog(p) for p in (rita, ravi)]
        for page, name in ((rita, "rita"), (ravi, "ravi")):
            open_app(page, arena.http_url)
            sign_up(page, name, PASSWORD)

        # Both queue for a rated Battle Line game with the same clock: they are paired.
        for page in (rita, ravi):
            page.click("a.nav-link[href='#/']")
            page.click(".mode-tabs [data-mode='seek']")
            page.select_option("#play-clock", label="3 min + 2 s")
            page.check("#play-rated")
        rita.click("#play-go")
        rita.wait_for_selector(".seek-row", timeout=TIMEOUT_MS)
        ravi.click("#play-go")
        for page in (rita, ravi):
            page.wait_for_selector(".bl-root[data-viewer^='seat-']", timeout=TIMEOUT_MS)
        assert [f.sent_of("seek")[-1].get("rated") for f in frames] == [True, True]
        start = frames[0].received_of("match_start")[-1]
        assert frames[1].received_of("match_start")[-1]["match_id"] == start["match_id"]
        names = [s["name"] for s in start["seats"]]
        assert sorted(names) == ["ravi", "rita"]

        resign(rita)
        for page in (rita, ravi):
            page.wait_for_selector("#rating-changes", timeout=TIMEOUT_MS)
        end = frames[1].received_of("match_end", match_id=start["match_id"])[-1]
        ranks = end["outcome"]["ranks"]
        assert ranks[names.index("rita")] == 1 and end["outcome"]["reason"] == "resignation"
        expected = dict(zip(names, rate([INITIAL, INITIAL], ranks), strict=True))
        after = {r["account"]: Rating(r["after"]["mu"], r["after"]["sigma"])
                 for r in end["ratings"]}
        assert after == expected
        assert "ravi" in ravi.inner_text("#rating-changes")
        shot(ravi, artifacts, "rated-match-end.png")

        # Each profile (reached from a name on the page) shows the new rating and the match.
        for page, name in ((rita, "rita"), (ravi, "ravi")):
            ordinal, games = profile_rating(page, name)
            assert games == 1 and abs(ordinal - after[name].ordinal) < 1e-3
            row = f"#profile-matches tr[data-match-id='{start['match_id']}']"
            page.wait_for_selector(row, timeout=TIMEOUT_MS)
            assert page.get_attribute(row, "data-rated") == "true"
            assert page.get_attribute(row, "data-result") == ("loss" if name == "rita" else "win")
            page.wait_for_selector("#rating-chart .dot", timeout=TIMEOUT_MS)
        shot(ravi, artifacts, "profile.png")
        # ...and rita sees ravi's profile from the leaderboard of people.
        rita.click("#profile-ratings tr[data-game='battleline'] a[href='#/people/battleline']")
        rita.wait_for_selector("#people-leaderboard tr[data-account='ravi']", timeout=TIMEOUT_MS)
        ranked = rita.eval_on_selector_all("#people-leaderboard tbody tr",
                                           "rows => rows.map((r) => r.dataset.account)")
        assert ranked.index("ravi") < ranked.index("rita")
        ordinal, games = profile_rating(rita, "ravi")
        assert games == 1 and abs(ordinal - after["ravi"].ordinal) < 1e-3
        assert all(not e for e in errors), errors
    finally:
        for ctx in contexts:
            ctx.close()
