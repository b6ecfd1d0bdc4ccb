"""Anonymous play and challenges by link (issue 16, points 1 and 2): a visitor without an account gets a
signed session, plays casual games (the computer, seeks, links), is refused what needs an account — each
refusal with its own code — keeps its games by registering, and a link's seat is taken once only.
"""

from __future__ import annotations

import json
import threading
import uuid

import httpx
import pytest
from websockets.sync.client import connect

from .helpers import PASSWORD, GameSocket, Player, Server

SEEK = {"time_control": {"minutes": 5, "increment": 0}}


class Visitor:
    """A browser without an account: an anonymous session, its cookie and CSRF token."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.http = httpx.Client(base_url=server.url, timeout=10)
        r = self.http.post("/api/auth/anonymous")
        assert r.status_code == 201, r.text
        self.user = r.json()["user"]
        self.id = self.user["id"]
        self.http.headers["X-CSRF-Token"] = r.json()["csrf_token"]

    def post(self, path: str, body: dict | None = None) -> httpx.Response:
        return self.http.post(path, json=body or {})

    def socket(self, game_id: str) -> GameSocket:
        return GameSocket(self.server, game_id, cookie=self.http.cookies.get("shashki_session"))

    def close(self) -> None:
        self.http.close()


@pytest.fixture
def visitors(server):
    made: list[Visitor] = []

    def make() -> Visitor:
        made.append(Visitor(server))
        return made[-1]

    yield make
    for visitor in made:
        visitor.close()


def unique_clock() -> dict:
    """A clock no other test seeks, so that a seek waits instead of pairing with someone else's."""
    return {"time_control": {"minutes": 100 + int(uuid.uuid4().int % 7000) / 100, "increment": 177}}


# -- the session ------------------------------------------------------------------------------------------


def test_a_visitor_gets_an_anonymous_session_named_anonymous(visitors):
    visitor = visitors()
    assert visitor.user["username"] == "Anonymous" and visitor.user["anonymous"] is True
    account = visitor.http.get("/api/account").json()
    assert account["user"]["id"] == visitor.id and account["csrf_token"]


def test_asking_again_keeps_the_same_anonymous_identity(visitors):
    visitor = visitors()
    r = visitor.post("/api/auth/anonymous")
    assert r.status_code == 201 and r.json()["user"]["id"] == visitor.id


def test_an_anonymous_session_ends_at_logout(visitors):
    visitor = visitors()
    assert visitor.post("/api/auth/logout").status_code == 200
    assert visitor.http.get("/api/account").status_code == 401


def test_an_anonymous_identity_has_no_profile_and_cannot_be_logged_into(server, visitors):
    visitor = visitors()
    assert httpx.get(f"{server.url}/api/users/Anonymous").status_code == 404
    r = httpx.post(f"{server.url}/api/auth/login", json={"username": "Anonymous", "password": ""})
    assert r.status_code in (401, 422)
    assert visitor.http.get("/api/account").json()["user"]["anonymous"] is True


# -- what an anonymous visitor may do ---------------------------------------------------------------------


def test_a_visitor_plays_the_computer_to_the_end(visitors):
    visitor = visitors()
    r = visitor.post("/api/computer-games", {"level": 1, "color": "white"})
    assert r.status_code == 201, r.text
    game = r.json()["game"]
    assert game["white"] == {"id": visitor.id, "username": "Anonymous", "bot": False, "anonymous": True}
    assert not game["rated"]
    ws = visitor.socket(game["id"])
    assert ws.move(game["legal_moves"][0]["move"])["type"] == "ack"
    ws.wait_state(lambda g: g["ply"] == 2)  # the computer's answer: a resignation is a result from now on
    assert ws.request({"type": "resign"})["type"] == "ack"
    assert ws.wait_state(lambda g: g["status"] == "finished")["winner"] == "black"
    ws.close()


def test_a_visitor_posts_a_casual_seek_that_an_account_accepts(visitors, players):
    visitor, alice = visitors(), players()
    r = visitor.post("/api/seeks", unique_clock())
    assert r.status_code == 200 and r.json()["seek"]["user"]["anonymous"] is True, r.text
    r = alice.post(f"/api/seeks/{r.json()['seek']['id']}/accept")
    assert r.status_code == 200, r.text
    ids = {r.json()["game"]["white"]["id"], r.json()["game"]["black"]["id"]}
    assert ids == {visitor.id, alice.id}


def test_a_visitor_accepts_a_casual_seek(visitors, players):
    alice, visitor = players(), visitors()
    seek = alice.post("/api/seeks", unique_clock()).json()["seek"]
    r = visitor.post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 200, r.text


