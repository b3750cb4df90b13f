"""Helpers for driving the web client in Playwright: websocket frame capture and page waits."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

TIMEOUT_MS = 30_000  # generous: the machines running these are often busy


class FrameLog:
    """Every websocket frame a page sent and received, decoded (the page speaks JSON)."""

    def __init__(self, page: Any) -> None:
        self.received: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        page.on("websocket", self._attach)

    def _attach(self, ws: Any) -> None:
        ws.on("framereceived", lambda payload: self.received.append(_decode(payload)))
        ws.on("framesent", lambda payload: self.sent.append(_decode(payload)))

    def received_of(self, type_: str, **fields: Any) -> list[dict[str, Any]]:
        return [m for m in self.received
                if m.get("type") == type_ and all(m.get(k) == v for k, v in fields.items())]

    def sent_of(self, type_: str) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("type") == type_]


def _decode(payload: Any) -> dict[str, Any]:
    if isinstance(payload, bytes):
        payload = payload.decode("utf-8")
    message = json.loads(payload)
    assert isinstance(message, dict), message
    return message


def open_app(page: Any, base_url: str, route: str = "") -> None:
    """Load the client and wait until it has said hello (the account name is shown)."""
    page.goto(f"{base_url}/{route}")
    page.wait_for_selector("#whoami", timeout=TIMEOUT_MS)


def wait_until(page: Any, predicate: Any, timeout_s: float = 15.0, what: str = "condition"
               ) -> Any:
    """Poll ``predicate()`` (a Python callable) while letting Playwright dispatch events."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        page.wait_for_timeout(40)


def shot(page: Any, artifacts: Path, name: str) -> Path:
    path = artifacts / name
    page.screenshot(path=str(path), full_page=True)
    return path


def console_errors(page: Any) -> list[str]:
    """Collect the page's uncaught errors and console errors from now on."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on("console", lambda msg: errors.append(f"console: {msg.text}")
            if msg.type == "error" else None)
    return errors
