"""Fixtures of the browser tests: one real server (a subprocess on a free port with its own data directory,
as in tests/server) and Debian's headless Chromium driven by Playwright.

Playwright's own browser download is never used (`playwright install` cannot work here): the tests launch
/usr/bin/chromium, which `make test` installs when it is missing. Without it the browser tests are skipped.
Screenshots go to test-artifacts/ at the top of the repository (git-ignored).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from server.helpers import Server

from .helpers import DESKTOP

CHROMIUM = os.environ.get("SHASHKI_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# The page may take a while on a busy two-core machine: waits are generous, failures still say what.
TIMEOUT_MS = 20_000


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Server:
    server = Server(tmp_path_factory.mktemp("web-server")).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    if not (os.path.exists(CHROMIUM) and shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM} (make test installs Debian's chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def pages(browser, server):
    """Open pages of the server, each in a browser context of its own (its own cookies: its own player).

    A page's JavaScript errors fail the test that opened it.
    """
    contexts, errors = [], []

    def open_page(path: str = "/", *, viewport: dict | None = None, language: str = "en", player=None):
        """`player`: a tests/server Player whose session the page takes over (already logged in)."""
        context = browser.new_context(viewport=viewport or DESKTOP, locale=language)
        context.set_default_timeout(TIMEOUT_MS)
        if player is not None:
            session = player.http.cookies.get("shashki_session")
            context.add_cookies([{"name": "shashki_session", "value": session, "url": server.url}])
        # Start in English whatever the machine's locale, unless the test says otherwise.
        context.add_init_script(
            "if (!localStorage.getItem('shashki.language'))"
            f" localStorage.setItem('shashki.language', '{language}');"
        )
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(f"{path}: {error}"))
        # Shown with a failing test's output: what the page said while it ran.
        page.on("console", lambda message: print(f"[{path} console.{message.type}] {message.text}"))
        page.goto(server.url + path)
        page.wait_for_selector("body[data-ready]")
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors in the page: {errors}"


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
