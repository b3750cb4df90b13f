"""Action spaces: how a game whose actions are not a short list describes them.

A game with ``GameInfo.actions == "space"`` (Boundary: points on a field) answers
:meth:`engine.core.Game.action_space` instead of listing legal actions. The description is a
JSON value built from four node types, enough for a generic bot to produce a valid action
with no game-specific code (:func:`sample`), and the contract a game's own validation must
agree with (the conformance suite checks that every sampled action is accepted):

``{"type": "const", "value": V}``
    exactly ``V``.
``{"type": "record", "fields": {"name": SPACE, ...}}``
    an object with exactly these keys, each value in its space.
``{"type": "subset", "entries": {"key": SPACE, ...}}``
    an object with any subset of these keys (none at all included), each value in its space.
``{"type": "point", "center": [cx, cy], "radius": r, "min": [x0, y0], "max": [x1, y1]}``
    ``[x, y]``, two integers with ``(x−cx)² + (y−cy)² ≤ r²`` and ``x0 ≤ x ≤ x1``,
    ``y0 ≤ y ≤ y1``. The centre always lies in the box, so ``[cx, cy]`` is always valid.

Boundary's plan, for example::

    {"type": "record", "fields": {
        "turn": {"type": "const", "value": 3},
        "moves": {"type": "subset", "entries": {
            "0": {"type": "point", "center": [485, 579], "radius": 40,
                  "min": [0, 0], "max": [799, 799]}}}}}

Standard library only (part of the engine): :func:`contains`, :func:`sample`,
:func:`check_space` and the constructors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

Space = dict[str, Any]

NODE_TYPES = ("const", "record", "subset", "point")


class Bounded(Protocol):
    """A random source with ``below(n)``: a uniform integer in ``[0, n)``
    (:class:`engine.rng.Rng`; ``random.Random().randrange`` fits through :func:`from_random`)."""

    def below(self, n: int) -> int: ...


class _FromRandom:
    def __init__(self, source: Any) -> None:
        self._source = source

    def below(self, n: int) -> int:
        return int(self._source.randrange(n))


def from_random(source: Any) -> Bounded:
    """A :class:`Bounded` over a ``random.Random`` (its ``randrange``)."""
    return _FromRandom(source)


def const(value: Any) -> Space:
    return {"type": "const", "value": value}


def record(fields: Mapping[str, Space]) -> Space:
    return {"type": "record", "fields": dict(fields)}


def subset(entries: Mapping[str, Space]) -> Space:
    return {"type": "subset", "entries": dict(entries)}


def point(center: Sequence[int], radius: int, low: Sequence[int], high: Sequence[int]
          ) -> Space:
    return {"type": "point", "center": [int(center[0]), int(center[1])], "radius": int(radius),
            "min": [int(low[0]), int(low[1])], "max": [int(high[0]), int(high[1])]}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def contains(space: Space, value: Any) -> bool:
    """Whether ``value`` lies in ``space``."""
    kind = space["type"]
    if kind == "const":
        return bool(value == space["value"] and type(value) is type(space["value"]))
    if kind == "record":
        fields = space["fields"]
        return (isinstance(value, dict) and set(value) == set(fields)
                and all(contains(fields[k], value[k]) for k in fields))
    if kind == "subset":
        entries = space["entries"]
        return (isinstance(value, dict) and all(k in entries for k in value)
                and all(contains(entries[k], v) for k, v in value.items()))
    if kind == "point":
        if not (isinstance(value, list) and len(value) == 2 and all(map(_is_int, value))):
            return False
        (x, y), (cx, cy) = value, space["center"]
        (x0, y0), (x1, y1) = space["min"], space["max"]
        r = space["radius"]
        return x0 <= x <= x1 and y0 <= y <= y1 and (x - cx) ** 2 + (y - cy) ** 2 <= r * r
    raise ValueError(f"unknown action space node type {kind!r}")


def sample(space: Space, rng: Bounded, include: int = 2) -> Any:
    """A uniformly random value of ``space``: a ``subset`` takes each entry with probability
    ``1/include`` (``include=1``: every entry), a ``point`` is uniform over its integer
    points (rejection from the box; the centre after 64 misses)."""
    kind = space["type"]
    if kind == "const":
        return space["value"]
    if kind == "record":
        return {k: sample(s, rng, include) for k, s in space["fields"].items()}
    if kind == "subset":
        return {k: sample(s, rng, include) for k, s in space["entries"].items()
                if rng.below(include) == 0}
    if kind == "point":
        (cx, cy), r = space["center"], space["radius"]
        x0, y0 = max(space["min"][0], cx - r), max(space["min"][1], cy - r)
        x1, y1 = min(space["max"][0], cx + r), min(space["max"][1], cy + r)
        for _ in range(64):
            x = x0 + rng.below(x1 - x0 + 1)
            y = y0 + rng.below(y1 - y0 + 1)
            if (x - cx) ** 2 + (y - cy) ** 2 <= r * r:
                return [x, y]
        return [cx, cy]
    raise ValueError(f"unknown action space node type {kind!r}")


def check_space(space: Any, path: str = "space") -> None:
    """Raise :class:`ValueError` naming the first place where ``space`` is not a well-formed
    description (the conformance suite's check of a game's spaces)."""
    if not isinstance(space, dict) or space.get("type") not in NODE_TYPES:
        raise ValueError(f"{path}: not an action space node (type one of {NODE_TYPES})")
    kind = space["type"]
    expected = {"const": {"type", "value"}, "record": {"type", "fields"},
                "subset": {"type", "entries"},
                "point": {"type", "center", "radius", "min", "max"}}[kind]
    if set(space) != expected:
        raise ValueError(f"{path}: a {kind} node has exactly the keys {sorted(expected)}")
    if kind in ("record", "subset"):
        children = space["fields" if kind == "record" else "entries"]
        if not isinstance(children, dict):
            raise ValueError(f"{path}: {kind} children must be an object")
        for key, child in children.items():
            check_space(child, f"{path}.{key}")
    if kind == "point":
        for key in ("center", "min", "max"):
            pair = space[key]
            if not (isinstance(pair, list) and len(pair) == 2 and all(map(_is_int, pair))):
                raise ValueError(f"{path}.{key}: must be two integers")
        if not _is_int(space["radius"]) or space["radius"] < 0:
            raise ValueError(f"{path}.radius: must be a non-negative integer")
        if not contains(space, list(space["center"])):
            raise ValueError(f"{path}: the centre must lie in the box")
