"""The tamed garbage collector (:class:`server.app.Collector`) and what makes it safe: the
server's matches leave no garbage in reference cycles, so freezing what survives a
collection loses nothing of theirs."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
from collections.abc import Iterator

import pytest

from engine import registry, spaces
from engine.match import Match
from engine.rng import Rng
from server.app import ArenaServer, Collector
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import play_random


@pytest.fixture
def saved_collector() -> Iterator[None]:
    """Leave the collector as the test found it."""
    thresholds, enabled = gc.get_threshold(), gc.isenabled()
    yield
    gc.set_threshold(*thresholds)
    gc.unfreeze()
    gc.set_debug(0)
    gc.garbage.clear()
    if enabled:
        gc.enable()


@contextlib.contextmanager
def cyclic_garbage() -> Iterator[collections.Counter[str]]:
    """With the collector off inside; afterwards the counter holds the types of what was
    left in reference cycles meanwhile."""
    left: collections.Counter[str] = collections.Counter()
    gc.collect()
    gc.disable()
    try:
        yield left
    finally:
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left.update(type(obj).__qualname__ for obj in gc.garbage)
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


@pytest.mark.parametrize("game_name", registry.names())
def test_a_whole_match_of_every_game_leaves_no_cycles(game_name: str,
                                                      saved_collector: None) -> None:
    game = registry.get(game_name)

    with cyclic_garbage() as left:
        match, rng = Match(game, game.info.min_seats, seed=7), Rng(7)
        for _ in range(400):
            if match.is_over:
                break
            for seat in match.awaiting():
                space = match.action_space(seat)
                if space is not None:
                    match.submit(seat, spaces.sample(space, rng))
                else:
                    legal = match.legal_actions(seat)
                    match.submit(seat, legal[rng.below(len(legal))])
            match.advance()
    assert left == collections.Counter()


async def test_matches_on_a_live_server_leave_no_cycles(server: ArenaServer,
                                                        saved_collector: None) -> None:
    """Five Battle Line matches between two connected bots, through the whole server (runner,
    recorder, audience, listing, replays): nothing of them is left in a cycle."""
    a = await account_client(server, "gc-a")
    b = await account_client(server, "gc-b")
    with cyclic_garbage() as left:
        for n in range(5):
            match_id = await challenge_match(a, [b], "battleline")
            await asyncio.gather(play_random(a, match_id, 2 * n), play_random(b, match_id, n))
        ref = await a.send({"type": "get_replay", "match_id": match_id})
        await a.expect_reply(ref)
    assert left == collections.Counter()
    for client in (a, b):
        await client.close()


async def test_survivors_are_frozen_and_the_full_collection_takes_cycles_back(
        saved_collector: None) -> None:
    collector = Collector(young=100, full_every_s=3600)
    collector.install()
    try:
        assert gc.get_threshold()[0] == 100
        frozen = gc.get_freeze_count()

        class Node:
            def __init__(self) -> None:
                self.me = self  # a cycle

        nodes = [Node() for _ in range(1000)]  # young collections happen on the way
        assert gc.get_freeze_count() > frozen + 900  # the survivors went out of reach
        del nodes  # now garbage in cycles, the frozen ones out of a young collection's reach
        young = gc.collect(0)
        assert young < 100
        assert young + collector.full() >= 1000
    finally:
        collector.uninstall()
    assert gc.get_freeze_count() == 0
    assert collector._collected not in gc.callbacks