def test_spectators_see_an_anonymous_player_as_anonymous(server, visitors):
    visitor = visitors()
    game = visitor.post("/api/computer-games", {"level": 1, "color": "black"}).json()["game"]
    seen = httpx.get(f"{server.url}/api/games/{game['id']}").json()["game"]
    assert seen["black"]["username"] == "Anonymous" and seen["black"]["anonymous"] is True


# -- what an anonymous visitor may not do: each refusal says why ----------------------------------------


def test_a_visitor_is_refused_a_rated_seek(visitors):
    r = visitors().post("/api/seeks", {**SEEK, "rated": True})
    assert r.status_code == 403 and r.json()["error"]["code"] == "anonymous_rated"


def test_a_visitor_is_refused_rated_quick_pairing(visitors):
    r = visitors().post("/api/quick-pairing", {"preset": "5+0", "rated": True})
    assert r.status_code == 403 and r.json()["error"]["code"] == "anonymous_rated"


def test_a_visitor_is_refused_an_accounts_rated_seek(visitors, players):
    seek = players().post("/api/seeks", {**unique_clock(), "rated": True}).json()["seek"]
    r = visitors().post(f"/api/seeks/{seek['id']}/accept")
    assert r.status_code == 403 and r.json()["error"]["code"] == "anonymous_rated"


def test_a_visitor_is_refused_a_challenge_by_name(visitors, players):
    r = visitors().post("/api/challenges", {"username": players().name})
    assert r.status_code == 403 and r.json()["error"]["code"] == "anonymous_challenge"


@pytest.mark.parametrize(
    "path,body",
    [
        ("/api/account/tokens", {"scopes": ["read"]}),
        ("/api/account/bot", {}),
        ("/api/board/seek", {}),
        ("/api/bot/account/upgrade", {}),
    ],
)
def test_a_visitor_is_refused_tokens_and_the_bot_api(visitors, path, body):
    r = visitors().post(path, body)
    assert r.status_code == 403 and r.json()["error"]["code"] == "account_required", r.text


def test_seeks_are_listed_with_their_players_ratings_and_a_visitors_without(server, visitors, players):
    visitor, alice = visitors(), players()
    casual = visitor.post("/api/seeks", {"time_control": {"minutes": 6.5, "increment": 0}}).json()["seek"]
    assert casual["rating"] is None  # an anonymous player has no rating
    mine = alice.post("/api/seeks", {"time_control": {"minutes": 6.5, "increment": 1}}).json()["seek"]
    assert mine["rating"] == {"rating": 1500, "provisional": True}
    listed = {s["id"]: s["rating"] for s in httpx.get(f"{server.url}/api/seeks").json()["seeks"]}
    assert listed[casual["id"]] is None and listed[mine["id"]] == mine["rating"]
    for who, made in ((visitor, casual), (alice, mine)):
        who.http.delete(f"/api/seeks/{made['id']}")


