"""A server on the public internet (issue 10): hostile input gets a 4xx JSON error, never a 500; bodies,
sockets and actions are limited; pages cannot be framed; proxies are believed only when trusted.
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
import uuid

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from .helpers import PASSWORD, Player, Server, at_once


def assert_json_error(r: httpx.Response, status: int, code: str | None = None) -> None:
    assert r.status_code == status, (r.status_code, r.text)
    error = r.json()["error"]
    assert error["message"]
    if code:
        assert error["code"] == code, error


def bearer(player: Player, *scopes: str) -> dict:
    return {"Authorization": f"Bearer {player.token(*scopes)}"}


# -- bounded input ------------------------------------------------------------------------------------


def test_integers_beyond_64_bits_in_paths_and_queries_are_refused_with_400(server, players):
    alice = players()
    huge = "99999999999999999999999"
    assert_json_error(httpx.get(f"{server.url}/api/users/{alice.name}/games?page={huge}"), 400)
    assert_json_error(httpx.get(f"{server.url}/api/users/{alice.name}/games?page=9223372036854775807"), 400)
    challenge = f"/api/challenges/{huge}"
    for path in (
        f"/api/seeks/{huge}/accept",
        f"{challenge}/accept",
        f"{challenge}/decline",
        f"{challenge}/cancel",
    ):
        assert_json_error(alice.post(path), 400, "bad_request")
    assert_json_error(alice.http.delete(f"/api/seeks/{huge}"), 400, "bad_request")
    api = bearer(alice, "board:play")
    for path in (f"/api/challenge/{huge}/accept", f"/api/challenge/{huge}/decline"):
        assert_json_error(httpx.post(server.url + path, headers=api), 400, "bad_request")
    assert_json_error(alice.http.delete(f"/api/account/tokens/{huge}"), 400, "bad_request")
    assert_json_error(alice.http.get(f"/api/games/user/{alice.name}?max={huge}"), 400, "bad_request")
    # Within the bounds the same routes answer as before.
    assert_json_error(alice.http.delete("/api/account/tokens/9223372036854775807"), 404)
    assert httpx.get(f"{server.url}/api/users/{alice.name}/games?page=2").status_code == 200


def test_unicode_digits_are_refused_in_ids_and_bot_api_moves(server, players):
    person = players()
    headers = bearer(person, "board:play")
    paths = ("/api/challenge/²/accept", "/api/challenge/١٢/decline", "/api/board/game/abcdefgh/move/²²¹⁸")
    for path in paths:
        assert_json_error(httpx.post(server.url + path, headers=headers), 400, "bad_request")
    assert_json_error(person.post("/api/seeks/²/accept"), 400)
    assert_json_error(httpx.get(f"{server.url}/api/users/{person.name}/games?page=²"), 400, "bad_request")


def test_a_game_id_that_cannot_exist_is_no_such_game_without_a_look_up(server, players):
    alice = players()
    long_id = "a" * 8000
    assert_json_error(httpx.get(f"{server.url}/api/games/{long_id}"), 404, "no_such_game")
    assert_json_error(httpx.get(f"{server.url}/api/games/ab%0Acd"), 404, "no_such_game")
    assert_json_error(alice.post(f"/api/games/{'b' * 100}/resign"), 404, "no_such_game")
    with pytest.raises(InvalidStatus), connect(f"{server.ws_url}/ws/games/{'c' * 100}", open_timeout=5):
        pass


def test_overlong_strings_in_paths_and_queries_are_refused(server):
    assert_json_error(httpx.get(f"{server.url}/api/users/{'x' * 300}"), 404, "no_such_user")
    assert_json_error(httpx.get(f"{server.url}/api/now-playing?variant={'x' * 5000}"), 400, "bad_request")


@pytest.mark.parametrize("content_type", ["application/json", None])
def test_deeply_nested_json_bodies_are_refused_with_400(server, players, content_type):
    person = players()
    deep = b"[" * 50_000
    headers = {"content-type": content_type} if content_type else {}
    assert_json_error(httpx.post(f"{server.url}/api/auth/login", content=deep, headers=headers), 400)
    api = {**bearer(person, "board:play"), **headers}
    assert_json_error(httpx.post(f"{server.url}/api/challenge/{person.name}", content=deep, headers=api), 400)
    nested = '{"username": ' + "[" * 40 + '"x"' + "]" * 40 + "}"  # 41 deep: past the limit of 32
    assert_json_error(httpx.post(f"{server.url}/api/auth/login", content=nested, headers=headers), 400)


def test_malformed_json_bodies_are_400_not_500(server, players):
    person = players()
    as_json = {"content-type": "application/json"}
    for body in (b'{"username": "a", "password": ', b"\xff\xfe", b"1e999999", b"[1]"):
        assert_json_error(httpx.post(f"{server.url}/api/auth/login", content=body, headers=as_json), 400)
    r = httpx.post(
        f"{server.url}/api/challenge/{person.name}",
        content=b'{"rated": ',
        headers={**bearer(person, "board:play"), "content-type": "application/json"},
    )
    assert_json_error(r, 400)


def test_a_username_with_a_trailing_newline_does_not_register(server, players):
    alice = players()
    for name in (alice.name + "\n", "\n" + alice.name, alice.name + "\r\n"):
        r = httpx.post(f"{server.url}/api/auth/register", json={"username": name, "password": PASSWORD})
        assert_json_error(r, 400, "bad_username")


# -- body size ----------------------------------------------------------------------------------------


def raw_request(server: Server, head: str, body: bytes = b"") -> tuple[int, dict]:
    """Send a request by hand (to declare a length and send less) and read the status and JSON body."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(head.encode() + b"\r\n" + body)
        data = b""
        while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < int(
            dict(
                line.split(": ", 1)
                for line in data.split(b"\r\n\r\n")[0].decode().split("\r\n")[1:]
                if ": " in line
            ).get("content-length", "0")
        ):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, json.loads(data.split(b"\r\n\r\n", 1)[1])


