"""Bot constructor options on the command line: ``key=value`` pairs, values read as JSON when
they parse (``depth=4`` → 4, ``two_player=true`` → True, ``weights=tuned`` → "tuned").
Shared by ``arena bot --option`` and ``arena bench strength``'s ``NAME:key=value`` agents."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any


def parse_options(pairs: Iterable[str], where: str = "") -> dict[str, Any]:
    """``["depth=4", "weights=tuned"]`` → ``{"depth": 4, "weights": "tuned"}``;
    :class:`ValueError` naming the bad pair otherwise."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"option {pair!r}{f' of {where!r}' if where else ''} is not "
                             "key=value")
        try:
            options[key] = json.loads(raw)
        except json.JSONDecodeError:
            options[key] = raw
    return options


def option_args(options: dict[str, Any] | None) -> list[str]:
    """The ``arena bot`` arguments that pass ``options`` (the inverse of
    :func:`parse_options`): ``{"time_budget_s": 2.0}`` → ``["--option=time_budget_s=2.0"]``."""
    return [f"--option={key}={json.dumps(value)}" for key, value in (options or {}).items()]
