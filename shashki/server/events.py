"""Events: what happened, carried to whoever listens, through one small interface.

A channel is a name (`game:<id>`, `lobby`, `user:<id>`); an event is a JSON-able dict. `InProcessBus`
serves one server process; `redisbus.RedisBus` (chosen when `REDIS_URL` is set: `redisbus.make_bus`)
lets several processes on several machines serve the same games. Delivery is best effort: a listener that
falls behind loses events, which is why game events carry a number (`seq`) and clients ask for a resync
when they see a gap.

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
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

log = logging.getLogger(__name__)

try:  # orjson serialises a game's state several times faster than the standard library (issue 11)
    import orjson
except ImportError:  # pragma: no cover - a dependency; the standard library does the same, slower
    orjson = None  # type: ignore[assignment]


def dumps(message: Any) -> str:
    """A message as JSON text (orjson when it can; the standard library for what orjson refuses, such
    as keys that are not strings)."""
    if orjson is not None:
        try:
            return orjson.dumps(message).decode()
        except TypeError:
            pass
    return json.dumps(message)


def loads(text: str | bytes) -> Any:
    return orjson.loads(text) if orjson is not None else json.loads(text)


class Encoded(dict):
    """An event with its JSON text, made once however many sockets send it on (`text`, made when first
    asked): a game's state goes to both players and every spectator (issue 11: it was serialised once per
    socket). Treat it as read-only: the text does not follow changes.

    `patch` is, for a game's state, the text of the patch from the state before (`games.view.state_patch`):
    what a socket whose client holds that state sends instead of the whole state. `servers` is a part for
    the server processes alone, never sent to a client: the columns and move of a game's change, with which
    another process brings its cached copy up to date (`games.follow`). Redis carries both after the text,
    on lines of their own (`RedisBus`)."""

    __slots__ = ("_text", "servers", "patch")

    def __init__(
        self,
        event: dict,
        text: str | None = None,
        servers: dict | None = None,
        patch: dict | str | None = None,
    ) -> None:
        super().__init__(event)
        self._text = text
        self.servers = servers
        self.patch = dumps(patch) if isinstance(patch, dict) else patch

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = dumps(dict(self))
        return self._text


def text_of(message: dict) -> str:
    """The JSON text of a message: an `Encoded` event's own, else made now."""
    return message.text if isinstance(message, Encoded) else dumps(message)


DROPPED = "dropped"  # the type of the event that tells a listener it has missed some (`Subscription.drop`)


class Subscription:
    """Events of one channel, in order, for one listener.

    A listener may also take an event as it is put (`deliver`, returning whether it took it): then it
    is not queued. It is asked only while nothing is queued, so events stay in order.

    `dropped` counts the times events may have been lost (the queue full, the bus's connection broken);
    a listener that sets `wakes` is also sent `{"type": "dropped"}` then, to resync at once rather than
    at its next event, which may never come (found by an audit: after Redis restarted, a move committed
    at once reached no socket, and a game that ended on time stayed "in play" on both players' pages)."""

    def __init__(self, maxsize: int = 1000) -> None:
        self._queue: asyncio.Queue[dict] = asyncio.Queue(maxsize)
        self.dropped = 0
        self.deliver: Callable[[dict], bool] | None = None
        self.wakes = False

    def drop(self) -> None:
        """Events may have been lost (the bus reconnected): counted, and a listener that `wakes` told."""
        self.dropped += 1
        if self.wakes:
            with contextlib.suppress(asyncio.QueueFull):
                self._queue.put_nowait({"type": DROPPED})

    def put(self, event: dict) -> None:
        if self.deliver is not None and self._queue.empty():
            try:
                if self.deliver(event):
                    return
            except Exception:
                log.exception("delivering an event failed; queued instead")
        try:
            self._queue.put_nowait(event)
        except asyncio.QueueFull:
            self.dropped += 1

    async def get(self) -> dict:
        return await self._queue.get()

    @property
    def pending(self) -> int:
        """Events received and not taken yet."""
        return self._queue.qsize()

    def __aiter__(self) -> AsyncIterator[dict]:
        return self

    async def __anext__(self) -> dict:
        return await self.get()


class EventBus(Protocol):
    shared: bool  # whether other processes hear these events (Redis) or only this one

    async def publish(self, channel: str, event: dict) -> None: ...

    def subscribe(self, channel: str) -> contextlib.AbstractAsyncContextManager[Subscription]: ...

    async def close(self) -> None: ...

    async def ping(self) -> None:
        """Raise if events cannot be carried now (the readiness check)."""

    @property
    def channels(self) -> int: ...


class InProcessBus:
    """Channels kept in this process's memory."""

    shared = False

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

    async def ping(self) -> None:
        """Always ready: the events never leave this process."""

    @property
    def channels(self) -> int:
        return len(self._listeners)


# Seconds between the retries of a publish that failed after its commit (about 15 s in all, enough for a
# Redis restart; beyond it the clients resync on their next state or reconnection).
PUBLISH_RETRIES = (0.2, 0.5, 1.0, 2.0, 4.0, 8.0)


class AfterCommit:
    """Publishes what has been committed, and never fails: the change stands whatever the bus does.

    A committed move is durable and acknowledged (issue 11: a publish that failed after the commit turned
    a recorded move into an error, and left the listeners — flag timer, computer — untold). A failed
    publish is retried in the background, a few times with growing waits (`PUBLISH_RETRIES`); whoever
    misses the event anyway sees a gap in `seq` (or the next state) and asks for the state.
    """

    def __init__(self, bus: EventBus) -> None:
        self.bus = bus
        self.retries: set[asyncio.Task] = set()  # publishes being retried in the background

    async def publish(self, channel: str, event: dict) -> None:
        try:
            await self.bus.publish(channel, event)
        except Exception as error:
            kind = event.get("type")
            log.warning("publishing %s on %s failed (%s); retrying in the background", kind, channel, error)
            task = asyncio.create_task(self._later(channel, event))
            self.retries.add(task)
            task.add_done_callback(self.retries.discard)

    async def _later(self, channel: str, event: dict) -> None:
        for wait in PUBLISH_RETRIES:
            await asyncio.sleep(wait)
            try:
                await self.bus.publish(channel, event)
                return
            except Exception:
                continue
        retries = len(PUBLISH_RETRIES)
        log.error("gave up publishing %s on %s after %d retries", event.get("type"), channel, retries)
