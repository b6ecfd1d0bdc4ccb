"""One writer at a time on SQLite: write transactions queue on an asyncio lock instead of SQLite's.

SQLite has a single write lock per database file (https://www.sqlite.org/lockingv3.html; in WAL mode
readers go on beside the one writer, https://www.sqlite.org/wal.html). With a pool of connections, every
writer beyond the first waits for that lock inside its driver thread and fails with "database is locked"
once `busy_timeout` runs out — under load, committed-looking moves turned into errors (issue 11). Here a
session takes a process-wide asyncio lock at its first write (an INSERT/UPDATE/DELETE it executes, or a
flush of added or changed objects) and keeps it until its transaction ends (commit, rollback or close), so
writers queue in the event loop, in order and without a timeout, while reads keep their own pooled
connections and never wait. The domain code does not change: it still opens `db.session()`.

The lock is taken inside SQLAlchemy's session events, which run in the greenlet that the async session
drives (`await_only`, as SQLAlchemy's async drivers themselves do). The session's connection is checked
out *before* the lock is awaited, so the holder never waits for the pool while the waiters hold the
connections. The lock is re-entrant for its task: a nested session of the same task does not deadlock.
"""

from __future__ import annotations

import asyncio

from sqlalchemy import event
from sqlalchemy.orm import ORMExecuteState, Session, SessionTransaction
from sqlalchemy.sql.elements import TextClause
from sqlalchemy.util import await_only

_HOLDING = "shashki_holds_write_lock"


class WriteLock:
    """An asyncio lock that the task holding it may take again (counted)."""

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task | None = None
        self._depth = 0
        self.acquired = 0  # how many write transactions went through, for tests and metrics
        self.waiting = 0  # write transactions queued for it now (the `db_pool` gauge's write_waiting)

    @property
    def locked(self) -> bool:
        return self._lock.locked()

    @property
    def depth(self) -> int:
        """How many times its holder has taken it (1: just now, by a writer not already writing)."""
        return self._depth

    @property
    def held_here(self) -> bool:
        """Whether the task running now holds it."""
        return self._owner is not None and self._owner is asyncio.current_task()

    async def acquire(self) -> None:
        task = asyncio.current_task()
        if task is not None and self._owner is task:
            self._depth += 1
            return
        self.waiting += 1
        try:
            await self._lock.acquire()
        finally:
            self.waiting -= 1
        self._owner, self._depth = task, 1
        self.acquired += 1

    def release(self) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._owner = None
            self._lock.release()


def _reads(statement: object) -> bool:
    """A textual SELECT reads; any other text (INSERT, UPDATE, PRAGMA...) is treated as a write."""
    return isinstance(statement, TextClause) and statement.text.lstrip()[:6].upper() == "SELECT"


def serialised_session_class(lock: WriteLock) -> type[Session]:
    """A `Session` class whose write transactions hold `lock` (one class per database)."""

    class SerialisedSession(Session):
        write_lock = lock

    def take(session: Session) -> None:
        if session.info.get(_HOLDING):
            return
        session.connection()  # the connection first: see the module's docstring
        await_only(lock.acquire())
        session.info[_HOLDING] = True

    def on_execute(state: ORMExecuteState) -> None:
        if not (state.is_select or _reads(state.statement)):
            take(state.session)

    def on_flush(session: Session, _context, _instances) -> None:
        if session.new or session.dirty or session.deleted:
            take(session)

    def on_end(session: Session, transaction: SessionTransaction) -> None:
        if transaction.parent is None and session.info.pop(_HOLDING, False):
            lock.release()

    event.listen(SerialisedSession, "do_orm_execute", on_execute)
    event.listen(SerialisedSession, "before_flush", on_flush)
    event.listen(SerialisedSession, "after_transaction_end", on_end)
    return SerialisedSession
