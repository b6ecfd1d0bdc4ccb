"""The Redis event bus (redisbus.RedisBus) with a real Redis: one pub/sub connection per process carries every
channel, and a Redis restart is recovered from. Skipped without SHASHKI_TEST_REDIS_URL (as the scaled-out
tests: `eval "$(scripts/test-services.sh start)"`)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import time
import uuid

import pytest

from shashki.server.redisbus import RedisBus

REDIS_URL = os.environ.get("SHASHKI_TEST_REDIS_URL")
pytestmark = pytest.mark.skipif(not REDIS_URL, reason="needs SHASHKI_TEST_REDIS_URL (test-services.sh)")


async def _clients(url: str, name: str) -> list[dict]:
    import redis.asyncio as redis

    admin = redis.from_url(url)
    try:
        return [c for c in await admin.client_list() if c.get("name") == name]
    finally:
        await admin.aclose()


async def _next(subscription, seconds: float = 5.0) -> dict:
    return await asyncio.wait_for(subscription.get(), seconds)


def test_hundreds_of_subscriptions_share_one_redis_connection_and_all_get_their_events():
    name = f"bus-test-{uuid.uuid4().hex[:8]}"

    async def scenario():
        bus = RedisBus(REDIS_URL, prefix=f"{name}:", name=name)
        async with contextlib.AsyncExitStack() as stack:
            subscriptions = {}
            for i in range(150):  # two listeners on each of 150 channels: 300 sockets' worth
                channel = f"game:{i}"
                subscriptions[channel] = [
                    await stack.enter_async_context(bus.subscribe(channel)) for _ in range(2)
                ]
            await asyncio.sleep(0.2)
            during = await _clients(REDIS_URL, name)
            for channel in subscriptions:
                await bus.publish(channel, {"type": "state", "channel": channel})
            received = {c: [(await _next(s))["channel"] for s in pair] for c, pair in subscriptions.items()}
        await asyncio.sleep(0.2)
        after = await _clients(REDIS_URL, name)
        await bus.close()
        return during, received, after

    during, received, after = asyncio.run(scenario())
    subscribers = [c for c in during if int(c["sub"]) > 0]
    assert len(subscribers) == 1
    assert int(subscribers[0]["sub"]) == 150
    assert len(during) <= 2  # the pub/sub connection and at most one publishing connection so far
    assert all(got == [channel, channel] for channel, got in received.items())
    assert [int(c["sub"]) for c in after if int(c["sub"]) > 0] == []  # the last listener unsubscribed


def test_a_message_that_is_no_event_is_dropped_and_the_connection_kept():
    name = f"bus-test-{uuid.uuid4().hex[:8]}"

    async def scenario():
        bus = RedisBus(REDIS_URL, prefix=f"{name}:", name=name)
        try:
            async with bus.subscribe("x") as events:
                await bus.client.publish(f"{name}:x", "1")  # another program's message, no JSON object
                await bus.publish("x", {"n": 1})
                return await _next(events), bus.reconnections, events.dropped
        finally:
            await bus.close()

    assert asyncio.run(scenario()) == ({"n": 1}, 0, 0)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_redis(port: int) -> subprocess.Popen:
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return process
        time.sleep(0.05)
    process.kill()
    raise RuntimeError("redis-server did not start")


class _Redis:
    """A redis-server of the test's own, on a free port, which the test stops and starts again."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = _start_redis(self.port)

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(10)

    async def start_again(self) -> None:
        self.process = await asyncio.to_thread(_start_redis, self.port)


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_the_bus_reconnects_after_a_redis_restart_resubscribes_and_marks_listeners_dropped():
    redis = _Redis()

    async def scenario():
        bus = RedisBus(redis.url)
        async with bus.subscribe("game:a") as a, bus.subscribe("user:1") as b:
            a.wakes = True  # told at once, as a socket is (b only counts)
            await bus.publish("game:a", {"n": 1})
            before = await _next(a)
            redis.stop()
            with pytest.raises(Exception):  # noqa: B017 - whatever redis-py raises while Redis is down
                await bus.publish("game:a", {"n": 2})
            await asyncio.sleep(0.5)
            await redis.start_again()
            deadline = time.monotonic() + 15
            while bus.reconnections == 0 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            dropped = (a.dropped, b.dropped)
            woken = await _next(a)  # before anything is published again
            await bus.publish("game:a", {"n": 3})
            await bus.publish("user:1", {"n": 4})
            first = await _next(a)
            while first == {"type": "dropped"}:  # word of the drop may come twice (two reconnect paths)
                first = await _next(a)
            after = (first, await _next(b))
            # A channel subscribed after the restart works too, on the same connection.
            async with bus.subscribe("game:c") as c:
                await bus.publish("game:c", {"n": 5})
                late = await _next(c)
        reconnections = bus.reconnections
        await bus.close()
        return before, dropped, woken, after, late, reconnections

    try:
        before, dropped, woken, after, late, reconnections = asyncio.run(scenario())
    finally:
        redis.stop()
    assert before == {"n": 1}
    assert reconnections >= 1
    assert dropped[0] >= 1 and dropped[1] >= 1  # listeners are told they may have missed events
    assert woken == {"type": "dropped"}  # and one that wakes is sent word of it at once
    assert after == ({"n": 3}, {"n": 4})
    assert late == {"n": 5}


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_the_bus_is_not_ready_until_its_pub_sub_connection_is_back():
    """A readiness check pings the bus: with Redis back but the reader still waiting to connect again,
    no event reaches the process's players, so the ping fails until the pub/sub connection is up; once
    it answers, events flow."""
    redis = _Redis()

    async def scenario():
        bus = RedisBus(redis.url)
        bus.RETRY_SECONDS = (3.0,)  # a wide window between Redis's return and the reader's
        async with bus.subscribe("game:a") as a:
            await bus.ping()
            redis.stop()
            await asyncio.sleep(1.5)  # the reader sees the loss (it reads with a 1 s timeout)
            await redis.start_again()
            refusals: list[str] = []
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                try:
                    await bus.ping()
                    break
                except ConnectionError as error:
                    refusals.append(str(error))
                await asyncio.sleep(0.05)
            await bus.publish("game:a", {"n": 1})
            event = await _next(a)
            while event == {"type": "dropped"}:
                event = await _next(a)
        await bus.close()
        return refusals, event

    try:
        refusals, event = asyncio.run(scenario())
    finally:
        redis.stop()
    assert refusals and set(refusals) == {"the pub/sub connection is not back yet"}
    assert event == {"n": 1}  # ready again, and the process hears its channels