def test_a_visitor_does_not_chat_with_a_stranger_met_through_a_seek(visitors, players):
    visitor, alice = visitors(), players()
    seek = visitor.post("/api/seeks", unique_clock()).json()["seek"]
    game = alice.post(f"/api/seeks/{seek['id']}/accept").json()["game"]
    for who in (visitor, alice):
        r = who.post(f"/api/games/{game['id']}/chat", {"text": "hello", "room": "player"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "anonymous_chat", r.text
    r = visitor.post(f"/api/games/{game['id']}/chat", {"text": "hello", "room": "spectator"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "anonymous_chat"
    # The chat's read tells each player so beforehand: the page offers no field to be refused.
    for who in (visitor, alice):
        write = who.http.get(f"/api/games/{game['id']}/chat").json()["write"]
        assert write["room"] == "player" and write["refused"]["code"] == "anonymous_chat"


def test_friends_from_a_link_chat_even_anonymously(visitors):
    host, friend = visitors(), visitors()
    link = host.post("/api/challenges/open", {}).json()["challenge"]["link"]
    game = friend.post(f"/api/challenges/open/{link}/accept").json()["game"]
    r = friend.post(f"/api/games/{game['id']}/chat", {"text": "hi, it's me", "room": "player"})
    assert r.status_code == 201, r.text
    for who in (host, friend):
        write = who.http.get(f"/api/games/{game['id']}/chat").json()["write"]
        assert write == {"room": "player", "refused": None}


def test_the_session_is_read_without_a_refusal_before_there_is_one(server, visitors, players):
    """GET /api/session, the web client's first request: no 401 for a first visit (GET /api/account keeps
    lidraughts' 401), the anonymous visitor's identity and token, or the account."""
    first = httpx.get(f"{server.url}/api/session")
    assert first.status_code == 200
    assert first.json() == {"user": None, "via": None, "scopes": [], "csrf_token": None}
    assert httpx.get(f"{server.url}/api/account").status_code == 401
    visitor, alice = visitors(), players()
    anonymous = visitor.http.get("/api/session").json()
    assert anonymous["user"]["id"] == visitor.id and anonymous["csrf_token"]
    member = alice.http.get("/api/session").json()
    assert member["user"]["username"] == alice.name and member["csrf_token"] == alice.csrf
    assert member == alice.http.get("/api/account").json()


# -- registering keeps the games ------------------------------------------------------------------------


def test_registering_after_playing_keeps_the_visitors_games(server, visitors):
    visitor = visitors()
    finished = visitor.post("/api/computer-games", {"level": 1}).json()["game"]["id"]
    assert visitor.post(f"/api/games/{finished}/resign").status_code == 200
    ongoing = visitor.post("/api/computer-games", {"level": 1, "color": "white"}).json()["game"]["id"]
    name = f"a_{uuid.uuid4().hex[:12]}"
    assert visitor.post("/api/auth/register", {"username": name, "password": PASSWORD}).status_code == 201
    r = visitor.post("/api/auth/login", {"username": name, "password": PASSWORD})
    assert r.status_code == 200 and r.json()["games_kept"] == 2, r.text
    visitor.http.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    me = r.json()["user"]["id"]
    listed = httpx.get(f"{server.url}/api/users/{name}/games").json()
    assert {finished, ongoing} <= {g["id"] for g in listed["games"]}, listed
    # The game in play goes on under the account: its seat, its name, its moves.
    state = httpx.get(f"{server.url}/api/games/{ongoing}").json()["game"]
    assert state["white"]["id"] == me and state["white"]["username"] == name
    r = visitor.post(f"/api/games/{ongoing}/move", {"move": state["legal_moves"][0]["move"]})
    assert r.status_code == 200, r.text


def test_logging_in_withdraws_what_the_anonymous_visitor_offered(server, visitors, players):
    """Found by an audit: a correspondence seek and a friend's link made anonymously stayed, owned by an
    identity whose session had ended: whoever took them played a seat nobody could move for."""
    visitor, alice = visitors(), players()
    seek = visitor.post("/api/seeks", {"days": 3}).json()["seek"]["id"]
    link = visitor.post("/api/challenges/open", {}).json()["challenge"]["link"]
    r = visitor.post("/api/auth/login", {"username": alice.name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    assert seek not in {s["id"] for s in httpx.get(f"{server.url}/api/seeks").json()["seeks"]}
    assert httpx.get(f"{server.url}/api/challenges/open/{link}").json()["challenge"]["status"] == "cancelled"


def test_logging_in_ends_the_anonymous_session(server, visitors, players):
    visitor, alice = visitors(), players()
    old_cookie = visitor.http.cookies.get("shashki_session")
    r = visitor.post("/api/auth/login", {"username": alice.name, "password": PASSWORD})
    assert r.status_code == 200
    stale = httpx.get(f"{server.url}/api/account", cookies={"shashki_session": old_cookie})
    assert stale.status_code == 401


def test_a_game_against_the_account_itself_stays_with_the_anonymous_seat(visitors, players):
    alice, visitor = players(), visitors()
    seek = alice.post("/api/seeks", unique_clock()).json()["seek"]
    game = visitor.post(f"/api/seeks/{seek['id']}/accept").json()["game"]
    r = visitor.post("/api/auth/login", {"username": alice.name, "password": PASSWORD})
    assert r.status_code == 200 and r.json()["games_kept"] == 0
    state = alice.http.get(f"/api/games/{game['id']}").json()["game"]
    assert {state["white"]["id"], state["black"]["id"]} == {alice.id, visitor.id}


def test_a_bot_account_logged_in_to_keeps_no_visitors_game(visitors, players):
    """A bot plays no lobby game and no casual game it did not accept through the Bot API (found by an
    audit: a visitor's lobby game was handed to the bot account they logged in to)."""
    alice, visitor, bot = players(), visitors(), players(bot=True)
    seek = alice.post("/api/seeks", unique_clock()).json()["seek"]
    game = visitor.post(f"/api/seeks/{seek['id']}/accept").json()["game"]
    r = visitor.post("/api/auth/login", {"username": bot.name, "password": PASSWORD})
    assert r.status_code == 200 and r.json()["games_kept"] == 0
    state = alice.http.get(f"/api/games/{game['id']}").json()["game"]
    assert {state["white"]["id"], state["black"]["id"]} == {alice.id, visitor.id}


# -- challenges by link ---------------------------------------------------------------------------------


def test_a_link_challenge_starts_the_game_for_whoever_takes_it(server, visitors, players):
    alice, visitor = players(), visitors()
    r = alice.post("/api/challenges/open", {**SEEK, "color": "black"})
    assert r.status_code == 201, r.text
    challenge = r.json()["challenge"]
    assert challenge["url"] == f"/challenge/{challenge['link']}" and challenge["status"] == "pending"
    shown = httpx.get(f"{server.url}/api/challenges/open/{challenge['link']}").json()["challenge"]
    assert shown["challenger"]["username"] == alice.name and shown["color"] == "black"
    game = visitor.post(f"/api/challenges/open/{challenge['link']}/accept").json()["game"]
    assert game["black"]["id"] == alice.id and game["white"]["id"] == visitor.id
    assert game["clocks"]["initial_ms"] == 300_000
    shown = httpx.get(f"{server.url}/api/challenges/open/{challenge['link']}").json()["challenge"]
    assert shown["status"] == "accepted" and shown["game_id"] == game["id"]


def test_the_creator_hears_the_game_start_on_the_lobby_channel(server, visitors):
    host, friend = visitors(), visitors()
    link = host.post("/api/challenges/open", {}).json()["challenge"]["link"]
    cookie = {"Cookie": f"shashki_session={host.http.cookies.get('shashki_session')}"}
    with connect(f"{server.ws_url}/ws/lobby", additional_headers=cookie) as ws:
        ws.recv(timeout=5)  # the first list: the channel is listening
        game = friend.post(f"/api/challenges/open/{link}/accept").json()["game"]
        while True:
            message = json.loads(ws.recv(timeout=5))
            if message["type"] == "gameStart":
                break
    assert message["game"]["id"] == game["id"]


def test_a_link_is_taken_once_only_even_by_two_at_once(visitors):
    host = visitors()
    takers = [visitors() for _ in range(4)]
    link = host.post("/api/challenges/open", {}).json()["challenge"]["link"]
    answers: list[httpx.Response] = []
    start = threading.Barrier(len(takers))

    def take(visitor: Visitor) -> None:
        start.wait()
        answers.append(visitor.post(f"/api/challenges/open/{link}/accept"))

    threads = [threading.Thread(target=take, args=(v,)) for v in takers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    codes = sorted(r.status_code for r in answers)
    assert codes == [200, 409, 409, 409], [r.text for r in answers]
    assert {r.json()["error"]["code"] for r in answers if r.status_code == 409} == {"challenge_taken"}


def test_the_creator_cannot_take_their_own_link(players):
    alice = players()
    link = alice.post("/api/challenges/open", {}).json()["challenge"]["link"]
    r = alice.post(f"/api/challenges/open/{link}/accept")
    assert r.status_code == 409 and r.json()["error"]["code"] == "own_challenge"


def test_a_cancelled_link_cannot_be_taken(visitors):
    host, friend = visitors(), visitors()
    link = host.post("/api/challenges/open", {}).json()["challenge"]["link"]
    assert host.post(f"/api/challenges/open/{link}/cancel").status_code == 200
    r = friend.post(f"/api/challenges/open/{link}/accept")
    assert r.status_code == 409 and r.json()["error"]["code"] == "challenge_settled"


def test_a_rated_link_is_for_accounts_only(visitors, players):
    r = visitors().post("/api/challenges/open", {**SEEK, "rated": True})
    assert r.status_code == 403 and r.json()["error"]["code"] == "anonymous_rated"
    alice, bob, visitor = players(), players(), visitors()
    link = alice.post("/api/challenges/open", {**SEEK, "rated": True}).json()["challenge"]["link"]
    r = visitor.post(f"/api/challenges/open/{link}/accept")
    assert r.status_code == 403 and r.json()["error"]["code"] == "account_required"
    game = bob.post(f"/api/challenges/open/{link}/accept").json()["game"]
    assert game["rated"] is True


def test_an_unknown_link_is_not_found(server):
    r = httpx.get(f"{server.url}/api/challenges/open/nosuchlink")
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_such_challenge"


def test_link_challenges_stay_out_of_the_lists_of_named_challenges(players):
    alice = players()
    alice.post("/api/challenges/open", {})
    assert alice.http.get("/api/challenges").json() == {"in": [], "out": []}


# -- the limits per address -----------------------------------------------------------------------------


def test_anonymous_sessions_and_games_are_limited_per_address(tmp_path):
    limited = Server(
        tmp_path,
        {"SHASHKI_LIMIT_ANONYMOUS_SESSIONS": "2/3600", "SHASHKI_LIMIT_ANONYMOUS_GAMES": "2/3600"},
    ).start()
    try:
        first, second = Visitor(limited), Visitor(limited)
        r = httpx.post(f"{limited.url}/api/auth/anonymous")
        assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
        assert first.post("/api/computer-games", {"level": 1}).status_code == 201
        assert second.post("/api/challenges/open", {}).status_code == 201
        r = first.post("/api/seeks", SEEK)
        assert r.status_code == 429 and "anonymously" in r.json()["error"]["message"]
        # Accounts are not counted against the address's anonymous games.
        alice = Player(limited)
        assert alice.post("/api/computer-games", {"level": 1}).status_code == 201
        for client in (first, second, alice):
            client.close()
    finally:
        limited.stop()
