"""Durability: every accepted move is committed before it is acknowledged, so killing the server process in
the middle of a game loses nothing; started again on the same data, the game, its moves and its clocks go on
(the clock of the side to move from the time it had stored: the downtime is charged to nobody).
"""

from __future__ import annotations

import time

import pytest

from .helpers import Player, Server


@pytest.fixture
def own_server(tmp_path):
    server = Server(tmp_path / "data").start()
    yield server
    server.stop()


def test_killing_the_server_mid_game_loses_nothing_and_the_game_and_clocks_go_on(own_server):
    white, black = Player(own_server), Player(own_server)
    gid = white.challenge(black, time_control={"minutes": 5, "increment": 3})["id"]
    w = white.socket(gid)
    for ply, (socket, move) in enumerate([(w, "c3-d4"), (black.socket(gid), "f6-g5"), (w, "g3-h4")]):
        assert socket.move(move, ply=ply)["type"] == "ack"
    acknowledged = white.http.get(f"/api/games/{gid}").json()["game"]
    assert acknowledged["clocks"]["running"] == "black"

    own_server.kill()  # SIGKILL: no shutdown hook runs
    time.sleep(2)  # the server stays down a while
    own_server.start()

    after = white.http.get(f"/api/games/{gid}").json()["game"]  # the session cookie survives too
    assert after["moves"] == ["c3-d4", "f6-g5", "g3-h4"] and after["status"] == "started"
    assert after["clocks"]["white_ms"] == acknowledged["clocks"]["white_ms"]
    # Black's clock restarted from the time Black had stored when the turn began (its whole 5 minutes:
    # Black's first move was free), less what Black thought until the server was last alive (its
    # heartbeat, every 2 s): the 2 s and more of downtime are not charged.
    assert 5 * 60_000 - 2_500 < after["clocks"]["black_ms"] <= 5 * 60_000
    assert after["clocks"]["running"] == "black"
    ws = black.socket(gid)
    assert ws.state["seq"] == acknowledged["seq"] + 1  # the clock's restart is a change, published
    assert ws.move("g5:e3", ply=3)["type"] == "error"  # still the rules' own refusals after the restart
    legal = [m["move"] for m in ws.state["legal_moves"]]
    assert ws.move(legal[0], ply=3)["type"] == "ack"
    assert white.http.get(f"/api/games/{gid}").json()["game"]["ply"] == 4


def test_a_short_clock_restarts_from_its_stored_time_and_runs_out_after_the_restart(own_server):
    white, black = Player(own_server), Player(own_server)
    gid = white.challenge(black, time_control={"minutes": 0.01, "increment": 0})["id"]
    white.post(f"/api/games/{gid}/move", {"move": "c3-d4"})
    black.post(f"/api/games/{gid}/move", {"move": "f6-g5"})
    own_server.kill()
    own_server.start()
    ws = white.socket(gid)
    final = ws.wait_state(lambda g: g["status"] == "finished", timeout=5)
    assert (final["winner"], final["reason"]) == ("black", "time")


def test_a_clean_stop_charges_the_time_already_thought_but_not_the_downtime(own_server):
    """Found by an audit: every restart gave the side to move back all it had thought on its move. A
    clean stop (SIGTERM) writes the clocks as they stand, as lichess saves its clocks; the downtime after
    it is still charged to nobody."""
    white, black = Player(own_server), Player(own_server)
    gid = white.challenge(black, time_control={"minutes": 1, "increment": 0})["id"]
    assert white.post(f"/api/games/{gid}/move", {"move": "c3-d4"}).status_code == 200
    assert black.post(f"/api/games/{gid}/move", {"move": "f6-g5"}).status_code == 200
    time.sleep(1.5)  # White thinks (the clocks run from here, each side having moved)
    own_server.stop()  # SIGTERM
    time.sleep(1.5)  # down
    own_server.start()
    after = white.http.get(f"/api/games/{gid}").json()["game"]
    assert after["status"] == "started" and after["clocks"]["running"] == "white"
    # About 58.5 s: the 1.5 s thought charged, the 1.5 s down not (without the stop's save: 60 s again).
    assert 57_800 <= after["clocks"]["white_ms"] <= 58_900, after["clocks"]
    assert after["clocks"]["black_ms"] == 60_000


def test_a_stop_with_an_api_stream_open_ends_the_stream_at_once_and_flags_nobody(own_server):
    """Found by an audit: an open Bot/Board API stream held the stop for its 10 s, during which the flag
    timer ran while nobody could reach the server: a 6 s clock fell. The streams end as the stop begins,
    and the clocks stop with it."""
    import threading

    import httpx

    white, black = Player(own_server), Player(own_server)
    token = white.token("board:play")
    ended: dict[str, float] = {}

    def stream(path: str) -> None:
        with httpx.stream("GET", f"{own_server.url}{path}", timeout=30,
                          headers={"Authorization": f"Bearer {token}"}) as r:  # fmt: skip
            for _ in r.iter_lines():
                pass
        ended[path] = time.monotonic()

    events = threading.Thread(target=stream, args=("/api/stream/event",), daemon=True)
    events.start()
    gid = white.challenge(black, time_control={"minutes": 0.05, "increment": 0})["id"]  # 3 s each
    assert white.post(f"/api/games/{gid}/move", {"move": "c3-d4"}).status_code == 200
    assert black.post(f"/api/games/{gid}/move", {"move": "f6-g5"}).status_code == 200
    # The game's own stream too, its clock running: the stop's write of the clocks reaches it as the stop
    # cancels it (Python 3.11's wait_for swallowed that cancellation: 10 s more).
    game = threading.Thread(target=stream, args=(f"/api/board/game/stream/{gid}",), daemon=True)
    game.start()
    time.sleep(0.5)
    asked = time.monotonic()
    own_server.process.terminate()  # SIGTERM
    own_server.process.wait(15)
    stopped = time.monotonic() - asked
    events.join(5)
    game.join(5)
    assert stopped < 5, f"the stop took {stopped:.1f} s"  # not the 10 s of waiting for the streams
    assert len(ended) == 2 and all(at - asked < 5 for at in ended.values()), ended
    time.sleep(3)  # longer than White's clock had left
    own_server.start()
    after = white.http.get(f"/api/games/{gid}").json()["game"]
    assert after["status"] == "started", after
    assert 1_500 <= after["clocks"]["white_ms"] <= 2_600, after["clocks"]


def test_after_a_crash_the_time_thought_until_the_server_was_last_alive_stays_spent(own_server):
    """Found by an audit: after a kill -9 the side to move got back all it had thought on its move. The
    server's sign of life (games/heartbeat.py, every 2 s) bounds what is given back to that interval;
    the downtime itself is still charged to nobody."""
    white, black = Player(own_server), Player(own_server)
    gid = white.challenge(black, time_control={"minutes": 1, "increment": 0})["id"]
    assert white.post(f"/api/games/{gid}/move", {"move": "c3-d4"}).status_code == 200
    assert black.post(f"/api/games/{gid}/move", {"move": "f6-g5"}).status_code == 200
    time.sleep(5)  # White thinks
    own_server.kill()  # SIGKILL: nothing written at the stop
    time.sleep(2)  # down
    own_server.start()
    after = white.http.get(f"/api/games/{gid}").json()["game"]
    assert after["status"] == "started" and after["clocks"]["running"] == "white"
    # 55 s, give or take the heartbeat's 2 s (without it: the whole 60 s again); never the downtime.
    assert 54_500 <= after["clocks"]["white_ms"] <= 57_500, after["clocks"]