def test_a_50_mib_body_is_refused_with_413_before_it_is_read(server):
    head = (
        "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {50 * 1024 * 1024}\r\n"
    )
    started = time.monotonic()
    status, body = raw_request(server, head, b'{"username": "')  # and not one byte more
    assert status == 413 and body["error"]["code"] == "payload_too_large"
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("content_type", ["application/json", "application/x-www-form-urlencoded"])
def test_a_streamed_body_is_refused_with_413_once_it_passes_the_limit(server, players, content_type):
    def chunks():
        for _ in range(40):
            yield b"text=" + b"a" * 4096

    headers = {"content-type": content_type, **bearer(players(), "board:play")}
    r = httpx.post(f"{server.url}/api/challenge/nobody", content=chunks(), headers=headers)
    assert_json_error(r, 413, "payload_too_large")


# -- headers ------------------------------------------------------------------------------------------


def test_pages_and_answers_cannot_be_framed_and_carry_security_headers(server):
    for path in ("/", "/game/abcdefgh", "/static/js/main.js", "/api/seeks", "/api/games/nosuchgame"):
        r = httpx.get(server.url + path)
        assert r.status_code < 500, path
        csp = r.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, path
        assert "unsafe-inline" not in csp
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "same-origin"
        assert "strict-transport-security" not in r.headers  # plain HTTP, no trusted proxy saying TLS
    docs = httpx.get(server.url + "/docs")
    assert "frame-ancestors 'none'" in docs.headers["content-security-policy"]


# -- proxies, addresses and cookies ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def behind_proxy(tmp_path_factory):
    """A server behind a proxy at 127.0.0.1, with small limits per address and per account."""
    env = {
        "SHASHKI_TRUSTED_PROXIES": "127.0.0.1",
        "SHASHKI_REGISTRATIONS": "2",
        "SHASHKI_LIMIT_LOGINS_PER_ACCOUNT": "3/60",
    }
    server = Server(tmp_path_factory.mktemp("proxied"), env).start()
    yield server
    server.stop()


def register(server: Server, name: str, address: str | None = None) -> httpx.Response:
    headers = {"X-Forwarded-For": address} if address else {}
    return httpx.post(
        f"{server.url}/api/auth/register", json={"username": name, "password": PASSWORD}, headers=headers
    )


def login(server: Server, name: str, address: str, proto: str = "http", password: str = PASSWORD):
    headers = {"X-Forwarded-For": address, "X-Forwarded-Proto": proto}
    credentials = {"username": name, "password": password}
    return httpx.post(f"{server.url}/api/auth/login", json=credentials, headers=headers)


def test_the_session_cookie_is_secure_when_a_trusted_proxy_says_https(behind_proxy):
    name = f"s_{uuid.uuid4().hex[:10]}"
    assert register(behind_proxy, name, "10.1.0.1").status_code == 201
    r = login(behind_proxy, name, "10.1.0.1", proto="https")
    assert r.status_code == 200 and "secure" in r.headers["set-cookie"].lower()
    assert r.headers["strict-transport-security"].startswith("max-age=")
    r = login(behind_proxy, name, "10.1.0.1", proto="http")
    assert r.status_code == 200 and "secure" not in r.headers["set-cookie"].lower()


