"""With events in this process (no Redis) the cached game is the authority: no read of its version before
each action (games/store.py `refresh`), and yet a second writer on the same database file loses nothing:
the compare-and-set refuses the stale write, and the next action works on the game reloaded."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from shashki.server.accounts.models import User
from shashki.server.errors import Conflict
from shashki.server.games.computer import RandomOpponent
from shashki.server.games.service import GameService
from shashki.server.redisbus import make_bus
from shashki.server.storage import Database

NOW = datetime(2026, 1, 1, tzinfo=UTC)


async def _database(tmp_path) -> Database:
    db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
    async with db.session() as s:
        for user_id, name in ((1, "Anna"), (2, "Boris")):
            key = name.lower()
            s.add(User(id=user_id, username=name, username_key=key, password_hash="-", created_at=NOW))
        await s.commit()
    return db


def _games(db: Database) -> GameService:
    return GameService(db, make_bus(None), engine=RandomOpponent(seed=1), computer_delay_seconds=0)


def test_moves_do_not_read_the_game_back_and_a_second_writer_is_refused_then_seen(tmp_path, monkeypatch):
    async def scenario():
        db = await _database(tmp_path)
        here, elsewhere = _games(db), _games(db)  # two servers on one file, each with its own events
        game = await here.create(white_id=1, black_id=2)
        reads = []
        scalar = db.direct.scalar

        async def counted(read):
            reads.append(read)
            return await scalar(read)

        monkeypatch.setattr(db.direct, "scalar", counted)
        await here.move(1, game.id, "c3-d4", ply=0)
        await here.move(2, game.id, "f6-g5", ply=1)
        reads_per_two_moves = len(reads)
        await elsewhere.move(1, game.id, "g3-h4", ply=2)  # behind the first server's back
        with pytest.raises(Conflict) as refused:
            await here.move(1, game.id, "g3-f4", ply=2)  # its copy is stale: refused, not lost
        state = await here.move(2, game.id, "g5-f4", ply=3)  # reloaded: the other's move is there
        for service in (here, elsewhere):
            await service.close()
        await db.close()
        return reads_per_two_moves, refused.value.code, state

    reads, code, state = asyncio.run(scenario())
    assert reads == 0
    assert code == "ply_already_played"
    assert state["moves"][:3] == ["c3-d4", "f6-g5", "g3-h4"] and state["ply"] == 4
