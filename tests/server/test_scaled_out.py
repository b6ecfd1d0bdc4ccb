"""The same code on several server processes sharing PostgreSQL and Redis (issue 4: "design the
storage and event interfaces so that they can").

Two real servers run with DATABASE_URL on one PostgreSQL database and REDIS_URL on one Redis; each
player talks to a different process. `.ci/run` starts throwaway services with
`scripts/test-services.sh`, which sets SHASHKI_TEST_DATABASE_URL and SHASHKI_TEST_REDIS_URL. Without
them the tests are skipped on a developer's machine, but fail under CI, where a skip would hide a
broken set-up.
"""

from __future__ import annotations

import os
import threading
import time

import httpx
import pytest

from .helpers import PASSWORD, GameSocket, Player, Server, eventually
from .test_games import GIVEAWAY_WIN_FOR_WHITE

DATABASE_URL = os.environ.get("SHASHKI_TEST_DATABASE_URL")
REDIS_URL = os.environ.get("SHASHKI_TEST_REDIS_URL")

if not (DATABASE_URL and REDIS_URL):
    if os.environ.get("CI"):
        raise RuntimeError("CI runs the scaled-out tests: start the services with scripts/test-services.sh")
    pytest.skip(
        'no PostgreSQL/Redis: run `eval "$(scripts/test-services.sh start)"` to include these tests',
        allow_module_level=True,
    )


def _scaled_server(data) -> Server:
    server = Server(data)
    server.env["DATABASE_URL"] = DATABASE_URL
    server.env["REDIS_URL"] = REDIS_URL
    return server


@pytest.fixture(scope="module")
def two_servers(tmp_path_factory):
    # Started one after the other: the first runs the migrations, the second finds them done.
    first = _scaled_server(tmp_path_factory.mktemp("a")).start()
    second = _scaled_server(tmp_path_factory.mktemp("b")).start()
    yield first, second
    first.stop()
    second.stop()


def test_players_on_two_processes_play_a_whole_game_through_postgresql_and_redis(two_servers):
    a, b = two_servers
    white, black = Player(a), Player(b)
    # The account made on one process logs in on the other: accounts live in the shared database.
    login = {"username": white.name, "password": PASSWORD}
    assert httpx.post(b.url + "/api/auth/login", json=login).status_code == 200
    game = white.challenge(black, variant="russian-giveaway")  # sent on A, accepted on B
    sockets = {"white": white.socket(game["id"]), "black": black.socket(game["id"])}
    for ply, move in enumerate(GIVEAWAY_WIN_FOR_WHITE):
        mover = sockets["white" if ply % 2 == 0 else "black"]
        ack = mover.move(move, ply=ply)
        assert ack["type"] == "ack", ack
        # Each move reaches the other process's client through Redis.
        for s in sockets.values():
            s.wait_state(lambda g, n=ply + 1: g["ply"] == n)
    for server in (a, b):
        state = httpx.get(f"{server.url}/api/games/{game['id']}").json()["game"]
        assert (state["result"], state["reason"]) == ("1-0", "no-legal-move"), server.url
    for s in sockets.values():
        s.close()
    white.close()
    black.close()


