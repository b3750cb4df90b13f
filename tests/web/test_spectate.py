"""Spectating a live bot-vs-bot Battle Line match: the page holds no hidden information.

Both what the page received (every websocket frame) and what it shows (the DOM: card
attributes and visible text) are checked against the server's full state of the match,
read *after* the page was sampled: a card hidden then was hidden at every earlier moment
(cards only ever go from the decks into hands and from hands onto the table, and Scout puts
hand cards back on the decks), so nothing the page had may be among them. The page asks for
views in hello, so every ``events`` message it gets carries the spectator's view, and those
views are checked like everything else it received. The page's table must also equal the
server's public table (it draws the views it is sent), and a spectator can act on nothing.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from web_arena import WebArena
from web_pages import TIMEOUT_MS, FrameLog, console_errors, open_app, shot, wait_until

PRIVATE_KEYS = {"hand", "known_tops", "opponent_known", "seed", "log"}
SPECTATOR_MAY_SEND = {"hello", "list_games", "list_matches", "spectate", "leave", "ping"}

PAGE_TABLE = """() => {
    const root = document.querySelector('.bl-root');
    const cards = (el, sel) => [...el.querySelectorAll(sel)].map((e) => e.dataset.card);
    return {
        seq: Number(root.dataset.seq),
        flags: [...root.querySelectorAll('.bl-flag-col')].map((col) => ({
            sides: [0, 1].map((s) => cards(col, `.bl-side[data-side="${s}"] .card`)),
            env: cards(col, '.env .card').sort(),
            claimed: col.querySelector('[data-flag-marker]').dataset.claimed,
        })),
        backs: [0, 1].map((s) => ({
            troop: root.querySelectorAll(`[data-hand-of="${s}"] [data-back="troop"]`).length,
            tactics: root.querySelectorAll(`[data-hand-of="${s}"] [data-back="tactics"]`).length,
        })),
        decks: {
            troop: Number(root.querySelector('[data-deck-count="troop"]').textContent),
            tactics: Number(root.querySelector('[data-deck-count="tactics"]').textContent),
        },
    };
}"""

WATCHED = """(seq) => {
    const r = document.querySelector('.bl-root');
    return r.dataset.over || Number(r.dataset.seq) >= seq;
}"""

PAGE_SNAPSHOT = """() => ({
    dataCards: [...document.querySelectorAll('[data-card]')].map((e) => e.dataset.card),
    text: document.body.innerText,
    faceUpInSeatBars: document.querySelectorAll('.seatbar [data-card]').length,
    ownHand: document.querySelectorAll('.bl-hand').length,
    enabledButtons: document.querySelectorAll('.bl-root button:not([disabled])').length,
})"""


def hidden_cards(state: dict[str, Any]) -> set[str]:
    """Every card a spectator must not know: both hands and every deck card (Scout-returned
    cards on top of the decks included)."""
    hidden = set(state["hands"][0]) | set(state["hands"][1])
    for deck in ("troop", "tactics"):
        hidden |= set(state["decks"][deck])
        hidden |= {card for card, _seat in state["tops"][deck]}
    return hidden


def walk(value: Any, keys: set[str], strings: set[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            keys.add(key)
            walk(item, keys, strings)
    elif isinstance(value, list):
        for item in value:
            walk(item, keys, strings)
    elif isinstance(value, str):
        strings.add(value)


def public_table(state: dict[str, Any]) -> dict[str, Any]:
    """The server's state as the page's table shows it."""
    return {
        "flags": [{"sides": [list(f["sides"][0]), list(f["sides"][1])],
                   "env": sorted(f["env"]),
                   "claimed": "" if f["claimed"] is None else str(f["claimed"])}
                  for f in state["flags"]],
        "backs": [{"troop": sum(1 for c in hand if c[:-1].isdigit()),
                   "tactics": sum(1 for c in hand if not c[:-1].isdigit())}
                  for hand in state["hands"]],
        "decks": {d: len(state["decks"][d]) + len(state["tops"][d]) for d in ("troop", "tactics")},
    }


def live_watch_match(arena: WebArena, exclude: set[str]) -> str:
    """A live match between the two slow watch bots, well past its deal."""
    def find() -> str | None:
        for m in arena.matches("battleline"):
            names = {s["name"] for s in m["seats"]}
            if (m["status"] == "live" and names == {"watch-1", "watch-2"}
                    and m["moves"] >= 16 and m["match_id"] not in exclude):
                return str(m["match_id"])
        return None
    import time
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = find()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("no live bot-vs-bot match to watch")


@pytest.mark.timeout(120)
def test_a_spectator_page_holds_no_hidden_information(arena: WebArena, context: Any,
                                                       artifacts: Path) -> None:
    tried: set[str] = set()
    for _attempt in range(3):
        match_id = live_watch_match(arena, tried)
        tried.add(match_id)
        page = context.new_page()
        try:
            if watch_and_check(arena, page, match_id, artifacts):
                return
        finally:
            page.close()
    raise AssertionError("every watched match ended before it could be checked")


def watch_and_check(arena: WebArena, page: Any, match_id: str, artifacts: Path) -> bool:
    """Spectate ``match_id`` and check the page; ``False`` if the match ended too soon."""
    errors = console_errors(page)
    frames = FrameLog(page)
    open_app(page, arena.http_url, f"#/m/{match_id}")
    page.wait_for_selector(".bl-root[data-viewer='spectator']", timeout=TIMEOUT_MS)
    start = frames.received_of("match_start", match_id=match_id)
    assert len(start) == 1 and start[0]["your_seat"] is None
    first_seq = int(page.get_attribute(".bl-root", "data-seq") or 0)
    # Watch a few steps happen (or the end: then the caller watches another match).
    page.wait_for_function(WATCHED, arg=first_seq + 6, timeout=TIMEOUT_MS)
    snapshot = page.evaluate(PAGE_SNAPSHOT)
    received = list(frames.received)
    state = arena.live_state(match_id)   # read after the page: see the module docstring
    if state is None or page.get_attribute(".bl-root", "data-over"):
        return False
    hidden = hidden_cards(state)
    assert hidden, "nothing hidden left to leak: the check would prove nothing"

    # The page asked for views, and every events message it got carries the public view.
    assert [m.get("views") for m in frames.sent_of("hello")] == [True], frames.sent_of("hello")
    assert frames.received_of("welcome")[0]["views"] is True
    watched = [m for m in received if m.get("type") == "events" and m["match_id"] == match_id]
    assert len(watched) >= 6 and all("view" in m for m in watched), watched
    assert all(m["view"]["hands"] and "hand" not in m["view"] for m in watched)
    # What the page was sent.
    for message in received:
        keys: set[str] = set()
        strings: set[str] = set()
        walk(message, keys, strings)
        assert not keys & PRIVATE_KEYS, message
        assert not strings & hidden, (strings & hidden, message)
        if message.get("type") == "events":
            for event in message["events"]:
                if event["type"] in ("deal", "draw", "return"):
                    assert "card" not in event, event
    # What the page shows.
    assert not set(snapshot["dataCards"]) & hidden, set(snapshot["dataCards"]) & hidden
    words = set(re.findall(r"[A-Za-z0-9]+", snapshot["text"]))
    assert not words & hidden, words & hidden
    assert snapshot["faceUpInSeatBars"] == 0 and snapshot["ownHand"] == 0
    assert snapshot["enabledButtons"] == 0  # a spectator can act on nothing
    # It asked for nothing it may not have, and sent no action.
    assert {m["type"] for m in frames.sent} <= SPECTATOR_MAY_SEND, frames.sent

    # The page's table is the server's public table (checked at a quiet moment).
    def tables_agree() -> bool:
        shown = page.evaluate(PAGE_TABLE)
        now = arena.live_state(match_id)
        if now is None:
            return True  # over: the final view arrived; compared by the play test
        expected = public_table(now)
        return all(shown[k] == expected[k] for k in ("flags", "backs", "decks"))
    wait_until(page, tables_agree, timeout_s=20, what="the page's table to match the server's")
    shot(page, artifacts, "spectate-battleline.png")

    # Leaving the page stops the watching.
    page.click("a.nav-link[href='#/']")
    wait_until(page, lambda: frames.sent_of("leave"), what="the leave message")
    assert frames.sent_of("leave")[0]["match_id"] == match_id
    assert not errors, errors
    return True
