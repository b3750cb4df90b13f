"""The lobby: the page's files as the server serves them, signing in (guest name or account
token), challenging an account and queueing against people — two browsers, one match each
way, both ended by a resignation."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from web_arena import WebArena
from web_pages import TIMEOUT_MS, FrameLog, console_errors, open_app, shot

from clients.connection import connect


def get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_the_server_serves_the_client_without_a_build_step(arena: WebArena) -> None:
    status, headers, body = get(arena.http_url + "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b'<script type="module" src="app.js">' in body
    assert "connect-src 'self'" in headers["Content-Security-Policy"]
    for name, kind in (("app.js", "text/javascript"), ("games/battleline.js", "text/javascript"),
                       ("games/chexers.js", "text/javascript"), ("replay.js", "text/javascript"),
                       ("ladder.js", "text/javascript"), ("protocol.js", "text/javascript"),
                       ("dom.js", "text/javascript"), ("style.css", "text/css"),
                       ("favicon.svg", "image/svg+xml")):
        status, headers, body = get(f"{arena.http_url}/{name}")
        assert status == 200 and headers["Content-Type"].startswith(kind), name
        assert body == (Path(__file__).parents[2] / "clients" / "web" / name).read_bytes()
    for missing in ("/nothing.js", "/__init__.py", "/..%2fserver%2fapp.py", "/.hidden.js",
                    "/games/nothing.js", "/games/../app.js", "/games/games/chexers.js"):
        assert get(arena.http_url + missing)[0] == 404, missing


def test_the_game_modules_are_listed_from_their_folder(arena: WebArena) -> None:
    """Adding a game to the web client is adding its file: the page loads what the server
    lists at /games/index.json, which is the folder's contents."""
    status, headers, body = get(arena.http_url + "/games/index.json")
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    folder = Path(__file__).parents[2] / "clients" / "web" / "games"
    assert json.loads(body) == sorted(p.stem for p in folder.glob("*.js"))
    assert {"battleline", "chexers"} <= set(json.loads(body))


def sign_in_as_guest(page: Any, name: str) -> str:
    page.click(".signin summary")
    page.fill("#signin-name", name)
    page.click("[data-action='guest']")
    page.wait_for_function("(n) => document.querySelector('#account-name')?.innerText"
                           ".startsWith(n + '#')", arg=name, timeout=TIMEOUT_MS)
    return str(page.inner_text("#account-name"))


def sign_in_with_token(page: Any, token: str, account: str) -> None:
    page.click(".signin summary")
    page.fill("#signin-token", token)
    page.click("[data-action='token']")
    page.wait_for_function("(n) => document.querySelector('#account-name')?.innerText === n",
                           arg=account, timeout=TIMEOUT_MS)


def resign(page: Any) -> None:
    page.click(".bl-prompt [data-action='resign']")
    page.click(".bl-prompt [data-action='resign']")  # the second click confirms


@pytest.mark.timeout(120)
def test_sign_in_challenge_and_queue(arena: WebArena, browser: Any, artifacts: Path) -> None:
    # Two people, two browser contexts (separate storage, like two machines).
    contexts = [browser.new_context(viewport={"width": 1400, "height": 960}) for _ in range(3)]
    try:
        ann, bob, carol = (ctx.new_page() for ctx in contexts)
        errors = [console_errors(p) for p in (ann, bob, carol)]
        frames = [FrameLog(p) for p in (ann, bob)]
        for page in (ann, bob, carol):
            open_app(page, arena.http_url)
        ann_name = sign_in_as_guest(ann, "ann")
        bob_name = sign_in_as_guest(bob, "bob")

        # An account token signs in as that account.
        token = arena.create_account("carol", "human")
        sign_in_with_token(carol, token, "carol")
        assert carol.get_attribute("#whoami", "data-kind") == "human"

        # Ann challenges Bob by account name; Bob accepts.
        ann.click(".mode-tabs [data-mode='challenge']")
        ann.fill("#challenge-accounts", bob_name)
        ann.select_option("#play-clock", label="10 min + 5 s")
        ann.click("#play-go")
        bob.wait_for_selector(".challenge-row [data-action='accept']", timeout=TIMEOUT_MS)
        assert ann_name in bob.inner_text(".challenges")
        shot(bob, artifacts, "lobby-challenge.png")
        bob.click(".challenge-row [data-action='accept']")
        for page, seat in ((ann, 0), (bob, 1)):
            page.wait_for_selector(f".bl-root[data-viewer='seat-{seat}']", timeout=TIMEOUT_MS)
        match_id = frames[0].received_of("match_start")[-1]["match_id"]
        assert frames[1].received_of("match_start")[-1]["match_id"] == match_id
        assert frames[0].received_of("match_start")[-1]["clock"] == {"initial_ms": 600000,
                                                                     "increment_ms": 5000}
        ann.wait_for_selector(".bl-root[data-request]", timeout=TIMEOUT_MS)  # north moves first
        pending = ann.get_attribute(".bl-root", "data-request")
        # A reload resumes the session: the same match, the same open request.
        ann.reload()
        ann.wait_for_selector(f".bl-root[data-request='{pending}']", timeout=TIMEOUT_MS)
        assert ann.url.endswith(f"#/m/{match_id}")
        assert ann.inner_text("#whoami").startswith(ann_name)
        resign(bob)
        for page in (ann, bob):
            page.wait_for_selector(".bl-root .banner", timeout=TIMEOUT_MS)
        assert ann.inner_text(".bl-root .banner").startswith("You win")
        assert bob.inner_text(".bl-root .banner").startswith("You lose")

        # Both queue for Battle Line with the same clock: the server pairs them.
        for page in (ann, bob):
            page.click("a.nav-link[href='#/']")
            page.click(".mode-tabs [data-mode='seek']")
            page.select_option("#play-clock", label="3 min + 2 s")
        seen = {m["match_id"] for f in frames for m in f.received_of("match_start")}
        ann.click("#play-go")
        ann.wait_for_selector(".seek-row", timeout=TIMEOUT_MS)
        bob.click("#play-go")
        for page in (ann, bob):
            page.wait_for_function(
                "(old) => { const r = document.querySelector('.bl-root');"
                " return r && !old.includes(r.closest('[data-match-id]').dataset.matchId); }",
                arg=sorted(seen), timeout=TIMEOUT_MS)
        starts = [f.received_of("match_start")[-1] for f in frames]
        assert starts[0]["match_id"] == starts[1]["match_id"] != match_id
        assert sorted(s["your_seat"] for s in starts) == [0, 1]
        resign(ann)
        bob.wait_for_selector(".bl-root .banner", timeout=TIMEOUT_MS)
        assert all(not e for e in errors), errors
    finally:
        for ctx in contexts:
            ctx.close()


