"""Weight files of the Barca agent: load by name or path, save with where they came from.

A weights file is JSON::

    {"game": "barca", "features": ["HOLE_1", …], "weights": [100, 250, …],
     "source": {"tuner": "spsa", "seed": 1, "iterations": 40, …}}

:func:`load_weights` takes a *name* of a file shipped in ``bots/barca/weights/`` (``start``,
``tuned``; see :func:`names`) or a path to such a file, and checks it: 15 integers, and
``features`` (when present) naming the features of §12.2 in order, so a file made for a
different feature set is refused instead of silently misread.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from bots.barca.evaluation import FEATURES, validate_weights

WEIGHTS_DIR: Final = Path(__file__).parent / "weights"
DEFAULT_NAME: Final = "tuned"
"""The weights the bot plays when none are named."""


class WeightsError(ValueError):
    """A weights file that is missing or malformed; the message says which and why."""


def names() -> list[str]:
    """The shipped weight names."""
    return sorted(p.stem for p in WEIGHTS_DIR.glob("*.json"))


def resolve(spec: str) -> Path:
    """The file of a shipped name, else ``spec`` as a path."""
    named = WEIGHTS_DIR / f"{spec}.json"
    if "/" not in spec and "\\" not in spec and named.is_file():
        return named
    path = Path(spec)
    if not path.is_file():
        raise WeightsError(f"no weights named {spec!r} (shipped: {', '.join(names())}) and "
                           f"no such file")
    return path


def parse_weights(data: Any, where: str = "weights") -> tuple[int, ...]:
    """The weights of a parsed file (an object with ``weights``, or a bare list)."""
    if isinstance(data, Mapping):
        features = data.get("features")
        if features is not None and list(features) != list(FEATURES):
            raise WeightsError(f"{where}: its features {features!r} are not this agent's "
                               f"{list(FEATURES)!r}")
        data = data.get("weights")
    try:
        if not isinstance(data, Sequence) or isinstance(data, str):
            raise ValueError(f"weights must be a list of {len(FEATURES)} integers")
        return validate_weights(data)
    except ValueError as exc:
        raise WeightsError(f"{where}: {exc}") from None


def load_weights(spec: str) -> tuple[int, ...]:
    """The weights of a shipped name or a file path; :class:`WeightsError` if unusable."""
    path = resolve(spec)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise WeightsError(f"{path}: not a readable JSON weights file ({exc})") from None
    return parse_weights(data, str(path))


def save_weights(path: str | Path, weights: Sequence[int],
                 source: Mapping[str, Any] | None = None) -> None:
    """Write a weights file (atomically: a reader never sees half of it)."""
    out = Path(path)
    body = {"game": "barca", "features": list(FEATURES),
            "weights": list(validate_weights(weights)), "source": dict(source or {})}
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    tmp.replace(out)
