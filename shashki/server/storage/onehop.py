"""SQLite through aiosqlite with one trip to its thread per statement, and none for an idle rollback.

aiosqlite runs each call on a connection in a thread of its own, and SQLAlchemy's adapter makes several
calls per statement: open a cursor, execute, fetch the rows, close the cursor — four trips from the event
loop to that thread and back, each a thread wake-up and a hand-over of the GIL (issue 11: under load
those trips were the event loop's biggest cost after the sockets, at the start and end of every game).
Here a statement is one function run in that thread: cursor, execute, rows, close, and the cursor's
description, row count and last row id kept for SQLAlchemy to read afterwards. The adapter is SQLAlchemy's
own (`sqlalchemy.dialects.sqlite.aiosqlite`) with only the cursor changed, given to the engine as its
DBAPI module (`create_async_engine(url, module=one_hop_dbapi())`).

A rollback or commit with no transaction open is not sent at all: every session ends with a rollback
(closing it, and the pool's reset on return), most of them after reads only, and SQLite's stdlib driver
opens a transaction only before a write (Python 3.11's `isolation_level`: https://docs.python.org/3.11/
library/sqlite3.html#sqlite3-controlling-transactions), so whether one is open is known after each
statement (`in_transaction`, read in the thread with the statement).
"""

from __future__ import annotations

import collections
import sqlite3
from typing import Any, cast

import aiosqlite
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)
from sqlalchemy.util import await_only, immutabledict


class OneHopCursor(AsyncAdapt_aiosqlite_cursor):
    """A cursor whose statement runs whole in the connection's thread; the rows are all read there."""

    __slots__ = ("_description", "_rowcount", "_lastrowid")
    _awaitable_cursor_close = False  # nothing to close later: the stdlib cursor is closed in the thread

    def __init__(self, adapt_connection: OneHopConnection) -> None:
        # No cursor opened now (that was a trip to the thread of its own).
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        self._cursor = None  # type: ignore[assignment]
        self._soft_closed_memoized = immutabledict()
        self._rows = collections.deque()
        self._description: Any = None
        self._rowcount = -1
        self._lastrowid: int | None = None

    @property
    def description(self) -> Any:
        return self._description

    @property
    def rowcount(self) -> int:
        return self._rowcount

    @property
    def lastrowid(self) -> Any:
        return self._lastrowid

    @property
    def arraysize(self) -> int:
        return 1

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        pass

    def close(self) -> None:
        self._rows.clear()

    def execute(self, operation: Any, parameters: Any = None) -> Any:
        try:
            return await_only(self._run(operation, parameters, many=False))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    def executemany(self, operation: Any, seq_of_parameters: Any) -> Any:
        try:
            return await_only(self._run(operation, seq_of_parameters, many=True))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    async def _run(self, operation: Any, parameters: Any, *, many: bool) -> None:
        adapt = cast(OneHopConnection, self._adapt_connection)
        driver = cast(aiosqlite.Connection, self._connection)

        def statement() -> tuple[Any, list[Any], int, int | None, bool]:
            connection: sqlite3.Connection = driver._conn  # in the connection's own thread
            cursor = connection.cursor()
            try:
                if many:
                    cursor.executemany(operation, parameters)
                elif parameters is None:
                    cursor.execute(operation)
                else:
                    cursor.execute(operation, parameters)
                description = cursor.description
                rows = cursor.fetchall() if description else []
                return description, rows, cursor.rowcount, cursor.lastrowid, connection.in_transaction
            finally:
                cursor.close()

        async with adapt._execute_mutex:
            adapt._open = True  # unknown if it fails: the rollback is then sent
            found = await driver._execute(statement)
        self._description, rows, self._rowcount, self._lastrowid, adapt._open = found
        self._rows = collections.deque(rows)


class OneHopConnection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ("_open",)
    _cursor_cls = OneHopCursor  # type: ignore[assignment]

    def __init__(self, dbapi: Any, connection: Any) -> None:
        super().__init__(dbapi, connection)
        self._open = True  # whether SQLite may have a transaction open (until a statement tells)

    def rollback(self) -> None:
        if self._open:
            super().rollback()
            self._open = False

    def commit(self) -> None:
        if self._open:
            super().commit()
            self._open = False


class OneHopDbapi(AsyncAdapt_aiosqlite_dbapi):
    def connect(self, *arg: Any, **kw: Any) -> OneHopConnection:
        adapted = super().connect(*arg, **kw)
        return OneHopConnection(self, adapted._connection)


def one_hop_dbapi() -> OneHopDbapi:
    return OneHopDbapi(aiosqlite, sqlite3)
