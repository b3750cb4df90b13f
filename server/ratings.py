"""Ladder ratings: OpenSkill's Plackett-Luce model, pinned, as pure functions on values.

One rated entity is one version of one bot of one account on one game's ladder. Its skill is
a Gaussian belief ``(mu, sigma)``; it is shown and ordered by the **ordinal** ``mu - 3 sigma``
(a conservative estimate that rises as games pin the skill down). A match with ``n`` seats
(2 or 3) is one update of all seats at once, with the engine's ranks as given: ``0`` is first
place and tied seats share a rank (a draw, or the two survivors of a three-seat timeout).

The model's parameters are fixed here (:data:`MODEL`), and ``openskill`` is pinned to an
exact version in ``pyproject.toml``: the same raw results in the same order give the same
ratings to the last bit, which is what lets ``arena ladder rerate`` recompute and check every
stored rating.

A new version may be *seeded* from an earlier version of the same bot
(:func:`seeded_rating`): it starts at that version's ``mu`` with its uncertainty raised back to
at least :data:`SEED_SIGMA`, so a real change of strength shows within a few games.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from openskill.models import PlackettLuce

MU: Final = 25.0
SIGMA: Final = 25.0 / 3.0
BETA: Final = 25.0 / 6.0
TAU: Final = 25.0 / 300.0
"""Dynamics: added to every sigma before an update, so ratings never freeze for good."""
SEED_SIGMA: Final = SIGMA / 2.0
"""The least uncertainty a seeded version starts with."""
Z: Final = 3.0

MODEL: Final = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)


@dataclass(frozen=True)
class Rating:
    """A skill belief. ``ordinal`` is what leaderboards sort by."""

    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        return self.mu - Z * self.sigma

    def to_json(self) -> dict[str, float]:
        return {"mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal}


INITIAL: Final = Rating()


def seeded_rating(previous: Rating) -> Rating:
    """Where a new version seeded from ``previous`` starts."""
    return Rating(previous.mu, max(previous.sigma, SEED_SIGMA))


def rate(ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """The ratings after one match: ``ratings[i]`` played seat ``i`` and finished at
    ``ranks[i]`` (0 best; equal ranks tie). Each seat is its own team of one. Raises
    ``ValueError`` for fewer than two seats or mismatched lengths."""
    if len(ratings) < 2 or len(ratings) != len(ranks):
        raise ValueError("a rated match has at least two seats, one rank per seat")
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    rated = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [Rating(team[0].mu, team[0].sigma) for team in rated]


def result_word(ranks: Sequence[int], seat: int) -> str:
    """``"draw"`` when every seat shares one rank, ``"win"`` for a seat ranked first (alone
    or shared with others who did not all tie), else ``"loss"``."""
    if all(r == ranks[0] for r in ranks):
        return "draw"
    return "win" if ranks[seat] == min(ranks) else "loss"
