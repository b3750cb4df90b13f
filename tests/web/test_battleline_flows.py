"""Every guile flow of the Battle Line table, click by click, on positions from the real engine.

A whole game against a bot only meets the tactics cards its deal brings. Here the table
component (``clients/web/games/battleline.js``, loaded from the server) is fed the exact
``match_start`` and ``request`` messages the server would send for positions found by random
playouts of the engine, and each flow is clicked through: Scout (play, three draws, two
returns), Redeploy (to a flag, and to the discard pile), Deserter, Traitor and an environment
card. At each step the table must highlight exactly the legal choices, and what it sends must
be one of the request's legal actions.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from web_arena import WebArena
from web_pages import TIMEOUT_MS

from engine import registry
from engine.core import CHANCE

GAME = registry.get("battleline")

HARNESS = """<!doctype html>
<html><head><meta charset="utf-8"><link rel="stylesheet" href="/style.css"></head>
<body><main class="site-main"><div id="table" class="board-root"></div></main>
<script type="module">
import { BattleLineTable } from "/games/battleline.js";
window.sent = [];
let table = null;
window.feed = (start, request) => {
  if (!table || start) {
    table = new BattleLineTable(document.getElementById("table"), {
      seats: start.seats, me: start.your_seat, send: (action) => window.sent.push(action),
      resign: () => {} });
    table.start(start);
  }
  table.onRequest(request);
};
window.ready = true;
</script></body></html>"""

Predicate = Callable[[dict[str, Any], int, list[Any]], bool]


def find_position(predicate: Predicate, seeds: range = range(400)) -> tuple[dict[str, Any], int]:
    """A state where the seat to act has legal actions satisfying ``predicate``."""
    for seed in seeds:
        rng = random.Random(seed)
        state = GAME.initial_state(2, {})
        while True:
            decision = GAME.decision(state)
            if decision.terminal:
                break
            if decision.chance:
                outcomes = GAME.chance_outcomes(state)
                state = GAME.apply_unchecked(state, {CHANCE: rng.choice(outcomes)[0]}).state
                continue
            seat = decision.seats[0]
            legal = GAME.legal_actions(state, seat)
            if predicate(state, seat, legal):
                return state, seat
            state = GAME.apply_unchecked(state, {seat: rng.choice(legal)}).state
    raise AssertionError("no position found")


def messages(state: dict[str, Any], seat: int, n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    view = GAME.view(state, seat)
    start = {"type": "match_start", "match_id": "flows", "game": "battleline",
             "options": dict(state["options"]),
             "seats": [{"seat": 0, "name": "north-player", "kind": "human"},
                       {"seat": 1, "name": "south-player", "kind": "human"}],
             "your_seat": seat, "clock": None, "clocks_ms": None, "view": view,
             "status": "live", "seq": 0}
    request = {"type": "request", "match_id": "flows", "request_id": f"r{n}", "seat": seat,
               "view": view, "legal_actions": GAME.legal_actions(state, seat), "clock_ms": None}
    return start, request


def advance(state: dict[str, Any], seat: int, action: Any, rng: random.Random
            ) -> dict[str, Any] | None:
    """Apply ``action`` and any chance that follows; the new state if ``seat`` acts again."""
    state = GAME.apply_unchecked(state, {seat: action}).state
    while GAME.decision(state).chance:
        outcomes = GAME.chance_outcomes(state)
        state = GAME.apply_unchecked(state, {CHANCE: rng.choice(outcomes)[0]}).state
    decision = GAME.decision(state)
    return state if not decision.terminal and decision.seats == (seat,) else None


class Table:
    """The harness page, fed engine positions."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.n = 0

    def show(self, state: dict[str, Any], seat: int, fresh: bool) -> list[Any]:
        self.n += 1
        start, request = messages(state, seat, self.n)
        self.page.evaluate("([s, r]) => window.feed(s, r)", [start if fresh else None, request])
        self.page.wait_for_selector(f".bl-root[data-request='r{self.n}']", timeout=TIMEOUT_MS)
        legal: list[Any] = request["legal_actions"]
        return legal

    def sent(self) -> list[Any]:
        sent: list[Any] = self.page.evaluate("() => window.sent")
        return sent

    def cards(self, selector: str) -> list[str]:
        found: list[str] = self.page.eval_on_selector_all(
            selector, "els => els.map(e => e.dataset.flag ? `${e.dataset.flag}:${e.dataset.card}`"
                      " : (e.dataset.dropFlag || e.dataset.card))")
        return found


