"""A process's games at its start and at its clean stop.

- `resume`: every unfinished game is loaded (a batch at a time) and its turn restarted from the time its
  side to move had stored (`GameStore.restart_turn`): the server's downtime is charged to nobody, as on
  lichess; after a crash, the time thought until the process was last alive is (games/heartbeat.py).
  The commit of that restart tells the listeners: flags and first-move timers are armed, the computer
  moves when to move. With several processes, only the games no live process owns (games/owners.py).
- `stop`: as the stop's signal comes, before the server waits for its open requests and streams to end,
  the clocks of the games this process runs stop where they stand (`GameActions.stop_clock`) and the
  games are handed over, their timers dropped: no clock falls while the process stops and nobody can
  reach it.
"""

from __future__ import annotations

import asyncio
import logging

from shashki.server.errors import Conflict, NotFound, log_failure
from shashki.server.games.actions import GameActions
from shashki.server.games.heartbeat import Heartbeat
from shashki.server.games.live import LiveGame
from shashki.server.games.owners import GameOwners, LocalOwners
from shashki.server.games.store import GameStore

log = logging.getLogger(__name__)

# The server's start: the games in play are loaded this many at a time, and this many turns restarted at
# once (on PostgreSQL each is a round trip; on SQLite they queue for its one writer).
RESUME_BATCH = 200
RESUME_AT_ONCE = 8


async def resume(store: GameStore, owners: GameOwners | LocalOwners, heartbeat: Heartbeat | None) -> int:
    """Restart every unfinished game this process is to run; how many."""
    alive = None  # after a crash, the side to move thought until the process was last alive
    if heartbeat is not None:
        alive = await heartbeat.last()
    ids = await store.queries.started_ids()
    slots = asyncio.Semaphore(RESUME_AT_ONCE)

    async def restart(live: LiveGame) -> None:
        async with slots:
            try:
                await store.restart_turn(live, alive)
            except Conflict:  # another process changed it meanwhile: resume it as it now stands
                store.notify(await store.live(live.id))
            except NotFound:
                pass  # deleted meanwhile (with its account)

    resumed = 0
    for start in range(0, len(ids), RESUME_BATCH):  # loaded a batch at a time (`live_many`)
        batch = ids[start : start + RESUME_BATCH]
        mine = [game_id for game_id in batch if await owners.claim(game_id)]
        resumed += len(mine)
        await asyncio.gather(*(restart(live) for live in await store.live_many(mine)))
    # Alive from now on, once every turn is restarted: a beat before that, and a crash then, would make
    # the next start read this start as the last moment alive and charge the whole downtime to every game
    # not yet restarted (found by an audit: 1,000 games lost on time after a crash in a crash loop).
    if heartbeat is not None:
        heartbeat.start()
    await owners.start()
    return resumed


async def stop(
    store: GameStore, owners: GameOwners | LocalOwners, actions: GameActions, heartbeat: Heartbeat | None
) -> int:
    """Stop the clocks of the games this process runs and hand them over; how many were handed over."""
    if heartbeat is not None:  # no sign of life after the clocks are written
        await heartbeat.stop()
    slots = asyncio.Semaphore(RESUME_AT_ONCE)

    async def stop_clock(game_id: str) -> None:
        async with slots:
            try:
                await actions.stop_clock(game_id)
            except Exception:  # the next start restarts it from the time stored before
                log_failure(log, "stopping the clock of game %s", game_id)

    await asyncio.gather(*(stop_clock(game_id) for game_id in owners.held(store.cache.live_ids())))
    return await owners.hand_over()
