"""Duplicate pairs: one deal played twice, seats swapped, with one result. No I/O.

Card games are noisy: the better player loses to the better cards. Duplicate play (bridge and
poker competitions do it) takes most of that luck out: the same deal is played twice, each
player once in each seat, and the pair is scored as a whole. On this server a pair is two
matches of a two-seat game with chance (Battle Line; Boundary at two seats), made by one
``challenge`` with ``duplicate: true`` or by a ladder whose game plays pairs:

* one seed, and chance from a deck fixed by that seed (``Match(..., chance="deck")``,
  :class:`engine.match.FixedOrder`): *every* draw is the same in both matches, not only the
  opening hands, however the two games go;
* game 1 seats the players ``[P, Q]``, game 2 ``[Q, P]``; both start together;
* each match is an ordinary match (its own requests, clocks, ``match_end``) that names its
  pair (:class:`PairInfo`: ``match_start``, ``match_end``, the listings and replays carry
  it);
* once both have ended, the pair's result (:func:`pair_result`: a game won counts 1, drawn
  ½; the player with more points wins the pair) goes to both players and to the spectators
  of either match (:func:`pair_end_message`). A match that ended void (a server fault, an
  admin's abort, a resume that failed) makes the whole pair void: unrated.

While one match of a pair is still live, the record of the other is *sealed*: its log shows
the deck's order, which is the live match's deck too. A sealed match replays like a live one
(public events only) and its record is not served (:attr:`server.live.LiveMatch.sealed`).

:class:`Pairs` keeps the pairs under way on one server: the server registers each pair as it
starts (or resumes after a restart) and reports each match's end; it says when a pair is
complete.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core import Outcome


@dataclass(frozen=True)
class PairInfo:
    """What one match of a pair knows of it: the pair's id, which game of the pair it is
    (1: the players as the challenge or the ladder seated them; 2: seats swapped) and the
    other match's id. On the wire: ``{"id", "game", "twin"}``."""

    pair_id: str
    game: int
    twin: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.pair_id, "game": self.game, "twin": self.twin}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> PairInfo | None:
        if data is None:
            return None
        return cls(str(data["id"]), int(data["game"]), str(data["twin"]))


def game_points(outcome: Outcome, seat: int) -> float:
    """What one game is worth to ``seat``: 1 for a win (first rank, not shared by every
    seat), ½ for a draw (every seat shares a rank), 0 for a loss."""
    ranks = outcome.ranks
    if all(r == ranks[0] for r in ranks):
        return 0.5
    return 1.0 if ranks[seat] == min(ranks) else 0.0


def pair_result(first: Outcome, second: Outcome) -> tuple[tuple[float, float], tuple[int, int]]:
    """The points and ranks of the two players of a pair, in game 1's seat order (player
    ``P`` held seat 0 of game 1 and seat 1 of game 2): ``((points P, points Q), (rank P,
    rank Q))``. 2-0 and 1½-½ win the pair, 1-1 draws it."""
    p = game_points(first, 0) + game_points(second, 1)
    q = game_points(first, 1) + game_points(second, 0)
    ranks = (0, 0) if p == q else ((0, 1) if p > q else (1, 0))
    return (p, q), ranks


def points_text(points: Sequence[float]) -> str:
    """``2-0``, ``1.5-0.5``, ``1-1``: a pair's score as a reason reads it."""
    return "-".join(f"{x:g}" for x in points)


@dataclass(frozen=True)
class Ended:
    """How one match of a pair ended: ``over`` with an outcome, or ``void``."""

    status: str
    outcome: Outcome | None
    ended_at: str | None = None

    @property
    def counts(self) -> bool:
        return self.status == "over" and self.outcome is not None and len(
            self.outcome.ranks) == 2


@dataclass(eq=False)
class LivePair:
    """A pair under way: its matches (game 1, game 2), its players in game 1's seat order,
    and the end of each match so far."""

    pair_id: str
    game: str
    matches: tuple[str, str]
    players: tuple[str, str]
    ended: dict[str, Ended] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return all(m in self.ended for m in self.matches)

    def result(self) -> tuple[str, tuple[float, float] | None, tuple[int, int] | None]:
        """``("over", points, ranks)`` once both matches counted (:func:`pair_result`), or
        ``("void", None, None)``. Call once :attr:`complete`."""
        first, second = (self.ended[m] for m in self.matches)
        if not (first.counts and second.counts):
            return "void", None, None
        assert first.outcome is not None and second.outcome is not None
        points, ranks = pair_result(first.outcome, second.outcome)
        return "over", points, ranks


def pair_end_message(pair: LivePair) -> dict[str, Any]:
    """The ``pair_end`` message of a complete pair."""
    status, points, ranks = pair.result()
    first, second = (pair.ended[m] for m in pair.matches)
    return {"type": "pair_end", "pair_id": pair.pair_id, "game": pair.game,
            "matches": list(pair.matches), "players": list(pair.players),
            "status": status,
            "outcomes": [None if e.outcome is None else e.outcome.to_json()
                         for e in (first, second)],
            "points": None if points is None else list(points),
            "ranks": None if ranks is None else list(ranks)}


class Pairs:
    """The pairs under way on one server, by the ids of their matches."""

    def __init__(self) -> None:
        self._by_match: dict[str, LivePair] = {}

    def add(self, pair: LivePair) -> None:
        for match_id in pair.matches:
            self._by_match[match_id] = pair

    def ended(self, match_id: str, how: Ended) -> LivePair | None:
        """Match ``match_id`` ended ``how``. Returns its pair once the pair is complete (it
        is then forgotten here); ``None`` while the other match is still on, or for a match
        of no pair."""
        pair = self._by_match.get(match_id)
        if pair is None:
            return None
        pair.ended.setdefault(match_id, how)
        if not pair.complete:
            return None
        for done in pair.matches:
            self._by_match.pop(done, None)
        return pair
