"""The random bot: plays every game, knowing none.

It reads only ``request["legal_actions"]`` and picks one uniformly with its own seeded
generator, or, in a game that describes an ``action_space`` instead (Boundary), draws a
value from that space (:func:`engine.spaces.sample`), so with a seed the same sequence of
requests gets the same answers. It is the baseline every other bot must beat, and the
smallest example of a bot::

    arena bot random --games battleline,chexers --server ws://127.0.0.1:8765/ws --token T
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine import spaces


def random_answer(request: Mapping[str, Any], rng: random.Random) -> Any:
    """A uniformly random legal action of ``request``, or a random value of its
    ``action_space``: what :class:`RandomBot` answers, for tools that keep their own
    generator (the load generators of ``arena bench``)."""
    if "action_space" in request:
        return spaces.sample(request["action_space"], spaces.from_random(rng))
    legal = request["legal_actions"]
    if not legal:
        raise ValueError("a request always lists at least one legal action")
    return legal[rng.randrange(len(legal))]


class RandomBot:
    """``choose(request)``: a uniformly random legal action, or a random value of the
    request's action space."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(self, request: Mapping[str, Any]) -> Any:
        return random_answer(request, self.rng)
