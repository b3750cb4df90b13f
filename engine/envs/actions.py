"""Actions: from an RL agent's number (or array) to the engine's JSON action, and back.

Three codecs, picked per game by :func:`codec_for`:

* :class:`CatalogIndex` — ``Discrete(n)`` over the game's fixed catalog
  (:mod:`engine.envs.catalogs`): index ``i`` always means the same action. The action mask
  marks the legal ones.
* :class:`LegalListIndex` — ``Discrete(bound)`` for a game with no catalog: index ``i`` is
  the ``i``-th legal action in the canonical (sorted) order. The mask marks the first
  ``len(legal)``; a position with more than ``bound`` legal actions offers only the first
  ``bound``.
* :class:`PlanBox` — for a game that describes an action *space* (Boundary): a ``Box`` in
  ``[-1, 1]`` with one row ``(u, v)`` per point of the space. Every value maps to a valid
  action (:func:`point_in`), so there is no mask: ``(0, 0)`` keeps a piece where it is.

A discrete index outside the mask raises :class:`ActionNotAllowed` (the env says what it does
with it: raise, or end the game as a loss for that seat).
"""

from __future__ import annotations

import math
import operator
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from engine.core import Action, Game, canonical_json
from engine.envs.catalogs import catalog, has_catalog
from engine.match import Match

Mask = NDArray[np.int8]


class ActionNotAllowed(ValueError):
    """The agent's action is not one the mask allows (or not an action of the space at all).
    Nothing was applied."""


class ActionCodec(ABC):
    """Maps one game's actions to a Gymnasium space. ``masked``: whether :meth:`mask` gives a
    mask (discrete codecs) or ``None`` (every value of the space is valid)."""

    masked: bool = True

    @abstractmethod
    def space(self) -> spaces.Space[Any]:
        """A new space object (each agent gets its own, so each can be seeded)."""

    @abstractmethod
    def mask(self, match: Match, seat: int) -> Mask | None:
        """1 for each index ``seat`` may choose now (all 0 when it need not act)."""

    @abstractmethod
    def decode(self, match: Match, seat: int, action: Any) -> Action:
        """The engine action that ``action`` (a value of the space) means for ``seat`` now;
        raises :class:`ActionNotAllowed`."""


def _index(action: Any) -> int:
    try:
        return operator.index(np.asarray(action).item() if isinstance(action, np.ndarray)
                              else action)
    except TypeError:
        raise ActionNotAllowed(f"a discrete action must be an integer, got {action!r}") \
            from None


class CatalogIndex(ActionCodec):
    """``Discrete(len(catalog))`` over the game's catalog."""

    def __init__(self, game: Game) -> None:
        self.actions = catalog(game)
        self._keys = {canonical_json(a): i for i, a in enumerate(self.actions)}

    def space(self) -> spaces.Discrete:
        return spaces.Discrete(len(self.actions))

    def index_of(self, action: Action) -> int:
        """The index of an engine action (canonical form); ``KeyError`` if uncatalogued."""
        return self._keys[canonical_json(action)]

    def mask(self, match: Match, seat: int) -> Mask:
        out = np.zeros(len(self.actions), np.int8)
        for action in match.legal_actions(seat):
            try:
                out[self._keys[canonical_json(action)]] = 1
            except KeyError:  # the catalog must cover every action the game can list
                raise LookupError(f"{match.game.info.name}: legal action {action!r} is not in "
                                  "the catalog (engine/envs/catalogs.py)") from None
        return out

    def decode(self, match: Match, seat: int, action: Any) -> Action:
        i = _index(action)
        if not 0 <= i < len(self.actions):
            raise ActionNotAllowed(f"action index {i} is outside 0..{len(self.actions) - 1}")
        chosen = self.actions[i]
        if chosen not in match.legal_actions(seat):
            raise ActionNotAllowed(f"action {i} ({match.game.action_text(chosen)}) is not "
                                   f"legal for seat {seat} now; see the action mask")
        return chosen


class LegalListIndex(ActionCodec):
    """``Discrete(bound)``: index ``i`` is the ``i``-th legal action."""

    def __init__(self, bound: int = 512) -> None:
        self.bound = bound

    def space(self) -> spaces.Discrete:
        return spaces.Discrete(self.bound)

    def mask(self, match: Match, seat: int) -> Mask:
        out = np.zeros(self.bound, np.int8)
        out[:min(len(match.legal_actions(seat)), self.bound)] = 1
        return out

    def decode(self, match: Match, seat: int, action: Any) -> Action:
        i = _index(action)
        legal = match.legal_actions(seat)
        if not 0 <= i < min(len(legal), self.bound):
            raise ActionNotAllowed(f"action index {i} is not allowed: seat {seat} has "
                                   f"{len(legal)} legal actions now (bound {self.bound})")
        return legal[i]


