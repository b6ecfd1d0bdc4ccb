"""The account's looks (issue 16, point 5: "a light and a dark theme, two board styles and two piece styles,
saved per account"): GET/PUT /api/account/preferences through a real server."""

from __future__ import annotations

import httpx

from shashki.server.accounts.preferences import BOARDS, PIECES, THEMES

from .helpers import PASSWORD


def test_an_account_without_choices_has_the_defaults_following_the_system_theme(players):
    player = players()
    r = player.http.get("/api/account/preferences")
    assert r.status_code == 200
    assert r.json()["preferences"] == {"theme": "auto", "board": "wood", "pieces": "ringed"}


def test_choices_are_saved_per_account_and_follow_it_to_a_new_session(players, server):
    alice, bob = players(), players()
    r = alice.http.put("/api/account/preferences", json={"theme": "dark", "board": "marine"})
    assert r.status_code == 200
    assert r.json()["preferences"] == {"theme": "dark", "board": "marine", "pieces": "ringed"}
    # A later change names only what it changes; the rest stays.
    r = alice.http.put("/api/account/preferences", json={"pieces": "flat"})
    assert r.json()["preferences"] == {"theme": "dark", "board": "marine", "pieces": "flat"}
    # Another browser (a new session) of the same account sees them; another account does not.
    with httpx.Client(base_url=server.url) as other_browser:
        other_browser.post("/api/auth/login", json={"username": alice.name, "password": PASSWORD})
        got = other_browser.get("/api/account/preferences").json()["preferences"]
    assert got == {"theme": "dark", "board": "marine", "pieces": "flat"}
    assert bob.http.get("/api/account/preferences").json()["preferences"]["theme"] == "auto"


def test_every_offered_choice_is_accepted_and_anything_else_refused(players):
    player = players()
    for theme in THEMES:
        for board in BOARDS:
            for pieces in PIECES:
                body = {"theme": theme, "board": board, "pieces": pieces}
                r = player.http.put("/api/account/preferences", json=body)
                assert r.status_code == 200 and r.json()["preferences"] == body
    for bad in [{"theme": "purple"}, {"board": "glass"}, {"pieces": "<script>"}, {"theme": 3}]:
        r = player.http.put("/api/account/preferences", json=bad)
        assert r.status_code in (400, 422), (bad, r.text)
    assert player.http.get("/api/account/preferences").json()["preferences"] == body


def test_visitors_and_forged_requests_change_no_preferences(players, server):
    player = players()
    assert httpx.get(f"{server.url}/api/account/preferences").status_code == 401
    assert httpx.put(f"{server.url}/api/account/preferences", json={"theme": "dark"}).status_code == 401
    # The session cookie without the page's CSRF token: refused.
    r = player.http.put(
        "/api/account/preferences", json={"theme": "dark"}, headers={"X-CSRF-Token": "forged"}
    )
    assert r.status_code == 403
    # A read-only token reads them but does not change them.
    token = {"Authorization": f"Bearer {player.token('read')}"}
    assert httpx.get(f"{server.url}/api/account/preferences", headers=token).status_code == 200
    r = httpx.put(f"{server.url}/api/account/preferences", json={"theme": "dark"}, headers=token)
    assert r.status_code == 403
    assert player.http.get("/api/account/preferences").json()["preferences"]["theme"] == "auto"
