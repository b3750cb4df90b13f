"""Whole games through the seeded driver: random playouts terminate with valid results,
replay identically, and the registry publishes the right facts."""

from __future__ import annotations

import json

from engine import registry
from engine.chexers import GAME
from engine.match import Match, play, random_policy, replay
from engine.rng import Rng


def _random_match(seed: int) -> Match:
    rng = Rng(seed)
    return play(GAME, [random_policy(rng.fork(f"seat{i}")) for i in range(3)], seed=seed)


def test_registry_info() -> None:
    game = registry.get("chexers")
    assert game is GAME
    info = game.info
    assert (info.name, info.title, info.min_seats, info.max_seats) == ("chexers", "Chexers", 3, 3)
    assert not info.chance and not info.hidden_information and not info.simultaneous
    assert info.seat_names == ("red", "green", "blue")


def test_100_seeded_random_games_end_with_valid_results() -> None:
    reasons: dict[str, int] = {}
    for seed in range(100):
        match = _random_match(seed)
        outcome = match.outcome
        assert outcome is not None
        state = match.state
        exits = [state["exits"][c] for c in "rgb"]
        assert outcome.scores == tuple(exits)
        assert state["turns"] == len(match.log) <= 768
        if outcome.reason == "exits":
            (winner,) = outcome.winners
            assert exits[winner] == 4 and max(e for s, e in enumerate(exits) if s != winner) < 4
            assert outcome.ranks[winner] == 0 and sorted(outcome.ranks) == [0, 1, 1]
            assert match.log[-1] == {str(winner): {"type": "EXIT",
                                                   "from": match.log[-1][str(winner)]["from"]}}
            assert (state["turns"] - 1) % 3 == winner
        else:
            assert outcome.is_draw and outcome.reason in ("turn_limit", "repetition")
            if outcome.reason == "turn_limit":
                assert state["turns"] == 768
            else:
                assert 4 in state["history"].values()
        reasons[outcome.reason] = reasons.get(outcome.reason, 0) + 1
    # Uniform play produces both kinds of ending (the referee's run: about half each).
    assert reasons.get("exits", 0) >= 20 and reasons.get("turn_limit", 0) >= 20


def test_same_seed_same_game_and_replay_is_identical() -> None:
    for seed in (3, 17):
        first, second = _random_match(seed), _random_match(seed)
        assert first.log == second.log and first.state == second.state
        record = json.loads(json.dumps(first.record()))
        states = [s for s, _ in replay(GAME, record)]
        assert states[-1] == first.state
        assert GAME.outcome(states[-1]) == first.outcome
        assert len(states) == len(first.log) + 1


def test_json_round_trip_mid_game_continues_identically() -> None:
    match = _random_match(5)
    state = GAME.initial_state(3, {})
    for entry in match.log[:200]:
        ((seat, action),) = entry.items()
        again = json.loads(json.dumps(state))
        a = GAME.apply(state, {int(seat): action}).state
        b = GAME.apply(again, {int(seat): action}).state
        assert a == b
        state = a
