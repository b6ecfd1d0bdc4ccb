"""Alembic environment. The server runs migrations itself at start (`storage.migrate`), handing a live
connection in `config.attributes["connection"]`; for writing new revisions by hand:

    alembic -c shashki/server/storage/alembic.ini revision --autogenerate -m "what changed"

with `DATABASE_URL` (or the default SQLite file `data/shashki.sqlite3`) pointing at an up-to-date database.
"""

import asyncio
import os

from alembic import context
from sqlalchemy.ext.asyncio import create_async_engine

from shashki.server.schema import metadata as target_metadata  # every domain's tables


def run_with(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying them
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_standalone() -> None:
    url = os.environ.get("DATABASE_URL") or context.config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("Set DATABASE_URL (or sqlalchemy.url) to the database to migrate.")
    engine = create_async_engine(url)
    async with engine.begin() as conn:
        await conn.run_sync(run_with)
    await engine.dispose()


connection = context.config.attributes.get("connection")
if connection is not None:
    run_with(connection)
else:
    asyncio.run(run_standalone())
