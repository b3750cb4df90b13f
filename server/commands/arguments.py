"""Checked values for the ``arena`` commands' options: each is an argparse ``type=``.

A bad value is refused by argparse itself, the way it refuses a missing one: one line on
stderr (``arena serve: error: argument --port: must be 0-65535, not 70000``) and exit
status 2, never a traceback. Each function raises :class:`argparse.ArgumentTypeError`
with what a good value looks like.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

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
