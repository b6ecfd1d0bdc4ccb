"""Statements on the hot path of a move, without the ORM: `Direct.write(Update(...), Insert(...))` runs
them in one transaction, `Direct.scalar` reads one value and `Direct.row` one row (the actor of every
request and socket: a token's or a session's row, then its account's).

A move is a compare-and-set UPDATE of its game and an INSERT of its row, in one transaction (issue 11:
the ORM's sessions, flushes and cache keys were 64% of a move's CPU). The statements are described as
data (`Update`, `Insert`, `Read`, `Row`: a table, the columns; `storage/ops.py`) and turned into SQL
once per shape.

On SQLite they run on one connection of the stdlib driver, synchronously in the event loop, under the
process's write lock (`storage.writer`): SQLite has one writer at a time anyway
(https://www.sqlite.org/lockingv3.html), and a move's UPDATE, INSERT and COMMIT take tens of microseconds,
less than one hop to a driver thread and back. Through aiosqlite each statement was such a hop, and the
write lock was held across all of them, so under load every writer waited for the event loop's latency
several times over (the 250 moves/s ceiling of issue 11). The SQL is made once per shape, and values are
converted by the columns' own types, as SQLAlchemy would (`storage/sqlite_text.py`). That connection
waits for nobody's lock (busy timeout 0): in-process writers hold the write lock for as long as they
write, so SQLite's lock is free once the write lock is ours — unless the same task already writes in a
session of its own, or another process holds it; then the work goes the ordinary way, through the async
engine, which waits its busy timeout in its thread (and fails as `unavailable` beyond it). Durability is
SQLite's with `synchronous=NORMAL` in WAL mode, as for every other write of the server: committed before
the caller goes on (and so before any acknowledgement). The writes asked for in one turn of the event
loop are committed together while the turns hold several, each writer in a savepoint of its own
(`storage/group.py`: group commit).

On PostgreSQL (or any other database) the same statements run as SQLAlchemy Core, built once per shape
(then answered from SQLAlchemy's compiled cache), on one connection of the async engine, no session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from sqlalchemy import Select, Table, and_, bindparam, func, insert, literal_column, select, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection

from shashki.server.storage.group import GroupCommit, busy
from shashki.server.storage.ops import (
    Count,
    Insert,
    Read,
    Refused,
    Row,
    Rows,
    Update,
    Upsert,
    new_row,
    upsert_statement,
)
from shashki.server.storage.sqlite_text import SqliteStatements, where_shape

__all__ = ["Count", "Direct", "Insert", "Read", "Refused", "Row", "Rows", "Update", "Upsert", "new_row"]
Write = Update | Insert | Upsert

log = logging.getLogger(__name__)
T = TypeVar("T")
# Commits on the direct SQLite connection between two checkpoints of the WAL (SQLite's own default
# checkpoints at 1,000 pages; a move writes a few).
CHECKPOINT_EVERY = 300


def _compared(table: Table, where: tuple[tuple[str, bool], ...]) -> Any:
    """The WHERE of a Core statement: each column equal to its parameter `w_<column>`, or IS NULL."""
    return and_(*(table.c[k].is_(None) if null else table.c[k] == bindparam(f"w_{k}") for k, null in where))


class Direct:
    """The statements of the per-move path, on the cheapest connection the database offers."""

    def __init__(self, db: Any) -> None:
        self._db = db  # storage.Database (not imported: it imports this module)
        self._raw: sqlite3.Connection | None = None
        self._sql = SqliteStatements()
        self._core: dict[tuple, Any] = {}
        self.fallbacks = 0  # SQLite transactions that went through the async engine instead
        self._commits = 0
        self._checkpoint: asyncio.Future | None = None
        self._group: GroupCommit | None = None  # SQLite's writes, committed together (storage/group.py)

    # -- SQLite ---------------------------------------------------------------------------------------

    def _sqlite(self) -> sqlite3.Connection | None:
        """The synchronous SQLite connection, opened at first use (None on other databases)."""
        if not self._db.is_sqlite:
            return None
        if self._raw is None:
            path = self._db.engine.url.database
            raw = sqlite3.connect(path, timeout=0, isolation_level=None, check_same_thread=False)
            for pragma in ("journal_mode=WAL", "foreign_keys=ON", "busy_timeout=0", "synchronous=NORMAL"):
                raw.execute(f"PRAGMA {pragma}")  # those of the server's other connections (storage/)
            # No checkpoint on this connection's commits: one copies the WAL into the database and syncs
            # it, which would stall the event loop; `_commit` has one made in a thread instead.
            raw.execute("PRAGMA wal_autocheckpoint=0")
            self._raw = raw
        return self._raw

    def _sqlite_connection(self) -> sqlite3.Connection:
        raw = self._sqlite()
        assert raw is not None
        return raw

    def _run_sqlite(self, raw: sqlite3.Connection, ops: tuple[Write, ...]) -> None:
        raw.execute("BEGIN")
        try:
            self._apply(raw, ops)
            raw.execute("COMMIT")
            self._committed()
        except BaseException:
            if raw.in_transaction:
                raw.execute("ROLLBACK")
            raise

    def _apply(self, raw: sqlite3.Connection, ops: tuple[Write, ...]) -> None:
        """One writer's statements, in the transaction open on `raw`."""
        for op in ops:
            if isinstance(op, Upsert) and not op.rows:
                continue
            sql = self._sql(op)
            if isinstance(op, Update):
                done = raw.execute(sql.text, sql.parameters(op.values, op.where))
                if op.expect is not None and done.rowcount != op.expect:
                    raise Refused(f"{op.table.name}: {done.rowcount} rows changed, not {op.expect}", op)
            elif isinstance(op, Upsert):
                raw.executemany(sql.text, [sql.parameters(row) for row in op.rows])
            else:
                raw.execute(sql.text, sql.parameters(op.row))

    def _committed(self) -> None:
        """Every `CHECKPOINT_EVERY` commits, a checkpoint of the WAL (https://www.sqlite.org/wal.html,
        "Checkpointing") on a connection of its own in a thread, off the event loop. PASSIVE: it copies
        what no reader still needs and never holds writers back."""
        self._commits += 1
        if self._commits % CHECKPOINT_EVERY or (self._checkpoint is not None and not self._checkpoint.done()):
            return
        path = self._db.engine.url.database

        def checkpoint() -> None:
            try:
                with contextlib.closing(sqlite3.connect(path, timeout=5)) as conn:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as error:  # the next one catches up; the server's other connections too
                log.warning("WAL checkpoint failed: %s", error)

        with contextlib.suppress(RuntimeError):  # no running loop: the next commit in one does it
            self._checkpoint = asyncio.get_running_loop().run_in_executor(None, checkpoint)

    # -- the async engine (PostgreSQL; SQLite's fallback) --------------------------------------------

    def _upsert(self, op: Upsert) -> Any:
        shape = ("up", op.table.name, op.keys, op.added)
        found = self._core.get(shape)
        if found is None:
            found = self._core[shape] = upsert_statement(op, self._db.engine.dialect.name)
        return found

    def _core_statement(self, op: Update | Insert | Row | Rows | Count) -> Any:
        if isinstance(op, Insert):
            shape: tuple = ("i", op.table.name)
        elif isinstance(op, Update):
            shape = ("u", op.table.name, where_shape(op.where))
        elif isinstance(op, Count):
            shape = ("c", op.table.name, op.at_most, where_shape(op.where))
        else:
            shape = ("r" if isinstance(op, Row) else "rs", op.table.name, op.columns, where_shape(op.where))
        found = self._core.get(shape)
        if found is None:
            if isinstance(op, Insert):
                found = insert(op.table)
            else:
                test = _compared(op.table, where_shape(op.where))
                if isinstance(op, Update):
                    # SET takes the columns given at execution (SQLAlchemy derives it from the parameters).
                    found = update(op.table).where(test)
                elif isinstance(op, Count):
                    if op.at_most is None:
                        found = select(func.count()).select_from(op.table).where(test)
                    else:
                        rows: Select[Any] = select(literal_column("1")).select_from(op.table).where(test)
                        found = select(func.count()).select_from(rows.limit(op.at_most).subquery())
                else:
                    found = select(*(op.table.c[k] for k in op.columns)).where(test)
                    found = found.limit(1) if isinstance(op, Row) else found
            self._core[shape] = found
        return found

    async def _run_core(self, conn: AsyncConnection, ops: tuple[Write, ...]) -> None:
        for op in ops:
            if isinstance(op, Upsert):
                if op.rows:
                    await conn.execute(self._upsert(op), op.rows)
                continue
            statement = self._core_statement(op)
            if isinstance(op, Update):
                where = {f"w_{k}": v for k, v in op.where.items() if v is not None}
                done = await conn.execute(statement, {**op.values, **where})
                if op.expect is not None and done.rowcount != op.expect:
                    raise Refused(f"{op.table.name}: {done.rowcount} rows changed, not {op.expect}", op)
            else:
                await conn.execute(statement, op.row)

    def _single(self, ops: tuple[Write, ...]) -> tuple[Any, dict[str, Any]] | None:
        """On PostgreSQL, a compare-and-set alone or followed by its move's row as one statement and its
        parameters: `WITH changed AS (UPDATE ... RETURNING) INSERT ... SELECT ... FROM changed`, the row
        inserted only if the update changed its one row. One statement is atomic
        (https://www.postgresql.org/docs/current/queries-with.html#QUERIES-WITH-MODIFYING), so it runs in
        autocommit: one round trip instead of four (BEGIN, UPDATE, INSERT, COMMIT). None for other shapes."""
        if self._db.engine.dialect.name != "postgresql" or not 1 <= len(ops) <= 2:
            return None
        change, row = ops[0], ops[1] if len(ops) == 2 else None
        if not isinstance(change, Update) or change.expect != 1 or not isinstance(row, Insert | None):
            return None
        where = where_shape(change.where)
        shape: tuple = ("single", change.table.name, tuple(change.values), where)
        if row is not None:
            shape += (row.table.name, tuple(row.row))
        statement = self._core.get(shape)
        if statement is None:
            table = change.table
            statement = update(table).where(_compared(table, where)).values(
                {k: bindparam(f"s_{k}", type_=table.c[k].type) for k in change.values}
            )
            if row is not None:
                changed = statement.returning(*table.primary_key.columns).cte("changed")
                columns = row.table.c
                selected = select(*(bindparam(f"i_{k}", type_=columns[k].type) for k in row.row))
                statement = insert(row.table).from_select(list(row.row), selected.select_from(changed))
            self._core[shape] = statement
        parameters = {f"s_{k}": v for k, v in change.values.items()}
        parameters.update({f"w_{k}": v for k, v in change.where.items() if v is not None})
        if row is not None:
            parameters.update({f"i_{k}": v for k, v in row.row.items()})
        return statement, parameters

    async def _run_single(self, statement: Any, parameters: dict[str, Any]) -> None:
        async with self._db.engine.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            done = await conn.execute(statement, parameters)
        if done.rowcount != 1:
            raise Refused(f"{done.rowcount} rows changed, not 1")

    # -- the interface -------------------------------------------------------------------------------

    async def write(self, *ops: Write) -> None:
        """Run `ops` in one transaction, committed when this returns. Refused (an `Update`'s row count),
        IntegrityError (a unique key) or OperationalError (the database away) roll all of them back."""
        raw = self._sqlite()
        if raw is None:
            single = self._single(ops)
            if single is not None:
                await self._run_single(*single)
                return
            await self._write_core(ops)
            return
        if self._db.write_lock.held_here:  # this task writes in a session of its own: not behind it
            await self._write_alone(ops)
            return
        if self._group is None:
            self._group = GroupCommit(
                self._sqlite_connection,
                self._apply,
                self._db.write_lock,
                self._fall_back,
                self._committed,
                self._write_alone,
            )
        await self._group.write(ops)

    async def _write_alone(self, ops: tuple[Write, ...]) -> None:
        """`ops` in a transaction of their own on SQLite, now."""
        raw = self._sqlite_connection()
        await self._on_sqlite(raw, lambda conn: self._run_sqlite(conn, ops), lambda: self._write_core(ops))

    async def insert(self, op: Insert) -> int:
        """Run one INSERT, committed when this returns, and return the new row's key (numbered by the
        database when the row leaves it out: `new_row`). IntegrityError on a unique key, as `write`."""
        raw = self._sqlite()
        if raw is None:
            return await self._insert_core(op)

        def run(conn: sqlite3.Connection) -> int:
            sql = self._sql(op)
            done = conn.execute(sql.text, sql.parameters(op.row))  # one statement: autocommit
            self._committed()
            return int(done.lastrowid or 0)

        return await self._on_sqlite(raw, run, lambda: self._insert_core(op))

    async def _on_sqlite(
        self,
        raw: sqlite3.Connection,
        run: Callable[[sqlite3.Connection], T],
        otherwise: Callable[[], Awaitable[T]],
    ) -> T:
        """`run` on the stdlib connection under the process's write lock, sqlite3's errors raised as the
        async engine raises them; `otherwise` (the same work through the async engine) when the same task
        already writes in a session of its own, or another process holds SQLite's lock."""
        lock = self._db.write_lock
        await lock.acquire()
        try:
            if lock.depth == 1:
                try:
                    return run(raw)
                except sqlite3.IntegrityError as error:
                    raise IntegrityError(str(error), None, error) from None
                except sqlite3.OperationalError as error:
                    if not busy(error):
                        raise OperationalError(str(error), None, error) from None
            self.fallbacks += 1
            return await otherwise()
        finally:
            lock.release()

    async def _fall_back(self, ops: tuple[Write, ...]) -> None:
        self.fallbacks += 1
        await self._write_core(ops)

    async def _write_core(self, ops: tuple[Write, ...]) -> None:
        async with self._db.engine.begin() as conn:
            await self._run_core(conn, ops)

    async def _insert_core(self, op: Insert) -> int:
        shape = ("returning", op.table.name)
        statement = self._core.get(shape)
        if statement is None:
            key = next(iter(op.table.primary_key.columns))
            statement = self._core[shape] = insert(op.table).returning(key)
        async with self._db.engine.begin() as conn:
            return int((await conn.execute(statement, op.row)).scalar_one())

    async def scalar(self, read: Read) -> Any:
        """The value read, None when no row matches."""
        found = await self.row(Row(read.table, (read.column,), read.where))
        return None if found is None else found[read.column]

    async def row(self, read: Row) -> dict[str, Any] | None:
        """The first row read, None when no row matches."""
        found = await self._read(read)
        return found[0] if found else None

    async def rows(self, read: Rows) -> list[dict[str, Any]]:
        """Every row read."""
        return await self._read(read)

    async def count(self, read: Count) -> int:
        """How many rows match."""
        return int((await self._fetch(read))[0][0])

    async def _read(self, read: Row | Rows) -> list[dict[str, Any]]:
        found = await self._fetch(read)
        if not self._db.is_sqlite:  # the async engine's rows, converted by SQLAlchemy
            return [dict(zip(read.columns, values, strict=True)) for values in found]
        converters = self._sql.converters(read)
        return [
            {
                column: value if value is None or convert is None else convert(value)
                for column, value, convert in zip(read.columns, values, converters, strict=True)
            }
            for values in found
        ]

    async def _fetch(self, read: Row | Rows | Count) -> list[Any]:
        """The rows of a SELECT as the driver gives them (a read never waits for the writer in WAL mode:
        https://www.sqlite.org/wal.html)."""
        raw = self._sqlite()
        if raw is None:
            where = {f"w_{k}": v for k, v in read.where.items() if v is not None}
            try:
                return await self._select(read, where)
            except OperationalError as error:
                if not error.connection_invalidated:
                    raise
                # A connection the database cut (the pool has no pre-ping): a read is safe to ask again,
                # on a new connection (the pool was invalidated with it).
                return await self._select(read, where)
        sql = self._sql(read)
        try:
            return raw.execute(sql.text, sql.parameters({}, read.where)).fetchall()
        except sqlite3.OperationalError as error:
            raise OperationalError(str(error), None, error) from None

    async def _select(self, read: Row | Rows | Count, where: dict[str, Any]) -> list[Any]:
        async with self._db.engine.connect() as conn:
            # One SELECT needs no transaction around it: no BEGIN and ROLLBACK round trips.
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            return list(await conn.execute(self._core_statement(read), where))

    def close(self) -> None:
        if self._raw is not None:
            self._raw.close()
            self._raw = None