def test_the_same_move_sent_to_two_processes_at_once_is_applied_once(two_servers):
    a, b = two_servers
    white, black = Player(a), Player(b)
    gid = white.challenge(black)["id"]
    barrier = threading.Barrier(4)
    answers: list[httpx.Response] = []
    clients = [
        httpx.Client(base_url=server.url, cookies=white.http.cookies, headers=white.http.headers)
        for server in (a, b, a, b)
    ]

    def submit(client):
        barrier.wait()
        answers.append(client.post(f"/api/games/{gid}/move", json={"move": "c3-d4", "ply": 0}))

    threads = [threading.Thread(target=submit, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join(15)
    assert sorted(r.status_code for r in answers) == [200, 409, 409, 409], [r.text for r in answers]
    for server in (a, b):
        state = httpx.get(f"{server.url}/api/games/{gid}").json()["game"]
        assert state["moves"] == ["c3-d4"] and state["ply"] == 1, server.url
    for c in clients:
        c.close()
    white.close()
    black.close()


def test_a_logout_on_one_process_closes_the_game_socket_and_event_stream_opened_on_the_other(two_servers):
    """Revocations travel on the bus (accounts/revocation.py): the socket on B hears of A's logout."""
    from websockets.exceptions import ConnectionClosed

    from .test_bot_api import Stream

    a, b = two_servers
    white, black = Player(a), Player(b)
    game = white.challenge(black)
    on_b = Player.__new__(Player)  # white's same session, talking to B
    on_b.server, on_b.name, on_b.http = (
        b,
        white.name,
        httpx.Client(base_url=b.url, cookies=white.http.cookies),
    )
    socket = on_b.socket(game["id"])
    token = white.token("board:play")
    events = Stream(
        httpx.Client(base_url=b.url, headers={"Authorization": f"Bearer {token}"}), "GET", "/api/stream/event"
    )
    assert events.next()["type"] == "gameStart"
    assert white.post("/api/auth/logout").status_code == 200  # on A
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            socket.receive()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    white.login()  # the token outlives the session: revoke it from a new session on A
    token_id = white.http.get("/api/account/tokens").json()["tokens"][-1]["id"]
    assert white.http.delete(f"/api/account/tokens/{token_id}").status_code == 200
    while (line := events.next()).get("type"):
        pass
    assert line["error"]["code"] == "credential_ended"
    assert httpx.get(f"{a.url}/api/games/{game['id']}").json()["game"]["ply"] == 0
    events.close()
    white.close()
    black.close()


def test_a_player_connected_to_one_process_is_present_for_the_other(two_servers):
    """Presence is shared (games/presence.py, SharedPresence): a claim of victory made on A waits while the
    opponent's only socket is on B, and is granted once that socket has closed for the claim delay."""
    a, b = two_servers
    white, black = Player(a), Player(b)
    gid = white.challenge(black, time_control={"minutes": 5, "increment": 0})["id"]  # a claim needs a clock
    w, bs = white.socket(gid), black.socket(gid)
    assert w.move("c3-d4", ply=0)["type"] == "ack"
    bs.wait_state(lambda g: g["ply"] == 1)
    assert bs.move("f6-g5", ply=1)["type"] == "ack"
    assert w.move("b2-c3", ply=2)["type"] == "ack"  # each side has moved: a claim is possible from now on
    bs.wait_state(lambda g: g["ply"] == 3)
    time.sleep(1.0)  # longer than the claim delay (0.5 s): only presence can refuse the claim now
    refused = w.request({"type": "claim-victory"})
    assert refused["type"] == "error" and refused["error"]["code"] == "cannot_claim", refused
    assert "claim in" not in refused["error"]["message"]  # refused as present, not as gone too briefly
    bs.close()
    claim = {"type": "claim-victory"}
    answer = eventually(lambda: w.request(claim), lambda m: m["type"] == "ack", timeout=10)
    assert answer["type"] == "ack", answer
    w.close()
    white.close()
    black.close()


@pytest.mark.slow
def test_serve_with_two_worker_processes_on_one_port_plays_a_game_and_sums_the_metrics(tmp_path):
    """`--workers 2`: two processes share the port; each new connection may reach either of them."""
    server = _scaled_server(tmp_path)
    server.start = _start_with_workers(server, 2)  # type: ignore[method-assign]
    server.start()
    try:
        white, black = Player(server), Player(server)
        game = white.challenge(black, variant="russian-giveaway")
        for ply, move in enumerate(GIVEAWAY_WIN_FOR_WHITE):
            mover = white if ply % 2 == 0 else black
            # A fresh connection for each move: the kernel spreads them over the two processes.
            http = {"cookies": mover.http.cookies, "headers": mover.http.headers}
            with httpx.Client(base_url=server.url, **http) as c:
                r = c.post(f"/api/games/{game['id']}/move", json={"move": move, "ply": ply})
                assert r.status_code == 200, r.text
        state = httpx.get(f"{server.url}/api/games/{game['id']}").json()["game"]
        assert (state["result"], state["reason"]) == ("1-0", "no-legal-move")
        metrics = httpx.get(server.url + "/metrics").text
        moves = sum(
            float(line.rsplit(" ", 1)[1])
            for line in metrics.splitlines()
            if line.startswith('shashki_moves_total{by="player"}')
        )
        assert moves >= len(GIVEAWAY_WIN_FOR_WHITE)  # the sum over both processes, whichever answered
        white.close()
        black.close()
    finally:
        server.stop()


def _start_with_workers(server: Server, workers: int):
    import subprocess
    import sys

    def start() -> Server:
        server.data.mkdir(parents=True, exist_ok=True)
        with open(server.log, "a") as log:
            server.process = subprocess.Popen(
                [sys.executable, "-m", "shashki.server", f"--port={server.port}", f"--data={server.data}",
                 f"--workers={workers}"],
                env=server.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        ready = eventually(lambda: _answers(server.url), bool, timeout=60)
        assert ready, server.log.read_text()
        return server

    return start


def _answers(url: str) -> bool:
    try:
        return httpx.get(url + "/health", timeout=0.5).status_code == 200
    except httpx.HTTPError:
        return False


def test_a_capture_sent_jump_by_jump_may_have_each_jump_reach_another_process(two_servers):
    """The Bot API keeps a capture's first jumps in Redis (lidraughts/moves.py, PendingJumps): the first
    jump posted to A, the second to B, make one capture."""
    from .test_bot_api import ApiClient

    a, b = two_servers
    bot, person = ApiClient(Player(a, bot=True), "bot:play"), Player(a)
    board = ApiClient(person, "board:play")
    gid = person.challenge(bot.player, color="white", time_control={"minutes": 5, "increment": 3})["id"]
    on_b = httpx.Client(base_url=b.url, headers=bot.http.headers, timeout=10)

    def move(client: httpx.Client, kind: str, text: str) -> None:
        r = client.post(f"/api/{kind}/game/{gid}/move/{text}")
        assert r.json() == {"ok": True}, r.text

    move(board.http, "board", "2217")
    move(bot.http, "bot", "1015")
    move(board.http, "board", "2318")
    move(bot.http, "bot", "1522")  # the first jump of e5:c3:a5, on A: kept
    assert httpx.get(f"{a.url}/api/games/{gid}").json()["game"]["ply"] == 3
    move(on_b, "bot", "2213")  # the second, on B: the capture is whole
    state = httpx.get(f"{b.url}/api/games/{gid}").json()["game"]
    assert state["ply"] == 4 and state["moves"][-1] == "e5:c3:a5"
    on_b.close()


def _stored_status(game_id: str) -> str:
    """The game's status as PostgreSQL holds it, read without asking a server (which would bring the
    game up to date itself, flag included)."""
    import asyncio

    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    async def read() -> str:
        engine = create_async_engine(DATABASE_URL)
        try:
            async with engine.connect() as c:
                query = text("SELECT status, reason FROM games WHERE id = :id")
                row = (await c.execute(query, {"id": game_id})).one()
                return f"{row[0]} {row[1]}"
        finally:
            await engine.dispose()

    return asyncio.run(read())


@pytest.mark.slow
def test_the_flag_of_a_game_whose_owner_process_died_falls_on_another_process(tmp_path):
    """games/owners.py: A commits the last move and owns the game; A is killed while Black's clock runs;
    B takes the lapsed lease over and flags Black on time, though nobody asks B about the game."""
    servers = []
    for name in ("a", "b"):
        server = _scaled_server(tmp_path / name)
        server.env["SHASHKI_GAME_LEASE_SECONDS"] = "1.5"
        servers.append(server.start())
    a, b = servers
    try:
        white, black = Player(a), Player(a)
        gid = white.challenge(black, time_control={"minutes": 0.05, "increment": 0})["id"]  # 3 s
        w, bl = white.socket(gid), black.socket(gid)
        assert w.move("c3-d4")["type"] == "ack"
        assert bl.move("f6-g5")["type"] == "ack"
        assert w.move("d4-c5")["type"] == "ack"  # committed on A: A owns it; Black's clock runs
        a.kill()
        status = eventually(lambda: _stored_status(gid), lambda s: s.startswith("finished"), timeout=20)
        assert status == "finished time", status
        assert "took over game " + gid in b.log.read_text()
    finally:
        for server in servers:
            server.stop()


def _hold_reviews(queued: str, held_by_the_dead: str, lapsing_in: float) -> None:
    """Reviews written as a stop left them: one queued, one running on a process that died, whose claim
    lapses in `lapsing_in` seconds (reviews/service.py)."""
    import asyncio
    from datetime import timedelta

    from sqlalchemy import insert
    from sqlalchemy.ext.asyncio import create_async_engine

    from shashki.server.reviews.models import GameReview
    from shashki.server.storage.base import utcnow

    async def write() -> None:
        engine = create_async_engine(DATABASE_URL)
        now = utcnow()
        unstarted = {"done_plies": 0, "total_plies": 0, "requested_at": now}
        rows = [
            {"game_id": queued, "status": "queued"},
            {"game_id": held_by_the_dead, "status": "running", "owner": "dead-process",
             "claimed_until": now + timedelta(seconds=lapsing_in)},
        ]  # fmt: skip
        try:
            async with engine.begin() as c:
                for row in rows:
                    await c.execute(insert(GameReview).values(**unstarted, **row))
        finally:
            await engine.dispose()

    asyncio.run(write())


def test_each_review_runs_on_one_process_and_a_dead_ones_review_is_finished_by_another(two_servers, tmp_path):
    """Two more processes start together while two serve already, all four on one PostgreSQL and Redis:
    the review queued before they started runs once, and the review of a process that died (its claim
    lapsing) is finished by a live one without any restart — counted by every process's log of reviews."""
    a, b = two_servers
    white, black = Player(a), Player(b)
    queued, held = (white.challenge(black, variant="russian-giveaway")["id"] for _ in range(2))
    for gid in (queued, held):
        for ply, move in enumerate(GIVEAWAY_WIN_FOR_WHITE):
            mover = white if ply % 2 == 0 else black
            assert mover.post(f"/api/games/{gid}/move", {"move": move, "ply": ply}).status_code == 200
    _hold_reviews(queued, held, lapsing_in=2.0)
    fresh = []
    for name in ("c", "d"):
        server = _scaled_server(tmp_path / name)
        server.env["SHASHKI_REVIEW_CLAIM_SECONDS"] = "3"  # swept every second
        fresh.append(server)
    starts = [threading.Thread(target=server.start) for server in fresh]
    try:
        for start in starts:
            start.start()  # both resume the queued review at once
        for start in starts:
            start.join()
        c = fresh[0]
        for gid in (queued, held):
            url = f"{c.url}/api/games/{gid}/analysis"
            state = eventually(lambda u=url: httpx.get(u).json()["analysis"], lambda s: s["status"] == "done",
                               timeout=30)  # fmt: skip
            assert state["status"] == "done" and len(state["moves"]) == len(GIVEAWAY_WIN_FOR_WHITE), state
        time.sleep(1.0)  # a second run, were there one, would have finished by now
        logs = "".join(server.log.read_text() for server in (a, b, *fresh))
        assert logs.count(f"game {queued} reviewed") == 1
        assert logs.count(f"game {held} reviewed") == 1
    finally:
        for server in fresh:
            server.stop()
        white.close()
        black.close()


def test_a_player_whose_lobby_socket_is_on_one_process_is_online_for_followers_on_the_other(two_servers):
    """Who is on the site is counted through Redis (connections.py): a follower asking B sees online a
    player whose only lobby socket is on A, and offline once it has closed."""
    from .test_lobby import lobby_socket, receive_until

    a, b = two_servers
    follower, followed = Player(b), Player(a)
    assert follower.post(f"/api/rel/follow/{followed.name}").status_code < 300

    def online_on_b() -> bool:
        return follower.http.get("/api/rel/following").json()["following"][0]["online"]

    assert online_on_b() is False
    ws = lobby_socket(a, followed)
    receive_until(ws, lambda m: m["type"] == "seeks")
    assert online_on_b() is True
    ws.close()
    # A connection's end is seen when the client's close reaches the server, for a stream at the latest
    # at its next keepalive line (SHASHKI_STREAM_KEEPALIVE_SECONDS, 6): beyond `eventually`'s 5 s.
    assert eventually(online_on_b, lambda online: online is False, timeout=20) is False
    follower.close()
    followed.close()


def test_a_bot_streaming_on_one_process_is_online_on_the_other_and_its_stream_cap_counts_both(two_servers):
    """The Bot API's streams are counted through Redis (connections.py): the cap of event streams (3) holds
    over both processes, and a bot whose streams are on A is online for B's `/api/users/status`."""
    from .test_bot_api import ApiClient, Stream

    a, b = two_servers
    bot, person = ApiClient(Player(a, bot=True), "bot:play"), Player(b)
    on_b = httpx.Client(base_url=b.url, headers={"Authorization": f"Bearer {bot.token}"}, timeout=10)

    def online_on_b() -> bool:
        return httpx.get(f"{b.url}/api/users/status", params={"ids": bot.name}).json()[0]["online"]

    assert online_on_b() is False
    # A pending challenge is each event stream's first line: read, it says the stream is held.
    assert ApiClient(person, "board:play").post(f"/api/challenge/{bot.name}").status_code == 200
    streams = [bot.stream("/api/stream/event"), bot.stream("/api/stream/event")]
    for stream in streams:
        stream.next()
    assert online_on_b() is True
    streams.append(Stream(on_b, "GET", "/api/stream/event"))
    streams[-1].next()
    for client in (on_b, bot.http):  # the fourth is refused, on either process
        refused = Stream(client, "GET", "/api/stream/event")
        status = refused.response.status_code
        body = refused.response.read() if status == 429 else b""  # a stream let through is not read
        refused.close()
        assert status == 429 and b"too_many_streams" in body, status
    streams.pop(0).close()  # a place frees on A: B may open one
    reopened = eventually(
        lambda: Stream(on_b, "GET", "/api/stream/event"), lambda s: s.response.status_code == 200
    )
    streams.append(reopened)
    for stream in streams:
        stream.close()
    # A connection's end is seen when the client's close reaches the server, for a stream at the latest
    # at its next keepalive line (SHASHKI_STREAM_KEEPALIVE_SECONDS, 6): beyond `eventually`'s 5 s.
    assert eventually(online_on_b, lambda online: online is False, timeout=20) is False
    on_b.close()
    person.close()



def test_spectators_on_one_process_are_counted_for_the_players_on_the_other(two_servers):
    """Spectators are counted across processes (SharedPresence): a watcher on B shows in the presence
    that A publishes, and its leaving too."""
    a, b = two_servers
    white, black, watcher = Player(a), Player(a), Player(b)
    gid = white.challenge(black)["id"]
    w = white.socket(gid)

    def spectators_become(n):
        return lambda m: m.get("type") == "presence" and m.get("spectators") == n

    s = watcher.socket(gid)  # on B
    w.wait(spectators_become(1))
    bs = black.socket(gid)  # joins on A: A's own presence message counts B's spectator
    w.wait(lambda m: spectators_become(1)(m) and m["black"] is True)
    s.close()
    w.wait(spectators_become(0))
    for sock in (w, bs):
        sock.close()
    for player in (white, black, watcher):
        player.close()


@pytest.mark.slow
@pytest.mark.parametrize("dies", ["the last mover's", "the other"])
def test_a_game_whose_players_are_on_two_processes_ends_on_time_when_either_process_dies(tmp_path, dies):
    """games/owners.py: one process holds both the lease of a live game and its timers, whichever process
    commits. White plays on A, Black on B, each move answered within a renewal of the leases; then one
    process is killed while Black's clock runs. The other ends the game on time, within the clock, the
    lease and a sweep — also when the dead one committed the last move and armed the clock's timer."""
    servers = []
    for name in ("a", "b"):
        server = _scaled_server(tmp_path / name)
        server.env["SHASHKI_GAME_LEASE_SECONDS"] = "3"
        servers.append(server.start())
    a, b = servers
    try:
        white, black = Player(a), Player(a)
        gid = white.challenge(black, time_control={"minutes": 0.05, "increment": 0})["id"]  # 3 s, made on A
        w = white.socket(gid)
        bl = GameSocket(b, gid, cookie=black.http.cookies.get("shashki_session"))
        assert w.move("c3-d4")["type"] == "ack"
        assert bl.move("f6-g5")["type"] == "ack"  # on B
        # White answers within a renewal of the leases, but not at once: the timer B armed for White's
        # clock must not happen to flag Black, whose clock starts a moment later.
        time.sleep(0.05)
        assert w.move("d4-c5")["type"] == "ack"  # on A: Black's clock runs
        moved = time.monotonic()
        (a if dies == "the last mover's" else b).kill()
        survivor = b if dies == "the last mover's" else a
        status = eventually(lambda: _stored_status(gid), lambda s: s.startswith("finished"), timeout=20)
        ended = time.monotonic() - moved
        assert status == "finished time", (status, survivor.log.read_text()[-3000:])
        # Black's 3 s, the 3 s lease lapsing, a sweep (1 s), and a margin for a loaded machine.
        assert ended < 3 + 3 + 1 + 3, ended
    finally:
        for server in servers:
            server.stop()


def test_a_takeback_made_on_one_process_is_followed_by_the_other(two_servers):
    """Moves taken back on one process (games/takeback.py): the other process's copy, which heard it,
    shows the game as taken back and takes the next move from there (games/follow.py)."""
    a, b = two_servers
    white, black = Player(a), Player(b)
    gid = white.challenge(black)["id"]
    sockets = {"white": white.socket(gid), "black": black.socket(gid)}
    try:
        for ply, move in enumerate(["c3-d4", "f6-g5", "g3-h4"]):
            mover = sockets["white" if ply % 2 == 0 else "black"]
            assert mover.move(move, ply=ply)["type"] == "ack"
        sockets["white"].wait_state(lambda g: g["ply"] == 3)
        assert white.post(f"/api/games/{gid}/takeback/offer").status_code == 200  # on A
        sockets["black"].wait_state(lambda g: g["takeback_offer"] == "white")
        assert black.post(f"/api/games/{gid}/takeback/accept").status_code == 200  # on B
        for s in sockets.values():
            s.wait_state(lambda g: g["ply"] == 2 and g["moves"] == ["c3-d4", "f6-g5"])
        # Moves on both processes from the position taken back to; each process shows the same game.
        assert sockets["white"].move("a3-b4", ply=2)["type"] == "ack"
        assert sockets["black"].move("g5-h4", ply=3)["type"] == "ack"
        for server in (a, b):
            state = httpx.get(f"{server.url}/api/games/{gid}").json()["game"]
            assert state["moves"] == ["c3-d4", "f6-g5", "a3-b4", "g5-h4"], server.url
    finally:
        for s in sockets.values():
            s.close()
        white.close()
        black.close()
