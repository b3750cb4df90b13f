"""Browser tests: real Chromium (Debian's ``chromium``) driven by Playwright, against a real
server with house bots (:mod:`tests.web.web_arena`). Screenshots go to ``artifacts/web/``.

Set-up on a fresh machine is done here: Chromium is installed with apt when it is missing
(:mod:`tests.web.browser_setup`); Playwright comes from the ``test`` extra. Nothing is
skipped: a missing browser fails these tests loudly.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.logs import configure_logging

sys.path.insert(0, str(Path(__file__).parent))

from browser_setup import CHROMIUM_ARGS, ensure_chromium  # noqa: E402
from web_arena import WebArena  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "web"


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    return ensure_chromium()


@pytest.fixture(scope="session")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebArena]:
    configure_logging("warning")
    web_arena = WebArena(tmp_path_factory.mktemp("web-arena") / "arena.sqlite3")
    web_arena.start()
    yield web_arena
    web_arena.stop()


@pytest.fixture(scope="session")
def browser(chromium_path: Path) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # launch() gives every run a fresh, throw-away profile (user data dir).
        chromium = playwright.chromium.launch(executable_path=str(chromium_path),
                                              headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1400, "height": 960}, device_scale_factor=1)
    yield ctx
    ctx.close()
