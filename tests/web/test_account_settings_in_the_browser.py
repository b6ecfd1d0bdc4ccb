"""The account's security on the settings page, in a real browser: changing the password (a wrong current
one refused and said so), the other sessions logged out with it and counted again, and the account closed
after a confirmation, the page then drawn for a visitor.
"""

from __future__ import annotations

import httpx
from server.helpers import PASSWORD, Player

NEW_PASSWORD = "a brand new horse battery"


def test_the_settings_page_changes_the_password_and_closes_the_account(pages, server):
    player = Player(server)
    other = httpx.Client(base_url=server.url, timeout=10)
    r = other.post("/api/auth/login", json={"username": player.name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    page = pages("/settings", player=player)
    page.wait_for_selector("#settings-sessions-open:text('Open sessions, this one included: 2')")
    page.fill("#settings-current-password", "not the password")
    page.fill("#settings-new-password", NEW_PASSWORD)
    page.click("#settings-password-button")
    page.wait_for_selector("#settings-password-error:text('The password is wrong: nothing was changed.')")
    page.fill("#settings-current-password", PASSWORD)
    page.click("#settings-password-button")
    changed = "Password changed. Other sessions logged out: 1."
    page.wait_for_selector(f"#settings-password-status:text('{changed}')")
    page.wait_for_selector("#settings-sessions-open:text('Open sessions, this one included: 1')")
    assert other.get("/api/account").status_code == 401
    # Closing asks first; the page is then a visitor's, and the account logs in no more.
    page.on("dialog", lambda dialog: dialog.accept())
    page.fill("#settings-close-password", NEW_PASSWORD)
    page.click("#settings-close-button")
    page.wait_for_selector("#settings-close-card", state="detached")
    page.wait_for_selector("text=Your choices are kept in this browser")
    r = httpx.post(f"{server.url}/api/auth/login", json={"username": player.name, "password": NEW_PASSWORD})
    assert r.status_code == 403 and r.json()["error"]["code"] == "account_closed"
    other.close()
    player.close()
