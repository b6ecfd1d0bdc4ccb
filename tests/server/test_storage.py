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

from .helpers import fresh_database_url


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


def test_a_migration_that_copies_a_table_keeps_the_rows_that_reference_it(tmp_path, monkeypatch):
    """SQLite cannot alter most of a table in place: Alembic's batch mode copies it and drops the old one,
    and with foreign keys on, that drop deleted every row referencing it ON DELETE CASCADE (a game's
    moves, ratings, chat). Found when a migration of this session copied `games` by accident (its column's
    default was an expression) and the rating history it was to read was gone: foreign keys are off
    while migrating, on again after."""
    from alembic.operations import Operations

    import shashki.server.storage as storage

    def copying_games(config, revision) -> None:
        connection = config.attributes["connection"]
        with Operations(MigrationContext.configure(connection)).batch_alter_table(
            "games", recreate="always"
        ) as batch:
            batch.alter_column("reason", existing_type=None, nullable=True)

    async def scenario():
        db = await _open(tmp_path)
        now = datetime(2026, 1, 1, tzinfo=UTC)
        async with db.session() as s:
            s.add(GameRecord(id="g1", variant="russian", status="started", turn_started_at=now,
                             created_at=now))  # fmt: skip
            await s.flush()
            s.add(MoveRecord(game_id="g1", ply=0, notation="c3-d4", played_at=now))
            await s.commit()
        monkeypatch.setattr(storage.command, "upgrade", copying_games)
        await db.migrate()
        async with db.session() as s:
            moves = (await s.execute(text("SELECT count(*) FROM moves"))).scalar()
            keys = (await s.execute(text("PRAGMA foreign_keys"))).scalar()
        await db.close()
        return moves, keys

    assert run(scenario()) == (1, 1)


def test_servers_starting_together_on_postgresql_migrate_once_and_all_start(tmp_path):
    """docker-compose starts four processes on one database at the same moment: each migrates at start
    (`Database.open`), one at a time behind an advisory lock, so none fails creating a table another has
    just created, and the schema is migrated once."""
    import subprocess
    import sys

    # Processes, as in the cluster (Alembic's context is global to a process: one migration at a time).
    migrate = (
        "import asyncio, sys; from shashki.server.storage import Database\n"
        "async def main():\n"
        "    db = Database(sys.argv[1]); await db.migrate(); await db.close()\n"
        "asyncio.run(main())"
    )

    async def schema(url: str) -> tuple[list, int]:
        db = Database(url)
        async with db.engine.connect() as conn:
            versions = list((await conn.execute(text("SELECT version_num FROM alembic_version"))).all())
            games = await conn.scalar(text("SELECT count(*) FROM games"))
        await db.close()
        return versions, games

    with fresh_database_url("postgresql", tmp_path) as fresh_url:  # the shared one is migrated already
        starts = [
            subprocess.Popen([sys.executable, "-c", migrate, fresh_url], stderr=subprocess.PIPE, text=True)
            for _ in range(4)
        ]
        outcomes = [(start.communicate(timeout=120)[1], start.returncode) for start in starts]
        assert outcomes == [("", 0)] * 4
        versions, games = run(schema(fresh_url))
        assert len(versions) == 1 and games == 0


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
