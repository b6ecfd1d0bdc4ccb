"""The games being played now, pushed down the lobby sockets of this process (`{"type": "nowPlaying"}`).

The lobby shows the games anyone is playing, the latest moves first (the history's `now_playing`, as
`GET /api/now-playing` answers it). Rather than every open page asking for that list again and again, one
task per server process reads it while at least one lobby socket is open — every `interval` seconds, and
soon after a game starts or ends (`nudge`) — and sends it to the sockets only when it changed. Each process
reads the shared database, so with several processes (Redis) every socket still gets the whole list.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

from shashki.server.errors import log_failure

log = logging.getLogger("shashki.server")

LIMIT = 20  # as many games as the lobby lists
SEND_SECONDS = 1.0  # the longest a page may take to be sent the list before the others are sent theirs
Send = Callable[[dict], Awaitable[None]]


class NowPlaying:
    def __init__(self, read: Callable[[], Awaitable[list[dict]]], interval: float = 5.0) -> None:
        self.read = read
        self.interval = interval
        self.games: list[dict] | None = None  # the last list read (None: none yet)
        self.listeners: set[Send] = set()
        self.task: asyncio.Task | None = None
        self.wake = asyncio.Event()

    def event(self) -> dict:
        return {"type": "nowPlaying", "games": self.games or []}

    async def current(self) -> dict:
        """The list as the event a socket sends on connecting (read now if this process has none yet)."""
        if self.games is None:
            self.games = await self.read()
        return self.event()

    def nudge(self) -> None:
        """Read the list again soon: a game has started or ended."""
        self.wake.set()

    @contextlib.asynccontextmanager
    async def listen(self, send: Send) -> AsyncIterator[None]:
        """While inside, `send` gets the list each time it changes."""
        self.listeners.add(send)
        if self.task is None:
            self.games = None  # what was read before nobody listened may be out of date
            self.task = asyncio.create_task(self._run())
        try:
            yield
        finally:
            self.listeners.discard(send)
            if not self.listeners and self.task is not None:
                task, self.task = self.task, None
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.wake.wait(), self.interval)
            self.wake.clear()
            try:
                games = await self.read()
            except Exception:  # the database may be closing with the server; the next round tries again
                log_failure(log, "now playing: could not read the games")
                continue
            if games == self.games:
                continue
            self.games = games
            event = self.event()
            # To every page at once, each given at most SEND_SECONDS: a page whose socket does not drain
            # (a stalled phone, a client that never reads) held the list back from every other page for
            # as long as it stayed connected (found by an audit). One it misses, it asks for again.
            await asyncio.gather(*(self._send(send, event) for send in list(self.listeners)))

    @staticmethod
    async def _send(send: Callable[[dict], Awaitable[None]], event: dict) -> None:
        with contextlib.suppress(Exception):  # a socket closing: its handler cleans up
            await asyncio.wait_for(send(event), SEND_SECONDS)
