"""Observations: a seat's view as a fixed-length numeric vector.

An :class:`Encoder` turns ``game.view(state, seat)`` (and nothing else: it never sees the
state, so hidden information cannot reach an agent through it) into a ``float32`` vector of
a fixed size with every entry in ``[low, high]``. Per-game encoders
(:mod:`engine.envs.encoders`) lay out what the game's rules make relevant; a game without
one gets :class:`HashedViewEncoder`, which works on any JSON view.

Encoders are relative to the seat they encode for ("mine" before "theirs"), so one policy can
learn from every seat.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from engine.core import Game
from engine.rng import seed_from_text

Vector = NDArray[np.float32]


class Encoder(ABC):
    """A view -> vector map for one game (its seat count and options fixed).

    ``size`` entries, each in ``[low, high]``; :meth:`encode` returns a new array every call
    (callers may keep or change it)."""

    size: int
    low: float = 0.0
    high: float = 1.0

    @abstractmethod
    def encode(self, view: Mapping[str, Any], seat: int) -> Vector:
        """The vector of ``seat``'s ``view``."""

    def space(self) -> spaces.Box:
        """A new ``Box`` that holds every vector :meth:`encode` returns."""
        return spaces.Box(self.low, self.high, (self.size,), np.float32)


class HashedViewEncoder(Encoder):
    """Any game: each leaf of the view (its path and value, e.g. ``flags.2.claimed=1``) sets
    one of ``size`` buckets to 1 (a stable FNV hash picks it). Lossy where leaves collide,
    but fixed-length, bounded and true to the view; a game worth learning deserves its own
    encoder."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size

    def encode(self, view: Mapping[str, Any], seat: int) -> Vector:
        out = np.zeros(self.size, np.float32)
        for feature in _leaves(view, ""):
            out[seed_from_text(feature) % self.size] = 1.0
        return out


def _leaves(value: Any, path: str) -> Iterator[str]:
    if isinstance(value, Mapping):
        for key in sorted(value):
            yield from _leaves(value[key], f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{path}.{i}")
    else:
        yield f"{path}={value!r}"


EncoderFactory = Callable[[Game, int, Mapping[str, Any]], Encoder]
_ENCODERS: dict[str, str] = {
    # game name -> class in engine.envs.encoders (imported on first use, like the games)
    "barca": "BarcaEncoder",
    "battleline": "BattleLineEncoder",
    "boundary": "BoundaryEncoder",
    "chexers": "ChexersEncoder",
}


def encoder_for(game: Game, num_seats: int, options: Mapping[str, Any]) -> Encoder:
    """The game's own encoder, or a :class:`HashedViewEncoder` for a game without one.
    ``options`` are the match's normalized options."""
    name = _ENCODERS.get(game.info.name)
    if name is None:
        return HashedViewEncoder()
    from engine.envs import encoders
    factory: EncoderFactory = getattr(encoders, name)
    return factory(game, num_seats, options)
