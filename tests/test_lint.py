"""ruff and mypy, run as ``make lint`` runs them: the tree stays clean of both.

mypy's targets come from ``pyproject.toml`` (``mypy`` with no arguments checks the product,
the tools and the tests), so this test and a developer's ``mypy`` check the same files.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_tool(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, check=False)


@pytest.mark.slow
def test_mypy_is_clean_with_no_arguments() -> None:
    done = run_tool("mypy")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_is_clean() -> None:
    done = run_tool("ruff", "check", "engine", "protocol", "server", "bots", "clients",
                    "tools", "tests")
    assert done.returncode == 0, done.stdout + done.stderr
