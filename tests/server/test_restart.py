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
    # Black's first move was free): the 2 s and more of downtime are not charged.
    assert 5 * 60_000 - 1_000 < after["clocks"]["black_ms"] <= 5 * 60_000
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
