"""The fixed action catalogs (engine/envs/catalogs.py): every action once, well formed, in the
game's canonical order, and every action a game lists in play is catalogued."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from engine import registry
from engine.core import Action, canonical_json
from engine.envs.catalogs import catalog, has_catalog
from engine.match import Match, play, random_policy
from engine.rng import Rng

CATALOGUED = [name for name in registry.names() if has_catalog(registry.get(name))]
PLAYOUTS = {"battleline": 40, "chexers": 3, "barca": 3}
"""Random games per game: Battle Line's rarer tactics (Redeploy, Traitor, Deserter) need many
deals to show up; its games are short."""
GUILE = ("Scout", "Redeploy", "Deserter", "Traitor")


@pytest.mark.parametrize("name", CATALOGUED)
def test_catalog_is_canonical_unique_and_sorted(name: str) -> None:
    game = registry.get(name)
    actions = catalog(game)
    assert all(game.parse_action(a) == a for a in actions)
    assert len({canonical_json(a) for a in actions}) == len(actions)
    keys = [game.action_key(a) for a in actions]
    assert keys == sorted(keys)


@pytest.mark.parametrize("name", CATALOGUED)
def test_every_legal_action_in_play_is_catalogued(name: str) -> None:
    game = registry.get(name)
    known = {canonical_json(a) for a in catalog(game)}
    kinds: set[str] = set()  # the action shapes met (Battle Line's guile cards by name)

    def check(match: Match, chosen: Mapping[int, Action]) -> None:
        for seat in match.awaiting():
            for action in match.legal_actions(seat):
                assert canonical_json(action) in known, action
                kinds.add(action["card"] if action.get("card") in GUILE else action["type"])

    seats = game.info.min_seats
    for seed in range(PLAYOUTS[name]):
        play(game, [random_policy(Rng(seed * 10 + s)) for s in range(seats)], seed=seed,
             on_step=check)
    if name == "battleline":  # the walk did reach the guile cards' many shapes
        assert set(GUILE) | {"return", "claim", "draw"} <= kinds
