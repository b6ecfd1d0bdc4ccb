"""How a process follows the games it caches when other processes serve them too (Redis): each change a
process commits is published with its columns and its move for the other servers (`events.Encoded
.servers`, never sent to a client), and a process that caches the game applies them to its copy as a
delta as soon as they are heard — so that the next action there finds its copy current, and reads
neither the record nor the moves again (issue 11: with the players of a game on two processes, every
other move was caught up from the database).

Hearing is an optimisation, never the authority: the store still checks the stored version before each
action and catches up from the database whatever was not heard (an event lost on a reconnection, one
that came while this process was itself writing the game), and the compare-and-set of every write
refuses a stale copy.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table
from sqlalchemy.orm.attributes import set_committed_value

from shashki.server.events import EventBus
from shashki.server.games.live import LiveGame
from shashki.server.games.models import ColorColumn, GameRecord, StatusColumn
from shashki.server.games.replay import catch_up
from shashki.server.storage.base import UtcDateTime

log = logging.getLogger(__name__)

_COLUMNS = cast(Table, GameRecord.__table__).c


def change_for_servers(changes: dict[str, Any], move: str | None) -> dict[str, Any]:
    """The servers' part of a committed change: the game's columns as written (JSON: a time as ISO text,
    a colour or status by name) and the notation of its move."""

    def plain(value: Any) -> Any:
        if isinstance(value, datetime):
            return value.isoformat()
        if isinstance(value, enum.Enum):
            return value.value
        return value

    return {"changes": {name: plain(value) for name, value in changes.items()}, "move": move}


def _column_value(name: str, value: Any) -> Any:
    """A column's value read back from `change_for_servers` (KeyError for a column the table lacks)."""
    kind = _COLUMNS[name].type
    if value is None:
        return None
    if isinstance(kind, UtcDateTime):
        return datetime.fromisoformat(value)
    if isinstance(kind, ColorColumn | StatusColumn):
        return kind.process_result_value(value, cast(Any, None))
    return value


def apply_heard(live: LiveGame, event: dict) -> bool:
    """Apply a change heard on the game's channel to the cached copy, if it is the next one (its `seq`
    one past the copy's version) and nobody in this process is changing the game now (its lock is free).
    True when applied. Anything else is left to the store's version check before the next action."""
    servers = getattr(event, "servers", None)
    if not servers or event.get("type") != "state" or live.stale or live.lock.locked():
        return False
    if event.get("seq") != live.record.version + 1:
        return False
    record = live.record
    try:
        changes = {name: _column_value(name, value) for name, value in servers["changes"].items()}
        move = servers.get("move")
        if changes.get("version") != record.version + 1:
            return False
        for name, value in changes.items():
            set_committed_value(record, name, value)
        catch_up(live.rules, record, [move] if move else [])
    except Exception:
        # A change that does not follow the copy: the copy is dropped, the next action loads the game.
        log.exception("game %s: a change heard from another process does not apply; reloading", live.id)
        live.stale = True
        return False
    if move:
        live.notations.append(move)
    return True


class Followers:
    """One listener per game in the cache, on its channel, while events are shared between processes:
    each foreign change heard is applied (`apply_heard`); `then(live)` is called after each (the store
    drops a game another process has ended)."""

    def __init__(self, bus: EventBus, then: Callable[[LiveGame], None]) -> None:
        self.bus = bus
        self.then = then
        self.applied = 0  # changes applied as heard (tests, the benchmark's counters)
        self._tasks: dict[str, asyncio.Task] = {}

    def follow(self, live: LiveGame) -> None:
        if self.bus.shared and live.id not in self._tasks:
            self._tasks[live.id] = asyncio.get_running_loop().create_task(
                self._listen(live), name=f"follow-{live.id}"
            )

    def stop(self, game_id: str) -> None:
        task = self._tasks.pop(game_id, None)
        if task is not None:
            task.cancel()

    def __len__(self) -> int:
        return len(self._tasks)

    async def _listen(self, live: LiveGame) -> None:
        try:
            async with self.bus.subscribe(f"game:{live.id}") as events:
                while True:  # until the game leaves the cache (`stop`)
                    event = await events.get()
                    if apply_heard(live, event):
                        self.applied += 1
                        self.then(live)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("following game %s failed; its version is read before each action", live.id)
        finally:
            if self._tasks.get(live.id) is asyncio.current_task():
                del self._tasks[live.id]

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
