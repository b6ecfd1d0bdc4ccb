"""Group commit on SQLite: the writes asked for in one turn of the event loop go in one transaction.

A move's transaction (its game's compare-and-set, its row, the COMMIT) took ~80 us in the server under
load against ~22 us in a loop writing nothing else: between two moves the event loop runs through
other sockets and games, and SQLite's code and pages are cold again at every transaction (a loop that
read 20,000 dicts between its transactions took 48 us a transaction; issue 11). The writes of one turn
of the loop — under load, those of every move that arrived together — are therefore run together: one
BEGIN and one COMMIT for all of them, all but the first finding SQLite warm.

Grouping costs time: the writers wait for the next turn of the loop, where the group is written, and are
woken in the turn after, while a write of its own is answered at once. That pays only when turns hold
several writes (under `--think 0`, nine moves a COMMIT), not when they hold one or two: with 2,000
human-paced games a group held two writes on average and the wait (two turns of a busy loop, p99 20-50
ms) put the acknowledgement's p99 from 79-91 ms to 136-144 ms. So a write joins a group only when the
turns that wrote lately held `SIBLINGS` writes or more on average, or a group is already waiting; else it
is written at once in a transaction of its own — as PostgreSQL's `commit_delay` waits for other commits
only when `commit_siblings` other transactions are active
(https://www.postgresql.org/docs/current/runtime-config-wal.html#GUC-COMMIT-SIBLINGS).

Each writer's statements stay one unit apart from the others': a compare-and-set that loses (`Refused`) or a
duplicate row (IntegrityError) undoes that writer's statements alone, and its `write` raises as it did when
it had a transaction of its own. A batch is first written as it comes, with no savepoints (two statements
more a writer: 19.3 against 15.2 us a writer in a loop writing batches of five moves on the same schema);
when a writer fails, that whole transaction is rolled back, before anything was committed or answered, and
the batch written again with each writer inside a SAVEPOINT of its own
(https://www.sqlite.org/lang_savepoint.html), rolled back to it when it fails. A failure is rare (two
submissions of one ply, another process's write): the happy path pays nothing for it. Nobody is answered
before the COMMIT: each `write` returns once the transaction holding its statements has committed, or raises
when it failed — a move is still committed before it is acknowledged. A writer cancelled before its turn
writes nothing; its turn runs in one step of the event loop, the COMMIT and every answer included, so no
cancellation falls in between. If another process holds SQLite's lock, each writer's statements go through
the async engine, one transaction each, as `Direct` does for a single write (a writer cancelled during its
own such transaction is then as one cancelled during any other commit of the engine's: it may have been
made).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError, OperationalError

from shashki.server.storage.ops import Insert, Refused, Update, Upsert
from shashki.server.storage.writer import WriteLock

Write = Update | Insert | Upsert
# Writes per turn of the event loop (recent turns that wrote, on average) from which they are grouped.
SIBLINGS = 6.0


@dataclass(eq=False, slots=True)
class _Waiting:
    ops: tuple[Write, ...]
    outcome: asyncio.Future[None]


def busy(error: sqlite3.OperationalError) -> bool:
    """SQLite's lock is held by another connection (another process, a backup)."""
    return "locked" in str(error) or "busy" in str(error)


