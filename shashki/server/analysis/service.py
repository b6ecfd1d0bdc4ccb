"""The analysis board's service: positions set up and described, the engine's lines streamed, PDN imported.

It owns its engine processes (`AsyncEngine`, started on first use, `workers` of them) apart from the
computer opponent's, so that people analysing never slow the games being played. With Redis
(`queue_url`: the app's `REDIS_URL` when the engine queue is on) the lines are jobs on the `shashki
worker` queue instead (`jobs.QueuedEngine`, at the `ANALYSIS` priority, below a game's move), its own
processes standing in when no worker answers. A PDN import is read and played in a process of its own
too (`_importer`, started on first use): it is pure Python, some 0.2 s for a long text, and run in a thread
it held the interpreter's lock in turns with the event loop, delaying every game of the process by as
much. It keeps no tables: the board's positions and trees live
in the client and its address.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import AsyncIterator
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

from shashki.server.analysis.board import game_json, setup
from shashki.server.analysis.lines import stream_lines
from shashki.server.analysis.pdn_import import import_json
from shashki.server.errors import Invalid

if TYPE_CHECKING:
    from shashki.engine import AsyncEngine
    from shashki.rules import Game
    from shashki.server.jobs import QueuedEngine
    from shashki.server.redisbus import RedisBus

# A person waits at the board: a queued step not answered this long after its search time runs here.
QUEUE_ANSWER_SECONDS = 5.0


class AnalysisService:
    def __init__(self, workers: int = 1, max_seconds: float = 10.0, max_lines: int = 5,
                 queue_url: str | None = None, queue_bus: RedisBus | None = None) -> None:
        self.workers = workers
        self.max_seconds = max_seconds
        self.max_lines = max_lines
        self.queue_url = queue_url
        self.queue_bus = queue_bus  # the process's bus on that Redis: its connections carry the jobs too
        self._engine: AsyncEngine | QueuedEngine | None = None
        self._importer: ProcessPoolExecutor | None = None

    @property
    def engine(self) -> AsyncEngine | QueuedEngine:
        if self._engine is None:
            from shashki.engine import AsyncEngine

            local = AsyncEngine(workers=self.workers)
            if self.queue_url:
                from shashki.server.jobs import QueuedEngine

                self._engine = QueuedEngine(
                    self.queue_url, local, answer_seconds=QUEUE_ANSWER_SECONDS, bus=self.queue_bus
                )
            else:
                self._engine = local
        return self._engine

    @property
    def local_pool(self) -> AsyncEngine | None:
        """Its own engine processes when started and the lines are searched here (no Redis queue)."""
        from shashki.engine import AsyncEngine

        return self._engine if isinstance(self._engine, AsyncEngine) else None

    def game(self, variant: str | None, fen: str | None, moves: list[str], double_diagonal: bool = False
             ) -> Game:
        """The game set up from a FEN and moves: Invalid naming the bad FEN or move."""
        return setup(variant, fen, moves, double_diagonal=double_diagonal)

    def position(self, variant: str | None, fen: str | None, moves: list[str], double_diagonal: bool = False
                 ) -> dict[str, Any]:
        """The position reached, its legal moves, outcome and endgame-table result."""
        return game_json(self.game(variant, fen, moves, double_diagonal))

    def check_request(self, lines: int, seconds: float) -> None:
        if not 1 <= lines <= self.max_lines:
            raise Invalid("bad_lines", f"Ask for 1 to {self.max_lines} lines.")
        if not seconds > 0:
            raise Invalid("bad_seconds", "An analysis takes more than 0 s.")

    async def lines(self, game: Game, lines: int, seconds: float) -> AsyncIterator[dict[str, Any]]:
        """The engine's best `lines` moves, one report per completed depth (see `lines.stream_lines`);
        a budget above the server's longest (`max_seconds`) is cut down to it."""
        self.check_request(lines, seconds)
        async for report in stream_lines(self.engine, game, lines, min(seconds, self.max_seconds)):
            yield report

    async def import_pdn(self, text: str, default_variant: str | None = None) -> bytes:
        """The games of a PDN text as trees of positions, as JSON (`pdn_import`), made in the importing
        process: Invalid when the text cannot be read."""
        if self._importer is None:
            from shashki.engine.pool import die_with_parent

            self._importer = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=die_with_parent
            )
        answer = await asyncio.get_running_loop().run_in_executor(
            self._importer, import_json, text, default_variant
        )
        if isinstance(answer, tuple):
            raise Invalid(*answer)
        return answer

    async def close(self) -> None:
        if self._importer is not None:
            self._importer.shutdown(wait=False, cancel_futures=True)
            self._importer = None
        if self._engine is not None:
            await self._engine.close()
            self._engine = None
