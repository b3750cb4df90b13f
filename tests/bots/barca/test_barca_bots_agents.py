"""The Barca bots by name (bots/registry.py) through whole games against random: every answer
is one of the request's legal actions, and the games end."""

from __future__ import annotations

from typing import Any

import pytest

from bots import registry as bots
from bots.barca import BarcaBot, GreedyBarcaBot
from bots.chexers import GreedyBot
from engine.barca import GAME
from engine.match import Match


def test_registry_names() -> None:
    assert "barca" in bots.names()
    assert type(bots.create("barca", seed=1)) is BarcaBot
    assert type(bots.create("barca", game="barca")) is BarcaBot
    assert type(bots.create("greedy", game="barca")) is GreedyBarcaBot
    assert type(bots.create("greedy")) is GreedyBot  # elsewhere "greedy" stays Chexers'
    assert bots.create("barca", depth=2, weights=[1] * 15).depth == 2


def play_out(players: list[Any], seed: int) -> Match:
    match = Match(GAME, 2, seed=seed)
    match.advance()
    while not match.is_over:
        (seat,) = match.awaiting()
        legal = match.legal_actions(seat)
        req = {"view": match.view(seat), "legal_actions": legal, "seat": seat,
               "request_id": "r", "match_id": "m"}
        action = players[seat].choose(req)
        assert action in legal
        match.submit(seat, action)
    return match


@pytest.mark.parametrize(("name", "options"), [("barca", {"depth": 2}), ("greedy", {})])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_whole_games_against_random(name: str, options: dict[str, Any], seed: int) -> None:
    bot = bots.create(name, game="barca", **options)
    rnd = bots.create("random", seed=seed)
    players = [bot, rnd] if seed % 2 == 0 else [rnd, bot]
    match = play_out(players, seed)
    outcome = match.outcome
    assert outcome is not None
    assert outcome.reason in ("holes", "claim", "fivefold", "ply_cap")


def test_default_agent_plays_a_whole_game() -> None:
    """The registered agent at its default depth 3, one whole game against random."""
    match = play_out([bots.create("random", seed=5), bots.create("barca")], 5)
    assert match.outcome is not None