@pytest.fixture
def table(arena: WebArena, context: Any) -> Table:
    page = context.new_page()
    page.route("**/__flows.html", lambda route: route.fulfill(
        status=200, content_type="text/html", body=HARNESS))
    page.goto(f"{arena.http_url}/__flows.html")
    page.wait_for_function("() => window.ready === true", timeout=TIMEOUT_MS)
    return Table(page)


def plays_of(legal: list[Any], card: str) -> list[dict[str, Any]]:
    return [a for a in legal if a["type"] == "play" and a["card"] == card]


def has_play(card: str, extra: Callable[[dict[str, Any]], bool] = lambda a: True) -> Predicate:
    return lambda state, seat, legal: any(extra(a) for a in plays_of(legal, card))


@pytest.mark.timeout(120)
def test_scout_three_draws_then_two_returns(table: Table) -> None:
    state, seat = find_position(lambda s, seat, legal: bool(plays_of(legal, "Scout"))
                                and all(len(s["decks"][d]) >= 3 for d in ("troop", "tactics")))
    legal = table.show(state, seat, fresh=True)
    page = table.page
    page.click('.bl-hand [data-card="Scout"]')
    assert table.cards("[data-drop-flag]") == []  # Scout goes to no flag
    page.click('[data-action="scout"]')
    assert table.sent()[-1] == {"type": "play", "card": "Scout"} and table.sent()[-1] in legal
    rng = random.Random(7)
    current: dict[str, Any] | None = advance(state, seat, table.sent()[-1], rng)
    draws = returns = 0
    decks = ["troop", "tactics", "troop"]
    while current is not None:
        legal = table.show(current, seat, fresh=False)
        kinds = {a["type"] for a in legal}
        before = len(table.sent())
        if "draw" in kinds:
            text = page.inner_text(".prompt-text")
            assert text.startswith(f"Scout: draw {3 - draws} more"), text
            page.click(f'button.bl-deck[data-deck="{decks[draws]}"]')
            draws += 1
        else:
            assert kinds == {"return"}
            returnable = sorted(table.cards(".bl-hand .card.returnable"))
            assert returnable == sorted(a["card"] for a in legal)
            assert "back on top" in page.inner_text(".prompt-text")
            page.click(f'.bl-hand [data-card="{legal[0]["card"]}"]')
            returns += 1
        sent = table.sent()
        assert len(sent) == before + 1 and sent[-1] in legal
        current = advance(current, seat, sent[-1], rng)
    assert (draws, returns) == (3, 2)
    assert [a["deck"] for a in table.sent() if a["type"] == "draw"] == decks


@pytest.mark.timeout(60)
@pytest.mark.parametrize("to_discard", [False, True])
def test_redeploy_to_a_flag_or_the_discard_pile(table: Table, to_discard: bool) -> None:
    state, seat = find_position(has_play("Redeploy", lambda a: a["to_flag"] is None))
    legal = table.show(state, seat, fresh=True)
    redeploys = plays_of(legal, "Redeploy")
    page = table.page
    page.click('.bl-hand [data-card="Redeploy"]')
    assert sorted(table.cards(".bl-board .card.is-target")) == \
        sorted({f'{a["from_flag"]}:{a["target"]}' for a in redeploys})
    wanted = next(a for a in redeploys if (a["to_flag"] is None) == to_discard)
    page.click(f'.bl-board .card.is-target[data-flag="{wanted["from_flag"]}"]'
               f'[data-card="{wanted["target"]}"]')
    same = [a for a in redeploys if (a["from_flag"], a["target"]) == (wanted["from_flag"],
                                                                       wanted["target"])]
    assert sorted(int(f) for f in table.cards("[data-drop-flag]")) == \
        sorted(a["to_flag"] for a in same if a["to_flag"] is not None)
    if to_discard:
        page.click('[data-action="discard"]')
    else:
        page.click(f'[data-drop-flag="{wanted["to_flag"]}"]')
    assert table.sent() == [wanted]


