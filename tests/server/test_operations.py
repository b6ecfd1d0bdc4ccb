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


def test_the_workers_logs_follow_the_servers_log_format(tmp_path):
    """`shashki worker` logs as `shashki serve` does: SHASHKI_LOG_FORMAT=json, one object a line."""
    import os

    base = os.environ.get("SHASHKI_TEST_REDIS_URL")
    if not base:
        pytest.skip("needs SHASHKI_TEST_REDIS_URL (scripts/test-services.sh)")
    log = tmp_path / "worker.log"
    env = {**os.environ, "SHASHKI_LOG_FORMAT": "json", "REDIS_URL": base.rsplit("/", 1)[0] + "/13"}
    with open(log, "w") as out:
        worker = subprocess.Popen(
            [sys.executable, "-c", "import sys; from shashki.cli import main; sys.exit(main())", "worker"],
            env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while "waiting for jobs" not in log.read_text() and time.monotonic() < deadline:
            assert worker.poll() is None, log.read_text()
            time.sleep(0.1)
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(30)
    lines = [line for line in log.read_text().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # every line parses
    assert any("waiting for jobs" in r["message"] and r["logger"] == "shashki.jobs" for r in records)
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


def wait_for_sample(url: str, accept, timeout: float = 12) -> str:
    """/metrics once `accept(text)` holds (the gauges are sampled every few seconds), or at the timeout."""
    deadline = time.monotonic() + timeout
    while True:
        text = httpx.get(url + "/metrics").text
        if accept(text) or time.monotonic() > deadline:
            return text
        time.sleep(0.2)


def queue(text: str, priority: str, state: str) -> float:
    return sample(text, "shashki_engine_queue", f'priority="{priority}",state="{state}"')


def test_the_engine_queue_depth_is_read_from_the_redis_streams_by_priority(tmp_path):
    import os

    import redis

    from shashki.server.jobs import ANALYSIS, GROUP, PLAY, stream_key

    base = os.environ.get("SHASHKI_TEST_REDIS_URL")
    if not base:
        pytest.skip("needs SHASHKI_TEST_REDIS_URL (scripts/test-services.sh)")
    url = base.rsplit("/", 1)[0] + "/12"  # a database of its own: the server reads the default prefix
    client = redis.Redis.from_url(url)
    client.flushdb()
    # Three moves queued, one of them taken by a worker (in the group's pending list); two analyses queued
    # before any worker made the group.
    client.xgroup_create(stream_key("shashki:", PLAY), GROUP, id="0", mkstream=True)
    for i in range(3):
        client.xadd(stream_key("shashki:", PLAY), {"id": f"move{i}", "job": "{}"})
    client.xreadgroup(GROUP, "worker-a", {stream_key("shashki:", PLAY): ">"}, count=1)
    for i in range(2):
        client.xadd(stream_key("shashki:", ANALYSIS), {"id": f"review{i}", "job": "{}"})
    server = Server(tmp_path, {"REDIS_URL": url})
    server.env["REDIS_URL"] = url
    server.start()
    try:
        expected = {
            ("play", "queued"): 2, ("play", "taken"): 1, ("analysis", "queued"): 2, ("analysis", "taken"): 0
        }

        def depth(text: str) -> dict:
            return {key: queue(text, *key) for key in expected}

        text = wait_for_sample(server.url, lambda t: depth(t) == expected)
        assert depth(text) == expected
        # A worker finishing the taken job (acknowledged, deleted) is seen at the next sampling.
        pending = client.xpending_range(stream_key("shashki:", PLAY), GROUP, "-", "+", 1)
        client.xack(stream_key("shashki:", PLAY), GROUP, pending[0]["message_id"])
        client.xdel(stream_key("shashki:", PLAY), pending[0]["message_id"])
        text = wait_for_sample(server.url, lambda t: queue(t, "play", "taken") == 0)
        assert (queue(text, "play", "queued"), queue(text, "play", "taken")) == (2, 0)
    finally:
        server.stop()
        client.flushdb()
        client.close()


def test_the_engine_queue_without_redis_is_the_local_pools_waiting_and_running_jobs(server):
    from shashki.engine import AsyncEngine
    from shashki.server.gauges import _local_depth
    from shashki.server.jobs import ANALYSIS, PLAY

    pool = AsyncEngine(workers=2)
    try:
        pool.pending = 5  # two running in the pool's two processes, three waiting for one
        assert _local_depth({PLAY: [pool, None], ANALYSIS: [None]}) == {
            ("play", "queued"): 3, ("play", "taken"): 2, ("analysis", "queued"): 0, ("analysis", "taken"): 0
        }
    finally:
        pool._executor.shutdown()
    text = httpx.get(server.url + "/metrics").text
    for priority in ("play", "analysis"):
        for state in ("queued", "taken"):
            assert f'shashki_engine_queue{{priority="{priority}",state="{state}"}}' in text


def test_the_database_pool_is_measured_with_sqlites_queued_writers(server):
    text = httpx.get(server.url + "/metrics").text
    states = dict(re.findall(r'shashki_db_pool\{state="(\w+)"\} ([0-9.e+-]+)', text))
    assert {"size", "open", "overflow", "checked_out", "write_waiting"} <= states.keys()
    assert float(states["size"]) >= 1
    assert 0 <= float(states["open"]) <= float(states["size"]) + float(states["overflow"])


def test_a_stopped_process_leaves_the_sum_of_the_live_gauges(tmp_path):
    """With several processes (`PROMETHEUS_MULTIPROC_DIR`) a process that ends marks itself dead: its
    games and sockets no longer count in the others' `/metrics`."""
    from .helpers import Player

    directory = tmp_path / "metrics"
    directory.mkdir()
    first = Server(tmp_path / "first", {"PROMETHEUS_MULTIPROC_DIR": str(directory)}).start()
    try:
        white, black = Player(first), Player(first)
        game = white.challenge(black)
        ws = white.socket(game["id"])
        assert ws.move("c3-d4")["type"] == "ack"
        ws.close()
        text = wait_for_sample(first.url, lambda t: sample(t, "shashki_live_games") >= 1)
        assert sample(text, "shashki_live_games") >= 1
        assert first.process is not None
        pid = first.process.pid
        assert list(directory.glob(f"gauge_livesum_{pid}.db"))
    finally:
        first.stop()
    assert first.process.poll() in (0, -signal.SIGTERM)  # stopped (Server.stop waits), not killed
    assert not list(directory.glob(f"gauge_live*_{pid}.db"))
    second = Server(tmp_path / "second", {"PROMETHEUS_MULTIPROC_DIR": str(directory)}).start()
    try:
        text = httpx.get(second.url + "/metrics").text
        assert sample(text, "shashki_live_games") == 0
        assert sample(text, "shashki_moves_total", 'by="player"') >= 1  # counters of the dead stay
    finally:
        second.stop()


def test_a_killed_process_leaves_the_sum_of_the_live_gauges(tmp_path):
    """A process killed (SIGKILL, as a crash: it cannot mark itself dead) that held a game and a socket:
    the other process's `/metrics` no longer counts them, and still counts the dead one's moves."""
    from .helpers import Player

    directory = tmp_path / "metrics"
    directory.mkdir()
    env = {"PROMETHEUS_MULTIPROC_DIR": str(directory)}
    first = Server(tmp_path / "first", env).start()
    second = Server(tmp_path / "second", env).start()
    try:
        white, black = Player(first), Player(first)
        ws = white.socket(white.challenge(black)["id"])
        assert ws.move("c3-d4")["type"] == "ack"
        text = wait_for_sample(second.url, lambda t: sample(t, "shashki_websockets") == 1)
        assert (sample(text, "shashki_websockets"), sample(text, "shashki_live_games")) == (1, 1)
        assert first.process is not None
        pid = first.process.pid
        first.kill()  # reaped: the pid is gone
        text = httpx.get(second.url + "/metrics").text
        assert (sample(text, "shashki_websockets"), sample(text, "shashki_live_games")) == (0, 0)
        assert sample(text, "shashki_moves_total", 'by="player"') == 1  # counters of the dead stay
        assert not list(directory.glob(f"gauge_live*_{pid}.db"))
        ws.close()
    finally:
        first.stop()
        second.stop()
