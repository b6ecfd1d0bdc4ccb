"""The computer opponent is the real engine, and it never blocks the server while it thinks."""

from __future__ import annotations

import time

import httpx


def test_the_server_answers_at_once_while_the_engine_thinks(players, server):
    human = players()
    # Level 8 in a game without a clock thinks SHASHKI_ENGINE_UNTIMED_SECONDS (1 s) a move.
    r = human.post("/api/computer-games", {"level": 8, "color": "white"})
    assert r.status_code == 201, r.text
    game = r.json()["game"]
    ws = human.socket(game["id"])
    assert ws.move("c3-d4", ply=0)["type"] == "ack"
    started = time.monotonic()
    slowest = 0.0
    while time.monotonic() - started < 0.8:  # well inside the engine's thinking time
        t = time.monotonic()
        assert httpx.get(server.url + "/health", timeout=5).status_code == 200
        slowest = max(slowest, time.monotonic() - t)
    # An engine thinking on the event loop would hold every request for its whole second; a loaded
    # machine (CI runs other work beside the server) still answers well inside half of it.
    assert slowest < 0.6, f"the event loop was blocked for {slowest:.2f} s while the engine thought"
    state = ws.wait_state(lambda g: g["ply"] == 2, timeout=15)
    assert state["side_to_move"] == "white" and len(state["moves"]) == 2
    ws.close()
