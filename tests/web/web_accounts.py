"""Driving the web client's account page (clients/web/account.js) from a test: sign a person
up, in or out through the browser as a person would. For any Chromium test that needs a
signed-in person (a rated game, a profile):

    open_app(page, arena.http_url)
    sign_up(page, "wendy", "correct horse battery")   # or sign_in(page, name, password)

Each waits until the page says who it is (``#whoami`` names the account, kind ``human``)."""

from __future__ import annotations

from typing import Any

from web_pages import TIMEOUT_MS


def open_account_page(page: Any) -> None:
    page.click("a.nav-link[href='#/account']")
    page.wait_for_selector(".account-page .account", timeout=TIMEOUT_MS)


def signed_in_as(page: Any, name: str) -> None:
    """Wait until the page is signed in as ``name`` (in any case: a name is one whatever
    its case)."""
    page.wait_for_function(
        "(n) => { const w = document.querySelector('#whoami');"
        " return w && w.dataset.kind !== 'guest'"
        " && w.firstChild.textContent.toLowerCase() === n.toLowerCase(); }",
        arg=name, timeout=TIMEOUT_MS)


def sign_up(page: Any, name: str, password: str, *, claim: bool = True) -> None:
    """Sign a guest page up as ``name`` (claiming its guest games unless ``claim`` is false)."""
    open_account_page(page)
    page.fill("#signup-name", name)
    page.fill("#signup-password", password)
    if not claim:
        page.uncheck("#signup-claim")
    page.click("#signup-go")
    signed_in_as(page, name)


def try_sign_in(page: Any, name: str, password: str) -> None:
    """Submit the sign-in form (on the account page, as a guest); waits for nothing."""
    open_account_page(page)
    page.evaluate("() => document.querySelector('#account-message')?.remove()")
    page.fill("#login-name", name)
    page.fill("#login-password", password)
    page.click("#login-go")


def refusal(page: Any) -> str:
    """The account page's refusal, once it shows one (after :func:`try_sign_in`)."""
    page.wait_for_selector("#account-message", timeout=TIMEOUT_MS)
    return str(page.inner_text("#account-message"))


def sign_in(page: Any, name: str, password: str) -> None:
    try_sign_in(page, name, password)
    signed_in_as(page, name)


def sign_out(page: Any) -> None:
    open_account_page(page)
    page.click("#signout")
    page.wait_for_selector("#whoami[data-kind='guest']", timeout=TIMEOUT_MS)
