"""Connections held open, counted per key across processes (shashki/server/connections.py): in one process
the counts are this process's; with Redis two instances (standing for two server processes) see each
other's connections and caps, a process's heartbeat keeps its connections counted, and those of a process
that died lapse after their time to live.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Awaitable, Callable

import pytest

from shashki.server.connections import Connections, Full, SharedConnections
from shashki.server.errors import RateLimited
from shashki.server.http.edge import SocketLimits
from shashki.server.lidraughts.streams import StreamSlots
from shashki.server.limits import Limit
from shashki.server.social.service import Online

REDIS_URL = os.environ.get("SHASHKI_TEST_REDIS_URL")
needs_redis = pytest.mark.skipif(not REDIS_URL, reason="SHASHKI_TEST_REDIS_URL not set")


def test_in_one_process_a_cap_refuses_the_connection_past_it_until_one_closes():
    async def scenario() -> list[object]:
        connections = Connections()
        first = await connections.open("sockets", "10.0.0.1", limit=2)
        second = await connections.open("sockets", "10.0.0.1", limit=2)
        refused = await connections.open("sockets", "10.0.0.1", limit=2)
        elsewhere = await connections.open("sockets", "10.0.0.2", limit=2)  # another key, its own cap
        assert first is not None and second is not None and elsewhere is not None
        await connections.release("sockets", "10.0.0.1", first)
        again = await connections.open("sockets", "10.0.0.1", limit=2)
        return [refused, again is not None, await connections.count("sockets", "10.0.0.1")]

    assert asyncio.run(scenario()) == [None, True, 2]


def test_in_one_process_online_is_whoever_holds_a_lobby_socket_now():
    async def scenario() -> list[set[int]]:
        online = Online()
        seen = [await online.which([1, 2])]
        async with online.connected(1), online.connected(1):
            seen.append(await online.which([1, 2]))
        seen.append(await online.which([1, 2]))
        return seen

    assert asyncio.run(scenario()) == [set(), {1}, set()]


async def _two_processes(
    scenario: Callable[[SharedConnections, SharedConnections, str], Awaitable[object]], **options: float
) -> object:
    """Run `scenario` with two `SharedConnections` on one Redis (each its own client, as two processes
    have), under a prefix of its own."""
    import redis.asyncio as aioredis

    prefix = f"test:{uuid.uuid4().hex[:8]}:"
    clients = [aioredis.from_url(REDIS_URL), aioredis.from_url(REDIS_URL)]
    one, two = (SharedConnections(client, prefix=prefix, **options) for client in clients)
    await one.start()
    await two.start()
    try:
        return await scenario(one, two, prefix)
    finally:
        await one.close()
        await two.close()
        for client in clients:
            await client.aclose()


def _die(process: SharedConnections) -> None:
    """The process stops beating without closing anything, as one killed does."""
    assert process._runner is not None
    process._runner.cancel()


@needs_redis
def test_with_redis_a_connection_on_one_process_counts_on_the_other_and_its_close_too():
    async def scenario(one: SharedConnections, two: SharedConnections, _prefix: str) -> list[int]:
        counts = []
        async with one.held("lobby", 7):
            counts.append(await two.count("lobby", 7))
            async with two.held("lobby", 7):
                counts.append(await one.count("lobby", 7))
            counts.append(await one.count("lobby", 7))
        counts.append(await two.count("lobby", 7))
        return counts

    assert asyncio.run(_two_processes(scenario)) == [1, 2, 1, 0]


@needs_redis
def test_with_redis_a_cap_counts_the_connections_of_every_process():
    async def scenario(one: SharedConnections, two: SharedConnections, _prefix: str) -> list[object]:
        outcomes: list[object] = []
        for process in (one, two, one):
            outcomes.append(await process.open("streams", 5, limit=2) is not None)
        with pytest.raises(Full):
            async with two.held("streams", 5, limit=2):
                pass
        outcomes.append("refused")
        return outcomes

    assert asyncio.run(_two_processes(scenario)) == [True, True, False, "refused"]


async def _within(seconds: float, read, done):
    """`read()` again until `done` of it, at most `seconds`: what it read last."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        value = await read()
        if done(value) or asyncio.get_running_loop().time() > deadline:
            return value
        await asyncio.sleep(0.05)


