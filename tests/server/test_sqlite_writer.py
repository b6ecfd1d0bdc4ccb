"""One writer at a time on SQLite (storage/writer.py): writers queue in the event loop, not on its lock."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import Integer, text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

import shashki.server.storage as storage
from shashki.server.storage import Database


class _Base(DeclarativeBase):
    pass


class _Row(_Base):
    __tablename__ = "writer_test_rows"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    value: Mapped[int] = mapped_column(Integer)


@pytest.fixture
def short_busy_timeout(monkeypatch):
    # SQLite's own wait for its lock, made short: a writer left to it fails within 50 ms.
    monkeypatch.setattr(storage, "SQLITE_BUSY_TIMEOUT_MS", 50)


async def _database(tmp_path) -> Database:
    db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
    async with db.engine.begin() as conn:
        await conn.run_sync(_Base.metadata.create_all)
    return db


def test_many_slow_writers_all_commit_in_turn_instead_of_failing_on_the_lock(tmp_path, short_busy_timeout):
    async def scenario():
        db = await _database(tmp_path)
        active = 0
        most = 0

        async def statement_writer(i: int) -> None:
            nonlocal active, most
            async with db.session() as s:
                await s.execute(text("INSERT INTO writer_test_rows (id, value) VALUES (:i, 0)"), {"i": i})
                active += 1
                most = max(most, active)
                await asyncio.sleep(0.02)  # longer, in all, than SQLite would wait for its lock
                await s.execute(text("UPDATE writer_test_rows SET value = 1 WHERE id = :i"), {"i": i})
                active -= 1
                await s.commit()

        async def flushing_writer(i: int) -> None:
            async with db.session() as s:
                s.add(_Row(id=i, value=2))
                await s.flush()
                await asyncio.sleep(0.02)
                await s.commit()

        await asyncio.gather(
            *(statement_writer(i) for i in range(15)), *(flushing_writer(100 + i) for i in range(15))
        )
        async with db.session() as s:
            values = sorted((await s.execute(text("SELECT value FROM writer_test_rows"))).scalars())
        acquired = db.write_lock.acquired
        await db.close()
        return values, most, acquired

    values, most, acquired = asyncio.run(scenario())
    assert values == [1] * 15 + [2] * 15
    assert most == 1  # never two write transactions at once
    assert acquired == 30


def test_reads_go_on_while_a_write_transaction_is_open(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        writing = asyncio.Event()
        release = asyncio.Event()

        async def writer() -> None:
            async with db.session() as s:
                s.add(_Row(id=1, value=1))
                await s.flush()
                writing.set()
                await release.wait()
                await s.commit()

        task = asyncio.create_task(writer())
        await writing.wait()
        assert db.write_lock.locked
        async with db.session() as s:  # WAL: a reader sees the last commit and does not wait
            seen = await asyncio.wait_for(s.scalar(text("SELECT count(*) FROM writer_test_rows")), 2)
        release.set()
        await task
        after = db.write_lock.locked
        await db.close()
        return seen, after

    seen, after = asyncio.run(scenario())
    assert seen == 0
    assert after is False


def test_a_failed_or_abandoned_write_transaction_lets_the_next_writer_in(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        with pytest.raises(RuntimeError):
            async with db.session() as s:
                await s.execute(text("INSERT INTO writer_test_rows (id, value) VALUES (1, 1)"))
                raise RuntimeError("the caller gave up")
        async with db.session() as s:
            await s.execute(text("INSERT INTO writer_test_rows (id, value) VALUES (1, 1)"))
            await s.rollback()
        async with db.session() as s:
            s.add(_Row(id=1, value=3))
            await asyncio.wait_for(s.commit(), 2)
        async with db.session() as s:
            value = await s.scalar(text("SELECT value FROM writer_test_rows WHERE id = 1"))
        locked = db.write_lock.locked
        await db.close()
        return value, locked

    value, locked = asyncio.run(scenario())
    assert value == 3
    assert locked is False


def test_a_nested_session_of_the_same_task_does_not_deadlock_on_the_write_lock(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        async with db.session() as outer:
            await outer.execute(text("INSERT INTO writer_test_rows (id, value) VALUES (1, 1)"))
            await outer.commit()
            async with db.session() as inner:
                inner.add(_Row(id=2, value=2))
                await asyncio.wait_for(inner.commit(), 2)
        locked = db.write_lock.locked
        await db.close()
        return locked

    assert asyncio.run(scenario()) is False


def test_postgresql_urls_keep_concurrent_writers():
    assert Database("postgresql+asyncpg://u@127.0.0.1:1/x").write_lock is None
