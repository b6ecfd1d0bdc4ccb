"""Operations (issue 11, item 5): Prometheus metrics, liveness and readiness, JSON logs, a graceful
shutdown, and `--workers` refused without the Redis the processes would need to talk."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from .helpers import Server


def sample(text: str, name: str, labels: str = "") -> float:
    """One sample's value from the Prometheus text format (0 when absent)."""
    label_part = r"\{" + labels + r"[^}]*\}" if labels else r"(\{[^}]*\})?"
    pattern = re.escape(name) + label_part + r" ([0-9.e+-]+)"
    values = [float(m.group(m.lastindex)) for m in re.finditer(pattern, text)]
    return sum(values)


def test_metrics_count_the_moves_and_time_them(server, players):
    white, black = players(), players()
    game = white.challenge(black)
    before = httpx.get(server.url + "/metrics").text
    ws = white.socket(game["id"])
    assert ws.move("c3-d4")["type"] == "ack"
    ws.close()
    after = httpx.get(server.url + "/metrics")
    assert after.status_code == 200
    assert after.headers["content-type"].startswith("text/plain")
    text = after.text
    moves = sample(text, "shashki_moves_total", 'by="player"')
    assert moves == sample(before, "shashki_moves_total", 'by="player"') + 1
    assert sample(text, "shashki_move_seconds_count") >= sample(before, "shashki_move_seconds_count") + 1


def test_request_timings_are_labelled_by_route_template_not_by_id(server, players):
    player = players()
    player.http.get("/api/games/abcdefgh")
    text = httpx.get(server.url + "/metrics").text
    assert 'route="/api/games/{game_id}"' in text
    assert "abcdefgh" not in text


def test_gauges_show_the_live_games_and_open_sockets(server, players):
    white, black = players(), players()
    game = white.challenge(black)
    ws = white.socket(game["id"])
    try:
        deadline = time.monotonic() + 10  # sampled every few seconds
        while time.monotonic() < deadline:
            text = httpx.get(server.url + "/metrics").text
            if sample(text, "shashki_websockets") >= 1 and sample(text, "shashki_live_games") >= 1:
                break
            time.sleep(0.2)
        assert sample(text, "shashki_websockets") >= 1
        assert sample(text, "shashki_live_games") >= 1
    finally:
        ws.close()


def test_liveness_and_readiness_answer_with_each_check(server):
    assert httpx.get(server.url + "/health/live").json() == {"status": "ok"}
    ready = httpx.get(server.url + "/health/ready")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ok", "checks": {"database": "ok", "events": "ok"}}


def test_readiness_fails_naming_redis_when_the_events_cannot_be_carried(tmp_path):
    closed = Server(tmp_path).port  # a free port nobody listens on
    server = Server(tmp_path, {"REDIS_URL": f"redis://127.0.0.1:{closed}/0"})
    server.env["REDIS_URL"] = f"redis://127.0.0.1:{closed}/0"
    server.start()
    try:
        ready = httpx.get(server.url + "/health/ready", timeout=10)
        assert ready.status_code == 503
        body = ready.json()
        assert body["status"] == "unavailable"
        assert body["checks"]["database"] == "ok"
        assert body["checks"]["events"].startswith("failing")
        assert httpx.get(server.url + "/health/live").status_code == 200
    finally:
        server.stop()


def test_json_logs_are_one_object_a_line(tmp_path):
    server = Server(tmp_path, {"SHASHKI_LOG_FORMAT": "json"}).start()
    try:
        httpx.get(server.url + "/health/live")
    finally:
        server.stop()
    lines = [line for line in server.log.read_text().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # every line parses
    assert any("live games resumed" in r["message"] for r in records)
    assert all({"time", "level", "logger", "message"} <= r.keys() for r in records)


@pytest.mark.parametrize("access_log", [False, True])
def test_request_and_socket_lines_only_with_the_access_log(tmp_path, access_log):
    from .helpers import Player

    server = Server(tmp_path, {"SHASHKI_ACCESS_LOG": "1" if access_log else "0"}).start()
    try:
        white, black = Player(server), Player(server)
        game = white.challenge(black)
        ws = white.socket(game["id"])
        assert ws.move("c3-d4")["type"] == "ack"
        ws.close()
    finally:
        server.stop()
    log = server.log.read_text()
    lines = ['"POST /api/challenges HTTP/1.1" 201', f'"WebSocket /ws/games/{game["id"]}" [accepted]']
    lines.append("connection open")
    assert [line in log for line in lines] == [access_log] * 3
    assert "Application startup complete" in log  # uvicorn's own lines stay either way


def test_sigterm_closes_the_sockets_as_a_restart_and_the_process_ends(tmp_path):
    from .helpers import Player

    server = Server(tmp_path, {"SHASHKI_SHUTDOWN_SECONDS": "3"}).start()
    white, black = Player(server), Player(server)
    game = white.challenge(black)
    ws = white.socket(game["id"])
    assert ws.move("c3-d4")["type"] == "ack"
    started = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            ws.receive(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012  # "service restart"
    # uvicorn ends by re-raising the signal once its shutdown has run (the exit status says SIGTERM).
    assert server.process.wait(15) in (0, -signal.SIGTERM)
    assert time.monotonic() - started < 10
    assert "Application shutdown complete" in server.log.read_text()
    ws.close()
    # The move acknowledged before the shutdown is there after a start.
    server.start()
    try:
        assert white.http.get(f"/api/games/{game['id']}").json()["game"]["moves"] == ["c3-d4"]
    finally:
        server.stop()


def test_sigterm_with_a_drain_fails_readiness_first_and_serves_on_until_the_drain_ends(tmp_path):
    from .helpers import Player

    server = Server(tmp_path, {"SHASHKI_SHUTDOWN_SECONDS": "3", "SHASHKI_DRAIN_SECONDS": "4"}).start()
    white, black = Player(server), Player(server)
    game = white.challenge(black)
    ws = white.socket(game["id"])
    assert httpx.get(server.url + "/health/ready").status_code == 200
    started = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    deadline = started + 3
    while httpx.get(server.url + "/health/ready").status_code != 503:
        assert time.monotonic() < deadline, "readiness did not fail on SIGTERM"
        time.sleep(0.05)
    ready = httpx.get(server.url + "/health/ready").json()
    assert ready["checks"]["shutdown"] == "draining"
    # Still serving while the load balancer takes it out: liveness, a move, a new game.
    assert httpx.get(server.url + "/health/live").status_code == 200
    assert ws.move("c3-d4")["type"] == "ack"
    assert white.challenge(Player(server))["id"]
    assert time.monotonic() - started < 4
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            ws.receive(timeout=15)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
    assert time.monotonic() - started >= 3.5  # not before the drain ended
    assert server.process.wait(15) in (0, -signal.SIGTERM)
    ws.close()


def test_a_second_sigterm_ends_the_drain_at_once(tmp_path):
    server = Server(tmp_path, {"SHASHKI_SHUTDOWN_SECONDS": "2", "SHASHKI_DRAIN_SECONDS": "60"}).start()
    started = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    deadline = started + 5
    while httpx.get(server.url + "/health/ready").status_code != 503:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(20) in (0, -signal.SIGTERM)
    assert time.monotonic() - started < 20
    assert "Application shutdown complete" in server.log.read_text()


def test_several_workers_without_redis_are_refused_with_what_to_do(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "shashki.server", "--workers", "2", "--data", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in Server(tmp_path).env.items()},
    )
    assert result.returncode == 2
    assert "REDIS_URL" in result.stderr
