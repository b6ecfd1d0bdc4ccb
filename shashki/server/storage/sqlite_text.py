"""The SQL of the direct path's statements (storage/direct.py) for the stdlib sqlite3 driver: the text
made once per shape (the table, the columns set or read, which columns are compared to NULL), and the
values converted by the columns' own types (`TypeEngine.bind_processor` and `result_processor`), as
SQLAlchemy would convert them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import sqlite as sqlite_dialect

from shashki.server.storage.ops import Count, Insert, Row, Rows, Update, Upsert

_DIALECT = sqlite_dialect.dialect()


class Sql:
    """One statement's SQL for the stdlib driver and the conversions of its parameters, in order."""

    __slots__ = ("text", "keys", "convert")

    def __init__(self, text: str, table: Table, keys: tuple[str, ...]) -> None:
        self.text = text
        self.keys = keys
        self.convert = tuple(
            table.c[key].type.dialect_impl(_DIALECT).bind_processor(_DIALECT) for key in keys
        )

    def parameters(self, values: dict[str, Any], where: dict[str, Any] | None = None) -> list[Any]:
        """The values in order (every one set), then the values compared (a None is `IS NULL` in the SQL)."""
        merged = list(values.values())
        if where:
            merged += [v for v in where.values() if v is not None]
        return [value if f is None else f(value) for f, value in zip(self.convert, merged, strict=True)]


def where_shape(where: dict[str, Any]) -> tuple[tuple[str, bool], ...]:
    """The columns compared, each with whether it is compared to NULL (`IS NULL`, not `= ?`)."""
    return tuple((k, v is None) for k, v in where.items())


class SqliteStatements:
    """Every statement's SQL by its shape, made once."""

    def __init__(self) -> None:
        self._made: dict[tuple, Sql] = {}
        self._results: dict[tuple[str, tuple[str, ...]], tuple[Any, ...]] = {}

    def _upsert(self, op: Upsert) -> Sql:
        columns = tuple(op.rows[0])
        shape = ("up", op.table.name, columns, op.keys, op.added)
        found = self._made.get(shape)
        if found is None:
            names = ", ".join(f'"{k}"' for k in columns)
            marks = ", ".join("?" for _ in columns)
            keys = ", ".join(f'"{k}"' for k in op.keys)
            adds = ", ".join(f'"{k}" = "{k}" + excluded."{k}"' for k in op.added)
            text = f'INSERT INTO "{op.table.name}" ({names}) VALUES ({marks}) ON CONFLICT ({keys}) DO UPDATE'
            found = self._made[shape] = Sql(f"{text} SET {adds}", op.table, columns)
        return found

    def __call__(self, op: Update | Insert | Row | Rows | Count | Upsert) -> Sql:
        """The statement's SQL, made at its shape's first use."""
        table = op.table
        if isinstance(op, Upsert):
            return self._upsert(op)
        if isinstance(op, Insert):
            shape: tuple = ("i", table.name, tuple(op.row))
        else:
            where = where_shape(op.where)
            if isinstance(op, Update):
                shape = ("u", table.name, tuple(op.values), where)
            elif isinstance(op, Count):
                shape = ("c", table.name, op.at_most, where)
            else:
                shape = ("r" if isinstance(op, Row) else "rs", table.name, op.columns, where)
        found = self._made.get(shape)
        if found is None:
            if isinstance(op, Insert):
                names = ", ".join(f'"{k}"' for k in op.row)
                marks = ", ".join("?" for _ in op.row)
                found = Sql(f'INSERT INTO "{table.name}" ({names}) VALUES ({marks})', table, shape[2])
            else:
                test = " AND ".join(f'"{k}" IS NULL' if null else f'"{k}" = ?' for k, null in shape[-1])
                compared = tuple(k for k, null in shape[-1] if not null)
                if isinstance(op, Update):
                    sets = ", ".join(f'"{k}" = ?' for k in op.values)
                    text = f'UPDATE "{table.name}" SET {sets} WHERE {test}'
                    found = Sql(text, table, shape[2] + compared)
                elif isinstance(op, Count):
                    text = f'SELECT count(*) FROM "{table.name}" WHERE {test}'
                    if op.at_most is not None:
                        rows = f'SELECT 1 FROM "{table.name}" WHERE {test} LIMIT {int(op.at_most)}'
                        text = f"SELECT count(*) FROM ({rows})"
                    found = Sql(text, table, compared)
                else:
                    names = ", ".join(f'"{k}"' for k in op.columns)
                    text = f'SELECT {names} FROM "{table.name}" WHERE {test}'
                    found = Sql(f"{text} LIMIT 1" if isinstance(op, Row) else text, table, compared)
            self._made[shape] = found
        return found

    def converters(self, read: Row | Rows) -> tuple[Any, ...]:
        """How SQLAlchemy turns each column's stored value into Python (None: as stored)."""
        key = (read.table.name, read.columns)
        found = self._results.get(key)
        if found is None:
            found = self._results[key] = tuple(
                read.table.c[c].type.dialect_impl(_DIALECT).result_processor(_DIALECT, None)
                for c in read.columns
            )
        return found
