"""Chexers in the browser: the hex board with three colours and exit counters, played by
clicking against two seats of the random house bot, then resigned."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from web_arena import WebArena
from web_pages import TIMEOUT_MS, FrameLog, console_errors, open_app, shot, wait_until

BOARD = """() => ({
    hexes: document.querySelectorAll('.cx-board .hex').length,
    pieces: Object.fromEntries(['red', 'green', 'blue'].map((c) =>
        [c, [...document.querySelectorAll(`.cx-board .piece[data-colour="${c}"]`)]
            .map((e) => e.dataset.piece).sort()])),
    exits: Object.fromEntries([...document.querySelectorAll('[data-exits]')]
        .map((e) => [e.dataset.exits, e.innerText.trim()])),
    movable: [...document.querySelectorAll('.cx-board .piece.movable')].map((e) => e.dataset.piece),
    request: document.querySelector('.cx-root').dataset.request || null,
})"""

COLOURS = ("red", "green", "blue")


def key(hex_: list[int]) -> str:
    return f"{hex_[0]},{hex_[1]}"


@pytest.mark.timeout(120)
def test_chexers_board_play_and_resign(arena: WebArena, context: Any, artifacts: Path) -> None:
    page = context.new_page()
    errors = console_errors(page)
    frames = FrameLog(page)
    open_app(page, arena.http_url)
    page.click(".game-tabs [data-game='chexers']")
    options = page.eval_on_selector_all("#play-bot option", "els => els.map(e => e.value)")
    for account in ("house-maxn-1", "house-paranoid-1", "house-mp-mix-1", "house-greedy-1"):
        assert account in options
    page.select_option("#play-bot", "house-random-1")
    page.select_option("#play-seat", "0")
    page.select_option("#play-clock", label="30 min + 10 s")
    page.click("#play-go")
    page.wait_for_selector(".cx-root[data-viewer='seat-0']", timeout=TIMEOUT_MS)
    start = frames.received_of("match_start")[-1]
    match_id = start["match_id"]
    assert [s["name"] for s in start["seats"]] == [start["seats"][0]["name"], "house-random-1",
                                                   "house-random-1"]

    moves = 0
    while moves < 3:
        page.wait_for_selector(".cx-root[data-request]", timeout=TIMEOUT_MS)
        board = page.evaluate(BOARD)
        request = next(m for m in frames.received_of("request", match_id=match_id)
                       if m["request_id"] == board["request"])
        view = request["view"]
        # Three colours, 37 hexes, every piece where the view says, an exit counter each.
        assert board["hexes"] == 37
        for colour in COLOURS:
            assert board["pieces"][colour] == sorted(key(p) for p in view["pieces"][colour])
            assert board["exits"][colour] == f'{view["exits"][colour]}/4'
        legal = request["legal_actions"]
        assert sorted(board["movable"]) == sorted({key(a["from"]) for a in legal if "from" in a})
        action = next(a for a in legal if a["type"] in ("MOVE", "JUMP"))
        page.click(f'.cx-board .piece.movable[data-piece="{key(action["from"])}"]')
        targets = page.eval_on_selector_all(".cx-board .hex.is-target",
                                            "els => els.map(e => e.dataset.hex)")
        assert sorted(targets) == sorted(key(a["to"]) for a in legal
                                         if "to" in a and a["from"] == action["from"])
        if moves == 0:
            shot(page, artifacts, "chexers-piece-selected.png")
        before = len(frames.sent_of("action"))
        page.click(f'.cx-board .hex.is-target[data-hex="{key(action["to"])}"]')
        sent = wait_until(page, lambda n=before: frames.sent_of("action")[n:],
                          what="the action frame")
        assert sent[0]["action"] == action and sent[0]["request_id"] == request["request_id"]
        moves += 1
        page.wait_for_function("(id) => document.querySelector('.cx-root').dataset.request !== id",
                               arg=request["request_id"], timeout=TIMEOUT_MS)

    page.wait_for_selector(".cx-root[data-request]", timeout=TIMEOUT_MS)
    shot(page, artifacts, "chexers-board.png")
    page.click("[data-action='resign']")
    page.click("[data-action='resign']")  # the second click confirms
    page.wait_for_selector(".cx-root .banner", timeout=TIMEOUT_MS)
    end = frames.received_of("match_end", match_id=match_id)[0]
    assert end["outcome"]["reason"] == "resignation" and end["outcome"]["ranks"][0] == 1
    assert "resignation" in page.inner_text(".cx-root .banner")
    assert not errors, errors
