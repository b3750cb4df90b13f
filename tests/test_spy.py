"""The spy of ``arena bench spy`` (tools/bench/spy.py): a short run over every game finds no
leak, and every kind of leak planted in the real render path (a view, an event, an error, a
replay, a resync, the seed in a message) is found, so a clean run means something."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine import registry
from engine.battleline.game import BattleLine
from engine.core import Event, IllegalAction, State
from engine.match import Match
from protocol.messages import Encoding
from server import render, runner
from tools import cli
from tools.bench import spy

SHORT = {"battleline": 80, "boundary": 40}
"""Matches per game in the suite's short run; a game with only its seed to hide plays 2."""


def test_the_self_test_catches_every_planted_secret() -> None:
    assert spy.self_test() == []


@pytest.mark.parametrize("name", registry.names())
def test_a_short_spy_run_finds_no_leak(name: str) -> None:
    game = registry.get(name)
    matches = SHORT.get(name, 2)
    tally = spy.spy_game(game, matches)
    assert [leak.report() for leak in tally.leaks] == []
    assert tally.matches == matches
    # The wrong answers, resyncs (and in Boundary the default-action timeouts) happened.
    assert tally.messages > 10 * matches and tally.errors > 0 and tally.resyncs > 0
    if game.info.timeout == "default":
        assert tally.timeouts > 0


def leaks_of(name: str, matches: int = 3, **chances: float) -> list[spy.Leak]:
    return spy.spy_game(registry.get(name), matches, chances=spy.Chances(**chances)).leaks


def patch_view(monkeypatch: pytest.MonkeyPatch,
               extra: Callable[[State, int | None], dict[str, Any]]) -> None:
    original = BattleLine.view

    def leaky(self: BattleLine, state: State, seat: int | None) -> dict[str, Any]:
        return {**original(self, state, seat), **extra(state, seat)}
    monkeypatch.setattr(BattleLine, "view", leaky)


def test_a_view_with_the_opponents_hand_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    patch_view(monkeypatch, lambda state, seat: {} if seat is None else
               {"peek": list(state["hands"][1 - seat])})
    leaks = leaks_of("battleline")
    assert leaks and leaks[0].viewer is not None and "hidden card" in leaks[0].what
    assert "LEAK in battleline" in leaks[0].report()


def test_a_spectators_view_with_a_hand_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    patch_view(monkeypatch, lambda state, seat: {"hand": list(state["hands"][0])}
               if seat is None else {})
    leaks = leaks_of("battleline")
    assert leaks and leaks[0].viewer is None


def test_the_next_card_of_a_deck_in_a_text_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    patch_view(monkeypatch, lambda state, seat: {
        "note": f"the troop deck holds {', '.join(state['decks']['troop'][:1])}."})
    assert leaks_of("battleline")


def test_an_error_that_depends_on_the_opponents_hand_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    original = BattleLine.explain_illegal

    def leaky(self: BattleLine, state: State, seat: int, action: Any) -> IllegalAction:
        error = original(self, state, seat, action)
        hint = len(state["hands"][1 - seat]) and state["hands"][1 - seat][0]
        return IllegalAction(f"{error.message} (they hold {hint})", error.rule)
    monkeypatch.setattr(BattleLine, "explain_illegal", leaky)
    leaks = leaks_of("battleline", 5, wrong=0.5)
    assert leaks and leaks[0].message["type"] == "error"
    assert "depends on hidden information" in leaks[0].what


def test_a_pending_plan_in_the_public_committed_event_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    original = Match.submit

    def leaky(self: Match, seat: int, raw_action: Any) -> list[Event]:
        return [Event(e.type, {**e.data, **e.private.get(seat, {})}, e.private)
                if e.type == "committed" else e for e in original(self, seat, raw_action)]
    monkeypatch.setattr(Match, "submit", leaky)
    leaks = leaks_of("boundary")
    assert leaks and "pending plan" in leaks[0].what


def test_another_seats_commitment_in_a_resync_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    original = render.render_for

    def leaky(match: Any, viewer: int | None, kind: Any, **kw: Any) -> dict[str, Any]:
        message = original(match, viewer, kind, **kw)
        others = [s for s in match.committed() if s != viewer]
        if kind == "match_start" and others:
            message["commitment"] = match.commitment(others[0])
        return message
    monkeypatch.setattr(runner, "render_for", leaky)
    leaks = leaks_of("boundary", 10, resync=0.5)
    assert leaks and leaks[0].message["type"] == "match_start"


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
def test_the_seed_in_a_message_is_caught(monkeypatch: pytest.MonkeyPatch,
                                         encoding: Encoding) -> None:
    original = render.render_for

    def leaky(match: Any, viewer: int | None, kind: Any, **kw: Any) -> dict[str, Any]:
        message = original(match, viewer, kind, **kw)
        if kind == "match_start":
            message["debug"] = match.match.seed
        return message
    monkeypatch.setattr(runner, "render_for", leaky)
    tally = spy.spy_game(registry.get("chexers"), 1, encodings=[encoding])
    assert tally.leaks and "the seed" in tally.leaks[0].what
    assert tally.leaks[0].encoding == encoding


def test_a_live_replay_with_a_seats_views_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def leaky(match: Any, head: dict[str, Any]) -> None:
        head["start_view"] = match.game.view(match.state, 0)
    monkeypatch.setattr(render, "_add_live_views", leaky)
    leaks = leaks_of("battleline", 3, live_replay=0.5)
    assert leaks and leaks[0].message["type"] == "replay"


def test_arena_bench_spy_prints_figures_and_fails_on_a_leak(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "spy", "--game", "battleline", "--matches", "3"]) == 0
    out = capsys.readouterr().out
    assert out.split("\n")[1].split()[:2] == ["battleline", "3"] and out.split("\n")[1][-1] == "0"
    # Only the spectators' view leaks: the seats' requests of the spy's self-test stay clean.
    patch_view(monkeypatch, lambda state, seat: {"all": state["hands"]} if seat is None else {})
    assert cli.main(["bench", "spy", "--game", "battleline", "--matches", "3"]) == 1
    assert "LEAK in battleline (seed " in capsys.readouterr().out
