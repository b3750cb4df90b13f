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

from pathlib import Path
from typing import Any

from tools.services import PackageUnavailable, ensure_debian_package

CHROMIUM = Path("/usr/bin/chromium")

# Headless as root in a sandbox without a screen or outside network: no sandbox, no GPU, and
# none of Chromium's background traffic (its connections are refused here, many at a time).
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]


class BrowserUnavailable(PackageUnavailable):
    """Chromium is missing and could not be installed."""


def ensure_chromium() -> Path:
    """The Chromium executable, installing Debian's ``chromium`` package if it is missing
    (:func:`tools.services.ensure_debian_package`). Raises :class:`BrowserUnavailable` with
    apt's output when that fails."""
    try:
        return Path(ensure_debian_package(str(CHROMIUM), "chromium", note="[web tests]"))
    except PackageUnavailable as exc:
        raise BrowserUnavailable(str(exc)) from exc


def launch(playwright: Any, user_data_dir: Path) -> Any:
    """A headless Chromium browser context with a fresh profile in ``user_data_dir``."""
    executable = ensure_chromium()
    return playwright.chromium.launch_persistent_context(
        str(user_data_dir), executable_path=str(executable), headless=True,
        args=CHROMIUM_ARGS, viewport={"width": 1360, "height": 900},
        ignore_default_args=["--enable-automation"])


if __name__ == "__main__":  # pragma: no cover - manual use: install the browser now
    print(ensure_chromium())
