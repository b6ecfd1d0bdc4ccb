"""Storage and the pieces under the services, without a server: migrations, clocks, events."""

from __future__ import annotations

import asyncio
import doctest
from datetime import UTC, datetime

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

import shashki.server.events
import shashki.server.games.clock
from shashki.server.games.models import GameRecord, MoveRecord
from shashki.server.schema import metadata
from shashki.server.storage import Database


def run(coroutine):
    return asyncio.run(coroutine)


async def _open(tmp_path) -> Database:
    return await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()


def test_the_migrations_build_exactly_the_schema_of_the_models(tmp_path):
    async def differences():
        db = await _open(tmp_path)
        async with db.engine.connect() as conn:
            diff = await conn.run_sync(
                lambda c: compare_metadata(MigrationContext.configure(c), metadata)
            )
            mode = (await conn.execute(text("PRAGMA journal_mode"))).scalar()
        await db.close()
        return diff, mode

    diff, mode = run(differences())
    assert diff == []
    assert mode == "wal"


def test_migrating_twice_is_harmless(tmp_path):
    async def twice():
        db = await _open(tmp_path)
        await db.migrate()
        await db.close()

    run(twice())


def test_a_ply_of_a_game_can_be_stored_only_once(tmp_path):
    async def store_twice():
        db = await _open(tmp_path)
        now = datetime.now(UTC)
        async with db.session() as s:
            s.add(
                GameRecord(
                    id="g1",
                    variant="russian-giveaway",
                    turn_started_at=now,
                    status="started",
                    created_at=now,
                    clock_increment_ms=0,
                    ply=0,
                    version=1,
                    rated=False,
                    double_diagonal=False,
                )
            )
            await s.commit()
        for notation in ("c3-d4", "e3-d4"):
            async with db.session() as s:
                s.add(MoveRecord(game_id="g1", ply=0, notation=notation, played_at=now))
                await s.commit()

    with pytest.raises(IntegrityError):
        run(store_twice())


@pytest.mark.parametrize("module", [shashki.server.games.clock, shashki.server.events])
def test_docstring_examples(module):
    assert doctest.testmod(module).failed == 0
