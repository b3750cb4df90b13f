"""Make sure a real Chromium is on this machine, and launch it for Playwright.

CI and a developer's machine start clean: the only things installed are what the project's
own files install. So the web tests install Debian's ``chromium`` themselves (we run as root
there and apt reaches Debian's packages) the first time they need it. Playwright's own
browser download (``playwright install``) is not used: it fetches a browser build from
outside the package registries, which this machine cannot reach.

If Chromium cannot be installed the tests fail loudly (never skip): a browser test that
silently did not run would hide a broken web client.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")

# Headless as root in a sandbox without a screen or outside network: no sandbox, no GPU, and
# none of Chromium's background traffic (its connections are refused here, many at a time).
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]


class BrowserUnavailable(RuntimeError):
    """Chromium is missing and could not be installed."""


def ensure_chromium() -> Path:
    """The Chromium executable, installing Debian's ``chromium`` package if it is missing.
    Raises :class:`BrowserUnavailable` with apt's output when that fails."""
    if CHROMIUM.exists():
        return CHROMIUM
    apt = shutil.which("apt-get")
    if apt is None:
        raise BrowserUnavailable(f"{CHROMIUM} is missing and there is no apt-get to install "
                                 "Debian's chromium package")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    steps = [[apt, "update"], [apt, "install", "-y", "--no-install-recommends", "chromium"]]
    if os.geteuid() != 0:
        sudo = shutil.which("sudo")
        if sudo is None:
            raise BrowserUnavailable(f"{CHROMIUM} is missing; installing it needs root")
        steps = [[sudo, "-n", *step] for step in steps]
    for step in steps:
        print(f"[web tests] {' '.join(step)}", file=sys.stderr, flush=True)
        done = subprocess.run(step, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=900)
        if done.returncode != 0:
            raise BrowserUnavailable(f"{' '.join(step)} failed ({done.returncode}):\n"
                                     f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    if not CHROMIUM.exists():
        raise BrowserUnavailable(f"apt installed chromium but {CHROMIUM} is still missing")
    return CHROMIUM


def launch(playwright: Any, user_data_dir: Path) -> Any:
    """A headless Chromium browser context with a fresh profile in ``user_data_dir``."""
    executable = ensure_chromium()
    return playwright.chromium.launch_persistent_context(
        str(user_data_dir), executable_path=str(executable), headless=True,
        args=CHROMIUM_ARGS, viewport={"width": 1360, "height": 900},
        ignore_default_args=["--enable-automation"])


if __name__ == "__main__":  # pragma: no cover - manual use: install the browser now
    print(ensure_chromium())
