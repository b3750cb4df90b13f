"""A game the web client has no module for gets the generic page, and is played on it.

Goofspiel (``tests/games/goofspiel.py``) is registered only for this module, on the running
server, with a random bot offering to play it. In Chromium a guest picks it in the lobby, plays
the house bot and clicks bids until the match ends. The page must draw the generic page —
the view as a readable tree, the legal actions as buttons — never another game's table; it
draws only what the server sends (every ``events`` message carries the view, because the page
asks for views in hello), and every action it sends is one of its request's legal actions.
The finished match's replay is drawn from its per-step views on the same generic page.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_arena import WebArena
from web_pages import TIMEOUT_MS, FrameLog, console_errors, open_app, shot, wait_until

from bots.random_bot import RandomBot
from engine import registry
from tests.games.goofspiel import GAME as GOOFSPIEL

TREE_LEAVES = """(path) => [...document.querySelectorAll(
    `[data-view-tree] [data-path="${path}"] .tree-leaf`)].map((e) => e.textContent)"""


@pytest.fixture(scope="module")
def goofspiel(arena: WebArena) -> Iterator[None]:
    """Goofspiel on the server while this module runs, and a bot that plays it."""
    arena.on_loop(lambda: registry.register(GOOFSPIEL, replace=True))
    runner = arena.add_bot("goof-bot", RandomBot(seed=41), games=["goofspiel"], max_matches=4)
    try:
        yield
    finally:
        arena.on_loop(runner.stop)
        arena.on_loop(lambda: registry.unregister("goofspiel"))


def leaves(page: Any, path: str) -> list[str]:
    return list(page.evaluate(TREE_LEAVES, path))


@pytest.mark.timeout(120)
def test_goofspiel_is_played_to_the_end_by_clicking_on_the_generic_page(
        arena: WebArena, goofspiel: None, context: Any, artifacts: Path) -> None:
    page = context.new_page()
    errors = console_errors(page)
    frames = FrameLog(page)
    deadline = time.monotonic() + 20
    while not arena.autoplay_offered("goofspiel"):
        assert time.monotonic() < deadline, "the Goofspiel bot never offered to play"
        time.sleep(0.05)
    open_app(page, arena.http_url)
    page.click(".game-tabs [data-game='goofspiel']")
    page.click("#play-go")
    page.wait_for_selector(".gn-root[data-viewer='seat-0']", timeout=TIMEOUT_MS)
    start = frames.received_of("match_start")[0]
    match_id = start["match_id"]
    assert start["game"] == "goofspiel" and start["your_seat"] == 0
    assert page.locator(".bl-root, .cx-root").count() == 0  # never another game's table

    bids = 0
    while True:
        page.wait_for_selector(".gn-root[data-request], .gn-root[data-over]",
                               timeout=TIMEOUT_MS)
        if page.get_attribute(".gn-root", "data-over"):
            break
        request_id = page.get_attribute(".gn-root", "data-request")
        request = frames.received_of("request", request_id=request_id)[-1]
        # The page shows the request's view and exactly its legal actions, as buttons.
        view = request["view"]
        assert leaves(page, "hand") == [str(card) for card in view["hand"]]
        assert leaves(page, "scores") == [str(score) for score in view["scores"]]
        buttons = page.locator("[data-legal-action]")
        assert buttons.all_inner_texts() == [f"bid {a['bid']}" for a in request["legal_actions"]]
        if bids == 1:
            shot(page, artifacts, "generic-goofspiel-bid.png")
        buttons.nth(buttons.count() - 1).click()   # the highest card left
        bids += 1
        page.wait_for_function(
            "(id) => document.querySelector('.gn-root').dataset.request !== id",
            arg=request_id, timeout=TIMEOUT_MS)
    assert bids == GOOFSPIEL.info.default_options["cards"]

    # The end: the outcome banner and the final view, drawn as sent.
    end = frames.received_of("match_end", match_id=match_id)[0]
    assert end["outcome"]["reason"] == "score"
    assert page.locator(".gn-root .banner").count() == 1
    assert leaves(page, "scores") == [str(score) for score in end["view"]["scores"]]
    assert page.locator("[data-legal-action]").count() == 0
    shot(page, artifacts, "generic-goofspiel-end.png")

    # Only views drew the page: each events message carried one; the hello asked for them.
    assert [m.get("views") for m in frames.sent_of("hello")] == [True]
    events = frames.received_of("events", match_id=match_id)
    assert events and all("view" in m and "hand" in m["view"] for m in events)
    # Every bid sent was one of its request's legal actions, verbatim.
    requests = {m["request_id"]: m for m in frames.received_of("request", match_id=match_id)}
    sent = frames.sent_of("action")
    assert len(sent) == bids
    for action in sent:
        assert action["action"] in requests[action["request_id"]]["legal_actions"]

    # The replay: the same generic page, drawn from each step's view.
    page.click("[data-action='open-replay']")
    page.wait_for_selector("#replay-step", timeout=TIMEOUT_MS)
    replay = frames.received_of("replay")[0]
    last = len(replay["steps"])
    # It opens after the opening draw of chance (the first prize), Home comes back there.
    assert page.inner_text("#replay-step") == f"step 1 / {last}"
    assert page.locator(".replay-page .gn-root").count() == 1
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(".replay-page[data-step='0']", timeout=TIMEOUT_MS)
    assert leaves(page, "prizes") == []
    page.keyboard.press("Home")
    page.wait_for_selector(".replay-page[data-step='1']", timeout=TIMEOUT_MS)
    page.keyboard.press("End")
    page.wait_for_selector(f".replay-page[data-step='{last}']", timeout=TIMEOUT_MS)
    final = replay["steps"][-1]["view"]
    assert final == {k: v for k, v in end["view"].items() if k != "hand"}
    wait_until(page, lambda: leaves(page, "scores") == [str(s) for s in final["scores"]],
               what="the replay's last position")
    assert page.locator(".replay-page .banner").count() == 1
    assert not errors, errors