@needs_redis
def test_with_redis_the_heartbeat_keeps_a_connection_and_a_dead_process_connections_lapse():
    async def scenario(one: SharedConnections, two: SharedConnections, prefix: str) -> list[object]:
        seen: list[object] = []
        await one.open("lobby", 3)
        await one.open("sockets", "10.0.0.9", limit=1)
        await asyncio.sleep(1.0)  # twice the time to live: only the heartbeat has kept them
        seen.append(await two.holding("lobby", [3, 4]))
        seen.append(await two.open("sockets", "10.0.0.9", limit=1))  # the cap is still taken
        _die(one)
        # Lapsed once their time to live has passed (0.5 s): waited for up to 5 s, not a fixed sleep, so
        # that a loaded machine (a CI run) does not make the wait too short.
        seen.append(await _within(5, lambda: two.holding("lobby", [3, 4]), lambda held: not held))
        seen.append(await two.open("sockets", "10.0.0.9", limit=1) is not None)  # its place is free
        # Nothing is left behind in Redis for the dead process's keys either.
        seen.append(await _within(5, lambda: one.redis.exists(f"{prefix}lobby:3"), lambda n: n == 0))
        return seen

    outcome = asyncio.run(_two_processes(scenario, ttl_seconds=0.5, beat_seconds=0.1))
    assert outcome == [{"3"}, None, set(), True, 0]


@needs_redis
def test_with_redis_online_is_shared_and_a_dead_process_players_go_offline():
    async def scenario(one: SharedConnections, two: SharedConnections, _prefix: str) -> list[set[int]]:
        here, there = Online(one), Online(two)
        seen = []
        async with here.connected(11):
            seen.append(await there.which([11, 12]))
        seen.append(await there.which([11, 12]))
        await one.open(Online.KIND, 12)  # the socket of a process about to die
        seen.append(await there.which([11, 12]))
        _die(one)
        seen.append(await _within(5, lambda: there.which([11, 12]), lambda online: not online))
        return seen

    outcome = asyncio.run(_two_processes(scenario, ttl_seconds=0.5, beat_seconds=0.1))
    assert outcome == [{11}, set(), {12}, set()]


@needs_redis
def test_with_redis_a_bots_stream_cap_counts_every_process_and_a_dead_process_streams_lapse():
    async def scenario(one: SharedConnections, two: SharedConnections, _prefix: str) -> list[set[int]]:
        here, there = StreamSlots(2, "event streams", one), StreamSlots(2, "event streams", two)
        seen = []
        async with here.hold(9), there.hold(9):
            with pytest.raises(RateLimited):
                await there.check(9)
            with pytest.raises(RateLimited):
                async with here.hold(9):
                    pass
            seen.append(await there.holding([9, 10]))
        await one.open(here.kind, 9)  # the streams of a process about to die
        await one.open(here.kind, 9)
        with pytest.raises(RateLimited):
            await there.check(9)
        _die(one)
        await asyncio.sleep(0.8)
        await there.check(9)  # their places are free again
        seen.append(await there.holding([9]))
        return seen

    outcome = asyncio.run(_two_processes(scenario, ttl_seconds=0.5, beat_seconds=0.1))
    assert outcome == [{9}, set()]


@needs_redis
def test_with_redis_the_sockets_per_address_cap_counts_every_process_and_a_dead_process_sockets_lapse():
    """Two apps' edges (`SocketLimits`) on one Redis: an address's sockets on both count against its cap."""

    async def scenario(one: SharedConnections, two: SharedConnections, _prefix: str) -> list[str]:
        closing = asyncio.Event()
        tasks: list[asyncio.Task] = []

        async def held_open(scope, receive, send) -> None:  # the app behind the edge: a socket kept open
            await receive()
            await send({"type": "websocket.accept"})
            await closing.wait()

        edges = [SocketLimits(held_open, 2, Limit(10, 1.0), connections) for connections in (one, two)]

        async def connect(edge: SocketLimits, address: str) -> str:
            sent: list[dict] = []

            async def receive() -> dict:
                return {"type": "websocket.connect"}

            async def send(message: dict) -> None:
                sent.append(message)

            scope = {"type": "websocket", "client": (address, 50000), "extensions": {}}
            tasks.append(asyncio.create_task(edge(scope, receive, send)))
            while not sent:
                await asyncio.sleep(0.01)
            return sent[0]["type"].removeprefix("websocket.")

        a, b = edges
        answers = [await connect(edge, "10.0.0.1") for edge in (a, b, a, b)]
        answers.append(await connect(b, "10.0.0.2"))  # another address, its own cap
        _die(one)  # the process of A's socket dies with it
        await asyncio.sleep(0.8)
        answers.append(await connect(b, "10.0.0.1"))
        closing.set()
        await asyncio.gather(*tasks)
        return answers

    outcome = asyncio.run(_two_processes(scenario, ttl_seconds=0.5, beat_seconds=0.1))
    assert outcome == ["accept", "accept", "close", "close", "accept", "accept"]
