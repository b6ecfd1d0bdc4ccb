"""An account's security, as on lichess (accounts/security.py): changing the password ends the account's
other sessions (their sockets closed) and keeps this one and the API tokens; logging out everywhere ends
every other session, or all of them; closing the account — refused while it plays — ends every session and
token, withdraws its seeks, challenges and tournament entries, and leaves its name taken and its profile and
games shown as closed. Each refusal changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import uuid

import httpx
import pytest
from sqlalchemy import insert, select
from websockets.sync.client import connect

from shashki.server.accounts import AccountService
from shashki.server.accounts.models import User
from shashki.server.accounts.security import AccountSecurity
from shashki.server.events import InProcessBus
from shashki.server.storage import Database
from shashki.server.storage.base import utcnow

from .helpers import PASSWORD, GameSocket, Player, Server, at_once, first_moves, fresh_database_url
from .test_authority import closed_with

NEW_PASSWORD = "a brand new horse battery"
DATABASES = ["sqlite", "postgresql"]


def session_of(server: Server, player: Player, password: str = PASSWORD) -> httpx.Client:
    """Another browser logged in to the player's account: a session of its own."""
    client = httpx.Client(base_url=server.url, timeout=10)
    r = client.post("/api/auth/login", json={"username": player.name, "password": password})
    assert r.status_code == 200, r.text
    client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    return client


def login(server: Server, name: str, password: str) -> httpx.Response:
    return httpx.post(f"{server.url}/api/auth/login", json={"username": name, "password": password})


def error_of(r: httpx.Response) -> tuple[int, str]:
    return r.status_code, r.json()["error"]["code"]


def logged_in(client: httpx.Client) -> bool:
    return client.get("/api/account").status_code == 200


# -- the password ------------------------------------------------------------------------------------------


def test_a_wrong_current_password_or_a_weak_new_one_changes_nothing(server, players):
    alice = players()
    other = session_of(server, alice)
    wrong = {"current_password": "not the password", "new_password": NEW_PASSWORD}
    r = alice.post("/api/account/password", wrong)
    assert error_of(r) == (403, "wrong_password")
    assert r.json()["error"]["message"] == "The current password is wrong: nothing was changed."
    r = alice.post("/api/account/password", {"current_password": PASSWORD, "new_password": "short"})
    assert error_of(r) == (400, "weak_password")  # the registration's rule
    assert logged_in(other) and login(server, alice.name, PASSWORD).status_code == 200
    assert login(server, alice.name, NEW_PASSWORD).status_code == 401
    other.close()