def test_forwarded_headers_from_an_untrusted_address_are_ignored(server, players):
    alice = players()
    r = httpx.post(
        f"{server.url}/api/auth/login",
        json={"username": alice.name, "password": PASSWORD},
        headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "10.9.9.9"},
    )
    assert r.status_code == 200 and "secure" not in r.headers["set-cookie"].lower()


def test_registrations_are_limited_per_trusted_client_address(behind_proxy):
    address = f"10.2.{uuid.uuid4().int % 250}.7"
    codes = [register(behind_proxy, f"r_{uuid.uuid4().hex[:10]}", address).status_code for _ in range(3)]
    assert codes == [201, 201, 429]
    # Another client behind the same proxy is another address.
    assert register(behind_proxy, f"r_{uuid.uuid4().hex[:10]}", "10.3.0.1").status_code == 201


def test_registrations_from_one_untrusted_address_are_limited_whatever_it_forwards(tmp_path):
    server = Server(tmp_path / "data", {"SHASHKI_REGISTRATIONS": "2"}).start()
    try:
        codes = [register(server, f"u_{i}_x", f"10.4.0.{i}").status_code for i in range(3)]
        assert codes == [201, 201, 429]
    finally:
        server.stop()


def test_login_attempts_on_one_account_are_limited_from_every_address(behind_proxy):
    name = f"l_{uuid.uuid4().hex[:10]}"
    assert register(behind_proxy, name, "10.5.0.1").status_code == 201
    codes = [login(behind_proxy, name, f"10.6.0.{i}", password="wrong-pass").status_code for i in range(4)]
    assert codes == [401, 401, 401, 429]
    r = login(behind_proxy, name, "10.6.1.1")
    assert_json_error(r, 429, "rate_limited")
    assert int(r.headers["retry-after"]) >= 1


# -- limits on actions and sockets ----------------------------------------------------------------------


def test_challenges_are_limited_per_account_with_retry_after(players):
    alice, bob = players(), players()
    codes = [alice.post("/api/challenges", {"username": bob.name}).status_code for _ in range(21)]
    assert codes == [201] * 20 + [429]
    r = alice.post("/api/challenges", {"username": bob.name})
    assert_json_error(r, 429, "rate_limited")
    assert int(r.headers["retry-after"]) >= 1
    # The Bot API's challenge route counts in the same window.
    r = httpx.post(f"{alice.server.url}/api/challenge/{bob.name}", headers=bearer(alice, "board:play"))
    assert_json_error(r, 429, "rate_limited")


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    env = {
        "SHASHKI_LIMIT_SEEKS": "2/60",
        "SHASHKI_COMPUTER_GAMES_AT_ONCE": "2",
        "SHASHKI_SOCKETS_PER_ADDRESS": "3",
        "SHASHKI_LIMIT_SOCKET_MESSAGES": "5/1",
        "SHASHKI_ENGINE": "random",
        "SHASHKI_LIMIT_ANONYMOUS_GAMES": "2/60",
    }
    server = Server(tmp_path_factory.mktemp("limited"), env).start()
    yield server
    server.stop()


def test_seeks_are_limited_per_account(limited):
    alice = Player(limited)
    try:
        terms = {"time_control": {"minutes": 5, "increment": 3}}
        codes = [alice.post("/api/seeks", terms).status_code for _ in range(2)]
        assert codes == [200, 200]
        assert_json_error(alice.post("/api/quick-pairing", {"preset": "3+2"}), 429, "rate_limited")
        # The Board API's seeks count in the same window: no more seeks by another way.
        r = httpx.post(f"{limited.url}/api/board/seek", data={"time": 5}, headers=bearer(alice, "board:play"))
        assert_json_error(r, 429, "rate_limited")
    finally:
        alice.close()


def test_board_api_seeks_count_against_the_sites_seeks(limited):
    bob = Player(limited)
    try:
        headers = bearer(bob, "board:play")
        for increment in (0, 1):  # two seeks, each withdrawn as its stream closes
            with httpx.stream(
                "POST", f"{limited.url}/api/board/seek", data={"time": 5, "increment": increment},
                headers=headers, timeout=10,
            ) as stream:
                assert stream.status_code == 200
        r = bob.post("/api/seeks", {"time_control": {"minutes": 5, "increment": 3}})
        assert_json_error(r, 429, "rate_limited")
    finally:
        bob.close()


