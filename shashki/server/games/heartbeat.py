"""The process's sign of life, for the clocks after a crash (one process, no Redis).

A clean stop writes every running clock as it stands (`GameActions.stop_clock`); a crash (kill -9, the
machine gone) writes nothing, and the next start would give the side to move back the whole of its turn.
So the one process writes the time it was last alive every `SECONDS` (one row, `server_heartbeat`), and
stops writing it as a clean stop begins. The next start reads it before writing its own: the side to
move is charged the time it thought until then (`GameStore.restart_turn`), never the downtime after it.

With several processes (Redis) a dead process's games are taken over by the others while they run, their
clocks never stopped; this is not used there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime

from sqlalchemy import select

from shashki.server.games.models import ServerHeartbeat
from shashki.server.storage import Database
from shashki.server.storage.base import utcnow

log = logging.getLogger(__name__)

SECONDS = 2.0


class Heartbeat:
    def __init__(self, db: Database, seconds: float = SECONDS) -> None:
        self.db = db
        self.seconds = seconds
        self._task: asyncio.Task | None = None

    async def last(self) -> datetime | None:
        """When the process that used this database last said it was alive (None: never)."""
        async with self.db.session() as s:
            return await s.scalar(select(ServerHeartbeat.alive_at).where(ServerHeartbeat.id == 1))

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._beat(), name="heartbeat")

    async def _beat(self) -> None:
        while True:
            try:
                async with self.db.session() as s:
                    row = await s.get(ServerHeartbeat, 1)
                    if row is None:
                        s.add(ServerHeartbeat(id=1, alive_at=utcnow()))
                    else:
                        row.alive_at = utcnow()
                    await s.commit()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the next beat tries again
                log.warning("heartbeat not written: %s", error)
            await asyncio.sleep(self.seconds)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
            self._task = None
