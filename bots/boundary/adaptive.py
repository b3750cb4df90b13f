"""The adaptive agent of the Boundary thesis (rules §11.3): it imitates the opponent with
*shadows* of the six basic strategies, guesses which one the opponent plays from how well
each shadow predicted its last plan, and plays the counter from a table.

Two settings (:class:`Settings`):

* ``Settings.thesis()`` — §11.3 as the rule book specifies it: a random strategy on turn 0,
  the fixed turn-1 and turn-2 rules, the counter table from turn 3 on, and the guessed
  strategy's shadow as the hunters' prediction of where enemy pieces go.
* the default — the same classifier and late-game rule, with the counter table applied from
  turn 1 on (the guess is right from turn 1 on against a basic strategy, rules §15), a fixed
  opening from the table on turn 0, inertia for the hunters' aim, and a lookahead: each
  strategy's plan is played out on the engine against the guessed strategy's predicted plan
  for ``lookahead`` turns, and replaces the table's counter only when it gains more than
  ``margin`` points over it (see ``bots/boundary/README.md``). The table comes from our own
  games, rebuilt by ``arena tune boundary`` (the thesis's recommendation).
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bots.boundary.strategies import NAMES, Strategy, make
from bots.boundary.world import Point, World, d2
from engine.boundary.game import board_from_view
from engine.rng import Rng

CAPTURE_STRATEGIES = ("GC", "HC", "DC")

THESIS_TABLE: Mapping[str, str] = {"GT": "GC", "BT": "GC", "GC": "DT", "HC": "DT", "DT": "BT",
                                   "DC": "GT"}
"""The counter table the thesis's agent used (rules §11.3)."""


SIMULATION_S = 0.1
"""About what simulating one candidate plan for the lookahead's turns takes on one core (two
turns of about 100 ticks): with less time than this left, the table's choice is played
unsimulated, so that a seat short of time answers in milliseconds."""


@dataclass(frozen=True)
class Settings:
    """How the agent plays. ``table``: opponent guess → own strategy; ``opening``: turn 0's
    strategy (``None``: uniformly random, the thesis); ``thesis_turns``: the fixed turn-1/2
    rules and the table only from turn 3; ``prediction``: per own strategy, ``"shadow"`` (the
    guessed strategy's predicted plan) or ``"inertia"`` for where an enemy piece goes;
    ``lookahead``: turns each candidate plan is simulated (0: none, the thesis); ``margin``:
    points another strategy's plan must gain over the table's to replace it."""

    table: Mapping[str, str] = field(default_factory=lambda: dict(THESIS_TABLE))
    opening: str | None = None
    thesis_turns: bool = True
    prediction: Mapping[str, str] = field(
        default_factory=lambda: {name: "shadow" for name in CAPTURE_STRATEGIES})
    lookahead: int = 0
    margin: int = 0

    @classmethod
    def thesis(cls) -> Settings:
        return cls()

    def to_json(self) -> dict[str, Any]:
        return {"table": dict(self.table), "opening": self.opening,
                "thesis_turns": self.thesis_turns, "prediction": dict(self.prediction),
                "lookahead": self.lookahead, "margin": self.margin}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Settings:
        table = dict(data["table"])
        prediction = dict(data.get("prediction") or {})
        for name in (*table.keys(), *table.values()):
            if name not in NAMES:
                raise ValueError(f"unknown strategy {name!r} in the counter table")
        if set(table) != set(NAMES):
            raise ValueError(f"the counter table needs a reply to each of {', '.join(NAMES)}")
        opening = data.get("opening")
        if opening is not None and opening not in NAMES:
            raise ValueError(f"unknown opening strategy {opening!r}")
        for name, mode in prediction.items():
            if name not in NAMES or mode not in ("shadow", "inertia"):
                raise ValueError(f"bad prediction setting {name}: {mode}")
        lookahead = data.get("lookahead", 0)
        if not isinstance(lookahead, int) or not 0 <= lookahead <= 3:
            raise ValueError("lookahead must be 0–3 turns")
        margin = data.get("margin", 0)
        if not isinstance(margin, int) or margin < 0:
            raise ValueError("margin must be a non-negative integer (points)")
        return cls(table, opening, bool(data.get("thesis_turns", False)),
                   {n: prediction.get(n, "shadow") for n in CAPTURE_STRATEGIES}, lookahead,
                   margin)


def classify(predicted: Mapping[str, Mapping[int, Point]], starts: Mapping[int, Point],
             actual: Mapping[int, Point], pieces: int, blobs: int, last_guess: str | None,
             keep: bool) -> tuple[str, dict[str, int]]:
    """The guess for the turn just played, and each strategy's error (rules §11.3).

    ``starts``: the opponent's pieces alive at the start of that turn; ``predicted[k]``:
    shadow ``k``'s plan for them; ``actual``: the revealed plan; ``pieces``/``blobs``: the
    opponent now (an average blob over 1.3 rules out the treasure racers); ``keep``: keep
    ``last_guess`` if it ranks first or second (from turn 3 on)."""
    errors: dict[str, int] = {}
    for name in NAMES:
        plan = predicted.get(name, {})
        errors[name] = sum(math.isqrt(256 * d2(plan.get(p, start), actual.get(p, start)))
                           for p, start in starts.items())
    eligible = [n for n in NAMES if not (10 * pieces > 13 * blobs and n in ("GT", "BT"))]
    ranked = sorted(eligible, key=lambda n: (errors[n], NAMES.index(n)))
    if keep and last_guess in ranked[:2]:
        return last_guess, errors
    return ranked[0], errors


