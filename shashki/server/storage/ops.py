"""The statements of the direct path described as data (`storage.direct` runs them): `Update` (a
compare-and-set when it expects a row count), `Insert`, `Upsert` (rows added to the counts stored),
`Read` (one value), `Row` (one row), `Rows` (every row), `Count` (how many rows), and `new_row`, a new
mapped object's row for an `Insert`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.schema import ScalarElementColumnDefault


class Refused(Exception):
    """An `Update` changed another number of rows than it expected: its compare-and-set lost (`op`, when
    known: the statement that lost)."""

    def __init__(self, message: str, op: Update | None = None) -> None:
        super().__init__(message)
        self.op = op


@dataclass(frozen=True, slots=True)
class Update:
    """UPDATE `table` SET `values` WHERE each column of `where` equals its value; `expect` rows changed
    (Refused otherwise, and the whole transaction rolled back)."""

    table: Table
    values: dict[str, Any]
    where: dict[str, Any]
    expect: int | None = 1


@dataclass(frozen=True, slots=True)
class Insert:
    table: Table
    row: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Upsert:
    """INSERT each of `rows` into `table`; a row whose `keys` are stored already adds its `added` columns
    to the stored row's instead (`INSERT ... ON CONFLICT (keys) DO UPDATE SET c = c + excluded.c`)."""

    table: Table
    rows: list[dict[str, Any]]
    keys: tuple[str, ...]
    added: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Read:
    """SELECT `column` FROM `table` WHERE each column of `where` equals its value (the first row's)."""

    table: Table
    column: str
    where: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Row:
    """SELECT `columns` FROM `table` WHERE each column of `where` equals its value: the first row, as a
    dict of those columns (an indexed read by a unique key: a token, an id)."""

    table: Table
    columns: tuple[str, ...]
    where: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Rows:
    """SELECT `columns` FROM `table` WHERE each column of `where` equals its value: every row, as dicts of
    those columns (an indexed read of a few rows: the followers of an account)."""

    table: Table
    columns: tuple[str, ...]
    where: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Count:
    """SELECT count(*) FROM `table` WHERE each column of `where` equals its value (an indexed count: an
    account's unread notifications); with `at_most`, no more rows than that are counted (the index walk
    stops there: a count that does not grow with the table)."""

    table: Table
    where: dict[str, Any]
    at_most: int | None = None


def new_row(record: Any) -> dict[str, Any]:
    """A new mapped object's row, for an `Insert`: every column of its table, the column's default where
    the object leaves it unset (set on the object too, so that once written it stands for the stored row,
    as a flushed one would). An autoincrement key left unset is left out: the database numbers the row
    (`Direct.insert` returns the number)."""
    table: Table = record.__table__
    row: dict[str, Any] = {}
    for column in table.columns:
        value = getattr(record, column.key)
        if value is None:
            if column is table.autoincrement_column:
                continue
            default = column.default
            if default is not None:
                assert isinstance(default, ScalarElementColumnDefault), column.key  # a plain value
                value = default.arg
        setattr(record, column.key, value)  # every column loaded, None included
        row[column.key] = value
    return row


def upsert_statement(op: Upsert, dialect_name: str) -> Any:
    """The Core statement of `op` in a dialect (run with `op.rows`): the direct path's on
    the async engine (storage/direct.py), and `upsert_in`."""
    dialect = postgresql if dialect_name == "postgresql" else sqlite_dialect
    statement = dialect.insert(op.table)
    added = {k: op.table.c[k] + getattr(statement.excluded, k) for k in op.added}
    return statement.on_conflict_do_update(index_elements=list(op.keys), set_=added)


async def upsert_in(s: AsyncSession, op: Upsert) -> None:
    """`op` in a session's transaction: writes that go with the session's own (a game made with a
    tournament's pairing: games/tally.py; puzzles added: puzzles/draw.py)."""
    if op.rows:
        await s.execute(upsert_statement(op, s.get_bind().dialect.name), op.rows)
