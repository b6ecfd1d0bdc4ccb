"""How a process follows the games it caches when other processes serve them too (Redis): each change a
process commits is published with its columns and its move for the other servers (`events.Encoded
.servers`, never sent to a client), and a process that caches the game applies them to its copy as a
delta as soon as they are heard — so that the next action there finds its copy current, and reads
neither the record nor the moves again (issue 11: with the players of a game on two processes, every
other move was caught up from the database).

Hearing is an optimisation, never the authority: a copy is acted on without a read only while it is
known current (`Followers`: confirmed by a read, every change heard since applied, nothing lost or
waiting); otherwise the store checks the stored version and catches up from the database whatever was
not heard (an event lost on a reconnection, one that came while this process was itself writing the
game), and the compare-and-set of every write refuses a stale copy.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table

from shashki.server.events import EventBus, Subscription
from shashki.server.games.live import LiveGame
from shashki.server.games.models import ColorColumn, GameRecord, StatusColumn
from shashki.server.games.replay import catch_up, replay
from shashki.server.games.view import move_named
from shashki.server.storage.base import UtcDateTime, set_committed_values

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
        set_committed_values(record, changes)
        if "takebacks" in changes:
            # A takeback (games/takeback.py): the moves after the record's ply are gone.
            live.notations = live.notations[: record.ply]
            live.rules = replay(record, live.notations)
            return True
        # The exact notation of a legal move resolves from the position's cached moves (games/view.py).
        later = [move_named(live.rules.position, move) or move] if move else []
        catch_up(live.rules, record, later)
    except Exception:
        # A change that does not follow the copy: the copy is dropped, the next action loads the game.
        log.exception("game %s: a change heard from another process does not apply; reloading", live.id)
        live.stale = True
        return False
    if move:
        live.notations.append(move)
    return True


@dataclass(eq=False)
class _Following:
    """One cached game followed: its listening task, its subscription once made, and whether its copy is
    known to be current (`current`: confirmed by a read with nothing doubted since)."""

    task: asyncio.Task
    events: Subscription | None = None
    doubts: int = 0  # changes heard and not applied, and lost events: each one voids a confirmation
    current: bool = False


class Followers:
    """One listener per game in the cache, on its channel, while events are shared between processes:
    each foreign change heard is applied (`apply_heard`); `then(live)` is called after each (the store
    drops a game another process has ended, the game's owner re-arms its timers), `missed(live)` after a
    change heard and not applied, or events lost (the copy is read again before its next use).

    A copy is **current** once a read of the stored version, begun while its listener was already
    subscribed, found it up to date (`listening`, then `confirm`), and as long as every change heard
    since was applied and no event was lost (a reconnection of the bus, a full queue): then the store acts
    on it without reading the version first. A change heard but not applied — not the next one, or heard
    while this process held the game's lock — voids that, until the next read. What stays possible is a
    change committed elsewhere and not yet heard when this process acts: its compare-and-set refuses it
    (`StaleCopy`, as when two processes write at once), the game is loaded afresh, and a player's action
    is tried once more on it (`games/actions.py` `checked_again`).
    """

    def __init__(
        self, bus: EventBus, then: Callable[[LiveGame], None], missed: Callable[[LiveGame], None]
    ) -> None:
        self.bus = bus
        self.then = then
        self.missed = missed
        self.applied = 0  # changes applied as heard (tests, the benchmark's counters)
        self._games: dict[str, _Following] = {}

    def follow(self, live: LiveGame) -> None:
        if self.bus.shared and live.id not in self._games:
            task = asyncio.get_running_loop().create_task(self._listen(live), name=f"follow-{live.id}")
            self._games[live.id] = _Following(task)

    def stop(self, game_id: str) -> None:
        following = self._games.pop(game_id, None)
        if following is not None:
            following.task.cancel()

    def __len__(self) -> int:
        return len(self._games)

    def current(self, live: LiveGame) -> bool:
        """Whether the cached copy is known to be up to date (no read needed before acting on it)."""
        following = self._games.get(live.id)
        events = following.events if following is not None else None
        # Nothing heard and not yet applied: an event waiting in the queue may be a change.
        return (
            following is not None
            and following.current
            and events is not None
            and not events.dropped
            and not events.pending
        )

    def listening(self, game_id: str) -> tuple[_Following, int] | None:
        """Taken before a read of the game's version: whether it is heard now, to `confirm` after."""
        following = self._games.get(game_id)
        if following is None or following.events is None or following.events.dropped:
            return None
        return following, following.doubts

    def confirm(self, since: tuple[_Following, int] | None) -> None:
        """The read begun at `since` found the copy up to date: current, unless doubted meanwhile."""
        if since is not None:
            following, doubts = since
            if following.doubts == doubts and following.events is not None and not following.events.dropped:
                following.current = True

    def _doubt(self, following: _Following) -> None:
        following.doubts += 1
        following.current = False

    async def _listen(self, live: LiveGame) -> None:
        try:
            async with self.bus.subscribe(f"game:{live.id}") as events:
                following = self._games.get(live.id)
                if following is None:
                    return
                following.events = events
                while True:  # until the game leaves the cache (`stop`)
                    event = await events.get()
                    lost = bool(events.dropped)
                    if lost:  # events were lost before this one: a read confirms again
                        events.dropped = 0
                        self._doubt(following)
                    if apply_heard(live, event):
                        self.applied += 1
                        self.then(live)
                    elif isinstance(event.get("seq"), int) and event["seq"] > live.record.version:
                        self._doubt(following)  # a change this copy lacks
                        self.missed(live)
                    elif lost:
                        self.missed(live)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("following game %s failed; its version is read before each action", live.id)
        finally:
            following = self._games.get(live.id)
            if following is not None and following.task is asyncio.current_task():
                del self._games[live.id]

    async def close(self) -> None:
        tasks = [following.task for following in self._games.values()]
        self._games.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
