"""The Redis event bus: `events.EventBus` over Redis pub/sub, for several server processes on several
machines, and the wire format of its events; `make_bus`, the bus of a deployment (this one when
`REDIS_URL` is set, else `events.InProcessBus`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from shashki.server.events import Encoded, EventBus, InProcessBus, Subscription, dumps, loads, text_of

log = logging.getLogger(__name__)


class RedisBus:
    """Channels on Redis pub/sub, so that every server process sees every event.

    One pub/sub connection per process carries every channel of the process (issue 11: one connection per
    socket capped a process at the pool's size). Listeners of a channel are counted: the first one
    subscribes it on Redis, the last one to leave unsubscribes it; one reader task hands each message to
    every listener of its channel. Publishing uses the client's shared pool. When the pub/sub connection
    breaks (Redis restarted), the reader connects again by itself, subscribes every channel again, and
    marks every subscription `dropped`: events published meanwhile are lost, so listeners resync (a game
    socket fetches the state again, as on any gap of `seq`).
    """

    RETRY_SECONDS = (0.1, 0.25, 0.5, 1.0, 2.0)  # waits between reconnections, the last one repeated
    shared = True

    def __init__(self, url: str, prefix: str = "shashki:", name: str = "shashki") -> None:
        import redis.asyncio as redis

        self._redis = redis.from_url(url, client_name=name)  # the name shows in Redis's CLIENT LIST
        self._prefix = prefix
        self._listeners: dict[str, set[Subscription]] = {}
        self._pubsub: Any = None
        self._reader: asyncio.Task | None = None
        self._changes = asyncio.Lock()  # orders SUBSCRIBE/UNSUBSCRIBE against reconnections
        self._connected_before = False
        self._lost = False  # the pub/sub connection broke and is not back: events do not reach this process
        self.reconnections = 0

    async def publish(self, channel: str, event: dict) -> None:
        await self._redis.publish(self._prefix + channel, _payload(event))

    @property
    def channels(self) -> int:
        """How many channels this process listens to."""
        return len(self._listeners)

    @property
    def prefix(self) -> str:
        """What the channels' names begin with on Redis (the job queue's nudges come within it too)."""
        return self._prefix

    async def ping(self) -> None:
        """Redis answers, and the pub/sub connection is up (a readiness check: with Redis back but the
        reader still waiting to reconnect, no event would reach this process's players)."""
        await self._redis.ping()
        if self._lost:
            raise ConnectionError("the pub/sub connection is not back yet")

    @property
    def client(self) -> Any:
        """The Redis client (its pool), for the process's other uses of the same Redis (game leases)."""
        return self._redis

    @contextlib.asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[Subscription]:
        subscription = Subscription()
        listeners = self._listeners.setdefault(channel, set())
        first = not listeners
        listeners.add(subscription)
        try:
            if first:
                await self._send("subscribe", channel)
            yield subscription
        finally:
            remaining = self._listeners.get(channel)
            if remaining is not None:
                remaining.discard(subscription)
                if not remaining:
                    del self._listeners[channel]
                    with contextlib.suppress(Exception):
                        await self._send("unsubscribe", channel)

    async def _send(self, command: str, channel: str) -> None:
        """SUBSCRIBE or UNSUBSCRIBE one channel on the shared connection (connecting it if need be).

        If Redis cannot be reached the reader does it when it reconnects: it subscribes every channel
        that has listeners then, and marks them dropped. An UNSUBSCRIBE needs no retry (the connection
        made again has only the channels with listeners): its failure is not worth a warning each.
        """
        async with self._changes:
            if command == "subscribe" and channel not in self._listeners:
                return  # its listener already left
            if command == "unsubscribe" and (channel in self._listeners or self._pubsub is None):
                return  # a new listener came meanwhile, or no connection holds the channel
            if self._reader is None or self._reader.done():
                self._reader = asyncio.create_task(self._read(), name="redis-bus-reader")
            try:
                if self._pubsub is None:
                    await self._connect()  # subscribes every channel with listeners, this one too
                elif command == "subscribe":
                    await self._pubsub.subscribe(self._prefix + channel)
                else:
                    await self._pubsub.unsubscribe(self._prefix + channel)
            except Exception as error:
                level = logging.WARNING if command == "subscribe" else logging.DEBUG
                log.log(level, "redis pub/sub: %s %s failed (%s); the reader retries", command, channel,
                        error)
                self._mark_dropped(channel)

    async def _connect(self) -> None:
        """Open the shared pub/sub connection with every channel subscribed (call under `_changes`)."""
        pubsub = self._redis.pubsub()
        try:
            channels = [self._prefix + c for c in self._listeners]
            await pubsub.subscribe(*channels) if channels else await pubsub.connect()
        except BaseException:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            raise
        # Connected again behind the reader's back (redis-py retries reads): events may be lost.
        if pubsub.connection is not None:
            pubsub.connection.register_connect_callback(self._reconnected)
        self._pubsub = pubsub
        self._lost = False
        if self._connected_before:
            # Whatever was published while there was no connection is lost: listeners resync.
            self.reconnections += 1
            self._mark_dropped()
            log.info("redis pub/sub: reconnected, %d channels subscribed again", self.channels)
        self._connected_before = True

    def _reconnected(self, _connection: Any) -> None:
        self.reconnections += 1
        self._mark_dropped()

    def _mark_dropped(self, channel: str | None = None) -> None:
        for name, listeners in list(self._listeners.items()):
            if channel is None or name == channel:
                for subscription in listeners:
                    subscription.drop()

    async def _read(self) -> None:
        """The one reader: dispatch messages to listeners; reconnect and resubscribe on failure."""
        failures = 0
        while True:
            try:
                if self._pubsub is None:
                    async with self._changes:
                        if self._pubsub is None:
                            await self._connect()
                pubsub = self._pubsub
                message = await pubsub.get_message(timeout=1.0)
                failures = 0
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if failures == 0:
                    log.warning("redis pub/sub connection lost (%s); reconnecting", error)
                self._lost = True
                async with self._changes:
                    broken, self._pubsub = self._pubsub, None
                if broken is not None:
                    with contextlib.suppress(Exception):
                        await broken.aclose()
                await asyncio.sleep(self.RETRY_SECONDS[min(failures, len(self.RETRY_SECONDS) - 1)])
                failures += 1
                continue
            if message is None or message.get("type") != "message":
                continue
            channel = message["channel"].decode()[len(self._prefix) :]
            listeners = self._listeners.get(channel)
            if listeners:
                try:
                    event = _event(message["data"])
                except (ValueError, TypeError):  # not an event (another program's): the connection is fine
                    log.warning("redis pub/sub: a message on %s that is no event, dropped", channel)
                    continue
                for subscription in list(listeners):
                    subscription.put(event)

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
            self._reader = None
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
            self._pubsub = None
        self._listeners.clear()
        await self._redis.aclose()


def _payload(event: dict) -> str:
    """What Redis carries of an event: its JSON text, then its part for the servers and its patch, if it
    has them, on lines of their own (compact JSON never holds a raw newline: one inside a string is
    written `\\n`)."""
    servers = getattr(event, "servers", None)
    patch = getattr(event, "patch", None)
    if servers is None and patch is None:
        return text_of(event)
    return f"{text_of(event)}\n{'' if servers is None else dumps(servers)}\n{patch or ''}"


def _event(data: bytes | str) -> Encoded:
    """An event read back from Redis (`_payload`), its texts kept to be sent on as they came."""
    text = data.decode() if isinstance(data, bytes) else data
    text, _, rest = text.partition("\n")
    servers, _, patch = rest.partition("\n")
    return Encoded(loads(text), text, loads(servers) if servers else None, patch or None)


def make_bus(redis_url: str | None) -> EventBus:
    """Redis when a URL is given (several processes), else the bus of this process alone."""
    return RedisBus(redis_url) if redis_url else InProcessBus()
