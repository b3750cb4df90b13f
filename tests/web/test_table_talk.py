"""At the table in the browser: two people (two browser contexts) and a spectator (a third).

Resigning asks for confirmation; the two players chat while the spectator, who sees only the
spectators' chat, talks in it; a line is shown as text, never as markup; mute; the match list
says who won and how; a rematch swaps the seats; the replay of the first match opens on the
first position after the deal, drawn as each viewer saw it live, and steps with the keyboard.
And the lobby's custom clock and game options reach the match.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_lobby import sign_in_as_guest
from web_arena import WebArena
from web_pages import TIMEOUT_MS, FrameLog, console_errors, open_app, shot

PLAYERS = ".chat[data-channel='players']"
SPECTATORS = ".chat[data-channel='spectators']"


def say(page: Any, text: str) -> None:
    page.fill(".chat .chat-input", text)
    page.click(".chat [data-action='chat-send']")
    page.wait_for_function("(t) => [...document.querySelectorAll('.chat-line.mine .chat-text')]"
                           ".some((e) => e.textContent === t)", arg=text, timeout=TIMEOUT_MS)


def chat_texts(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".chat-line .chat-text",
                                          "els => els.map((e) => e.textContent)"))


def bottom_seat(page: Any) -> int:
    return int(page.get_attribute(".bl-root .seatbar-bottom", "data-seat") or -1)


@pytest.mark.timeout(180)
def test_chat_resign_rematch_lists_and_replay(arena: WebArena, browser: Any,
                                              artifacts: Path) -> None:
    contexts = [browser.new_context(viewport={"width": 1400, "height": 960}) for _ in range(3)]
    try:
        ann, bob, sam = (ctx.new_page() for ctx in contexts)
        errors = [console_errors(p) for p in (ann, bob, sam)]
        frames = [FrameLog(p) for p in (ann, bob, sam)]
        for page in (ann, bob, sam):
            open_app(page, arena.http_url)
        ann_name = sign_in_as_guest(ann, "ann")
        bob_name = sign_in_as_guest(bob, "bob")

        ann.click(".mode-tabs [data-mode='challenge']")
        ann.fill("#challenge-accounts", bob_name)
        ann.click("#play-go")
        bob.wait_for_selector(".challenge-row [data-action='accept']", timeout=TIMEOUT_MS)
        bob.click(".challenge-row [data-action='accept']")
        for page, seat in ((ann, 0), (bob, 1)):
            page.wait_for_selector(f".bl-root[data-viewer='seat-{seat}']", timeout=TIMEOUT_MS)
        match_id = frames[0].received_of("match_start")[-1]["match_id"]
        open_app(sam, arena.http_url, f"#/m/{match_id}")
        sam.wait_for_selector(".bl-root[data-viewer='spectator']", timeout=TIMEOUT_MS)
        live_bottom = [bottom_seat(p) for p in (ann, bob, sam)]
        assert live_bottom == [0, 1, 1]
        assert ann.is_visible(PLAYERS) and sam.is_visible(SPECTATORS)
        assert not sam.query_selector(PLAYERS) and not ann.query_selector(SPECTATORS)

        # The players talk; markup in a line is shown as text.
        say(ann, "good luck <b>bob</b><img src=x onerror=alert(1)>")
        bob.wait_for_selector(f"{PLAYERS} .chat-line[data-from='{ann_name}']",
                              timeout=TIMEOUT_MS)
        assert bob.inner_text(f"{PLAYERS} .chat-text") == \
            "good luck <b>bob</b><img src=x onerror=alert(1)>"
        assert not bob.query_selector(".chat b, .chat img")
        say(bob, "thanks")
        say(sam, "north will lose")
        assert chat_texts(sam) == ["north will lose"]
        shot(bob, artifacts, "table-chat.png")

        # Bob mutes Ann: her next line does not reach him (his own later line comes after it).
        bob.click(f".chat-line[data-from='{ann_name}'] [data-action='mute']")
        bob.wait_for_selector(f".chat-muted [data-account='{ann_name}']", timeout=TIMEOUT_MS)
        say(ann, "can you hear me?")
        say(bob, "quiet here")
        assert "can you hear me?" not in chat_texts(bob)
        assert not frames[1].received_of("chat_line", text="can you hear me?")

        # Resign asks first: one click arms the button, the second resigns.
        bob.click(".bl-prompt [data-action='resign']")
        assert bob.inner_text(".bl-prompt [data-action='resign']") == "Really resign?"
        bob.wait_for_timeout(100)
        assert not frames[1].sent_of("resign") and not bob.query_selector(".bl-root .banner")
        bob.click(".bl-prompt [data-action='resign']")
        for page in (ann, bob, sam):
            page.wait_for_selector(".bl-root .banner", timeout=TIMEOUT_MS)

        # The spectator heard none of the players' lines, the players none of his.
        assert {m["channel"] for m in frames[2].received_of("chat_line")} == {"spectators"}
        assert all(m["channel"] == "players"
                   for f in frames[:2] for m in f.received_of("chat_line"))

        # The match list says who won and how.
        sam.click("a.nav-link[href='#/matches']")
        row = f"tr[data-match-id='{match_id}'] .result-text"
        sam.wait_for_selector(row, timeout=TIMEOUT_MS)
        assert sam.inner_text(row) == f"{ann_name} won · resignation"

        # Rematch: Ann offers, Bob is told and accepts; the seats are swapped.
        ann.click(".rematch-bar [data-action='rematch']")
        bob.wait_for_selector(".rematch-bar[data-state='offered']", timeout=TIMEOUT_MS)
        assert ann_name in bob.inner_text(".rematch-bar")
        bob.click(".rematch-bar [data-action='rematch']")
        ann.wait_for_selector(".bl-root[data-viewer='seat-1']", timeout=TIMEOUT_MS)
        bob.wait_for_selector(".bl-root[data-viewer='seat-0']", timeout=TIMEOUT_MS)
        again = frames[0].received_of("match_start")[-1]
        assert again["match_id"] != match_id and again["your_seat"] == 1
        assert ann.url.endswith(f"#/m/{again['match_id']}")
        ann.click(".bl-prompt [data-action='resign']")
        ann.click(".bl-prompt [data-action='resign']")
        bob.wait_for_selector(".bl-root .banner", timeout=TIMEOUT_MS)

        # The first match's replay: after the deal, oriented as each saw it live.
        for n, page in enumerate((ann, sam)):
            open_app(page, arena.http_url, f"#/replay/{match_id}")
            page.wait_for_selector(".replay-page .bl-root", timeout=TIMEOUT_MS)
            replay = frames[0 if n == 0 else 2].received_of("replay")[-1]
            # (Bob resigned before Ann's first play: the replay is the deal, then the end.)
            dealt = next((i for i, step in enumerate(replay["steps"])
                          if set(step.get("actions") or {"-": 0}) != {"chance"}),
                         len(replay["steps"]))
            assert dealt > 0
            assert page.get_attribute(".replay-page", "data-step") == str(dealt)
            assert page.query_selector_all("[data-zone='replay-hand']"), "hands are dealt"
            assert bottom_seat(page) == live_bottom[0 if n == 0 else 2]
        shot(ann, artifacts, "replay-opening.png")
        last = len(frames[0].received_of("replay")[-1]["steps"])
        ann.keyboard.press("End")
        ann.wait_for_selector(f".replay-page[data-step='{last}']", timeout=TIMEOUT_MS)
        ann.keyboard.press("ArrowLeft")
        ann.wait_for_selector(f".replay-page[data-step='{last - 1}']", timeout=TIMEOUT_MS)
        ann.keyboard.press("Home")
        ann.wait_for_selector(f".replay-page[data-step='{dealt}']", timeout=TIMEOUT_MS)
        ann.keyboard.press("ArrowLeft")                     # before the deal, on request
        ann.wait_for_selector(f".replay-page[data-step='{dealt - 1}']", timeout=TIMEOUT_MS)
        ann.keyboard.press("ArrowRight")
        ann.wait_for_selector(f".replay-page[data-step='{dealt}']", timeout=TIMEOUT_MS)
        assert all(not e for e in errors), errors
    finally:
        for ctx in contexts:
            ctx.close()


@pytest.mark.timeout(60)
def test_a_custom_clock_and_the_games_options_reach_the_match(arena: WebArena, context: Any
                                                              ) -> None:
    page = context.new_page()
    errors = console_errors(page)
    frames = FrameLog(page)
    open_app(page, arena.http_url)
    page.wait_for_selector("#play-clock option", state="attached", timeout=TIMEOUT_MS)
    labels = page.eval_on_selector_all("#play-clock option", "els => els.map(e => e.textContent)")
    assert {"1 min + 0 s", "3 min + 2 s", "5 min + 3 s", "10 min + 5 s"} <= set(labels)
    page.select_option("#play-bot", "house-random-1")
    page.select_option("#play-clock", label="custom…")
    page.fill("#clock-bank", "2")
    page.fill("#clock-increment", "1")
    page.click(".game-options summary")
    page.select_option("#opt-claim_timing", "after_play")
    page.select_option("#opt-stalemate", "draw")
    page.click("#play-go")
    page.wait_for_selector(".bl-root[data-viewer='seat-0']", timeout=TIMEOUT_MS)
    start = frames.received_of("match_start")[-1]
    assert start["clock"] == {"initial_ms": 120000, "increment_ms": 1000}
    assert start["options"]["claim_timing"] == "after_play"
    assert start["options"]["stalemate"] == "draw"
    page.click(".bl-prompt [data-action='resign']")
    page.click(".bl-prompt [data-action='resign']")
    page.wait_for_selector(".bl-root .banner", timeout=TIMEOUT_MS)
    assert not errors, errors
