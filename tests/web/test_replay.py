"""The replay viewer: step forward and back through a finished Battle Line match, from the
first position after the deal (where it opens) to the end and back.

At each position looked at, the page's table (both sides of every flag, claims, both hands
— a finished match's log is public — and the deck counts) must equal the engine's state
after that many steps of the match's record, read over HTTP (``/api/matches/<id>``).
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

from engine import registry
from engine.match import actions_of
from engine.rng import Rng
from tests.server_tests.test_e2e_duplicate import play
from tests.server_tests.wsclient import WsClient

REPLAY_TABLE = """() => {
    const root = document.querySelector('.bl-root');
    const cards = (el, sel) => [...el.querySelectorAll(sel)].map((e) => e.dataset.card);
    return {
        step: Number(document.querySelector('.replay-page').dataset.step),
        flags: [...root.querySelectorAll('.bl-flag-col')].map((col) => ({
            sides: [0, 1].map((s) => cards(col, `.bl-side[data-side="${s}"] .card`)),
            claimed: col.querySelector('[data-flag-marker]').dataset.claimed,
        })),
        hands: [0, 1].map((s) => cards(root, `[data-hand-of="${s}"] [data-zone="replay-hand"]`)),
        decks: [Number(root.querySelector('[data-deck-count="troop"]').textContent),
                Number(root.querySelector('[data-deck-count="tactics"]').textContent)],
        banner: Boolean(root.querySelector('.banner')),
    };
}"""


def finished_match(arena: WebArena) -> str:
    """The newest Battle Line match that was played out (the ladder bots make plenty)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for m in arena.matches("battleline"):
            # A match played to its end, so the replay has plays, claims and tactics to show.
            if (m["status"] == "over" and m["outcome"] and m["moves"] >= 40
                    and m["outcome"]["reason"] in ("five_flags", "breakthrough", "stalemate")):
                return str(m["match_id"])
        time.sleep(0.2)
    raise AssertionError("no finished Battle Line match")


