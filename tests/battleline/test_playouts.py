"""Random playouts through the seeded driver, views, events and resampling of hidden cards."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from engine.battleline import GAME
from engine.battleline.cards import CARDS
from engine.core import Action, canonical_json
from engine.match import Match, play, random_policy
from engine.rng import Rng

from .helpers import position

OPTION_SETS: tuple[dict[str, str], ...] = (
    {},
    {"claim_timing": "after_play"},
    {"mud_excess": "forbid", "stalemate": "draw"},
)


def policies(seed: int) -> list:
    return [random_policy(Rng(seed).fork(f"seat-{s}")) for s in range(2)]


def test_two_hundred_seeded_games_terminate_with_sorted_unique_legal_lists() -> None:
    reasons: dict[str, int] = {}
    checked = 0

    def check(match: Match, chosen: Mapping[int, Action]) -> None:
        nonlocal checked
        state = match.state
        assert json.loads(json.dumps(state)) == state
        for seat in match.awaiting():
            legal = match.legal_actions(seat)
            keys = [GAME.action_key(a) for a in legal]
            assert keys == sorted(keys) and len(set(map(canonical_json, legal))) == len(legal)
            assert len(set(keys)) == len(keys)
        checked += 1

    for seed in range(200):
        match = play(GAME, policies(seed), seed=seed, options=OPTION_SETS[seed % 3],
                     on_step=check, max_steps=5_000)
        outcome = match.outcome
        assert outcome is not None and GAME.decision(match.state).terminal
        reasons[outcome.reason] = reasons.get(outcome.reason, 0) + 1
        assert sum(outcome.scores or ()) == sum(f["claimed"] is not None
                                                for f in match.state["flags"])
    assert set(reasons) <= {"five_flags", "breakthrough", "stalemate"}
    assert reasons.get("five_flags", 0) and reasons.get("breakthrough", 0)
    assert checked > 200 * 50


def test_the_same_seed_plays_the_same_match() -> None:
    a = play(GAME, policies(7), seed=7)
    b = play(GAME, policies(7), seed=7)
    assert a.log == b.log and a.state == b.state


def test_every_card_is_somewhere_exactly_once_throughout_a_game() -> None:
    def places(state: dict[str, Any]) -> list[str]:
        out = [c for h in state["hands"] for c in h]
        out += [c for d in state["decks"].values() for c in d]
        out += [c for d in state["tops"].values() for c, _ in d]
        out += [c for f in state["flags"] for side in f["sides"] for c in side]
        out += [c for f in state["flags"] for c in f["env"]]
        out += [c for pile in state["discards"] for c in pile]
        return out

    def check(match: Match, chosen: Mapping[int, Action]) -> None:
        assert sorted(places(match.state), key=CARDS.index) == list(CARDS)

    for seed in range(6):
        play(GAME, policies(seed), seed=seed, options=OPTION_SETS[seed % 3], on_step=check)


def hidden_strings(state: dict[str, Any], seat: int | None) -> set[str]:
    hidden = set(state["decks"]["troop"]) | set(state["decks"]["tactics"])
    hidden |= {c for d in state["tops"].values() for c, p in d if p != seat}
    for s in (0, 1):
        if s != seat:
            known = state["known"][seat] if seat is not None else []
            hidden |= {c for c in state["hands"][s] if c not in known}
    return hidden


def strings_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings_in(v) for v in value)) if value else set()
    return set()


@pytest.mark.parametrize("seed", range(4))
def test_views_and_events_never_show_hidden_cards(seed: int) -> None:
    rng = Rng(seed).fork("resample")

    def check(match: Match, chosen: Mapping[int, Action]) -> None:
        state = match.state
        for viewer in (0, 1, None):
            view = GAME.view(state, viewer)
            assert not strings_in(view) & hidden_strings(state, viewer)
            other = GAME.resample_hidden(state, viewer, rng)
            assert GAME.view(other, viewer) == view
            assert GAME.decision(other) == GAME.decision(state)
            if viewer is not None:
                assert GAME.legal_actions(other, viewer) == GAME.legal_actions(state, viewer)

    match = play(GAME, policies(seed), seed=seed, options=OPTION_SETS[seed % 3], on_step=check)
    assert match.is_over


def test_events_show_a_drawn_card_to_the_drawer_only() -> None:
    s = position(hands="1r/2b")
    t = GAME.apply(s, {0: {"type": "play", "card": "1r", "flag": 4}})
    assert t.events[0].render(None) == {"type": "play", "seat": 0, "card": "1r", "flag": 4}
    t = GAME.apply(t.state, {0: {"type": "draw", "deck": "troop"}})
    assert t.events == []        # the chance node follows
    t = GAME.apply(t.state, {-1: "9g"})
    (event,) = t.events
    assert event.render(0) == {"type": "draw", "seat": 0, "deck": "troop", "card": "9g"}
    assert event.render(1) == {"type": "draw", "seat": 0, "deck": "troop"}
    assert event.render(None) == {"type": "draw", "seat": 0, "deck": "troop"}


def test_resampling_keeps_what_the_seat_knows() -> None:
    s = position(hands="1o,2o/3b,4b,Fog,1r", tops="7r@0,8g@1/Mud@0", known="3b/-",
                 turn="0:play")
    rng = Rng(3)
    changed = False
    for _ in range(20):
        other = GAME.resample_hidden(s, 0, rng)
        assert other["hands"][0] == s["hands"][0]
        assert "3b" in other["hands"][1]                      # known to seat 0
        assert other["tops"]["troop"][1] == ["7r", 0]        # its own Scout return
        assert other["tops"]["tactics"] == [["Mud", 0]]
        kinds = GAME.view(other, 0)["hands"][1]
        assert kinds == {"troop": 3, "tactics": 1}
        changed |= other["hands"][1] != s["hands"][1]
        assert GAME.view(other, 0) == GAME.view(s, 0)
    assert changed
    spectator = GAME.resample_hidden(s, None, rng)
    assert GAME.view(spectator, None) == GAME.view(s, None)
    assert set(spectator["known"][0]) <= set(spectator["hands"][1])