def test_games_against_the_computer_are_capped_per_account(limited):
    alice = Player(limited)
    try:
        games = [alice.post("/api/computer-games", {"level": 8, "color": "white"}) for _ in range(2)]
        assert [r.status_code for r in games] == [201, 201]
        r = alice.post("/api/computer-games", {"level": 8, "color": "white"})
        assert_json_error(r, 429, "too_many_computer_games")
        assert alice.post(f"/api/games/{games[0].json()['game']['id']}/abort").status_code == 200
        assert alice.post("/api/computer-games", {"level": 1, "color": "white"}).status_code == 201
        # A rematch against the computer is a new game against it: no third game at once that way.
        finished = games[0].json()["game"]["id"]
        r = alice.post(f"/api/games/{finished}/rematch")
        assert_json_error(r, 429, "too_many_computer_games")
        assert alice.http.get(f"/api/games/{finished}").json()["game"]["rematch"]["game_id"] is None
        assert len(alice.http.get("/api/account/playing").json()["nowPlaying"]) == 2
    finally:
        alice.close()


def test_games_against_the_computer_asked_at_once_stay_within_the_cap(limited):
    """Each request passes the check before the game is made; the one after keeps the first two games
    and aborts the others (found by an audit: four asked at once made four)."""
    alice = Player(limited)
    try:
        for _ in range(3):
            answers = at_once(*[lambda: alice.post("/api/computer-games", {"level": 1})] * 4)
            made = [r.json()["game"]["id"] for r in answers if r.status_code == 201]
            refused = [r for r in answers if r.status_code != 201]
            assert 1 <= len(made) <= 2 and all(r.json()["error"]["code"] == "too_many_computer_games"
                                               for r in refused), [r.text for r in answers]
            playing = [g["gameId"] for g in alice.http.get("/api/account/playing").json()["nowPlaying"]]
            assert sorted(playing) == sorted(made)
            for gid in made:
                assert alice.post(f"/api/games/{gid}/abort").status_code == 200
        # A rematch against the computer is held to it the same way.
        finished = alice.post("/api/computer-games", {"level": 1}).json()["game"]["id"]
        assert alice.post(f"/api/games/{finished}/abort").status_code == 200
        assert alice.post("/api/computer-games", {"level": 1}).status_code == 201
        at_once(lambda: alice.post("/api/computer-games", {"level": 1}),
                lambda: alice.post(f"/api/games/{finished}/rematch"))  # fmt: skip
        assert len(alice.http.get("/api/account/playing").json()["nowPlaying"]) == 2
    finally:
        alice.close()


def test_an_anonymous_visitors_rematches_count_as_the_games_they_start(limited):
    """Two games an address a minute here: the second is a rematch, the third, by rematch too, refused."""
    from .test_anonymous_play import Visitor

    visitor = Visitor(limited)
    try:
        first = visitor.post("/api/computer-games", {"level": 1, "color": "white"})
        assert first.status_code == 201, first.text
        gid = first.json()["game"]["id"]
        assert visitor.post(f"/api/games/{gid}/abort").status_code == 200
        second = visitor.post(f"/api/games/{gid}/rematch")
        assert second.status_code == 200, second.text
        again = second.json()["game"]["id"]
        assert visitor.post(f"/api/games/{again}/abort").status_code == 200
        r = visitor.post(f"/api/games/{again}/rematch")
        assert_json_error(r, 429, "rate_limited")
        assert visitor.http.get(f"/api/games/{again}").json()["game"]["rematch"]["game_id"] is None
    finally:
        visitor.close()


def lobby_socket(server: Server):
    return connect(f"{server.ws_url}/ws/lobby", open_timeout=5)


def test_websockets_from_one_address_are_capped(limited):
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(lobby_socket(limited)) for _ in range(3)]
        with pytest.raises(InvalidStatus) as refused, lobby_socket(limited):
            pass
        assert refused.value.response.status_code == 429
        assert json.loads(refused.value.response.body)["error"]["code"] == "too_many_sockets"
        sockets.pop().close()
        deadline = time.monotonic() + 5
        while True:  # the server notices the closed socket a moment later
            try:
                stack.enter_context(lobby_socket(limited))
                break
            except InvalidStatus:
                assert time.monotonic() < deadline
                time.sleep(0.05)


def test_a_socket_sending_faster_than_its_allowance_is_read_no_faster(limited):
    with lobby_socket(limited) as ws:
        started = time.monotonic()
        for _ in range(15):
            ws.send(json.dumps({"type": "ping"}))
        pongs = 0
        while pongs < 15:
            pongs += json.loads(ws.recv(timeout=10))["type"] == "pong"
        # 5 messages a second: the first 5 at once, the next 10 over at least 2 seconds.
        assert time.monotonic() - started >= 1.8


