"""The computer opponent.

`EngineOpponent` is the real one: shashki.engine at the game's level (1-8, see shashki.engine.levels),
searching in a process pool (`AsyncEngine`) so that the server's event loop never waits on it — or, with
Redis, on `shashki worker` processes through the job queue (`shashki.server.jobs`). It thinks
for the time manager's share of its clock in timed games, at most `MAX_MOVE_SECONDS` (found by an audit:
on a 180+180 clock a level-8 move took 500 s of the one engine process every game shares), and for
`untimed_seconds` in games without a clock. `RandomOpponent` plays a uniformly random legal move; it is
only for tests that need a computer that answers at once (SHASHKI_ENGINE=random), and says so in every
game it plays.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, Protocol

from shashki.rules import Game, Move

if TYPE_CHECKING:
    from shashki.engine import AsyncEngine
    from shashki.server.jobs import QueuedEngine
    from shashki.server.redisbus import RedisBus

MAX_MOVE_SECONDS = 8.0  # the longest a computer's move in a timed game thinks


class Opponent(Protocol):
    """What the server needs of a computer player: a move for a game at a level, within its clock."""

    name: str

    async def choose(
        self, game: Game, level: int, remaining_ms: int | None = None, increment_ms: int = 0
    ) -> Move | None: ...

    async def close(self) -> None: ...


class EngineOpponent:
    """shashki.engine in a pool of worker processes, started on first use."""

    name = "shashki"

    def __init__(self, workers: int = 1, untimed_seconds: float = 1.0, queue_url: str | None = None,
                 queue_bus: RedisBus | None = None) -> None:
        self.workers = workers
        self.untimed_seconds = untimed_seconds
        self.queue_url = queue_url  # Redis: the moves are thought on `shashki worker` processes
        self.queue_bus = queue_bus  # the process's bus on that Redis: its connections carry the jobs too
        self._engine: AsyncEngine | QueuedEngine | None = None

    async def choose(
        self, game: Game, level: int, remaining_ms: int | None = None, increment_ms: int = 0
    ) -> Move | None:
        from shashki.engine import AsyncEngine, Limit, time_for_move

        if self._engine is None:
            local = AsyncEngine(workers=self.workers)
            if self.queue_url:
                from shashki.server.jobs import QueuedEngine

                self._engine = QueuedEngine(self.queue_url, local, bus=self.queue_bus)
            else:
                self._engine = local
        if remaining_ms is None:
            limit = Limit(time=self.untimed_seconds)
        else:
            # Sent now: the time its move waits for an engine process (other games' moves) comes off it.
            thinking = min(time_for_move(remaining_ms / 1000, increment_ms / 1000), MAX_MOVE_SECONDS)
            limit = Limit(time=thinking, sent_at=time.time())
        result = await self._engine.play(game, limit, level=level)
        move: Move | None = result.move
        return move

    @property
    def pending(self) -> int:
        """Engine jobs waiting or running."""
        return self._engine.pending if self._engine is not None else 0

    @property
    def local_pool(self) -> AsyncEngine | None:
        """Its engine processes when started and the moves are thought here (no Redis queue)."""
        from shashki.engine import AsyncEngine

        return self._engine if isinstance(self._engine, AsyncEngine) else None

    async def close(self) -> None:
        if self._engine is not None:
            await self._engine.close()
            self._engine = None


class RandomOpponent:
    """A random legal move, at once: for tests only (SHASHKI_ENGINE=random)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    async def choose(
        self, game: Game, level: int, remaining_ms: int | None = None, increment_ms: int = 0
    ) -> Move | None:
        moves = game.legal_moves()
        return self._random.choice(moves) if moves else None

    async def close(self) -> None:
        pass


def make_opponent(
    kind: str, workers: int = 1, untimed_seconds: float = 1.0, queue_url: str | None = None,
    queue_bus: RedisBus | None = None,
) -> EngineOpponent | RandomOpponent:
    if kind == "random":
        return RandomOpponent()
    if kind == "engine":
        return EngineOpponent(
            workers=workers, untimed_seconds=untimed_seconds, queue_url=queue_url, queue_bus=queue_bus
        )
    raise ValueError(f"SHASHKI_ENGINE must be 'engine' or 'random', not {kind!r}")
