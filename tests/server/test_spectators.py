"""Spectators watch a game live, and the players see how many are watching; with several processes the
watchers of every process are counted (games/presence.py, SharedPresence), and a dead process's stop
counting once it has been silent."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest

from shashki.server.games.presence import SPECTATORS, SharedPresence
from shashki.server.redisbus import RedisBus

from .helpers import GameSocket

REDIS_URL = os.environ.get("SHASHKI_TEST_REDIS_URL")


def test_players_see_the_number_of_spectators_come_and_go(players, server):
    white, black, watcher = players(), players(), players()
    game = white.challenge(black)
    sockets = [white.socket(game["id"]), black.socket(game["id"])]

    def spectators_become(n):
        return lambda m: m.get("type") == "presence" and m.get("spectators") == n

    anonymous = GameSocket(server, game["id"])  # anyone may watch, logged in or not
    sockets[0].wait(spectators_become(1))
    logged_in = watcher.socket(game["id"])
    sockets[0].wait(spectators_become(2))
    # A spectator sees the moves as they are played.
    assert sockets[0].move("c3-d4", ply=0)["type"] == "ack"
    anonymous.wait_state(lambda g: g["moves"] == ["c3-d4"])
    logged_in.close()
    sockets[1].wait(spectators_become(1))
    anonymous.close()
    sockets[1].wait(spectators_become(0))
    for s in sockets:
        s.close()


@pytest.mark.skipif(not REDIS_URL, reason="SHASHKI_TEST_REDIS_URL not set")
def test_spectators_of_two_processes_are_counted_by_both_and_a_dead_process_watchers_drop_out():
    async def until(check, timeout: float = 3.0) -> bool:
        deadline = asyncio.get_running_loop().time() + timeout
        while not check():
            if asyncio.get_running_loop().time() > deadline:
                return False
            await asyncio.sleep(0.02)
        return True

    async def scenario() -> list[object]:
        prefix = f"test:{uuid.uuid4().hex[:8]}:"
        buses = [RedisBus(REDIS_URL, prefix=prefix), RedisBus(REDIS_URL, prefix=prefix)]
        a, b = (SharedPresence(bus, beat_seconds=0.1, silent_seconds=0.5) for bus in buses)
        await a.start()
        await b.start()
        try:
            seen: list[object] = []
            a.joined("g1", SPECTATORS)
            a.joined("g1", SPECTATORS)
            b.joined("g1", SPECTATORS)
            seen.append(await until(lambda: a.count("g1", SPECTATORS) == b.count("g1", SPECTATORS) == 3))
            seen.append(b.as_json("g1")["spectators"])
            a.left("g1", SPECTATORS)
            seen.append(await until(lambda: b.count("g1", SPECTATORS) == 2))
            for runner in a._runners:  # A dies: no more beats, no goodbye
                runner.cancel()
            seen.append(await until(lambda: b.count("g1", SPECTATORS) == 1))
            return seen
        finally:
            await a.close()
            await b.close()
            for bus in buses:
                await bus.close()

    assert asyncio.run(scenario()) == [True, 3, True, True]
