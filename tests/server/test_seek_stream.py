"""A Board API seek whose client leaves while the seek is being made: the seek is withdrawn, never left
open in the lobby (the seek is visible from its commit on, while its creation still publishes the list).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, cast

from shashki.server.events import InProcessBus
from shashki.server.lidraughts.api import BotApi


class SlowLobby:
    """A lobby whose seek is committed at once but whose creation then waits (publishing the list)."""

    def __init__(self) -> None:
        self.committed = asyncio.Event()
        self.release = asyncio.Event()
        self.open: set[int] = set()

    async def create_seek(self, user: Any, **terms: Any) -> dict:
        self.open.add(7)
        self.committed.set()
        await self.release.wait()
        return {"seek": {"id": 7}, "game": None}

    async def cancel_seek(self, user: Any, seek_id: int) -> None:
        self.open.discard(seek_id)

    async def seek_is_open(self, seek_id: int) -> bool:
        return seek_id in self.open


def api_with(lobby: SlowLobby) -> BotApi:
    none = cast(Any, None)
    return BotApi(InProcessBus(), none, cast(Any, lobby), none, none, none, none, keepalive_seconds=0.05)


def test_a_seek_left_while_it_is_being_made_is_withdrawn():
    async def scenario() -> set[int]:
        lobby = SlowLobby()
        user = cast(Any, type("U", (), {"id": 1})())
        stream = api_with(lobby).seek(user, {})
        reading = asyncio.ensure_future(anext(stream))
        await lobby.committed.wait()
        reading.cancel()  # the client leaves: its request's task is cancelled
        await asyncio.sleep(0)
        lobby.release.set()  # the creation finishes after all
        with contextlib.suppress(asyncio.CancelledError):
            await reading
        return lobby.open

    assert asyncio.run(scenario()) == set()


def test_a_seek_stays_open_while_its_stream_is_read_and_is_withdrawn_when_closed():
    async def scenario() -> tuple[set[int], set[int]]:
        lobby = SlowLobby()
        lobby.release.set()
        user = cast(Any, type("U", (), {"id": 1})())
        stream = api_with(lobby).seek(user, {})
        assert await anext(stream) is None  # a keep-alive: the seek is open
        while_open = set(lobby.open)
        await stream.aclose()
        return while_open, lobby.open

    assert asyncio.run(scenario()) == ({7}, set())
