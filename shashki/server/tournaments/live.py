"""What tournaments tell the world, on the event bus (issue 13, point 5):

- `tournament:<id>`: `{"type": "tournament", "tournament": T, "entries": {user id: me}}` after every change
  (coalesced: a burst of results in an arena makes one message per `coalesce` seconds, 1 s — lichess
  refreshes an arena's standings every few seconds), and
  `{"type": "paired", "game": id, "users": [white, black]}` when a game is made — the tournament socket
  (`http/tournaments.py`) hands each viewer their own "me" and sends "paired" only to the two players;
- `lobby`: `{"type": "tournaments"}`, a nudge to refetch the list, when one is created, starts or ends,
  and when players join or leave one (its count of players changes; coalesced as above).

The publication follows the commit: a failed publish loses nothing (the next change, or a refetch, shows the
stored state).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from shashki.server.events import EventBus

log = logging.getLogger(__name__)


class TournamentFeed:
    def __init__(self, bus: EventBus, *, coalesce: float = 1.0) -> None:
        self.bus = bus
        self.coalesce = coalesce
        # The service's builder of the published state (set when the service is made).
        self.build: Callable[[str], Awaitable[dict[str, Any]]] | None = None
        self.wake = asyncio.Event()  # the director's loop waits on it between its ticks
        self._dirty: set[str] = set()
        self._entrants = False  # players joined or left since the last flush: the lists' counts changed
        self._task: asyncio.Task | None = None

    def poke(self) -> None:
        """Something a director should act on now (a game ended, a player joined or came back)."""
        self.wake.set()

    def entrants_changed(self, tournament_id: str) -> None:
        """Players joined or left: the tournament's state, and the lists' counts of players (lobby)."""
        self._entrants = True
        self.changed(tournament_id)

    def changed(self, tournament_id: str) -> None:
        self._dirty.add(tournament_id)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        while self._dirty:
            await asyncio.sleep(self.coalesce)
            ids, self._dirty = self._dirty, set()
            for tournament_id in ids:
                try:
                    if self.build is not None:
                        await self.bus.publish(f"tournament:{tournament_id}", await self.build(tournament_id))
                except Exception as error:  # the state is stored: the next change or a refetch shows it
                    log.warning("publishing tournament %s failed: %s", tournament_id, error)
            if self._entrants:
                self._entrants = False
                await self.lobby()

    async def paired(self, tournament_id: str, game_id: str, users: list[int]) -> None:
        with contextlib.suppress(Exception):
            await self.bus.publish(
                f"tournament:{tournament_id}", {"type": "paired", "game": game_id, "users": users}
            )

    async def lobby(self) -> None:
        with contextlib.suppress(Exception):
            await self.bus.publish("lobby", {"type": "tournaments"})

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
