"""Accounts in the browser (issue #24): sign up, stay signed in across a reload, make a bot
and see its token once, sign out, a wrong password refused, sign in again, and the login
limit reached — real Chromium, the real server of the session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from web_accounts import open_account_page, refusal, sign_in, sign_out, sign_up, try_sign_in
from web_arena import WebArena
from web_pages import TIMEOUT_MS, console_errors, open_app, shot

from server.accounts import FAILURES_PER_NAME

PASSWORD = "correct horse battery"


@pytest.mark.timeout(120)
def test_sign_up_bots_sign_out_wrong_password_sign_in_and_the_login_limit(
        arena: WebArena, context: Any, artifacts: Path) -> None:
    page = context.new_page()
    errors = console_errors(page)
    open_app(page, arena.http_url)
    assert page.get_attribute("#whoami", "data-kind") == "guest"

    # A weak password is refused in words, and nothing is made.
    open_account_page(page)
    page.fill("#signup-name", "wendy")
    page.fill("#signup-password", "Password1")  # (the browser checks only the length)
    page.click("#signup-go")
    assert "password" in refusal(page)
    assert page.get_attribute("#whoami", "data-kind") == "guest"

    sign_up(page, "wendy", PASSWORD)
    saved = json.loads(page.evaluate("() => localStorage.getItem('arena.identity')"))
    assert saved["token"].startswith("arena_") and PASSWORD not in json.dumps(saved)
    page.reload()  # the login token signs this browser in again
    page.wait_for_selector("#whoami[data-kind='human']", timeout=TIMEOUT_MS)

    # A bot of hers: its token shown once, then revoked.
    open_account_page(page)
    page.fill("#bot-name", "wendy-bot")
    page.click("#bot-create")
    page.wait_for_selector("#bot-token[data-bot='wendy-bot']", timeout=TIMEOUT_MS)
    token = page.inner_text("#bot-token")
    assert token.startswith("arena_")
    store = arena.store
    assert store is not None
    assert store.account_for_token(token).owner == "wendy"  # type: ignore[union-attr]
    page.wait_for_selector("#my-bots tr[data-bot='wendy-bot']", timeout=TIMEOUT_MS)
    shot(page, artifacts, "account-page.png")
    page.click("#my-bots tr[data-bot='wendy-bot'] [data-action='revoke']")
    page.wait_for_selector("#bot-token", state="detached", timeout=TIMEOUT_MS)
    assert store.account_for_token(token) is None

    sign_out(page)
    assert json.loads(page.evaluate("() => localStorage.getItem('arena.identity')")) == {
        "name": "guest"}

    try_sign_in(page, "wendy", "not her password")
    assert "wrong name or password" in refusal(page)
    assert page.get_attribute("#whoami", "data-kind") == "guest"
    sign_in(page, "Wendy", PASSWORD)  # any case
    sign_out(page)

    for _ in range(FAILURES_PER_NAME - 1):
        try_sign_in(page, "wendy", "not her password")
        assert "wrong name or password" in refusal(page)
    try_sign_in(page, "wendy", PASSWORD)  # the limit: even the right password waits now
    assert "try again in" in refusal(page)
    shot(page, artifacts, "account-login-limit.png")
    assert page.get_attribute("#whoami", "data-kind") == "guest"
    assert all(not e for e in errors), errors