def test_shashki_serve_believes_forwarded_headers_only_from_the_proxies_it_is_given(monkeypatch, tmp_path):
    import uvicorn
    from typer.testing import CliRunner

    import shashki.server.app as server_app
    from shashki.cli import app as cli

    served = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: served.update(app=app, **options))
    proxies = "10.0.0.5,10.0.1.0/24"
    result = CliRunner().invoke(cli, ["serve", "--data", str(tmp_path), "--trusted-proxies", proxies])
    assert result.exit_code == 0, result.output
    assert served["app"].state.public.proxies() == ["10.0.0.5", "10.0.1.0/24"]
    assert served["proxy_headers"] is False  # uvicorn's own reading would believe 127.0.0.1
    monkeypatch.delenv("SHASHKI_TRUSTED_PROXIES", raising=False)
    server_app.run(data=tmp_path)
    assert served["app"].state.public.proxies() == []


# -- garbage on the live channel -------------------------------------------------------------------------

GARBAGE = [
    "not json",
    b"\x00\x01binary",
    "[1]",
    "null",
    '{"type": "move", "move": "c3-d4", "lag_ms": "abc"}',
    '{"type": "move", "move": "c3-d4", "lag_ms": 1e400}',
    '{"type": "move", "move": "c3-d4", "lag_ms": NaN}',
    '{"type": "move", "move": "c3-d4", "ply": -1}',
    '{"type": "move", "move": ["c3-d4"]}',
    '{"type": "move", "move": "²²¹⁸"}',
    '{"type": ' + "[" * 50_000,
    '{"type": "ping", "id": ' + "9" * 400 + "}",
    '{"type": {"nested": true}}',
    '{"type": "no-such-thing"}',
]


def test_garbage_frames_get_an_error_each_and_the_socket_stays_open(server, players):
    alice, bob = players(), players()
    game = alice.challenge(bob)
    log_before = len(server.log.read_text())
    for ws_url in (f"/ws/games/{game['id']}", "/ws/lobby"):
        cookie = {"Cookie": f"shashki_session={alice.http.cookies.get('shashki_session')}"}
        with connect(server.ws_url + ws_url, additional_headers=cookie, open_timeout=5) as ws:
            for frame in GARBAGE:
                ws.send(frame)
                while (message := json.loads(ws.recv(timeout=5)))["type"] != "error":
                    pass  # the state, presence and lobby news that come on their own
                assert message["error"]["code"] and message["error"]["message"], frame
            ws.send(json.dumps({"type": "ping", "id": 7}))
            while (message := json.loads(ws.recv(timeout=5)))["type"] != "pong":
                pass
    state = httpx.get(f"{server.url}/api/games/{game['id']}").json()["game"]
    assert state["ply"] == 0 and state["status"] == "started"
    assert "Traceback" not in server.log.read_text()[log_before:]


def test_a_refused_frame_with_a_readable_id_is_answered_with_that_id(server, players):
    """A client waits for the answer to its numbered request: a move refused for a bad field names the
    request it refuses (found by an audit: the refusal came without the id and the client hung)."""
    alice, bob = players(), players()
    game = alice.challenge(bob)
    cookie = {"Cookie": f"shashki_session={alice.http.cookies.get('shashki_session')}"}
    with connect(f"{server.ws_url}/ws/games/{game['id']}", additional_headers=cookie, open_timeout=5) as ws:
        for request_id, fields in ((100, {"ply": -1}), ("m-1", {"ply": "0"}), (0, {"lag_ms": -5})):
            ws.send(json.dumps({"type": "move", "move": "c3-d4", "id": request_id, **fields}))
            while (message := json.loads(ws.recv(timeout=5)))["type"] != "error":
                pass
            assert message["id"] == request_id and message["error"]["code"] == "bad_message", message
        ws.send(json.dumps({"type": "move", "move": "c3-d4", "id": [1], "ply": 0}))  # no id to answer
        while (message := json.loads(ws.recv(timeout=5)))["type"] != "error":
            pass
        assert "id" not in message and message["error"]["message"].startswith("id:")
    assert httpx.get(f"{server.url}/api/games/{game['id']}").json()["game"]["ply"] == 0
    # The lobby's socket answers an unknown request with its id too.
    with connect(f"{server.ws_url}/ws/lobby", additional_headers=cookie, open_timeout=5) as ws:
        ws.send(json.dumps({"type": "bogus", "id": 21}))
        while (message := json.loads(ws.recv(timeout=5)))["type"] != "error":
            pass
        assert message["id"] == 21 and message["error"]["code"] == "bad_message"
