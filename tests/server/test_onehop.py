"""SQLite's driver path (storage/onehop.py): one trip to aiosqlite's thread per statement, none for the
rollback of a session that only read, and the same answers and transactions as SQLAlchemy's adapter."""

from __future__ import annotations

import asyncio

import aiosqlite
import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from shashki.server.storage import Database


@pytest.fixture
def trips(monkeypatch) -> list[int]:
    """How many functions were sent to an aiosqlite thread (the counter's one item)."""
    count = [0]
    sent = aiosqlite.Connection._execute

    async def counted(self, fn, *args, **kwargs):
        count[0] += 1
        return await sent(self, fn, *args, **kwargs)

    monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
    return count


async def _open(tmp_path) -> Database:
    db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
    async with db.session() as s:
        await s.execute(text("CREATE TABLE t (x INTEGER PRIMARY KEY, y TEXT UNIQUE)"))
        await s.commit()
    return db


def test_a_read_in_a_session_is_one_trip_to_the_driver_thread(tmp_path, trips):
    async def scenario() -> tuple[int, list]:
        db = await _open(tmp_path)
        async with db.session() as s:
            await s.execute(text("INSERT INTO t (y) VALUES ('a'), ('b')"))
            await s.commit()
        trips[0] = 0
        async with db.session() as s:
            rows = list(await s.execute(text("SELECT x, y FROM t ORDER BY x")))
        read = trips[0]
        await db.close()
        return read, rows

    read, rows = asyncio.run(scenario())
    assert rows == [(1, "a"), (2, "b")]
    assert read == 1  # SQLAlchemy's adapter made six: cursor, execute, fetch, close, rollback, reset


def test_a_write_not_committed_is_rolled_back_and_a_committed_one_stays(tmp_path, trips):
    async def scenario() -> tuple[list, int | None, int]:
        db = await _open(tmp_path)
        async with db.session() as s:
            await s.execute(text("INSERT INTO t (y) VALUES ('kept')"))
            await s.commit()
        async with db.session() as s:
            await s.execute(text("INSERT INTO t (y) VALUES ('dropped')"))  # closed without a commit
        with pytest.raises(IntegrityError):
            async with db.session() as s:
                await s.execute(text("INSERT INTO t (y) VALUES ('also dropped')"))
                await s.execute(text("INSERT INTO t (y) VALUES ('kept')"))  # unique: refused
        async with db.session() as s:
            inserted = await s.execute(text("INSERT INTO t (y) VALUES ('last')"))
            last_id = inserted.lastrowid
            changed = (await s.execute(text("UPDATE t SET y = y || '!'"))).rowcount
            await s.commit()
        async with db.session() as s:
            rows = [y for (y,) in await s.execute(text("SELECT y FROM t ORDER BY x"))]
        await db.close()
        return rows, last_id, changed

    rows, last_id, changed = asyncio.run(scenario())
    assert rows == ["kept!", "last!"]
    assert last_id is not None and changed == 2