# ---- action spaces -------------------------------------------------------------------------------

Path = tuple[str, ...]


def point_paths(space: Mapping[str, Any], path: Path = ()) -> list[Path]:
    """The paths of the ``point`` nodes of an action space description, in its order."""
    kind = space["type"]
    if kind == "point":
        return [path]
    children = space.get("fields") if kind == "record" else space.get("entries")
    if children is None:  # a constant
        return []
    return [p for key, child in children.items() for p in point_paths(child, (*path, key))]


def point_in(space: Mapping[str, Any], u: float, v: float) -> list[int]:
    """The integer point of a ``point`` node that ``(u, v)`` in ``[-1, 1]²`` aims at: the
    offset ``(u·r, v·r)`` from the centre, pulled into the disc, truncated towards the centre
    and clamped into the box. Each step keeps the point valid: truncation cannot leave the
    disc, and since the centre lies in the box, clamping only brings a coordinate nearer the
    centre. Non-finite values count as 0."""
    (cx, cy), r = space["center"], space["radius"]
    u = min(max(u, -1.0), 1.0) if math.isfinite(u) else 0.0
    v = min(max(v, -1.0), 1.0) if math.isfinite(v) else 0.0
    dx, dy = u * r, v * r
    length = math.hypot(dx, dy)
    if length > r:
        dx, dy = dx * r / length, dy * r / length
    (x0, y0), (x1, y1) = space["min"], space["max"]
    return [min(max(cx + int(dx), x0), x1), min(max(cy + int(dy), y0), y1)]


class PlanBox(ActionCodec):
    """``Box([-1, 1], (len(slots), 2))`` for a game with ``info.actions == "space"``. Row
    ``k`` steers the ``k``-th point of the seat's space as it was at the first decision of a
    match (``slots``: their paths; Boundary: the seat's pieces in id order). A point absent
    from the current space (a captured piece) ignores its row; a point under a ``subset``
    whose row lands on the centre is left out (Boundary: the piece stays)."""

    masked = False

    def __init__(self, slots: Mapping[int, list[Path]]) -> None:
        self.slots = {seat: {p: k for k, p in enumerate(paths)} for seat, paths in slots.items()}
        self.rows = max((len(paths) for paths in slots.values()), default=0)

    def space(self) -> spaces.Box:
        return spaces.Box(-1.0, 1.0, (self.rows, 2), np.float32)

    def mask(self, match: Match, seat: int) -> None:
        return None

    def decode(self, match: Match, seat: int, action: Any) -> Action:
        described = match.action_space(seat)
        if described is None:
            raise ActionNotAllowed(f"seat {seat} need not act now")
        rows = np.asarray(action, dtype=np.float64)
        if rows.shape != (self.rows, 2):
            raise ActionNotAllowed(f"a plan is an array of shape ({self.rows}, 2), got "
                                   f"{rows.shape}")
        return self._value(described, (), rows, self.slots[seat])

    def _value(self, space: Mapping[str, Any], path: Path, rows: NDArray[np.float64],
               slots: Mapping[Path, int]) -> Any:
        kind = space["type"]
        if kind == "const":
            return space["value"]
        if kind == "point":
            k = slots.get(path)
            u, v = (0.0, 0.0) if k is None else (float(rows[k, 0]), float(rows[k, 1]))
            return point_in(space, u, v)
        if kind == "record":
            return {key: self._value(child, (*path, key), rows, slots)
                    for key, child in space["fields"].items()}
        out = {}
        for key, child in space["entries"].items():
            value = self._value(child, (*path, key), rows, slots)
            if child["type"] != "point" or value != child["center"]:
                out[key] = value
        return out


def plan_slots(game: Game, num_seats: int, options: Mapping[str, Any]) -> dict[int, list[Path]]:
    """Per seat, the point paths of its action space at the first decision of a match (seed
    0): the rows of :class:`PlanBox`. A seat must act at that decision (every seat does in a
    simultaneous game such as Boundary)."""
    probe = Match(game, num_seats, options, seed=0)
    probe.advance()
    slots = {}
    for seat in range(num_seats):
        described = probe.action_space(seat)
        if described is None:
            raise NotImplementedError(f"{game.info.name}: seat {seat} does not act at the first "
                                      "decision, so its plan rows cannot be fixed")
        slots[seat] = point_paths(described)
    return slots


def codec_for(game: Game, num_seats: int, options: Mapping[str, Any]) -> ActionCodec:
    """The codec of a game: :class:`PlanBox` for an action space, :class:`CatalogIndex` where
    the game has a catalog, else :class:`LegalListIndex`."""
    if game.info.actions == "space":
        return PlanBox(plan_slots(game, num_seats, options))
    if has_catalog(game):
        return CatalogIndex(game)
    return LegalListIndex()
