"""Observations come from a seat's view only (no leak of hidden information), fit their
spaces, and Boundary's plan box always maps to a valid plan."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import registry, spaces
from engine.envs import AECGameEnv
from engine.envs.actions import PlanBox, point_in
from engine.envs.encoders import BattleLineEncoder, SegmentedEncoder
from engine.envs.encoding import HashedViewEncoder, encoder_for
from engine.match import Match
from engine.rng import Rng
from tests.envs.helpers import quick_options


@pytest.mark.parametrize("name", registry.names())
def test_segments_tile_the_vector(name: str) -> None:
    game = registry.get(name)
    encoder = encoder_for(game, game.info.min_seats, game.normalize_options(None))
    assert isinstance(encoder, SegmentedEncoder)
    assert sum(n for _, n in encoder.segments) == encoder.size
    assert len({s for s, _ in encoder.segments}) == len(encoder.segments)


@pytest.mark.parametrize("encoder", [None, HashedViewEncoder()], ids=["own", "hashed"])
def test_hidden_cards_never_reach_the_observation(encoder: HashedViewEncoder | None) -> None:
    """Battle Line: re-deal everything a seat cannot see (the engine's resample_hidden keeps
    its view) and its observation stays bit for bit the same; the other seat, whose hand
    was re-dealt, sees the difference, so the check has teeth."""
    env = AECGameEnv("battleline", encoder=encoder)
    game = env.episode.game
    rng = Rng(9)
    changed_for_other = 0
    for seed in range(3):
        env.reset(seed=seed)
        match = env.episode.match
        for _ in range(60):
            if match.is_over:
                break
            state = match.state
            for seat, agent in enumerate(env.possible_agents):
                mine = env.observe(agent)["observation"]
                other = env.possible_agents[1 - seat]
                theirs = env.observe(other)["observation"]
                match.state = game.resample_hidden(state, seat, rng)
                assert np.array_equal(env.observe(agent)["observation"], mine)
                changed_for_other += not np.array_equal(env.observe(other)["observation"],
                                                        theirs)
                match.state = state
            seat = match.awaiting()[0]
            legal = match.legal_actions(seat)
            match.submit(seat, legal[rng.below(len(legal))])
    assert changed_for_other > 0


def test_battleline_observation_reads_the_hand_and_the_table() -> None:
    env = AECGameEnv("battleline")
    env.reset(seed=1)
    encoder = env.episode.encoder
    assert isinstance(encoder, BattleLineEncoder)
    mine, theirs = env.observe("seat_0")["observation"], env.observe("seat_1")["observation"]
    hand = env.episode.match.view(0)["hand"]
    assert int(encoder.part(mine, "hand").sum()) == len(hand) == 7
    assert encoder.part(mine, "my_turn")[0] == 1 and encoder.part(theirs, "my_turn")[0] == 0
    assert encoder.part(mine, "decks")[0] == pytest.approx(46 / 60)
    assert list(encoder.part(mine, "their_hand")) == [pytest.approx(0.7), 0.0]


def test_observations_fit_their_space_along_a_game() -> None:
    for name in registry.names():
        env = AECGameEnv(name, options=quick_options(name))
        env.reset(seed=4)
        for agent in env.agent_iter(60):
            observation, _, termination, _, _ = env.last()
            assert env.observation_space(agent).contains(observation)
            env.step(None if termination else
                     env.action_space(agent).sample(observation.get("action_mask")))


def test_point_in_always_lands_in_the_point_space() -> None:
    rng = Rng(1)
    nodes = [spaces.point((400, 400), 40, (0, 0), (799, 799)),
             spaces.point((3, 797), 80, (0, 0), (799, 799)),  # a corner clips the disc
             spaces.point((0, 0), 0, (0, 0), (799, 799))]
    values = [-1.0, -0.5, 0.0, 0.999, 1.0, 7.0, -math.inf, math.nan]
    for node in nodes:
        for u in values:
            for v in values:
                assert spaces.contains(node, point_in(node, u, v))
        for _ in range(300):
            u, v = rng.random() * 2 - 1, rng.random() * 2 - 1
            assert spaces.contains(node, point_in(node, u, v))
    assert point_in(nodes[0], 0.0, 0.0) == [400, 400]
    assert point_in(nodes[0], 1.0, 0.0) == [440, 400]
    assert point_in(nodes[0], 1.0, 1.0) == [428, 428]  # the corner, pulled into the disc


def test_boundary_plan_box_gives_a_valid_plan_for_any_value() -> None:
    options = quick_options("boundary")
    env = AECGameEnv("boundary", options=options)
    codec = env.episode.codec
    assert isinstance(codec, PlanBox) and codec.rows == 4
    rng = np.random.default_rng(0)
    match = Match(env.episode.game, 2, options, seed=3)
    match.advance()
    stay = codec.decode(match, 1, np.zeros((codec.rows, 2)))
    assert stay == env.episode.game.default_action(match.state, 1)
    moves = 0
    while not match.is_over:
        for seat in match.awaiting():
            space = match.action_space(seat)
            plan = codec.decode(match, seat, rng.uniform(-1.5, 1.5, (codec.rows, 2)))
            assert space is not None and spaces.contains(space, plan)
            moves += len(plan["moves"])
            match.submit(seat, plan)
    assert moves > 0


def test_territory_decoding_agrees_with_boundarys_own_decoder() -> None:
    from engine.boundary.influence import decode_runs
    from engine.envs.encoders import _signed_cells

    env = AECGameEnv("boundary", options=quick_options("boundary"))
    env.reset(seed=6)
    match, codec = env.episode.match, env.episode.codec
    for turn in range(3):
        for seat in (0, 1):
            match.submit(seat, codec.decode(match, seat, np.full((4, 2), 0.9 - turn)))
    runs = match.view(0)["territory"]
    cells = decode_runs(runs).ravel()
    for seat in (0, 1):
        expected = (cells == seat).astype(np.float32) - (cells == 1 - seat).astype(np.float32)
        assert np.array_equal(_signed_cells(runs, seat), expected)
        assert (expected != 0).any()
