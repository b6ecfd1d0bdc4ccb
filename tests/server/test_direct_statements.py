"""The per-move statements without the ORM (storage/direct.py): what they write reads back through the ORM
unchanged, a lost compare-and-set or a duplicate row rolls the whole transaction back, and a SQLite lock
held elsewhere sends the write through the async engine, which waits for it instead of failing."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import cast

import pytest
from sqlalchemy import Table, func, select
from sqlalchemy.exc import IntegrityError

from shashki.rules import Color
from shashki.server.accounts.models import User
from shashki.server.games.models import GameRecord, GameStatus, MoveRecord
from shashki.server.storage import Database
from shashki.server.storage.direct import Insert, Read, Refused, Update

GAMES = cast(Table, GameRecord.__table__)
MOVES = cast(Table, MoveRecord.__table__)
NOW = datetime(2026, 3, 1, 12, 30, 15, 123456, tzinfo=UTC)


async def _database(tmp_path) -> Database:
    db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
    async with db.session() as s:
        s.add(User(id=1, username="Anna", username_key="anna", password_hash="-", created_at=NOW))
        s.add(
            GameRecord(
                id="g1", variant="russian-giveaway", white_id=1, black_id=None, computer_level=1,
                turn_started_at=NOW, ply=0, version=1, status=GameStatus.STARTED, created_at=NOW,
            )
        )  # fmt: skip
        await s.commit()
    return db


def _move(ply: int) -> Insert:
    row = {"game_id": "g1", "ply": ply, "notation": "c3-d4", "played_at": NOW, "clock_ms": None}
    return Insert(MOVES, row)


def test_what_the_direct_path_writes_reads_back_through_the_orm_unchanged(tmp_path):
    later = NOW + timedelta(seconds=3, microseconds=7)

    async def scenario():
        db = await _database(tmp_path)
        changes = {"ply": 1, "version": 2, "turn_started_at": later, "draw_offer": Color.BLACK}
        await db.direct.write(Update(GAMES, changes, {"id": "g1", "version": 1}), _move(0))
        async with db.session() as s:
            record = await s.get(GameRecord, "g1")
            move = await s.scalar(select(MoveRecord))
        version = await db.direct.scalar(Read(GAMES, "version", {"id": "g1"}))
        started = await db.direct.scalar(Read(GAMES, "turn_started_at", {"id": "g1"}))
        no_result = await db.direct.scalar(Read(GAMES, "id", {"id": "g1", "result": None}))
        await db.close()
        return record, move, version, started, no_result

    record, move, version, started, no_result = asyncio.run(scenario())
    assert (record.ply, record.version, record.draw_offer) == (1, 2, Color.BLACK)
    assert record.turn_started_at == later and record.turn_started_at.tzinfo is not None
    assert (move.ply, move.notation, move.played_at) == (0, "c3-d4", NOW)
    assert version == 2 and started == later
    assert no_result == "g1"  # compared to NULL: IS NULL


def test_a_lost_compare_and_set_rolls_back_the_whole_transaction(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        with pytest.raises(Refused):
            # The move's row first, then a compare-and-set on a version the game no longer has.
            await db.direct.write(_move(0), Update(GAMES, {"ply": 1}, {"id": "g1", "version": 7}))
        async with db.session() as s:
            moves = await s.scalar(select(func.count()).select_from(MoveRecord))
            ply = await s.scalar(select(GameRecord.ply))
        await db.close()
        return moves, ply

    assert asyncio.run(scenario()) == (0, 0)


def test_a_second_row_for_the_same_ply_is_refused_and_nothing_of_its_change_stays(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        await db.direct.write(_move(0))
        with pytest.raises(IntegrityError):
            await db.direct.write(Update(GAMES, {"ply": 5}, {"id": "g1", "version": 1}), _move(0))
        async with db.session() as s:
            ply = await s.scalar(select(GameRecord.ply))
        await db.close()
        return ply

    assert asyncio.run(scenario()) == 0


def test_a_lock_held_by_another_connection_is_waited_for_through_the_async_engine(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        holder = sqlite3.connect(tmp_path / "db.sqlite3", isolation_level=None, check_same_thread=False)
        holder.execute("BEGIN IMMEDIATE")
        released = threading.Timer(0.3, lambda: holder.execute("ROLLBACK"))
        released.start()
        began = time.monotonic()
        await db.direct.write(Update(GAMES, {"ply": 1, "version": 2}, {"id": "g1", "version": 1}))
        waited = time.monotonic() - began
        ply = await db.direct.scalar(Read(GAMES, "ply", {"id": "g1"}))
        fallbacks = db.direct.fallbacks
        released.join()
        holder.close()
        await db.close()
        return ply, fallbacks, waited

    ply, fallbacks, waited = asyncio.run(scenario())
    assert ply == 1 and fallbacks == 1
    assert waited >= 0.25  # it waited for the other connection's transaction to end
