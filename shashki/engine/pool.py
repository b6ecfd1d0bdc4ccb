"""The engine off the event loop: searches run in a process pool.

The search is CPU-bound Python: run on the server's event loop it would freeze every game. `AsyncEngine`
sends each search to a worker process (positions, moves and limits pickle) and awaits the result, so the
loop keeps serving while the engine thinks. Each worker keeps an `Engine` per level and variant lately
used, and so their transposition tables, between searches. The workers end with the process that started
them, even when it is killed outright (`die_with_parent`).

    engine = AsyncEngine(workers=2)
    result = await engine.play(game, Limit(time=1.0), level=5)
    await engine.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import heapq
import itertools
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from shashki.engine.engine import Engine, PlayResult, game_counts, split_game
from shashki.engine.search import CountStates, Limit, Line
from shashki.rules.game import Game
from shashki.rules.position import Position

# Per worker process: an Engine per (level, variant) lately used, so that a worker switching between
# games of several variants keeps each one's transposition table (an engine's table is cleared when its
# variant changes); the least lately used goes beyond `_KEPT_ENGINES` (a table may grow to some 32 MB).
_ENGINES: OrderedDict[tuple[int | None, str], Engine] = OrderedDict()
_KEPT_ENGINES = 6


def _engine(level: int | None, position: Position) -> Engine:
    key = (level, position.variant.key)
    engine = _ENGINES.get(key)
    if engine is None:
        engine = _ENGINES[key] = Engine(level=level)
        while len(_ENGINES) > _KEPT_ENGINES:
            _ENGINES.popitem(last=False)
    else:
        _ENGINES.move_to_end(key)
    return engine


def _play(position: Position, history: list[int], limit: Limit | None, level: int | None,
          counts: CountStates | None = None) -> PlayResult:
    return _engine(level, position).play(position, limit, history, counts)


def _analyse(position: Position, history: list[int], limit: Limit, counts: CountStates | None = None
             ) -> list[Line]:
    return list(_engine(None, position).analyse(position, limit, history, counts))


def _lines(position: Position, history: list[int], limit: Limit, count: int,
           counts: CountStates | None = None) -> list[Line]:
    return _engine(None, position).lines(position, limit, count, history, counts)


def die_with_parent() -> None:
    """The pool's initializer: the worker ends when the process that started it does, even after a
    `kill -9` of the server (which runs no shutdown hook and so never stops the pool itself).

    On Linux the kernel sends the worker SIGKILL when its parent dies (prctl PR_SET_PDEATHSIG, see
    prctl(2)); everywhere, a daemon thread also watches the parent id and ends the worker when it changes
    (the orphan is adopted by another process), which covers other systems and the moment before prctl.
    """
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before prctl took hold
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_PARENT_POLL_SECONDS = 0.5


class AsyncEngine:
    """`await play(...)` and `await analyse(...)` on a pool of worker processes."""

    def __init__(self, workers: int = 1, executor: ProcessPoolExecutor | None = None) -> None:
        self._own_pool = executor is None  # made here: made again here when it breaks
        self._executor = executor or self._new_pool(workers)
        self.workers = workers
        self.pending = 0  # jobs waiting or running (the server's `engine_jobs` gauge)
        self.restarts = 0  # pools made again after one broke
        # A job goes to the pool only when a process is free, the most urgent first (`_turn`): a timed
        # game's move before an untimed one, the shorter budget first; the same urgency in the order sent.
        self._free = workers
        self._waiting: list[tuple[float, int, asyncio.Future]] = []
        self._sent = itertools.count()

    @staticmethod
    def _new_pool(workers: int) -> ProcessPoolExecutor:
        # "spawn" keeps the workers free of the server's threads and open sockets.
        context = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=die_with_parent)

    @property
    def depth(self) -> tuple[int, int]:
        """The jobs (waiting for a process, running in one): the server's `engine_queue` gauge."""
        return max(0, self.pending - self.workers), min(self.pending, self.workers)

    async def _turn(self, urgency: float) -> None:
        """Wait until a process is free for this job and no more urgent one waits (found by an audit: a
        15+0 game's move waited behind two 180+180 games' eight-second searches and lost on time)."""
        if self._free > 0 and not self._waiting:
            self._free -= 1
            return
        turn = asyncio.get_running_loop().create_future()
        entry = (urgency, next(self._sent), turn)
        heapq.heappush(self._waiting, entry)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._done()  # given the process as it was cancelled: handed on
            else:
                self._waiting.remove(entry)
                heapq.heapify(self._waiting)
            raise

    def _done(self) -> None:
        """A job's process is free: to the most urgent job waiting, else back to the pool."""
        while self._waiting:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():
                turn.set_result(None)
                return
        self._free += 1

    async def _run(self, function, *args, urgency: float = float("inf")):
        """`function(*args)` in a worker, once it is this job's turn (`_turn`: the lower `urgency`, the
        sooner; a job cancelled while it waits never reaches the pool). A pool whose worker died (killed,
        out of memory, its code replaced on disk under it) is broken for good: it is made again and the job
        sent once more (found by an audit: the computer never moved again in any game until the server
        restarted)."""
        self.pending += 1
        try:
            await self._turn(urgency)
        except BaseException:
            self.pending -= 1
            raise
        loop = asyncio.get_running_loop()
        running = None
        try:
            for attempt in range(2):
                executor = self._executor
                try:
                    running = None
                    running = executor.submit(function, *args)  # a broken pool refuses it here
                    return await asyncio.wrap_future(running)
                except BrokenProcessPool:
                    if not self._own_pool or attempt:
                        raise
                    if self._executor is executor:  # the first of the jobs it failed makes the new one
                        self._executor = self._new_pool(self.workers)
                        self.restarts += 1
                        executor.shutdown(wait=False, cancel_futures=True)
        finally:
            self.pending -= 1
            if running is None or running.done() or running.cancel():
                self._done()
            else:  # cancelled while it runs: its process is busy until it finishes

                def release(_: object) -> None:
                    with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                        loop.call_soon_threadsafe(self._done)

                running.add_done_callback(release)

    async def play(self, position_or_game: Position | Game, limit: Limit | None = None,
                   level: int | None = None) -> PlayResult:
        position, history = split_game(position_or_game)
        return await self.play_from(position, history, limit, level, game_counts(position_or_game))

    async def play_from(self, position: Position, history: list[int], limit: Limit | None = None,
                        level: int | None = None, counts: CountStates | None = None) -> PlayResult:
        """`play` given the position and the hashes of the game's earlier positions (repetitions), and
        the game's draw counts (`Game.count_states`; None: they start at the position)."""
        # A timed game's move (its limit sent with the time it was sent at) is the more urgent the shorter
        # its budget; an untimed game's or an analysis's waits behind them.
        timed = limit is not None and limit.sent_at is not None and limit.time is not None
        urgency = limit.time if timed and limit is not None and limit.time is not None else float("inf")
        return await self._run(_play, position, history, limit, level, counts, urgency=urgency)

    async def analyse(self, position_or_game: Position | Game, limit: Limit) -> list[Line]:
        """Every iteration's line once the search has finished."""
        position, history = split_game(position_or_game)
        return await self.analyse_from(position, history, limit, game_counts(position_or_game))

    async def analyse_from(self, position: Position, history: list[int], limit: Limit,
                           counts: CountStates | None = None) -> list[Line]:
        return await self._run(_analyse, position, history, limit, counts)

    async def lines(self, position_or_game: Position | Game, limit: Limit, count: int) -> list[Line]:
        """The best `count` moves with their lines (multi-PV, `Engine.lines`), best first."""
        position, history = split_game(position_or_game)
        return await self.lines_from(position, history, limit, count, game_counts(position_or_game))

    async def lines_from(self, position: Position, history: list[int], limit: Limit, count: int,
                         counts: CountStates | None = None) -> list[Line]:
        """`lines` given the position and the hashes of the game's earlier positions (a queued job)."""
        return await self._run(_lines, position, history, limit, count, counts)

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self._executor.shutdown)

    async def __aenter__(self) -> AsyncEngine:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()