@pytest.mark.timeout(60)
def test_an_invitation_names_its_clock_per_decision_limit_included(arena: WebArena,
                                                                    browser: Any) -> None:
    """The lobby's challenge row says what clock the invitation is under, whether it is a
    bank, a per-decision limit (the protocol's ``decision_ms``) or both."""
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        errors = console_errors(page)
        open_app(page, arena.http_url)
        me = sign_in_as_guest(page, "dora")
        token = arena.create_account("timekeeper", "bot")

        async def invite() -> Any:
            server = arena.server
            assert server is not None
            conn = await connect(server.ws_url, token)
            for clock in ({"decision_ms": 5000},
                          {"initial_ms": 600000, "increment_ms": 5000, "decision_ms": 10000}):
                await conn.challenge([me], "battleline", clock=clock)
            return conn  # open until the rows are read: a challenger who leaves withdraws

        conn = arena.call(invite())
        try:
            page.wait_for_function(
                "() => document.querySelectorAll('.challenge-row').length >= 2",
                timeout=TIMEOUT_MS)
            rows = page.locator(".challenge-row").all_inner_texts()
        finally:
            arena.call(conn.close())
        assert any("(5 s a move)" in row for row in rows), rows
        assert any("(10 min + 5 s, 10 s a move)" in row for row in rows), rows
        assert all(not e for e in errors), errors
    finally:
        ctx.close()


# The page's old socket closes only after its replacement has said hello: what a busy machine
# does to the close handshake, made certain by holding every close() back until the next frame
# any socket of the page sends (the new socket's hello).
SLOW_CLOSE = """
(() => {
  const close = WebSocket.prototype.close;
  const send = WebSocket.prototype.send;
  let held = [];
  WebSocket.prototype.close = function (...args) { held.push(() => close.apply(this, args)); };
  WebSocket.prototype.send = function (...args) {
    send.apply(this, args);
    const now = held;
    held = [];
    for (const fn of now) fn();
  };
})();
"""


@pytest.mark.timeout(60)
def test_switching_account_survives_the_old_socket_closing_late(arena: WebArena,
                                                                 browser: Any) -> None:
    """Signing in anew replaces the page's connection; the old one's close event, arriving
    after the new hello is on its way, must fail only the old connection's questions (it
    once failed the new hello too: the sign-in fell back to a guest)."""
    ctx = browser.new_context()
    try:
        ctx.add_init_script(SLOW_CLOSE)
        page = ctx.new_page()
        errors = console_errors(page)
        frames = FrameLog(page)
        open_app(page, arena.http_url)
        guest = sign_in_as_guest(page, "erin")
        token = arena.create_account("erin-account", "human")
        sign_in_with_token(page, token, "erin-account")
        # Still that account a moment later: no fallback to a guest behind the toast.
        page.wait_for_timeout(1000)
        assert page.inner_text("#account-name") == "erin-account"
        assert page.locator(".toast", has_text="Sign-in failed").count() == 0
        welcomes = [m["account"]["name"] for m in frames.received_of("welcome")]
        assert welcomes[-2:] == [guest, "erin-account"], welcomes
        assert all(not e for e in errors), errors
    finally:
        ctx.close()
