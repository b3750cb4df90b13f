"""One game as the RL envs play it: a :class:`~engine.match.Match` plus the observation
encoder and the action codec of its game. Both envs (:mod:`engine.envs.aec`,
:mod:`engine.envs.single`) are thin shells around it.

Chance is resolved inside, by the match's own seeded generator, so ``start(seed)`` deals
exactly as a server match with that seed would, and the same seed and actions give the same
episode. Observations are encoded from ``match.view(seat)`` only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
from gymnasium import spaces

from engine import registry
from engine.core import Outcome
from engine.envs.actions import ActionCodec, ActionNotAllowed, Mask, codec_for
from engine.envs.encoding import Encoder, Vector, encoder_for
from engine.match import Match, request_fields

OnIllegal = Literal["raise", "lose"]
ON_ILLEGAL: tuple[OnIllegal, ...] = ("raise", "lose")
"""What an action outside the mask does: raise :class:`ActionNotAllowed` (nothing applied),
or end the game with the acting seat ranked last (reason ``illegal_action``)."""

Observation = dict[str, Vector | Mask]


def rank_rewards(ranks: Sequence[int]) -> tuple[float, ...]:
    """Each seat's final reward from the outcome's ranks: the seats it beat minus the seats
    that beat it, over ``n - 1``. Two seats: win +1, loss -1, draw 0; three seats: a lone
    winner +1, the others -0.5 each; a full order +1, 0, -1. Always zero-sum."""
    n = len(ranks)
    if n < 2:
        return (0.0,) * n
    return tuple((sum(r > mine for r in ranks) - sum(r < mine for r in ranks)) / (n - 1)
                 for mine in ranks)


def match_seed(rng: np.random.Generator, seed: int | None) -> int:
    """The match seed of an episode: ``seed`` itself when given (so ``reset(seed=7)`` deals
    like a server match of seed 7), else the next draw of ``rng``."""
    return int(seed) if seed is not None else int(rng.integers(2**63))


class Episode:
    """A game of ``game_name`` for ``num_seats`` (default: its minimum) with ``options``;
    ``encoder`` and ``codec`` default to the game's own (:func:`encoder_for`,
    :func:`codec_for`). Call :meth:`start` before anything else."""

    def __init__(self, game_name: str, num_seats: int | None = None,
                 options: Mapping[str, Any] | None = None, *, encoder: Encoder | None = None,
                 codec: ActionCodec | None = None, on_illegal: OnIllegal = "raise") -> None:
        if on_illegal not in ON_ILLEGAL:
            raise ValueError(f"on_illegal is one of {', '.join(ON_ILLEGAL)}, not {on_illegal!r}")
        self.game = registry.get(game_name)
        self.num_seats = num_seats or self.game.info.min_seats
        self.options = self.game.normalize_options(options)
        self.encoder = encoder or encoder_for(self.game, self.num_seats, self.options)
        self.codec = codec or codec_for(self.game, self.num_seats, self.options)
        self.on_illegal = on_illegal
        self._match: Match | None = None
        self._seen: object = None
        self._vectors: dict[int, Vector] = {}

    # ---- spaces ----------------------------------------------------------------------------

    def observation_space(self) -> spaces.Dict:
        """A new space: ``{"observation": Box}`` plus ``"action_mask"`` (``int8`` 0/1, one per
        discrete action) when the codec masks."""
        parts: dict[str, spaces.Space[Any]] = {"observation": self.encoder.space()}
        action_space = self.codec.space()
        if self.codec.masked and isinstance(action_space, spaces.Discrete):
            parts["action_mask"] = spaces.Box(0, 1, (int(action_space.n),), np.int8)
        return spaces.Dict(parts)

    # ---- the game ----------------------------------------------------------------------------

    @property
    def match(self) -> Match:
        """The engine match being played (``match.record()`` replays it)."""
        if self._match is None:
            raise RuntimeError("call reset() first")
        return self._match

    def start(self, seed: int) -> None:
        """A new match with ``seed``, advanced through chance to the first decision."""
        self._match = Match(self.game, self.num_seats, self.options, seed)
        self._match.advance()

    def awaiting(self) -> tuple[int, ...]:
        return self.match.awaiting()

    @property
    def outcome(self) -> Outcome | None:
        return self.match.outcome

    def observe(self, seat: int) -> Observation:
        """``seat``'s observation now (new arrays): its view encoded, and its action mask (all
        zero when it need not act)."""
        match = self.match
        if self._seen is not match.state:  # encode each position once per seat
            self._seen, self._vectors = match.state, {}
        vector = self._vectors.get(seat)
        if vector is None:
            vector = self._vectors[seat] = self.encoder.encode(match.view(seat), seat)
        out: Observation = {"observation": vector.copy()}
        mask = self.codec.mask(match, seat)
        if mask is not None:
            out["action_mask"] = mask
        return out

    def act(self, seat: int, action: Any) -> None:
        """Apply ``seat``'s action (a value of the codec's space). An action the codec does
        not allow raises :class:`ActionNotAllowed` or, with ``on_illegal="lose"``, ends the
        game with ``seat`` last. ``seat`` must be one the game awaits (``RuntimeError``
        otherwise, e.g. after the end: call :meth:`start` again)."""
        match = self.match
        if seat not in match.awaiting():
            raise RuntimeError(f"seat {seat} need not act now"
                               + (" (the game is over)" if match.is_over else ""))
        try:
            chosen = self.codec.decode(match, seat, action)
        except ActionNotAllowed:
            if self.on_illegal == "raise":
                raise
            ranks = tuple(1 if s == seat else 0 for s in range(self.num_seats))
            match.finish(Outcome(ranks, "illegal_action"))
            return
        match.submit(seat, chosen)

    def rewards(self) -> tuple[float, ...]:
        """Per seat: :func:`rank_rewards` once the game is over, else zeros."""
        outcome = self.outcome
        return (0.0,) * self.num_seats if outcome is None else rank_rewards(outcome.ranks)

    def request(self, seat: int) -> dict[str, Any]:
        """The ``request`` message a server would send ``seat`` now, without a clock: what a
        bot's ``choose(request)`` reads (its view and legal actions or action space)."""
        match = self.match
        return {"type": "request", "match_id": "env", "request_id": str(len(match.log)),
                "seat": seat, "view": match.view(seat),
                **request_fields(self.game, match.state, seat, match.choices(seat)),
                "clock_ms": None, "deadline_ms": None}

    def render(self) -> str:
        """The position in the game's text notation: a referee's picture for a person
        watching, hidden cards included; agents see only :meth:`observe`."""
        return self.game.to_notation(self.match.state)

    def show(self, render_mode: str | None) -> str | None:
        """The envs' ``render()``: nothing without a render mode, the text for ``"ansi"``,
        printed (and ``None`` returned) for ``"human"``."""
        if render_mode is None:
            return None
        text = self.render()
        if render_mode == "human":
            print(text)
            return None
        return text