def test_a_password_change_ends_the_other_sessions_and_their_sockets_and_keeps_this_one_and_the_tokens(
    server, players
):
    alice, bob = players(), players()
    game = alice.challenge(bob)
    other = session_of(server, alice)
    socket = GameSocket(server, game["id"], cookie=other.cookies.get("shashki_session"))
    token = alice.token("read")
    r = alice.post("/api/account/password", {"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert r.status_code == 200 and r.json() == {"ok": True, "sessions_ended": 1}, r.text
    # The other session's socket is closed as by a logout, and the session opens nothing any more.
    messages = closed_with(socket.ws, 4401)
    assert any(m.get("error", {}).get("code") == "credential_ended" for m in messages), messages
    assert error_of(other.get("/api/account")) == (401, "login_required")
    # This session plays on; the personal API token stays (as on lichess).
    assert logged_in(alice.http)
    assert alice.post(f"/api/games/{game['id']}/move", {"move": "c3-d4"}).status_code == 200
    bearer = {"Authorization": f"Bearer {token}"}
    assert httpx.get(f"{server.url}/api/account", headers=bearer).status_code == 200
    assert error_of(login(server, alice.name, PASSWORD)) == (401, "bad_credentials")
    assert login(server, alice.name, NEW_PASSWORD).status_code == 200
    other.close()


def test_of_two_password_changes_at_once_one_is_made_and_the_other_refused(server, players):
    """Both checked the same current password: a compare-and-set on it lets one through (found by an
    audit: both were made, one new password lost, both sessions logged out)."""
    alice = players()
    sessions = [session_of(server, alice), session_of(server, alice)]
    passwords = [NEW_PASSWORD, NEW_PASSWORD + " two"]
    bodies = [{"current_password": PASSWORD, "new_password": p} for p in passwords]
    pairs = zip(sessions, bodies, strict=True)
    answers = at_once(*(lambda c=c, b=b: c.post("/api/account/password", json=b) for c, b in pairs))
    codes = sorted(r.status_code for r in answers)
    assert codes[0] == 200 and codes[1] in (401, 409), [r.text for r in answers]
    won = next(i for i, r in enumerate(answers) if r.status_code == 200)
    assert logged_in(sessions[won]) and not logged_in(sessions[1 - won])
    assert login(server, alice.name, passwords[won]).status_code == 200
    assert login(server, alice.name, passwords[1 - won]).status_code == 401
    for client in sessions:
        client.close()


def test_only_a_browser_session_changes_the_password_ends_sessions_or_closes_the_account(server, players):
    alice = players()
    bearer = {"Authorization": f"Bearer {alice.token('read', 'board:play')}"}
    asks = [
        ("/api/account/password", {"current_password": PASSWORD, "new_password": NEW_PASSWORD}),
        ("/api/account/sessions/end", {}),
        ("/api/account/close", {"password": PASSWORD}),
    ]
    for path, body in asks:
        r = httpx.post(f"{server.url}{path}", json=body, headers=bearer)
        assert error_of(r) == (403, "session_required"), path
    r = httpx.get(f"{server.url}/api/account/sessions", headers=bearer)
    assert error_of(r) == (403, "session_required")
    assert login(server, alice.name, PASSWORD).status_code == 200 and logged_in(alice.http)


# -- sessions ----------------------------------------------------------------------------------------------


def test_log_out_everywhere_ends_the_other_sessions_and_with_keep_current_false_this_one(server, players):
    alice = players()
    others = [session_of(server, alice), session_of(server, alice)]
    token = alice.token("read")
    listed = alice.http.get("/api/account/sessions").json()
    assert listed["count"] == 3 and [s["current"] for s in listed["sessions"]] == [True, False, False]
    r = alice.post("/api/account/sessions/end")
    assert r.status_code == 200 and r.json() == {"ended": 2, "kept_current": True}
    assert not any(logged_in(o) for o in others) and logged_in(alice.http)
    assert alice.http.get("/api/account/sessions").json()["count"] == 1
    # Everywhere, this session included: the cookie goes too; the API token stays.
    r = alice.post("/api/account/sessions/end", {"keep_current": False})
    assert r.json() == {"ended": 1, "kept_current": False}
    assert 'shashki_session=""' in r.headers["set-cookie"] or "max-age=0" in r.headers["set-cookie"].lower()
    assert error_of(alice.http.get("/api/account")) == (401, "login_required")
    bearer = {"Authorization": f"Bearer {token}"}
    assert httpx.get(f"{server.url}/api/account", headers=bearer).status_code == 200
    for o in others:
        o.close()


# -- closing the account -----------------------------------------------------------------------------------


def test_closing_needs_the_password_and_waits_for_the_games_in_play(server, players):
    alice, bob = players(), players()
    game = alice.challenge(bob)
    r = alice.post("/api/account/close", {"password": "not the password"})
    assert error_of(r) == (403, "wrong_password")
    r = alice.post("/api/account/close", {"password": PASSWORD})
    assert error_of(r) == (409, "games_in_play") and r.json()["error"]["games"] == [game["id"]]
    assert "finish or resign them" in r.json()["error"]["message"]
    # Nothing changed: the account plays on, logs in, and is not shown closed.
    assert logged_in(alice.http) and login(server, alice.name, PASSWORD).status_code == 200
    assert httpx.get(f"{server.url}/api/users/{alice.name}").json()["user"]["closed"] is False
    assert alice.post(f"/api/games/{game['id']}/resign").status_code == 200
    assert alice.post("/api/account/close", {"password": PASSWORD}).status_code == 200


def wait_for(ws, predicate, timeout: float = 5) -> dict:
    while True:
        message = json.loads(ws.recv(timeout=timeout))
        if predicate(message):
            return message


def test_a_closed_account_ends_everything_it_opened_and_offered_and_stays_shown_as_closed(server, players):
    alice, bob, carol = players(), players(), players()
    finished = alice.challenge(bob)
    assert bob.post(f"/api/games/{finished['id']}/resign").status_code == 200
    # What alice offers and is offered: a seek nobody else makes, a challenge to bob, carol's challenge to
    # her, a challenge by link; and what she opened: another browser's session with its lobby socket, a token.
    r = alice.post("/api/seeks", {"time_control": {"minutes": 177.77, "increment": 177}})
    seek = r.json()["seek"]["id"]
    to_bob = alice.post("/api/challenges", {"username": bob.name}).json()["challenge"]["id"]
    to_alice = carol.post("/api/challenges", {"username": alice.name}).json()["challenge"]["id"]
    link = alice.post("/api/challenges/open", {}).json()["challenge"]["link"]
    token = alice.token("board:play")
    other = session_of(server, alice)
    cookie = {"Cookie": f"shashki_session={other.cookies.get('shashki_session')}"}
    bob_cookie = {"Cookie": f"shashki_session={bob.http.cookies.get('shashki_session')}"}
    with connect(f"{server.ws_url}/ws/lobby", additional_headers=cookie, open_timeout=5) as ws, connect(
        f"{server.ws_url}/ws/lobby", additional_headers=bob_cookie, open_timeout=5
    ) as bob_ws:
        json.loads(ws.recv(timeout=5))
        json.loads(bob_ws.recv(timeout=5))
        r = alice.post("/api/account/close", {"password": PASSWORD})
        assert r.status_code == 200 and r.json() == {"ok": True, "closed": True}, r.text
        closed_with(ws, 4401)
        # Bob hears that alice's challenge is withdrawn, as when she cancels it by hand.
        wait_for(bob_ws, lambda m: m.get("type") == "challengeCancelled" and m.get("id") == to_bob)
    # Every session and token has ended.
    for client in (alice.http, other):
        assert error_of(client.get("/api/account")) == (401, "login_required")
    bearer = {"Authorization": f"Bearer {token}"}
    assert error_of(httpx.get(f"{server.url}/api/account", headers=bearer)) == (401, "bad_token")
    # Offers withdrawn: the seek, both challenges (hers cancelled, carol's declined), the link.
    assert seek not in [s["id"] for s in httpx.get(f"{server.url}/api/seeks").json()["seeks"]]
    assert to_bob not in [c["id"] for c in bob.http.get("/api/challenges").json()["in"]]
    assert to_alice not in [c["id"] for c in carol.http.get("/api/challenges").json()["out"]]
    assert httpx.get(f"{server.url}/api/challenges/open/{link}").json()["challenge"]["status"] == "cancelled"
    # It logs in no more (the right password is told why), its name stays taken, nobody challenges it.
    r = login(server, alice.name, PASSWORD)
    assert error_of(r) == (403, "account_closed") and "closed" in r.json()["error"]["message"]
    assert error_of(login(server, alice.name, "not the password")) == (401, "bad_credentials")
    again = {"username": alice.name.upper(), "password": PASSWORD}
    r = httpx.post(f"{server.url}/api/auth/register", json=again)
    assert error_of(r) == (409, "username_taken")
    assert error_of(bob.post("/api/challenges", {"username": alice.name})) == (409, "account_closed")
    # The profile and the finished game stay, shown as closed.
    profile = httpx.get(f"{server.url}/api/users/{alice.name}").json()
    assert profile["user"]["closed"] is True and profile["count"]["all"] == 1
    games = httpx.get(f"{server.url}/api/users/{alice.name}/games").json()
    assert [g["id"] for g in games["games"]] == [finished["id"]]
    assert httpx.get(f"{server.url}/api/games/{finished['id']}").status_code == 200
    other.close()


def test_a_closed_account_is_offered_no_rematch_nor_followed(server, players):
    """Its rematch offer made before it closed lapses, and a new offer to it is refused, as a challenge to
    it is; nobody follows it (found by an audit: a rematch started a game against the closed account)."""
    alice, bob = players(), players()
    games = [alice.challenge(bob)["id"] for _ in range(2)]
    for gid in games:
        first_moves(gid, alice, bob)
        assert bob.post(f"/api/games/{gid}/resign").status_code == 200
    assert alice.post(f"/api/games/{games[0]}/rematch").status_code == 200  # offered, then closed
    assert alice.post("/api/account/close", {"password": PASSWORD}).status_code == 200
    for action in (f"{games[0]}/rematch/accept", f"{games[0]}/rematch", f"{games[1]}/rematch"):
        assert error_of(bob.post(f"/api/games/{action}")) == (409, "account_closed"), action
    assert bob.http.get("/api/account/playing").json()["nowPlaying"] == []
    assert error_of(bob.post(f"/api/rel/follow/{alice.name.upper()}")) == (409, "account_closed")
    assert bob.http.get("/api/rel/following").json()["following"] == []


def test_a_game_started_with_an_account_as_it_closes_is_called_off(tmp_path):
    """A seek or challenge accepted between the check of the games in play and the account's closing
    starts a game nobody will play on one side: the closing aborts it (the window made here by the games
    in play being found only on the second asking)."""
    aborted: list[tuple[int, str]] = []

    async def scenario() -> None:
        db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
        accounts = AccountService(db, argon2_memory_kib=1024, argon2_time_cost=1, bus=InProcessBus())
        await accounts.register("alice", PASSWORD)
        _user, session, _csrf = await accounts.login("alice", PASSWORD)
        actor = await accounts.actor_for_session(session)
        assert actor is not None
        security = AccountSecurity(accounts)
        answers = iter([[], ["g1"]])

        async def in_play(user_id: int) -> list[str]:
            return next(answers)

        async def abort(user_id: int, game_id: str) -> None:
            aborted.append((user_id, game_id))

        security.games_in_play, security.abort_game = in_play, abort
        await security.close(actor, PASSWORD)
        assert await security.is_closed(actor.id)
        await db.close()

    asyncio.run(scenario())
    assert [game for _, game in aborted] == ["g1"]


def test_closing_withdraws_the_tournaments_not_over(server, players):
    alice, bob = players(), players()
    arena = {"name": "Closing", "system": "arena", "clock": {"initial": 60, "increment": 0}, "minutes": 30}
    r = bob.post("/api/tournaments", arena)  # it starts in two minutes: created, not started
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    assert alice.post(f"/api/tournaments/{tid}/join").status_code == 200
    assert bob.http.get(f"/api/tournaments/{tid}").json()["players"] == 1
    assert alice.post("/api/account/close", {"password": PASSWORD}).status_code == 200
    assert bob.http.get(f"/api/tournaments/{tid}").json()["players"] == 0
    rows = bob.http.get(f"/api/tournaments/{tid}/standings").json()["players"]
    assert [(row["user"], row["withdrawn"]) for row in rows] == [(alice.name, True)]


# -- without a server --------------------------------------------------------------------------------------


def test_a_session_or_token_left_to_a_closed_account_opens_nothing(tmp_path):
    """Closing ends every credential; one opened at that very moment is refused anyway, the account
    being closed (the accounts service reads it with every credential)."""

    async def scenario() -> list[bool]:
        db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
        accounts = AccountService(db, argon2_memory_kib=1024, argon2_time_cost=1, bus=InProcessBus())
        user = await accounts.register("alice", PASSWORD)
        _user, session, _csrf = await accounts.login("alice", PASSWORD)
        actor = await accounts.actor_for_session(session)
        assert actor is not None
        token, _row = await accounts.create_token(actor, ["read"])
        async with db.session() as s:
            row = await s.get(User, user.id)
            assert row is not None
            row.closed_at = utcnow()
            await s.commit()
        seen = [await accounts.actor_for_session(session) is None]
        seen.append(await accounts.actor_for_token(token) is None)
        await db.close()
        return seen

    assert asyncio.run(scenario()) == [True, True]


@pytest.mark.parametrize("database", DATABASES)
def test_the_migration_leaves_every_account_open(database, tmp_path):
    async def scenario(url: str) -> list:
        db = Database(url)
        await db.migrate("0008_player_tally")
        async with db.session() as s:
            await s.execute(insert(User), [
                {"username": f"m{i}", "username_key": f"m{i}_{uuid.uuid4().hex[:6]}", "password_hash": "-",
                 "is_bot": False, "created_at": utcnow()} for i in range(3)])  # fmt: skip
            await s.commit()
        await db.migrate()
        try:
            async with db.session() as s:
                return list(await s.scalars(select(User.closed_at)))
        finally:
            await db.close()

    with fresh_database_url(database, tmp_path) as url:
        assert asyncio.run(scenario(url)) == [None, None, None]


# -- what a browser or a proxy keeps ------------------------------------------------------------------------


def test_json_read_with_a_session_or_a_token_is_never_stored_by_a_cache(server, players):
    alice = players()
    token = {"Authorization": f"Bearer {alice.token('read')}"}
    for r in (
        alice.http.get("/api/account"),
        alice.http.get("/api/account/sessions"),
        httpx.get(f"{server.url}/api/account", headers=token),
        alice.http.get(f"/api/users/{alice.name}"),
    ):
        assert r.status_code == 200, r.text
        assert r.headers["cache-control"] == "no-store", r.request.url
    board = {"Authorization": f"Bearer {alice.token('board:play')}"}
    with httpx.stream("GET", f"{server.url}/api/stream/event", headers=board) as stream:  # NDJSON too
        assert stream.status_code == 200 and stream.headers["cache-control"] == "no-store"
    # Nothing personal without credentials: public JSON keeps its own caching rules, pages theirs.
    assert "cache-control" not in httpx.get(f"{server.url}/api/users/{alice.name}").headers
    assert alice.http.get("/").headers["cache-control"] == "no-cache"
