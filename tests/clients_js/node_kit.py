"""The Node.js kit (clients/js) for Python tests: where it is, and its npm dependencies.

A fresh clone has no ``node_modules``; :func:`ensure_node_kit` installs the locked
dependencies with ``npm ci`` once (CI runs on a clean clone)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tools.services import install_lock

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "clients" / "js"
ARENA = Path(sys.executable).with_name("arena")


def node() -> str:
    found = shutil.which("node")
    if found is None:
        raise RuntimeError("Node.js is required for the clients/js tests (node not on PATH)")
    return found


INSTALLED = KIT / "node_modules" / ".arena-installed"
"""Written once ``npm ci`` has finished (``node_modules`` exists while it runs)."""


def ensure_node_kit() -> Path:
    """``clients/js`` with its dependencies installed; returns its path. The test workers
    of ``make test`` take turns: one installs, the others wait and find it done."""
    node()
    if INSTALLED.exists():
        return KIT
    with install_lock("npm-clients-js"):
        if not INSTALLED.exists():
            npm = shutil.which("npm")
            if npm is None:
                raise RuntimeError("npm is required to install the clients/js dependencies")
            subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                           cwd=KIT, check=True, timeout=300)
            INSTALLED.write_text("npm ci done\n")
    return KIT
