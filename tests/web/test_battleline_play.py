"""A whole Battle Line game against a house bot, played by clicking in real Chromium.

The test's "human" decides with a simple strategy from the request the page received (claim
whenever a flag is claimable, take a tactics card early and play it, otherwise build
formations), then does it only through the page: a card in the hand, a highlighted flag,
a claim button, a deck. At every decision it checks that the page offers exactly the legal
actions (enabled hand cards, claim buttons, drawable decks, highlighted flags) and that the
frame the page sent is the chosen action, verbatim, answering the open request.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from web_arena import WebArena
from web_pages import TIMEOUT_MS, FrameLog, console_errors, open_app, shot, wait_until

COLOURS = "roygbp"
MAX_DECISIONS = 400
GUILE_PREFERENCE = ["Scout", "Redeploy", "Traitor", "Deserter", "Fog", "Mud",
                    "Alexander", "Darius", "Cavalry", "Shield"]


def is_troop(card: str) -> bool:
    return card[-1] in COLOURS and card[:-1].isdigit()


def value(card: str) -> int:
    return int(card[:-1])


class Human:
    """The strategy; it only decides. Tracks what it did for the assertions."""

    def __init__(self) -> None:
        self.claims = 0
        self.tactics_played: list[str] = []
        self.scout_returns = 0

    def choose(self, request: dict[str, Any]) -> dict[str, Any]:
        legal = request["legal_actions"]
        view = request["view"]
        me = request["seat"]
        by_type: dict[str, list[dict[str, Any]]] = {}
        for action in legal:
            by_type.setdefault(action["type"], []).append(action)
        if "claim" in by_type:
            return by_type["claim"][0]
        if "return" in by_type:
            return by_type["return"][0]
        if "draw" in by_type:
            decks = {a["deck"]: a for a in by_type["draw"]}
            holds_tactics = any(not is_troop(c) for c in view["hand"])
            if "tactics" in decks and not holds_tactics and len(self.tactics_played) < 2:
                return decks["tactics"]
            return decks.get("troop") or decks["tactics"]
        plays = by_type.get("play", [])
        tactics = [a for a in plays if not is_troop(a["card"])]
        if tactics and len(self.tactics_played) < 3:
            tactics.sort(key=lambda a: GUILE_PREFERENCE.index(a["card"]))
            card = tactics[0]["card"]
            options = [a for a in tactics if a["card"] == card]
            # Moving a card (not discarding it) exercises the whole two-step flow.
            options.sort(key=lambda a: a.get("to_flag") is None)
            return options[0]
        troops = [a for a in plays if is_troop(a["card"])]
        if troops:
            return max(troops, key=lambda a: self.score(a, view, me))
        if "end_claims" in by_type:
            return by_type["end_claims"][0]
        return by_type["pass"][0]

    @staticmethod
    def score(action: dict[str, Any], view: dict[str, Any], me: int) -> tuple[float, int, int]:
        """Prefer building same-colour runs, then same values; open new flags with high
        cards; keep it deterministic (flag and card order break ties)."""
        card = action["card"]
        side = view["flags"][action["flag"] - 1]["sides"][me]
        troops = [c for c in side if is_troop(c)]
        score = 0.0
        if not side:
            score = 1 + value(card) / 10
        for other in troops:
            if other[-1] == card[-1] and abs(value(other) - value(card)) <= 2:
                score += 5
            elif value(other) == value(card):
                score += 4
            elif other[-1] == card[-1]:
                score += 2
        return (score, -action["flag"], value(card))


# The game is over, or a request the test has not answered yet is open on the table.
NEXT_DECISION = """(done) => {
    const r = document.querySelector('.bl-root');
    return r && (r.dataset.over || (r.dataset.request && !done.includes(r.dataset.request)));
}"""


def dom_state(page: Any) -> dict[str, Any]:
    """What the table offers right now, read from the DOM."""
    state: dict[str, Any] = page.evaluate("""() => {
        const root = document.querySelector('.bl-root');
        const cards = (sel) => [...root.querySelectorAll(sel)].map((e) => e.dataset.card);
        return {
            request: root.dataset.request || null,
            over: Boolean(root.dataset.over),
            enabledHand: cards('.bl-hand button.card:not([disabled])'),
            claims: [...root.querySelectorAll('[data-claim]')]
                .map((e) => Number(e.dataset.claim)),
            decks: [...root.querySelectorAll('button.bl-deck:not([disabled])')]
                .map((e) => e.dataset.deck),
            drops: [...root.querySelectorAll('[data-drop-flag]')]
                .map((e) => Number(e.dataset.dropFlag)),
            pass: Boolean(root.querySelector('[data-action=pass]')),
        };
    }""")
    return state


def check_offer(dom: dict[str, Any], legal: list[dict[str, Any]]) -> None:
    """The page lets you compose exactly the legal actions: nothing more, nothing less."""
    returns = {a["card"] for a in legal if a["type"] == "return"}
    plays = {a["card"] for a in legal if a["type"] == "play"}
    assert set(dom["enabledHand"]) == (returns or plays), (dom, legal)
    assert sorted(dom["claims"]) == sorted(a["flag"] for a in legal if a["type"] == "claim")
    assert sorted(dom["decks"]) == sorted(a["deck"] for a in legal if a["type"] == "draw")
    assert dom["pass"] == any(a["type"] == "pass" for a in legal)
    assert dom["drops"] == []  # nothing is highlighted before a card is picked


def perform(page: Any, action: dict[str, Any], legal: list[dict[str, Any]],
            shots: dict[str, Any]) -> None:
    """Do ``action`` with clicks only, checking the highlights at each step."""
    kind = action["type"]
    if kind == "claim":
        if "claim" not in shots:
            shots["claim"] = True
            shots["shoot"]("battleline-2-claimable.png")
        page.click(f'[data-claim="{action["flag"]}"]')
    elif kind == "return":
        page.click(f'.bl-hand [data-card="{action["card"]}"]')
    elif kind == "draw":
        page.click(f'button.bl-deck[data-deck="{action["deck"]}"]')
    elif kind == "pass":
        page.click('[data-action="pass"]')
    elif kind == "end_claims":
        page.click('[data-action="end_claims"]')
    else:
        card = action["card"]
        same_card = [a for a in legal if a["type"] == "play" and a["card"] == card]
        page.click(f'.bl-hand [data-card="{card}"]')
        if card == "Scout":
            page.click('[data-action="scout"]')
        elif "target" not in action:  # a card that goes to a flag
            drops = sorted(int(x) for x in page.eval_on_selector_all(
                "[data-drop-flag]", "els => els.map(e => e.dataset.dropFlag)"))
            assert drops == sorted(a["flag"] for a in same_card), (drops, same_card)
            if "select" not in shots and is_troop(card):
                shots["select"] = True
                shots["shoot"]("battleline-1-card-selected.png")
            page.click(f'[data-drop-flag="{action["flag"]}"]')
        else:
            from_flag = action.get("from_flag", action.get("flag"))
            targets = page.eval_on_selector_all(
                ".bl-board .card.is-target",
                "els => els.map(e => `${e.dataset.flag}:${e.dataset.card}`)")
            assert sorted(targets) == sorted({f'{a.get("from_flag", a.get("flag"))}:{a["target"]}'
                                              for a in same_card}), (targets, same_card)
            page.click(f'.bl-board .card.is-target[data-flag="{from_flag}"]'
                       f'[data-card="{action["target"]}"]')
            if card in ("Redeploy", "Traitor"):
                if "move" not in shots:
                    shots["move"] = True
                    shots["shoot"](f"battleline-3-{card.lower()}-destination.png")
                if action["to_flag"] is None:
                    page.click('[data-action="discard"]')
                else:
                    page.click(f'[data-drop-flag="{action["to_flag"]}"]')


@pytest.mark.timeout(180)
def test_a_whole_battle_line_game_by_clicking(arena: WebArena, context: Any,
                                              artifacts: Path) -> None:
    page = context.new_page()
    errors = console_errors(page)
    frames = FrameLog(page)
    open_app(page, arena.http_url)
    # Deep Barca is on offer; the test plays the fast random house bot. (The lobby's form is
    # drawn once the games are listed, a moment after the hello.)
    page.wait_for_selector("#play-bot option", state="attached", timeout=TIMEOUT_MS)
    options = page.eval_on_selector_all("#play-bot option", "els => els.map(e => e.textContent)")
    assert any(o.startswith("Deep Barca") for o in options), options
    page.select_option("#play-bot", "house-random-1")
    page.select_option("#play-clock", label="30 min + 10 s")
    shot(page, artifacts, "lobby.png")
    page.click("#play-go")
    page.wait_for_selector(".bl-root[data-viewer='seat-0']", timeout=TIMEOUT_MS)
    start = frames.received_of("match_start")[-1]
    match_id = start["match_id"]
    assert start["your_seat"] == 0 and [s["name"] for s in start["seats"]][1] == "house-random-1"
    assert page.url.endswith(f"#/m/{match_id}")

    human = Human()
    shots: dict[str, Any] = {"shoot": lambda name: shot(page, artifacts, name)}
    answered: set[str] = set()
    for _ in range(MAX_DECISIONS):
        page.wait_for_function(NEXT_DECISION, arg=sorted(answered), timeout=TIMEOUT_MS)
        dom = dom_state(page)
        if dom["over"]:
            break
        request = next(m for m in frames.received_of("request", match_id=match_id)
                       if m["request_id"] == dom["request"])
        legal = request["legal_actions"]
        check_offer(dom, legal)
        action = human.choose(request)
        before = len(frames.sent_of("action"))
        perform(page, action, legal, shots)
        sent = wait_until(page, lambda n=before: frames.sent_of("action")[n:],
                          what="the action frame")
        assert len(sent) == 1
        assert sent[0]["action"] == action and sent[0]["request_id"] == request["request_id"]
        assert sent[0]["match_id"] == match_id
        answered.add(request["request_id"])
        if action["type"] == "claim":
            human.claims += 1
        elif action["type"] == "play" and not is_troop(action["card"]):
            human.tactics_played.append(action["card"])
            if len(human.tactics_played) == 1:
                shot(page, artifacts, f"battleline-4-after-{action['card'].lower()}.png")
    else:
        raise AssertionError("the game did not end within the decision budget")

    page.wait_for_selector(".bl-root .banner", timeout=TIMEOUT_MS)
    end = frames.received_of("match_end", match_id=match_id)
    assert len(end) == 1
    outcome = end[0]["outcome"]
    assert outcome["reason"] in ("five_flags", "breakthrough", "stalemate"), outcome
    banner = page.inner_text(".bl-root .banner")
    assert banner.startswith(("You win", "You lose", "Draw")), banner
    # The page's final table agrees with the server's final view, flag by flag.
    final = end[0]["view"]
    for flag in final["flags"]:
        for seat in (0, 1):
            shown = page.eval_on_selector_all(
                f'.bl-side[data-flag="{flag["flag"]}"][data-side="{seat}"] .card',
                "els => els.map(e => e.dataset.card)")
            assert shown == flag["sides"][seat], (flag, seat, shown)
        marker = page.get_attribute(f'[data-flag-marker="{flag["flag"]}"]', "data-claimed")
        assert marker == ("" if flag["claimed"] is None else str(flag["claimed"]))
    assert human.claims >= 1, "the game ended without the human claiming a flag"
    assert human.tactics_played, "the human never played a tactics card"
    shot(page, artifacts, "battleline-5-game-over.png")
    assert not errors, errors
