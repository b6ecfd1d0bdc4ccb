"""The sources of the gauges the server samples (`metrics.Sampler`): live games, sockets, engine jobs,
the database pool and the engine queue's depth — read every few seconds, never on a move's path.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.pool import QueuePool

from shashki.engine import AsyncEngine
from shashki.server.config import Settings
from shashki.server.events import EventBus
from shashki.server.games.service import GameService
from shashki.server.http import edge
from shashki.server.metrics import Source
from shashki.server.storage import Database


class ServerGauges:
    """What a server process samples, and the Redis client it holds open for the queue's depth."""

    def __init__(self, settings: Settings, state: Any, db: Database, bus: EventBus, games: GameService
                 ) -> None:
        from shashki.server.jobs import QueueDepth

        self.state, self.db, self.bus, self.games = state, db, bus, games
        # The engine queue's depth: the Redis streams that every server and worker share, else this
        # process's own pools (a game's moves; the reviews' and the analysis board's searches).
        self.queue_depth: QueueDepth | None = None
        if settings.redis_url and settings.engine_queue == "auto":
            self.queue_depth = QueueDepth(settings.redis_url)

    def sources(self) -> dict[str, Source]:
        games, db, bus = self.games, self.db, self.bus
        return {
            "live_games": lambda: games.store.cached,
            "websockets": lambda: edge.SocketLimits.total,
            "engine_jobs": lambda: getattr(games.engine, "pending", 0),
            "db_connections": lambda: _checked_out(db),
            "bus_channels": lambda: bus.channels,
            "db_pool": lambda: _pool_state(db),
            "engine_queue": self.engine_queue,
        }

    async def engine_queue(self) -> dict[tuple[str, ...], float]:
        from shashki.server.jobs import ANALYSIS, PLAY

        if self.queue_depth is not None:
            return _labelled(await self.queue_depth.read())
        reviews = self.state.reviews
        review_pool = reviews.engine if isinstance(reviews.engine, AsyncEngine) else None
        return _local_depth({
            PLAY: [getattr(self.games.engine, "local_pool", None)],
            ANALYSIS: [review_pool, self.state.analysis.local_pool],
        })

    async def close(self) -> None:
        if self.queue_depth is not None:
            await self.queue_depth.close()


def _pool_state(db: Database) -> dict[tuple[str, ...], float]:
    """The database pool now: its size, connections open (within the size or beyond: overflow), checked
    out; on SQLite also the write transactions queued for its single writer (`storage/writer.py`)."""
    state: dict[tuple[str, ...], float] = {}
    pool = db.engine.pool
    if isinstance(pool, QueuePool):
        size, overflow = pool.size(), pool.overflow()  # overflow counts from -size: none open yet
        state = {("size",): size, ("open",): size + overflow, ("overflow",): max(0, overflow)}
    checkedout = getattr(pool, "checkedout", None)
    if callable(checkedout):
        state[("checked_out",)] = checkedout()
    if db.write_lock is not None:
        state[("write_waiting",)] = db.write_lock.waiting
    return state


def _labelled(depth: dict[int, tuple[int, int]]) -> dict[tuple[str, ...], float]:
    """The `engine_queue` gauge's samples: (queued, taken) jobs by priority, labelled."""
    from shashki.server.jobs import PRIORITY_NAMES

    return {
        (PRIORITY_NAMES[priority], state): jobs
        for priority, (queued, taken) in depth.items()
        for state, jobs in (("queued", queued), ("taken", taken))
    }


def _local_depth(pools: dict[int, list[AsyncEngine | None]]) -> dict[tuple[str, ...], float]:
    """The local engine pools' jobs by priority: waiting for a process (queued), running (taken)."""
    depth = {}
    for priority, engines in pools.items():
        jobs = [engine.depth for engine in engines if engine is not None]
        depth[priority] = (sum(queued for queued, _ in jobs), sum(running for _, running in jobs))
    return _labelled(depth)


def _checked_out(db) -> int:
    """Database connections in use now (pools without that count say 0)."""
    checkedout = getattr(db.engine.pool, "checkedout", None)
    return checkedout() if callable(checkedout) else 0
