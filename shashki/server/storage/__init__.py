"""Storage: one async SQLAlchemy engine, its session factory, and the migrations that shape the schema.

SQLite (aiosqlite, in WAL mode) is the default, a file under the data directory; any SQLAlchemy async URL
works, PostgreSQL via asyncpg being the one the server is designed for. `Database.open()` runs the Alembic
migrations up to the newest revision before anything else touches the tables; on PostgreSQL behind an
advisory lock, so that processes started together migrate one after the other (the first does the work).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

from alembic import command
from alembic.config import Config
from sqlalchemy import event, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult, ExceptionContext, Result
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import Session

from shashki.server.storage.direct import Direct
from shashki.server.storage.onehop import one_hop_dbapi
from shashki.server.storage.writer import WriteLock, serialised_session_class

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


async def insert_unless_there(s: AsyncSession, model: Any, **values: Any) -> None:
    """INSERT ... ON CONFLICT DO NOTHING, spelt by the session's dialect: the row is there afterwards,
    whoever added it, without a unique-key error when two transactions add it at once."""
    insert = postgresql.insert if s.get_bind().dialect.name == "postgresql" else sqlite.insert
    await s.execute(insert(model).values(**values).on_conflict_do_nothing())


def rows_changed(result: Result[Any]) -> int:
    """How many rows an UPDATE or DELETE changed: the compare-and-set writes ask whether theirs won."""
    return cast(CursorResult[Any], result).rowcount


# How long a SQLite connection waits for the file's write lock before failing. Writers of this process
# queue on `Database.write_lock` first, so only another process (a migration, a backup) can make one wait.
SQLITE_BUSY_TIMEOUT_MS = 5000
# The key of PostgreSQL's advisory lock around the migrations: any fixed number, the same in every process
# (the bytes of "shashki" and a 1).
MIGRATION_LOCK = int.from_bytes(b"shashki1", "big")
# The key of the advisory lock around a seek's matching (lobby/service.py): "shashki" and a 2.
SEEKS_LOCK = int.from_bytes(b"shashki2", "big")
# The pool of a PostgreSQL engine, per process (PostgreSQL's default max_connections is 100).
POOL_SIZE = 20
OVERFLOW = 10


class Database:
    """The engine and a session factory; `session()` opens a unit of work (`async with db.session() as s`).

    On SQLite the sessions' write transactions take turns on `write_lock` (`storage.writer`), so that
    they never fail on SQLite's own lock; PostgreSQL keeps its pool of concurrent writers.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        # A server process keeps this many connections open: every socket's action takes one for a few
        # milliseconds, and past the pool's size SQLAlchemy opens and closes a connection per checkout (issue
        # 11: connecting was a twelfth of the server's time under load with the default 5). No pre-ping: on
        # asyncpg it is BEGIN, a query and ROLLBACK, three round trips at every checkout (a quarter of the
        # server's time under load); a connection cut by a database restart fails its one statement instead,
        # which invalidates the whole pool (https://docs.sqlalchemy.org/en/20/core/pooling.html, "Disconnect
        # Handling - Optimistic"), that action is answered `unavailable` and the next ones reconnect.
        options: dict[str, Any] = {"pool_size": POOL_SIZE, "max_overflow": OVERFLOW}
        if url.startswith("sqlite+aiosqlite:"):
            # One trip to the driver's thread per statement (storage/onehop.py).
            options = {"module": one_hop_dbapi()}
        elif self.is_sqlite:
            options = {}
        self.engine: AsyncEngine = create_async_engine(url, **options)
        if self.is_sqlite:
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        else:
            event.listen(self.engine.sync_engine, "handle_error", _disconnect_is_unavailable)
        self.write_lock: WriteLock | None = WriteLock() if self.is_sqlite else None
        sync_class = serialised_session_class(self.write_lock) if self.write_lock else Session
        self.session = async_sessionmaker(
            self.engine, expire_on_commit=False, class_=AsyncSession, sync_session_class=sync_class
        )
        # Core statements in one transaction, without a session: the per-move path (storage/direct.py).
        self.direct = Direct(self)

    @contextlib.asynccontextmanager
    async def reading(self) -> AsyncIterator[AsyncSession]:
        """A session for reads alone. On PostgreSQL it runs on a connection in autocommit: each SELECT one
        round trip, with no BEGIN before nor ROLLBACK after (a session's reads are then not one snapshot:
        for reads that need none). On SQLite an ordinary session (no round trips to save)."""
        if self.is_sqlite:
            async with self.session() as s:
                yield s
            return
        async with self.engine.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            async with AsyncSession(bind=conn, expire_on_commit=False) as s:
                yield s

    async def lock_for_transaction(self, s: AsyncSession, key: int) -> None:
        """On PostgreSQL, take the advisory lock `key` until the session's transaction ends: the
        transactions of every process that take it run one after the other (a read then a write that
        must not interleave with another's). Nothing on SQLite, whose writers take turns anyway (and
        whose rows are numbered in the order they are committed)."""
        if not self.is_sqlite:
            await s.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})

    async def open(self) -> Database:
        if self.is_sqlite:
            path = self.url.split(":///", 1)[1]
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        await self.migrate()
        return self

    async def migrate(self, revision: str = "head") -> None:
        def upgrade(connection) -> None:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.upgrade(config, revision)

        async with self.engine.connect() as conn:
            sqlite = conn.dialect.name == "sqlite"
            if sqlite:
                # A migration that copies a table (Alembic's batch mode on SQLite: create, copy, drop,
                # rename) would, with foreign keys on, delete the rows of every table referencing it ON
                # DELETE CASCADE as it drops the old one: a game's moves, ratings, chat. Off for the
                # migration (outside a transaction, or SQLite ignores it), on again after it.
                await conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
                await conn.commit()
            try:
                async with conn.begin():
                    if conn.dialect.name == "postgresql":
                        # Servers and workers start together (docker-compose: four processes) and each
                        # migrates: one at a time, or two would create the same tables at once and one fail.
                        # The lock is the transaction's: released at its commit, when the next one finds
                        # the schema at head.
                        lock = text("SELECT pg_advisory_xact_lock(:key)")
                        await conn.execute(lock, {"key": MIGRATION_LOCK})
                    await conn.run_sync(upgrade)
            finally:
                if sqlite:
                    await conn.exec_driver_sql("PRAGMA foreign_keys=ON")
                    await conn.commit()

    async def close(self) -> None:
        self.direct.close()
        await self.engine.dispose()


def _disconnect_is_unavailable(context: ExceptionContext) -> OperationalError | None:
    """A statement on a connection the database has cut (a restart, a failover) fails as an outage, like
    a refused connection (`OperationalError`: answered `unavailable`, retried by the client), not as an
    unknown driver error (asyncpg's shows as a bare `DBAPIError`). SQLAlchemy has invalidated the pool by
    then (https://docs.sqlalchemy.org/en/20/core/pooling.html#disconnect-handling-optimistic): the next
    statements reconnect."""
    error = context.sqlalchemy_exception
    if not context.is_disconnect or error is None or isinstance(error, OperationalError | InterfaceError):
        return None
    return OperationalError(
        context.statement, context.parameters, context.original_exception, connection_invalidated=True
    )


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    # WAL lets readers go on while a move is written; foreign keys are off by default in SQLite;
    # busy_timeout makes a writer of another process wait for the lock instead of failing at once.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()