class AdaptivePlayer:
    """One match's agent for one side. Call :meth:`plan` once per turn, in turn order, with
    that turn's view; it returns the plan (piece → target) and remembers what it needs."""

    def __init__(self, team: int, settings: Settings, rng: Rng) -> None:
        self.team = team
        self.settings = settings
        self.rng = rng
        self.own: dict[str, Strategy] = {n: make(n) for n in NAMES}
        self.shadows: dict[str, Strategy] = {n: make(n) for n in NAMES}
        self.guess: str | None = None
        self.label: str | None = None
        self.playing: str | None = None
        self.errors: dict[str, int] = {}
        self._predicted: dict[str, dict[int, Point]] = {}
        self._starts: dict[int, Point] = {}
        self._turn: int | None = None
        self.history: list[tuple[int, str, str | None]] = []   # (turn, played, guess)

    def plan(self, view: Mapping[str, Any], deadline: float | None = None
             ) -> dict[int, Point]:
        """This turn's plan. ``deadline`` (a ``time.perf_counter()`` value): the lookahead
        stops simulating once it has passed, keeping the best plan found so far (the table's
        choice comes first); without one the search is complete and the plan a pure function
        of the game so far."""
        world = World.from_view(view, self.team)
        turn = world.turn
        opponent = world.as_team(1 - self.team)
        last = view.get("last")
        if (turn >= 1 and self._turn == turn - 1 and last is not None
                and last.get("turn") == turn - 1 and self._predicted):
            actual = {int(p): (xy[0], xy[1])
                      for p, xy in last["plans"][1 - self.team].items()}
            blobs = len(opponent.own_blobs())
            self.guess, self.errors = classify(self._predicted, self._starts, actual,
                                               len(opponent.own()), max(1, blobs),
                                               self.guess, keep=turn >= 3)
        # The shadows plan the opponent's turn: their memories advance, their plans predict.
        self._predicted = {n: shadow.plan(opponent) for n, shadow in self.shadows.items()}
        self._starts = {p: world.pos[p] for p in opponent.own()}
        self._turn = turn
        name, label = self.choose(world)
        if self.settings.lookahead and label is not None and label in self._predicted:
            name, plan = self._search(view, world, name, label, deadline)
        else:
            strategy = self.own[name]
            self._aim(strategy, name, label, self._predicted.get(label or ""))
            plan = strategy.plan(world)
        self.playing, self.label = name, label
        self.history.append((turn, name, self.guess))
        return plan

    def _aim(self, strategy: Strategy, name: str, label: str | None,
             predicted: Mapping[int, Point] | None) -> None:
        """Where the strategy's hunters expect enemy pieces: the model's plan, or inertia."""
        if name in CAPTURE_STRATEGIES and label is not None and predicted is not None \
                and self.settings.prediction.get(name, "shadow") == "shadow":
            strategy.predictions = predicted
        else:
            strategy.predictions = None

    def _search(self, view: Mapping[str, Any], world: World, preferred: str, label: str,
                deadline: float | None = None, clock: Callable[[], float] = time.perf_counter
                ) -> tuple[str, dict[int, Point]]:
        """Play each strategy's plan against the model's prediction of the opponent for
        ``lookahead`` turns on the engine and keep the best score difference; the table's
        choice wins ties (and is all there is when ``deadline`` has passed before the second
        candidate, or is too near to simulate even the first: :data:`SIMULATION_S`). The
        chosen strategy's memory advances as if it had planned alone."""
        me, them = self.team, 1 - self.team
        start = board_from_view(view)
        best: tuple[int, str, dict[int, Point], Strategy] | None = None
        seen: set[tuple[tuple[int, Point], ...]] = set()
        for name in (preferred, *(n for n in NAMES if n != preferred)):
            if best is not None and deadline is not None and clock() >= deadline:
                break
            if best is None and deadline is not None and clock() >= deadline - SIMULATION_S:
                # No time to compare anything: the table's choice, unsimulated.
                strategy = self.own[name]
                self._aim(strategy, name, label, self._predicted[label])
                return name, strategy.plan(world)
            mine = copy.deepcopy(self.own[name])
            self._aim(mine, name, label, self._predicted[label])
            plan = mine.plan(world)
            key = tuple(sorted(plan.items()))
            if key in seen:
                continue   # another strategy plans exactly this turn already (its value is known)
            seen.add(key)
            committed = copy.deepcopy(mine)
            shadow = copy.deepcopy(self.shadows[label])
            board = start.copy()
            board.resolve({**plan, **self._predicted[label]})
            for _ in range(1, self.settings.lookahead):
                if board.over:
                    break
                ahead = World.from_board(board, me)
                theirs = shadow.plan(ahead.as_team(them))
                self._aim(mine, name, label, theirs)
                board.resolve({**mine.plan(ahead), **theirs})
            value = board.scores[me] - board.scores[them]
            if best is None:
                # The table's choice, with the margin another plan must beat it by.
                best = (value + self.settings.margin, name, plan, committed)
            elif value > best[0]:
                best = (value, name, plan, committed)
        assert best is not None
        _, name, plan, committed = best
        self.own[name] = committed
        return name, plan

    def choose(self, world: World) -> tuple[str, str | None]:
        """Own strategy for this turn and the label assumed for the opponent."""
        mine, theirs = world.scores[self.team], world.scores[1 - self.team]
        if abs(mine - theirs) > world.treasure_value_left():
            return ("DT", "GC") if mine > theirs else ("GC", "DT")
        settings, turn, guess = self.settings, world.turn, self.guess
        if turn == 0 or guess is None:
            if settings.opening is not None:
                return settings.opening, None
            return NAMES[self.rng.below(len(NAMES))], None
        if settings.thesis_turns:
            if turn == 1:
                return ("GC" if guess in ("GT", "BT") else "HC"), guess
            if turn == 2:
                return ("DT" if guess in ("GC", "HC") else "BT"), guess
        return settings.table[guess], guess
