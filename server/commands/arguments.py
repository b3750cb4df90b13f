"""Checked values for the ``arena`` commands' options: each is an argparse ``type=``.

A bad value is refused by argparse itself, the way it refuses a missing one: one line on
stderr (``arena serve: error: argument --port: must be 0-65535, not 70000``) and exit
status 2, never a traceback. Each function raises :class:`argparse.ArgumentTypeError`
with what a good value looks like.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Callable
from typing import Any

from protocol.messages import Limits
from server.clocks import Clock


def _number(text: str, kind: Callable[[str], Any], what: str) -> Any:
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def port(text: str) -> int:
    """A TCP port, 0 (pick a free one) to 65535."""
    value: int = _number(text, int, "a port number")
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0-65535, not {value}")
    return value


def positive_int(text: str) -> int:
    value: int = _number(text, int, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def non_negative_int(text: str) -> int:
    value: int = _number(text, int, "a whole number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def positive_float(text: str) -> float:
    value: float = _number(text, float, "a number")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number above 0, not {text}")
    return value


def non_negative_float(text: str) -> float:
    value: float = _number(text, float, "a number")
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of 0 or more, not {text}")
    return value


def json_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON ({exc.msg}): {text}") from None


def json_object(text: str) -> dict[str, Any]:
    value = json_value(text)
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"must be a JSON object, not {text}")
    return value


def clock(text: str) -> Clock:
    """A clock as JSON, e.g. ``{"initial_ms": 60000, "increment_ms": 1000}``."""
    try:
        checked = Clock.from_json(json_value(text))
    except (ValueError, TypeError) as exc:
        raise argparse.ArgumentTypeError(f"not a clock ({exc}): {text}") from None
    if checked is None:
        raise argparse.ArgumentTypeError('must be a clock object such as '
                                         '{"initial_ms": 60000, "increment_ms": 1000}')
    return checked


def names(known: Callable[[], list[str]], what: str) -> Callable[[str], str]:
    """A comma-separated list of names (returned as given), each one of ``known()`` (read
    when parsing), e.g. ``names(available_names, "game")``."""

    def parse(text: str) -> str:
        listed = [name.strip() for name in text.split(",") if name.strip()]
        choices = known()
        unknown = [name for name in listed if name not in choices]
        if unknown:
            raise argparse.ArgumentTypeError(
                f"unknown {what} {', '.join(map(repr, unknown))} "
                f"(choose from {', '.join(choices)})")
        return text

    parse.__name__ = f"{what} names"
    return parse


LIMIT_NAMES = tuple(field.name for field in dataclasses.fields(Limits))


def limit(text: str) -> tuple[str, int | float]:
    """``NAME=VALUE``: one of the server's limits (``protocol.Limits``, PROTOCOL.md section
    8), a positive number of the limit's own kind (a whole number for counts and sizes)."""
    name, sep, value = text.partition("=")
    name = name.strip().replace("-", "_")
    if not sep or name not in LIMIT_NAMES:
        raise argparse.ArgumentTypeError(
            f"expected NAME=VALUE with NAME one of {', '.join(LIMIT_NAMES)}")
    kind = int if isinstance(getattr(Limits(), name), int) else float
    number = _number(value.strip(), kind,
                     "a whole number" if kind is int else "a number")
    if not number > 0 or number != number or number == float("inf"):
        raise argparse.ArgumentTypeError(f"{name} must be positive, not {value.strip()}")
    return name, number


def limits(pairs: list[tuple[str, int | float]] | None) -> Limits:
    """The default limits with ``--limit`` values in place (the last one of a name wins)."""
    values: dict[str, Any] = dict(pairs or ())
    return dataclasses.replace(Limits(), **values)
