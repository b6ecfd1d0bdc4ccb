"""Accounts and security through a real server."""

from __future__ import annotations

import httpx

from .helpers import PASSWORD, Player, Server


def test_register_login_logout_with_an_httponly_samesite_session_cookie(server):
    player = Player(server)
    with httpx.Client(base_url=server.url) as fresh:
        r = fresh.post("/api/auth/login", json={"username": player.name, "password": PASSWORD})
        cookie = r.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie
        account = fresh.get("/api/account").json()
        assert account["user"]["username"] == player.name and account["via"] == "session"
        # Logging out needs the CSRF token too; afterwards the session is gone.
        assert fresh.post("/api/auth/logout").status_code == 403
        r = fresh.post("/api/auth/logout", headers={"X-CSRF-Token": account["csrf_token"]})
        assert r.status_code == 200
        assert fresh.get("/api/account").json()["error"]["code"] == "login_required"
    player.close()


def test_wrong_passwords_and_taken_names_are_refused(players, server):
    player = players()
    r = httpx.post(
        f"{server.url}/api/auth/login", json={"username": player.name, "password": "wrong-password"}
    )
    assert r.status_code == 401 and r.json()["error"]["code"] == "bad_credentials"
    r = httpx.post(
        f"{server.url}/api/auth/register", json={"username": player.name.upper(), "password": PASSWORD}
    )
    assert r.status_code == 409 and r.json()["error"]["code"] == "username_taken"
    r = httpx.post(f"{server.url}/api/auth/register", json={"username": "shorty", "password": "short"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "weak_password"


def test_a_state_changing_request_with_the_cookie_needs_the_csrf_token(players):
    player = players()
    del player.http.headers["X-CSRF-Token"]
    r = player.post("/api/seeks", {})
    assert r.status_code == 403 and r.json()["error"] == {
        "code": "csrf",
        "message": "This request needs the session's CSRF token in the X-CSRF-Token header.",
    }
    r = player.http.post("/api/seeks", json={}, headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403


def test_api_tokens_have_scopes_and_are_revoked_by_their_owner(players, server):
    alice, bob = players(), players()
    secret = alice.token("read", "board:play")
    bearer = {"Authorization": f"Bearer {secret}"}
    account = httpx.get(f"{server.url}/api/account", headers=bearer).json()
    assert account["via"] == "token" and account["scopes"] == ["board:play", "read"]
    # A token needs no CSRF token (no cookie is involved) and cannot make more tokens.
    r = httpx.post(f"{server.url}/api/account/tokens", json={"scopes": ["read"]}, headers=bearer)
    assert r.status_code == 403 and r.json()["error"]["code"] == "session_required"
    listed = alice.http.get("/api/account/tokens").json()["tokens"]
    assert [t["scopes"] for t in listed] == [["board:play", "read"]] and "token" not in listed[0]
    # Bob cannot revoke Alice's token; Alice can.
    assert bob.http.delete(f"/api/account/tokens/{listed[0]['id']}").status_code == 404
    assert alice.http.delete(f"/api/account/tokens/{listed[0]['id']}").status_code == 200
    r = httpx.get(f"{server.url}/api/account", headers=bearer)
    assert r.status_code == 401 and r.json()["error"]["code"] == "bad_token"
    r = alice.post("/api/account/tokens", {"scopes": ["admin"]})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_scope"


def test_bot_accounts_are_marked_and_play_with_the_bot_scope(players, server):
    bot, human = players(bot=True), players()
    assert bot.http.get("/api/account").json()["user"]["bot"] is True
    # A person may hold a bot:play token (to upgrade with it, as on lichess); it opens no Bot API game.
    assert human.post("/api/account/tokens", {"scopes": ["bot:play"]}).status_code == 201
    assert (
        bot.post("/api/account/tokens", {"scopes": ["board:play"]}).json()["error"]["code"] == "bot_account"
    )
    bearer = {"Authorization": f"Bearer {bot.token('bot:play')}"}
    game = human.challenge(bot)
    assert game["black"]["bot"] is True
    human.post(f"/api/games/{game['id']}/move", {"move": "c3-d4"})
    r = httpx.post(f"{server.url}/api/games/{game['id']}/move", json={"move": "f6-g5"}, headers=bearer)
    assert r.status_code == 200, r.text


def test_login_and_registration_are_rate_limited(tmp_path):
    server = Server(tmp_path / "data", {"SHASHKI_LOGIN_ATTEMPTS": "3", "SHASHKI_REGISTRATIONS": "2"}).start()
    try:
        with httpx.Client(base_url=server.url) as client:
            codes = [
                client.post(
                    "/api/auth/register", json={"username": f"rl{i}", "password": PASSWORD}
                ).status_code
                for i in range(3)
            ]
            assert codes == [201, 201, 429]
            codes = [
                client.post("/api/auth/login", json={"username": "rl0", "password": "nope-nope"})
                for _ in range(4)
            ]
            assert [r.status_code for r in codes] == [401, 401, 401, 429]
            assert codes[-1].json()["error"]["code"] == "rate_limited" and "retry-after" in codes[-1].headers
    finally:
        server.stop()


def test_every_error_is_json_and_the_openapi_description_lists_every_endpoint(server):
    r = httpx.get(f"{server.url}/api/games/doesnotexist")
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_such_game"
    r = httpx.get(f"{server.url}/no/such/route")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    r = httpx.post(
        f"{server.url}/api/auth/login", content=b"not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"
    paths = httpx.get(f"{server.url}/openapi.json").json()["paths"]
    for path in (
        "/health",
        "/api/auth/register",
        "/api/games/{game_id}/move",
        "/api/challenges",
        "/api/computer-games",
        "/ws/games/{game_id}",
        "/ws/lobby",
    ):
        assert path in paths


def test_a_socket_needs_the_scopes_the_same_reads_need_over_http(players, server):
    """A token that may not read the account over HTTP (`missing_scope`) reads nothing over the lobby's or
    a game's socket either (found by an audit: a `puzzle:write` token was sent the account's challenges,
    games in play and its games' player chat); a token with `read` is served."""
    import json

    from websockets.sync.client import connect

    alice, bob = players(), players()
    game_id = alice.challenge(bob)["id"]
    narrow, wide = alice.token("puzzle:write"), alice.token("read")
    assert httpx.get(f"{server.url}/api/account/playing", headers={"Authorization": f"Bearer {narrow}"}
                     ).json()["error"]["code"] == "missing_scope"  # fmt: skip
    for path in ("/ws/lobby", f"/ws/games/{game_id}"):
        for token, served in ((narrow, False), (wide, True)):
            headers = {"Authorization": f"Bearer {token}"}
            with connect(f"{server.ws_url}{path}", additional_headers=headers, open_timeout=5) as ws:
                first = json.loads(ws.recv(timeout=5))
                assert (first.get("type") != "error") is served, (path, first)
                if not served:
                    assert first["error"]["code"] == "missing_scope"
    # The players' chat over HTTP too (found by a later audit: only the sockets were closed to it).
    for token, served in ((narrow, False), (wide, True)):
        r = httpx.get(f"{server.url}/api/games/{game_id}/chat", headers={"Authorization": f"Bearer {token}"})
        assert (r.status_code == 200) is served, r.text
        if served:
            assert "player" in r.json()["rooms"]
        else:
            assert r.json()["error"]["code"] == "missing_scope"
    assert set(httpx.get(f"{server.url}/api/games/{game_id}/chat").json()["rooms"]) == {"spectator"}
