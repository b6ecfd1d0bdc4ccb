"""Events: what happened, carried to whoever listens, through one small interface.

A channel is a name (`game:<id>`, `lobby`, `user:<id>`); an event is a JSON-able dict. `InProcessBus` serves
one server process; `RedisBus` (chosen when `REDIS_URL` is set) lets several processes on several machines
serve the same games. Delivery is best effort: a listener that falls behind loses events, which is why game
events carry a number (`seq`) and clients ask for a resync when they see a gap.

>>> import asyncio
>>> async def demo():
...     bus = InProcessBus()
...     async with bus.subscribe("lobby") as events:
...         await bus.publish("lobby", {"type": "hello"})
...         return await events.get()
>>> asyncio.run(demo())
{'type': 'hello'}
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Protocol


class Subscription:
    """Events of one channel, in order, for one listener."""

    def __init__(self, maxsize: int = 1000) -> None:
        self._queue: asyncio.Queue[dict] = asyncio.Queue(maxsize)
        self.dropped = 0

    def put(self, event: dict) -> None:
        try:
            self._queue.put_nowait(event)
        except asyncio.QueueFull:
            self.dropped += 1

    async def get(self) -> dict:
        return await self._queue.get()

    def __aiter__(self) -> AsyncIterator[dict]:
        return self

    async def __anext__(self) -> dict:
        return await self.get()


class EventBus(Protocol):
    async def publish(self, channel: str, event: dict) -> None: ...

    def subscribe(self, channel: str) -> contextlib.AbstractAsyncContextManager[Subscription]: ...

    async def close(self) -> None: ...


class InProcessBus:
    """Channels kept in this process's memory."""

    def __init__(self) -> None:
        self._listeners: dict[str, set[Subscription]] = {}

    async def publish(self, channel: str, event: dict) -> None:
        for subscription in list(self._listeners.get(channel, ())):
            subscription.put(event)

    @contextlib.asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[Subscription]:
        subscription = Subscription()
        self._listeners.setdefault(channel, set()).add(subscription)
        try:
            yield subscription
        finally:
            listeners = self._listeners.get(channel)
            if listeners is not None:
                listeners.discard(subscription)
                if not listeners:
                    del self._listeners[channel]

    async def close(self) -> None:
        self._listeners.clear()


class RedisBus:
    """Channels on Redis pub/sub, so that every server process sees every event."""

    def __init__(self, url: str, prefix: str = "shashki:") -> None:
        import redis.asyncio as redis

        self._redis = redis.from_url(url)
        self._prefix = prefix

    async def publish(self, channel: str, event: dict) -> None:
        await self._redis.publish(self._prefix + channel, json.dumps(event))

    @contextlib.asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[Subscription]:
        subscription = Subscription()
        pubsub = self._redis.pubsub()
        await pubsub.subscribe(self._prefix + channel)

        async def pump() -> None:
            async for message in pubsub.listen():
                if message.get("type") == "message":
                    subscription.put(json.loads(message["data"]))

        task = asyncio.create_task(pump())
        try:
            yield subscription
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
            await pubsub.unsubscribe()
            await pubsub.aclose()

    async def close(self) -> None:
        await self._redis.aclose()


def make_bus(redis_url: str | None) -> EventBus:
    return RedisBus(redis_url) if redis_url else InProcessBus()