@pytest.mark.timeout(60)
def test_deserter_and_cancel(table: Table) -> None:
    state, seat = find_position(has_play("Deserter"))
    legal = table.show(state, seat, fresh=True)
    deserters = plays_of(legal, "Deserter")
    page = table.page
    page.click('.bl-hand [data-card="Deserter"]')
    assert sorted(table.cards(".bl-board .card.is-target")) == \
        sorted(f'{a["flag"]}:{a["target"]}' for a in deserters)
    page.click('[data-action="cancel"]')  # changing one's mind clears the highlights
    assert table.cards(".bl-board .card.is-target") == []
    page.click('.bl-hand [data-card="Deserter"]')
    wanted = deserters[-1]
    page.click(f'.bl-board .card.is-target[data-flag="{wanted["flag"]}"]'
               f'[data-card="{wanted["target"]}"]')
    assert table.sent() == [wanted]


@pytest.mark.timeout(60)
def test_traitor_takes_a_troop_to_a_free_slot(table: Table) -> None:
    state, seat = find_position(has_play("Traitor", lambda a: a["to_flag"] != a["from_flag"]))
    legal = table.show(state, seat, fresh=True)
    traitors = plays_of(legal, "Traitor")
    page = table.page
    page.click('.bl-hand [data-card="Traitor"]')
    assert sorted(table.cards(".bl-board .card.is-target")) == \
        sorted({f'{a["from_flag"]}:{a["target"]}' for a in traitors})
    wanted = next(a for a in traitors if a["to_flag"] != a["from_flag"])
    page.click(f'.bl-board .card.is-target[data-flag="{wanted["from_flag"]}"]'
               f'[data-card="{wanted["target"]}"]')
    page.click(f'[data-drop-flag="{wanted["to_flag"]}"]')
    assert table.sent() == [wanted]


@pytest.mark.timeout(60)
def test_fog_goes_beside_a_flag(table: Table) -> None:
    state, seat = find_position(has_play("Fog"))
    legal = table.show(state, seat, fresh=True)
    fogs = plays_of(legal, "Fog")
    page = table.page
    page.click('.bl-hand [data-card="Fog"]')
    drops = sorted(int(f) for f in table.cards("[data-drop-flag]"))
    assert drops == sorted(a["flag"] for a in fogs)
    page.click(f'[data-drop-flag="{fogs[-1]["flag"]}"]')
    assert table.sent() == [fogs[-1]]


@pytest.mark.timeout(60)
def test_a_tactics_card_over_the_limit_cannot_be_picked(table: Table) -> None:
    def over_limit(state: dict[str, Any], seat: int, legal: list[Any]) -> bool:
        played = state["tactics_played"]
        return (played[seat] > played[1 - seat] and any(a["type"] == "play" for a in legal)
                and any(not card[:-1].isdigit() for card in state["hands"][seat]))
    state, seat = find_position(over_limit)
    table.show(state, seat, fresh=True)
    tactics = [c for c in state["hands"][seat] if not c[:-1].isdigit()]
    for card in tactics:
        button = table.page.locator(f'.bl-hand [data-card="{card}"]')
        assert button.is_disabled()
        assert "more tactics cards than your opponent" in (button.get_attribute("title") or "")