def states(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The engine's state after each number of steps of the record (0 .. len(log))."""
    game = registry.get(record["game"])
    state = game.initial_state(record["num_seats"], record["options"])
    out = [state]
    for entry in record["log"]:
        state = game.apply_unchecked(state, actions_of(entry)).state
        out.append(state)
    return out


def expected_table(state: dict[str, Any], step: int) -> dict[str, Any]:
    return {
        "step": step,
        "flags": [{"sides": [list(f["sides"][0]), list(f["sides"][1])],
                   "claimed": "" if f["claimed"] is None else str(f["claimed"])}
                  for f in state["flags"]],
        "hands": [list(state["hands"][0]), list(state["hands"][1])],
        "decks": [len(state["decks"][d]) + len(state["tops"][d]) for d in ("troop", "tactics")],
    }


def check_position(page: Any, truth: list[dict[str, Any]], step: int) -> dict[str, Any]:
    page.wait_for_selector(f".replay-page[data-step='{step}']", timeout=TIMEOUT_MS)
    shown = page.evaluate(REPLAY_TABLE)
    banner = shown.pop("banner")
    assert shown == expected_table(truth[step], step), step
    return {"banner": banner}


@pytest.mark.timeout(120)
def test_stepping_through_a_finished_match(arena: WebArena, context: Any,
                                           artifacts: Path) -> None:
    match_id = finished_match(arena)
    with urllib.request.urlopen(f"{arena.http_url}/api/matches/{match_id}", timeout=10) as r:
        record = json.loads(r.read())["record"]
    record.setdefault("game", "battleline")
    truth = states(record)
    last = len(truth) - 1

    page = context.new_page()
    errors = console_errors(page)
    frames = FrameLog(page)
    open_app(page, arena.http_url, f"#/replay/{match_id}")
    page.wait_for_selector("#replay-step", timeout=TIMEOUT_MS)
    replay = frames.received_of("replay")[0]
    assert replay["match_id"] == match_id and len(replay["steps"]) == last
    # It opens on the first position after the deal (the opening steps of chance).
    dealt = next(i for i, step in enumerate(replay["steps"])
                 if set(step.get("actions") or {"-": 0}) != {"chance"})
    assert dealt > 0 and all(truth[dealt]["hands"])
    assert page.inner_text("#replay-step") == f"step {dealt} / {last}"
    check_position(page, truth, dealt)

    # One click at a time forward, and back one.
    for _ in range(3):
        page.click("[data-action='next']")
    check_position(page, truth, dealt + 3)
    page.click("[data-action='prev']")
    check_position(page, truth, dealt + 2)
    # The keyboard: End and Home jump; the arrows step.
    page.keyboard.press("End")
    end = check_position(page, truth, last)
    assert end["banner"], "the last step shows the outcome"
    shot(page, artifacts, "replay-battleline-end.png")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    check_position(page, truth, last - 2)
    page.keyboard.press("Home")  # back to the first position after the deal
    check_position(page, truth, dealt)
    page.keyboard.press("ArrowLeft")  # the positions before it are still there
    check_position(page, truth, dealt - 1)
    # The slider: a click in the middle of its track lands near the middle of the match.
    box = page.locator("#replay-slider").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function("() => Number(document.querySelector('.replay-page').dataset.step)"
                           " > 0", timeout=TIMEOUT_MS)
    middle = int(page.get_attribute(".replay-page", "data-step") or 0)
    assert abs(middle - last / 2) <= max(3, last // 10), (middle, last)
    check_position(page, truth, middle)
    shot(page, artifacts, "replay-battleline-middle.png")
    # Play runs forward by itself; pause stops it.
    page.click("[data-action='play']")
    wait_until(page, lambda: int(page.get_attribute(".replay-page", "data-step") or 0)
               >= middle + 3, what="autoplay to advance")
    page.click("[data-action='play']")
    stopped = int(page.get_attribute(".replay-page", "data-step") or 0)
    page.wait_for_timeout(800)
    assert int(page.get_attribute(".replay-page", "data-step") or 0) == stopped
    check_position(page, truth, stopped)
    assert {m["type"] for m in frames.sent} <= {"hello", "list_games", "get_replay"}
    assert not errors, errors


def test_the_replays_of_a_duplicate_pair_link_each_other(arena: WebArena, context: Any) -> None:
    """A pair against a house bot (``play_bot`` with ``duplicate``): while game 2 is live,
    game 1's replay is sealed and points at the live twin; once both are over, each replay
    links the other — the same deal with the seats swapped. The twin opens at once although
    the first replay (with views) left the connection's rate budget in debt: the page waits
    the server's ``retry_after`` and asks again."""
    assert arena.server is not None
    client = arena.call(WsClient.open(arena.server.ws_url))
    assert arena.call(client.hello(name="pairs"))["type"] == "welcome"
    ref = arena.call(client.send({"type": "play_bot", "game": "battleline",
                                  "bot": "house-random-1", "duplicate": True}))
    game1 = arena.call(client.expect_reply(ref))
    game2 = arena.call(client.expect("match_start"))
    first, second = game1["match_id"], game2["match_id"]
    assert game1["pair"]["twin"] == second
    arena.call(play(client, {first}, Rng(1)), timeout=120)

    page = context.new_page()
    errors = console_errors(page)
    open_app(page, arena.http_url, f"#/replay/{first}")
    page.wait_for_selector("text=still being played", timeout=TIMEOUT_MS)
    assert "other match of this duplicate pair" in page.inner_text(".replay-page")
    assert page.get_attribute(".replay-page a.primary", "href") == f"#/m/{second}"

    arena.call(play(client, {second}, Rng(2)), timeout=120)
    arena.call(client.expect("pair_end", pair_id=game1["pair"]["id"]))
    page.close()   # (the same route again would not re-render: a fresh page)
    page = context.new_page()
    later = console_errors(page)
    open_app(page, arena.http_url, f"#/replay/{first}")
    page.wait_for_selector("#replay-step", timeout=TIMEOUT_MS)
    twin = page.locator("[data-action='twin']")
    assert twin.inner_text() == "Duplicate: game 2 of the pair"
    assert twin.get_attribute("href") == f"#/replay/{second}"
    names = page.inner_text(".match-head .muted")
    twin.click()
    page.wait_for_function(
        f"() => document.querySelector('.match-id')?.textContent === 'match {second}'",
        timeout=TIMEOUT_MS)
    page.wait_for_selector("#replay-step", timeout=TIMEOUT_MS)
    back = page.locator("[data-action='twin']")
    assert back.inner_text() == "Duplicate: game 1 of the pair"
    assert back.get_attribute("href") == f"#/replay/{first}"
    assert page.inner_text(".match-head .muted") == " vs ".join(reversed(names.split(" vs ")))
    assert not errors and not later, errors + later
    arena.call(client.close())
