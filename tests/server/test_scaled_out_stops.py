"""Server processes on PostgreSQL and Redis that stop or die (issue 11, item 5): a process stopped cleanly
hands its games over at once (games/owners.py, `hand_over`), and a `--workers` process killed leaves the
sum of the live gauges (metrics.py, `forget_dead`). The services as for tests/server/test_scaled_out.py
(skipped without them, failing under CI)."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from pathlib import Path

import httpx
import pytest

from .helpers import Player, eventually
from .test_operations import sample, wait_for_sample
from .test_scaled_out import REDIS_URL, _scaled_server, _start_with_workers, _stored_status


@pytest.mark.slow
def test_a_process_stopped_cleanly_hands_its_game_over_at_once_and_the_flag_falls_on_time(tmp_path):
    """A owns a game whose Black clock runs and is stopped with SIGTERM: it releases the lease and names
    the game on the bus, and B claims it at once and flags Black on time. With a 60 s lease B sweeps
    every 20 s, its first sweep some 20 s after its start: without the hand-over heard, the game would
    wait for that sweep (the lease released, nobody arming its flag)."""
    import redis

    servers = []
    for name in ("a", "b"):
        server = _scaled_server(tmp_path / name)
        server.env["SHASHKI_GAME_LEASE_SECONDS"] = "60"
        servers.append(server.start())
    a, b = servers
    client = redis.Redis.from_url(REDIS_URL or "")
    try:
        white, black = Player(a), Player(a)
        gid = white.challenge(black, time_control={"minutes": 0.05, "increment": 0})["id"]  # 3 s
        w, bl = white.socket(gid), black.socket(gid)
        assert w.move("c3-d4")["type"] == "ack"
        assert bl.move("f6-g5")["type"] == "ack"
        assert w.move("d4-c5")["type"] == "ack"  # committed on A: A owns it; Black's clock runs
        moved = time.monotonic()
        key = f"shashki:owner:{gid}"
        a_owner = eventually(lambda: client.get(key), lambda owner: owner is not None)
        assert a_owner is not None and a.process is not None
        a.process.send_signal(signal.SIGTERM)
        stopped = time.monotonic()
        owner = eventually(lambda: client.get(key), lambda o: o is not None and o != a_owner, timeout=30)
        claimed = time.monotonic() - stopped
        assert owner is not None and owner != a_owner, owner
        assert a.process.wait(15) in (0, -signal.SIGTERM)
        status = eventually(lambda: _stored_status(gid), lambda s: s.startswith("finished"), timeout=30)
        ended = time.monotonic() - moved
        assert status == "finished time", status
        # Claimed as soon as A's shutdown reached its lifespan, well before B's first sweep (about 17 s
        # from here); the flag falls when Black's 3 s run out, with a margin for a loaded machine.
        assert claimed < 5, (claimed, b.log.read_text()[-2000:])
        assert ended < 3 + 3, ended
        assert "handed over by" in b.log.read_text()
        # Its own and any game in play left by other tests on the shared database, resumed at its start.
        assert re.search(r"handed over [1-9][0-9]* games", a.log.read_text())
        for s in (w, bl):
            s.close()
        white.close()
        black.close()
    finally:
        client.close()
        for server in servers:
            server.stop()


def _live_sums(directory: Path, gauge: str) -> dict[int, float]:
    """Each process's value of a live-sum gauge, read from its file in the multiprocess directory."""
    from prometheus_client.mmap_dict import MmapedDict

    values = {}
    for path in directory.glob("gauge_livesum_*.db"):
        pid = int(path.stem.rpartition("_")[2])
        for key, value, _, _ in MmapedDict.read_all_values_from_file(str(path)):
            if json.loads(key)[1] == gauge:
                values[pid] = value
    return values


@pytest.mark.slow
def test_a_worker_killed_under_serve_workers_leaves_the_sum_of_the_live_gauges(tmp_path):
    """`--workers 2`: a worker holding open sockets is killed (SIGKILL: no shutdown, no `mark_dead`) and
    uvicorn's supervisor starts another in its place; `/metrics` through the port no longer counts the
    dead one's sockets and games, whichever worker answers, while its counters stay in the sum."""
    directory = tmp_path / "metrics"
    directory.mkdir()
    server = _scaled_server(tmp_path)
    server.env["PROMETHEUS_MULTIPROC_DIR"] = str(directory)
    server.start = _start_with_workers(server, 2)  # type: ignore[method-assign]
    server.start()
    sockets = []
    try:
        players = [Player(server) for _ in range(4)]
        for white, black in (players[:2], players[2:]):
            gid = white.challenge(black)["id"]
            for player in (white, black):
                sockets.append(player.socket(gid))
        assert sockets[0].move("c3-d4")["type"] == "ack"
        text = wait_for_sample(server.url, lambda t: sample(t, "shashki_websockets") == len(sockets))
        assert sample(text, "shashki_websockets") == len(sockets)
        held = _live_sums(directory, "shashki_websockets")
        victim = max(held, key=lambda pid: held[pid])  # a worker holding sockets
        left = len(sockets) - held[victim]
        os.kill(victim, signal.SIGKILL)
        # The sockets on the dead worker are gone with it; the others' stay open.
        text = eventually(
            lambda: httpx.get(server.url + "/metrics").text,
            lambda t: sample(t, "shashki_websockets") == left,
            timeout=15,
        )
        assert sample(text, "shashki_websockets") == left, text
        assert sample(text, "shashki_moves_total", 'by="player"') >= 1  # the dead one's counters stay
        assert not list(directory.glob(f"gauge_live*_{victim}.db"))
        for player in players:
            player.close()
    finally:
        for socket in sockets:
            socket.close()
        server.stop()
