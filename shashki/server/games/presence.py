"""Presence: who of each game's players has a live connection, how many watch, and since when a player
has been gone (which is what a claim of victory by abandonment waits on).

`Presence` counts this process's connections. With several server processes (Redis), `SharedPresence`
adds every other process's counts, heard on the bus: a player connected to one process is present for
all of them, spectators are counted across all, and a claim of victory waits until the player has no
connection anywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from datetime import datetime
from typing import Any

from shashki.rules import Color
from shashki.server.events import EventBus
from shashki.server.games.clock import elapsed_ms
from shashki.server.storage.base import utcnow

log = logging.getLogger("shashki.presence")

SPECTATORS = "spectator"  # the watchers of a game: counted like a seat, never a player

Seat = Color | str  # a colour, or SPECTATORS
Key = tuple[str, str]  # (game id, seat)


def _key(seat: Seat) -> str:
    return seat.value if isinstance(seat, Color) else seat


class Presence:
    def __init__(self) -> None:
        self.started_at = utcnow()
        self._connections: dict[Key, int] = {}
        self._left_at: dict[Key, datetime] = {}

    async def start(self) -> None:
        """Nothing to start in one process (`SharedPresence` listens to the others)."""

    async def close(self) -> None:
        pass

    def _elsewhere(self, key: Key) -> int:
        """Connections to the key in other processes (none known here)."""
        return 0

    def _total(self, key: Key) -> int:
        return self._connections.get(key, 0) + self._elsewhere(key)

    def joined(self, game_id: str, seat: Seat) -> None:
        key = (game_id, _key(seat))
        self._connections[key] = self._connections.get(key, 0) + 1

    def left(self, game_id: str, seat: Seat) -> None:
        key = (game_id, _key(seat))
        self._connections[key] = max(0, self._connections.get(key, 0) - 1)
        if not self._connections[key]:
            del self._connections[key]
            if not self._total(key):
                self._left_at[key] = utcnow()

    def connected(self, game_id: str, seat: Seat) -> bool:
        return self._total((game_id, _key(seat))) > 0

    def count(self, game_id: str, seat: Seat) -> int:
        """Live connections of one side (or of the spectators) to a game."""
        return self._total((game_id, _key(seat)))

    def gone_ms(self, game_id: str, color: Color, game_created: datetime, now: datetime) -> int:
        """How long this player has had no connection (0 while connected); a player never seen counts from
        the later of the game's creation and this process's start.
        """
        if self.connected(game_id, color):
            return 0
        since = self._left_at.get((game_id, color.value)) or max(game_created, self.started_at)
        return elapsed_ms(since, now)

    def as_json(self, game_id: str) -> dict[str, Any]:
        """The `presence` message of the game's live channel."""
        return {
            "type": "presence",
            "white": self.connected(game_id, Color.WHITE),
            "black": self.connected(game_id, Color.BLACK),
            "spectators": self.count(game_id, SPECTATORS),
        }


class SharedPresence(Presence):
    """Presence across processes, on the bus channel `presence`.

    Each process announces its own count of a (game, seat) whenever it changes — the count itself, not a
    difference, so a message lost or repeated does no lasting harm — and all its non-zero counts every
    `beat_seconds` (which also says it is alive). A process not heard from for `silent_seconds` has died:
    its connections are dropped, and its players count as gone from then. A process shutting down says
    so, and is dropped at once.
    """

    CHANNEL = "presence"

    def __init__(self, bus: EventBus, *, beat_seconds: float = 2.0, silent_seconds: float = 7.0) -> None:
        super().__init__()
        self.bus = bus
        self.me = uuid.uuid4().hex[:12]
        self.beat_seconds = beat_seconds
        self.silent_seconds = silent_seconds
        self._others: dict[str, dict[Key, int]] = {}
        self._heard: dict[str, float] = {}
        self._tasks: set[asyncio.Task] = set()
        self._runners: list[asyncio.Task] = []

    def _elsewhere(self, key: Key) -> int:
        return sum(counts.get(key, 0) for counts in self._others.values())

    # -- this process's changes ---------------------------------------------------------------------------

    def joined(self, game_id: str, seat: Seat) -> None:
        super().joined(game_id, seat)
        self._announce({"counts": [[game_id, _key(seat), self._connections[(game_id, _key(seat))]]]})

    def left(self, game_id: str, seat: Seat) -> None:
        super().left(game_id, seat)
        key = (game_id, _key(seat))
        self._announce({"counts": [[game_id, key[1], self._connections.get(key, 0)]]})

    def _announce(self, message: dict) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self._publish(message))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _publish(self, message: dict) -> None:
        try:
            await self.bus.publish(self.CHANNEL, {"from": self.me, **message})
        except Exception as e:  # Redis away: the next beat says it all again
            log.debug("presence not published: %s", e)

    # -- the others' ----------------------------------------------------------------------------------------

    async def start(self) -> None:
        subscribed = asyncio.Event()
        self._runners = [
            asyncio.create_task(self._listen(subscribed)),
            asyncio.create_task(self._beat()),
        ]
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5):
                await subscribed.wait()

    async def _listen(self, subscribed: asyncio.Event) -> None:
        while True:
            try:
                async with self.bus.subscribe(self.CHANNEL) as subscription:
                    subscribed.set()
                    await self._publish({"hello": True})  # the others answer with their counts
                    async for message in subscription:
                        self.hear(message)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("presence channel lost (%s); listening again", e)
                await asyncio.sleep(1)

    def hear(self, message: dict) -> None:
        """Take in another process's message (its own are ignored)."""
        sender = message.get("from")
        if not isinstance(sender, str) or sender == self.me:
            return
        if message.get("bye"):
            self._forget(sender)
            return
        if message.get("hello"):
            self._announce({"snapshot": self._snapshot()})
        self._heard[sender] = time.monotonic()
        counts = self._others.setdefault(sender, {})
        if "snapshot" in message:
            self._replace(sender, {(g, s): int(n) for g, s, n in message["snapshot"]})
        for game_id, seat, n in message.get("counts", ()):
            before = self._total((game_id, seat))
            if int(n) > 0:
                counts[(game_id, seat)] = int(n)
            else:
                counts.pop((game_id, seat), None)
            self._note_leaving((game_id, seat), before)

    def _replace(self, sender: str, counts: dict[Key, int]) -> None:
        old = self._others.get(sender, {})
        before = {key: self._total(key) for key in old.keys() | counts.keys()}
        self._others[sender] = counts
        for key, total in before.items():
            self._note_leaving(key, total)

    def _forget(self, sender: str) -> None:
        self._heard.pop(sender, None)
        self._replace(sender, {})
        self._others.pop(sender, None)

    def _note_leaving(self, key: Key, before: int) -> None:
        if before and not self._total(key):
            self._left_at[key] = utcnow()

    def _snapshot(self) -> list[list]:
        return [[g, s, n] for (g, s), n in self._connections.items() if n]

    async def _beat(self) -> None:
        while True:
            await self._publish({"snapshot": self._snapshot()})
            now = time.monotonic()
            for sender, heard in list(self._heard.items()):
                if now - heard > self.silent_seconds:
                    log.info("presence: process %s silent %.0f s, dropped", sender, now - heard)
                    self._forget(sender)
            await asyncio.sleep(self.beat_seconds)

    async def close(self) -> None:
        for task in self._runners:
            task.cancel()
        for task in self._runners:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self._publish({"bye": True})
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
