"""A bad option value of an ``arena`` command is one line on stderr and exit status 2 —
never a traceback (real ``python -m tools.cli`` processes)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

BAD_VALUES = [
    ("serve", "--port", "-1"),
    ("serve", "--port", "http"),
    ("serve", "--limit", "max_guests=lots"),
    ("serve", "--limit", "nonsense=3"),
    ("run", "--limit", "rate_per_s=0"),
    ("run", "--house-bots", "random,nobody"),
    ("run", "--bot-matches", "0"),
    ("run", "--bot-games", "chess"),
    ("ladder run", "--clock", "5+x"),
    ("ladder run", "--clock", '{"initial_ms": -5}'),
    ("ladder run", "--pair-cap", "0"),
    ("bot random --game race", "--max-matches", "0"),
    ("bot random --game race", "--clock", "[1]"),
    ("bench server", "--repeat", "0"),
    ("bench server", "--matches", "-3"),
    ("check-bot", "--answer-timeout", "0"),
    ("tune barca", "--iterations", "0"),
]


@pytest.mark.parametrize(("command", "option", "value"), BAD_VALUES)
def test_a_bad_value_is_one_line_and_exit_status_2(command: str, option: str, value: str
                                                   ) -> None:
    args = [*command.split(), f"{option}={value}"]
    if command == "check-bot":
        args.append("true")  # its bot command, which never runs
    done = subprocess.run([sys.executable, "-m", "tools.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"arena {command.split()[0]}") and "error: argument" in last, last
    assert f"argument {option}" in last, last
    assert done.stdout == ""


def test_limits_on_the_command_line_replace_the_defaults() -> None:
    from protocol.messages import Limits
    from server.commands.arguments import limit, limits

    chosen = limits([limit("max_guests=4096"), limit("rate-per-s=75.5"), limit("burst=10"),
                     limit("burst=20")])
    assert chosen == Limits(max_guests=4096, rate_per_s=75.5, burst=20)
    assert limits(None) == Limits()