class GroupCommit:
    """The SQLite writes of `Direct`, committed together per turn of the event loop."""

    def __init__(
        self,
        connection: Callable[[], sqlite3.Connection],
        apply: Callable[[sqlite3.Connection, tuple[Write, ...]], None],
        lock: WriteLock,
        otherwise: Callable[[tuple[Write, ...]], Awaitable[None]],
        committed: Callable[[], None],
        alone: Callable[[tuple[Write, ...]], Awaitable[None]],
    ) -> None:
        self._connection = connection  # the stdlib connection
        self._apply = apply  # runs one writer's statements (raises Refused, sqlite3's errors)
        self._lock = lock  # the process's write lock: a session's open transaction is waited for
        self._otherwise = otherwise  # one writer's statements through the async engine
        self._committed = committed  # told after each COMMIT
        self._alone = alone  # one writer's statements now, in a transaction of their own
        self._waiting: list[_Waiting] = []
        self._flusher: asyncio.Task | None = None
        self.transactions = 0  # COMMITs made, for tests and the benchmark
        self.writes = 0  # writers whose statements they held
        self.per_turn = 0.0  # writes per turn of the loop, recent turns that wrote (moving average)
        self._this_turn = 0  # writes in this turn so far (0: none yet, no count scheduled)

    async def write(self, ops: tuple[Write, ...]) -> None:
        """Run `ops` as one unit, committed when this returns; `Refused`, IntegrityError or
        OperationalError when nothing of them was written."""
        loop = asyncio.get_running_loop()
        if self._this_turn == 0:
            loop.call_soon(self._turn_ended)  # runs with the next turn's first callbacks
        self._this_turn += 1
        if self._flusher is None and self.per_turn < SIBLINGS:
            await self._alone(ops)  # few writes a turn: no wait for a group
            return
        waiting = _Waiting(ops, loop.create_future())
        self._waiting.append(waiting)
        if self._flusher is None:
            # Runs once the callbacks ready now have run: it takes every write they asked for.
            self._flusher = loop.create_task(self._flush())
        await waiting.outcome  # cancelled with its caller: then left out of the batch

    def _turn_ended(self) -> None:
        self.per_turn += (self._this_turn - self.per_turn) / 16
        self._this_turn = 0

    async def _flush(self) -> None:
        try:
            while self._waiting:
                await self._lock.acquire()  # free at once unless a session's transaction is open
                try:
                    batch = [w for w in self._waiting if not w.outcome.cancelled()]
                    self._waiting = []
                    if batch:
                        await self._commit(batch)
                finally:
                    self._lock.release()
        except BaseException as error:  # cancelled: the server stops
            stopped = OperationalError("the server is stopping", None, error)
            for waiting in self._waiting:
                _settle(waiting.outcome, stopped)
            self._waiting = []
            raise
        finally:
            self._flusher = None

    async def _commit(self, batch: list[_Waiting]) -> None:
        try:
            outcomes = self._run(batch)
        except sqlite3.OperationalError as error:
            if not busy(error):
                failed = OperationalError(str(error), None, error)
                for waiting in batch:
                    _settle(waiting.outcome, failed)
                return
            for waiting in batch:  # another process writes: each in a transaction of its own, waiting
                if waiting.outcome.cancelled():
                    continue
                try:
                    await self._otherwise(waiting.ops)
                except Exception as fallback_error:
                    _settle(waiting.outcome, fallback_error)
                else:
                    _settle(waiting.outcome, None)
            return
        except BaseException as error:
            for waiting in batch:
                _settle(waiting.outcome, error)
            if not isinstance(error, Exception):
                raise
            return
        for waiting, outcome in zip(batch, outcomes, strict=True):
            _settle(waiting.outcome, outcome)

    def _run(self, batch: list[_Waiting]) -> list[Exception | None]:
        """One transaction for the batch; what each writer is to be told, once committed. Several writers
        are first written without savepoints, and again each in a savepoint of its own when one fails."""
        raw = self._connection()
        if len(batch) > 1:
            try:
                return self._all_at_once(raw, batch)
            except (Refused, sqlite3.IntegrityError):
                pass  # rolled back, nothing committed: each writer apart now
        return self._apart(raw, batch)

    def _all_at_once(self, raw: sqlite3.Connection, batch: list[_Waiting]) -> list[Exception | None]:
        """Every writer's statements in one transaction, committed; rolled back if any raises."""
        raw.execute("BEGIN")
        try:
            for waiting in batch:
                self._apply(raw, waiting.ops)
            raw.execute("COMMIT")
        except BaseException:
            if raw.in_transaction:
                raw.execute("ROLLBACK")
            raise
        self._committed()
        self.transactions += 1
        self.writes += len(batch)
        return [None] * len(batch)

    def _apart(self, raw: sqlite3.Connection, batch: list[_Waiting]) -> list[Exception | None]:
        """One transaction, each writer in a savepoint of its own when there are several (a failing
        writer's statements rolled back alone)."""
        outcomes: list[Exception | None] = []
        raw.execute("BEGIN")
        try:
            for waiting in batch:
                single = len(batch) == 1
                if not single:
                    raw.execute("SAVEPOINT writer")
                try:
                    self._apply(raw, waiting.ops)
                except (Refused, sqlite3.IntegrityError) as error:
                    raw.execute("ROLLBACK" if single else "ROLLBACK TO writer")
                    outcomes.append(
                        IntegrityError(str(error), None, error)
                        if isinstance(error, sqlite3.IntegrityError)
                        else error
                    )
                else:
                    outcomes.append(None)
                if not single:
                    raw.execute("RELEASE writer")
            if raw.in_transaction:
                raw.execute("COMMIT")
                self._committed()
                self.transactions += 1
        except BaseException:
            if raw.in_transaction:
                raw.execute("ROLLBACK")
            raise
        self.writes += len(batch)
        return outcomes


def _settle(outcome: asyncio.Future[None], error: BaseException | None) -> None:
    if outcome.done():
        return
    if error is None:
        outcome.set_result(None)
    else:
        outcome.set_exception(error)
