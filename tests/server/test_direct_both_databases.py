"""The per-move write on both databases (storage/direct.py): on PostgreSQL a compare-and-set with its
move's row is one statement in autocommit (one round trip), on SQLite a transaction on the stdlib
connection — the same outcomes either way: the change and the row both written, or neither (a lost
compare-and-set, a ply written already), and a value compared to NULL matched as SQL's IS NULL."""

from __future__ import annotations

import asyncio
import secrets
from datetime import UTC, datetime, timedelta
from typing import cast

import pytest
from sqlalchemy import Table, delete, event, func, select
from sqlalchemy.exc import IntegrityError

from shashki.rules import Color
from shashki.server.accounts.models import User
from shashki.server.explorer.models import ExplorerGame, ExplorerMove
from shashki.server.games.models import GameRecord, GameStatus, MoveRecord
from shashki.server.games.statements import game_row
from shashki.server.notifications.models import Notification
from shashki.server.storage import Database
from shashki.server.storage.direct import Count, Insert, Read, Refused, Rows, Update, Upsert, new_row

from .helpers import database_url

GAMES = cast(Table, GameRecord.__table__)
MOVES = cast(Table, MoveRecord.__table__)
USERS = cast(Table, User.__table__)
NOTIFICATIONS = cast(Table, Notification.__table__)
EXPLORER = cast(Table, ExplorerMove.__table__)
EXPLORED = cast(Table, ExplorerGame.__table__)
NOW = datetime(2026, 3, 1, 12, 30, 15, 123456, tzinfo=UTC)


def _move(game_id: str, ply: int, notation: str = "c3-d4") -> Insert:
    row = {"game_id": game_id, "ply": ply, "notation": notation, "played_at": NOW, "clock_ms": 59_000}
    return Insert(MOVES, row)


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_a_change_and_its_move_are_written_together_or_not_at_all_on_both_databases(database, tmp_path):
    game_id = "t" + secrets.token_hex(4)  # a shared PostgreSQL database holds other games
    later = NOW + timedelta(seconds=2)

    async def scenario():
        db = await Database(database_url(database, tmp_path)).open()
        async with db.session() as s:
            user = User(username=game_id, username_key=game_id, password_hash="-", created_at=NOW)
            s.add(user)
            await s.flush()
            s.add(
                GameRecord(
                    id=game_id, variant="russian-giveaway", white_id=user.id, black_id=None,
                    computer_level=1, turn_started_at=NOW, ply=0, version=1, status=GameStatus.STARTED,
                    created_at=NOW,
                )
            )  # fmt: skip
            await s.commit()
        seen: list[str] = []
        event.listen(db.engine.sync_engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
        write = db.direct.write
        first = {"ply": 1, "version": 2, "turn_started_at": later, "draw_offer": Color.BLACK}
        await write(Update(GAMES, first, {"id": game_id, "version": 1}), _move(game_id, 0))
        with pytest.raises(Refused):  # a lost compare-and-set: neither the change nor the row
            await write(Update(GAMES, {"ply": 9}, {"id": game_id, "version": 1}), _move(game_id, 1, "lost"))
        with pytest.raises(IntegrityError):  # the ply written already: the change rolled back with it
            again = Update(GAMES, {"ply": 7, "version": 3}, {"id": game_id, "version": 2})
            await write(again, _move(game_id, 0))
        # A change alone, compared to NULL (no result yet), then one that matches no row.
        await write(Update(GAMES, {"version": 3, "draw_offer": None}, {"id": game_id, "result": None}))
        with pytest.raises(Refused):
            await write(Update(GAMES, {"version": 4}, {"id": game_id, "version": 2}))
        writes = list(seen)
        async with db.session() as s:
            record = await s.get(GameRecord, game_id)
            moves = list(await s.scalars(select(MoveRecord).where(MoveRecord.game_id == game_id)))
            mine = MoveRecord.game_id == game_id
            count = await s.scalar(select(func.count()).select_from(MoveRecord).where(mine))
            await s.execute(delete(GameRecord).where(GameRecord.id == game_id))
            await s.execute(delete(User).where(User.username_key == game_id))
            await s.commit()
        started = await db.direct.scalar(Read(GAMES, "turn_started_at", {"id": game_id}))  # deleted: None
        await db.close()
        return record, moves, count, started, writes

    record, moves, count, started, writes = asyncio.run(scenario())
    if database == "postgresql":  # each write one statement (two, UPDATE and INSERT, in a transaction before)
        assert len(writes) == 5 and sum("WITH changed AS" in w for w in writes) == 3
    else:
        assert writes == []  # SQLite: the stdlib connection, not the async engine
    assert (record.ply, record.version, record.draw_offer) == (1, 3, None)
    assert record.turn_started_at == later
    assert count == 1
    assert [(m.ply, m.notation, m.played_at, m.clock_ms) for m in moves] == [(0, "c3-d4", NOW, 59_000)]
    assert started is None


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_an_insert_returns_the_rows_number_and_a_unique_key_refuses_a_second(database, tmp_path):
    """`Direct.insert` with `new_row`: the row numbered by the database, the object given its number and
    its columns' defaults; a duplicate of a unique key refused (IntegrityError), nothing written; a new
    game written with the row it claims, or neither when the claim is refused."""
    key = "t" + secrets.token_hex(4)

    async def scenario():
        db = await Database(database_url(database, tmp_path)).open()
        seen: list[str] = []
        event.listen(db.engine.sync_engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
        user = User(username=key, username_key=key, password_hash="-", created_at=NOW)
        user.id = await db.direct.insert(Insert(USERS, new_row(user)))
        first = Notification(user_id=user.id, kind="challenge", subject="x", created_at=NOW)
        first.id = await db.direct.insert(Insert(NOTIFICATIONS, new_row(first)))
        second = Notification(user_id=user.id, kind="challenge", subject="y", created_at=NOW)
        second.id = await db.direct.insert(Insert(NOTIFICATIONS, new_row(second)))
        with pytest.raises(IntegrityError):  # (user, kind, subject, ply) is unique
            again = Notification(user_id=user.id, kind="challenge", subject="x", created_at=NOW)
            await db.direct.insert(Insert(NOTIFICATIONS, new_row(again)))
        game = GameRecord(
            id=key, variant="russian", white_id=user.id, black_id=None, computer_level=1, turn_started_at=NOW,
            ply=0, version=1, status=GameStatus.STARTED, created_at=NOW,
        )  # fmt: skip
        await db.direct.write(game_row(game))
        # A second game claiming the first one's rematch column twice: once taken, then refused.
        claim = Update(GAMES, {"rematch_id": key + "r"}, {"id": key, "rematch_id": None})
        rematch = GameRecord(**{c.key: getattr(game, c.key) for c in GAMES.columns} | {"id": key + "r"})
        await db.direct.write(game_row(rematch), claim)
        with pytest.raises(Refused) as refused:
            third = GameRecord(**{c.key: getattr(game, c.key) for c in GAMES.columns} | {"id": key + "s"})
            await db.direct.write(game_row(third), claim)
        writes = [w for w in seen if not w.lstrip().upper().startswith("SELECT")]
        async with db.session() as s:
            mine = Notification.user_id == user.id
            stored = list(await s.scalars(select(Notification).where(mine).order_by(Notification.id)))
            games = set(await s.scalars(select(GameRecord.id).where(GameRecord.white_id == user.id)))
            claimed = await s.scalar(select(GameRecord.rematch_id).where(GameRecord.id == key))
            await s.execute(delete(GameRecord).where(GameRecord.white_id == user.id))
            await s.execute(delete(Notification).where(mine))
            await s.execute(delete(User).where(User.id == user.id))
            await s.commit()
        await db.close()
        return first, second, stored, game, games, claimed, refused.value, claim, writes

    first, second, stored, game, games, claimed, refused, claim, writes = asyncio.run(scenario())
    assert second.id > first.id > 0
    assert [(n.id, n.subject, n.ply, n.data, n.read_at) for n in stored] == [
        (first.id, "x", 0, "{}", None), (second.id, "y", 0, "{}", None)
    ]  # fmt: skip
    assert (first.ply, first.data) == (0, "{}")  # the defaults, on the object too
    assert (game.double_diagonal, game.rated, game.clock_increment_ms) == (False, False, 0)
    assert games == {game.id, game.id + "r"} and claimed == game.id + "r"
    assert refused.op is claim  # the statement that lost
    if database == "sqlite":
        assert writes == []  # the stdlib connection, not the async engine


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_an_upsert_adds_to_the_rows_stored_and_inserts_the_others(database, tmp_path):
    """`Upsert` (the opening explorer's counts): a row whose keys are stored adds its counts to the stored
    row's, another is inserted; with a failing statement after it in the transaction, none of it stays."""
    variant = "t" + secrets.token_hex(4)  # a shared PostgreSQL database holds other rows

    def counts(position: int, games: int, white: int) -> dict:
        return {"variant": variant, "position": position, "move": "c3-d4", "games": games, "white": white,
                "black": 0, "draws": games - white, "rated": 0, "rating_sum": 0}  # fmt: skip

    async def scenario():
        db = await Database(database_url(database, tmp_path)).open()
        keys = ("variant", "position", "move")
        added = ("games", "white", "black", "draws", "rated", "rating_sum")
        await db.direct.write(Upsert(EXPLORER, [counts(1, 1, 1), counts(-2, 2, 0)], keys, added))
        await db.direct.write(Upsert(EXPLORER, [counts(1, 3, 1), counts(3, 1, 0)], keys, added))
        with pytest.raises(IntegrityError):  # the same game marked twice: the counts before it roll back
            await db.direct.write(
                Upsert(EXPLORER, [counts(1, 100, 0)], keys, added),
                Insert(EXPLORED, {"game_id": variant}),
                Insert(EXPLORED, {"game_id": variant}),
            )
        await db.direct.write(Upsert(EXPLORER, [], keys, added))  # nothing to count: nothing done
        async with db.session() as s:
            mine = ExplorerMove.variant == variant
            stored = await s.scalars(select(ExplorerMove).where(mine))
            rows = {(r.position, r.games, r.white, r.draws) for r in stored}
            ours = ExplorerGame.game_id == variant
            marked = await s.scalar(select(func.count()).select_from(ExplorerGame).where(ours))
            await s.execute(delete(ExplorerMove).where(mine))
            await s.commit()
        await db.close()
        return rows, marked

    rows, marked = asyncio.run(scenario())
    assert rows == {(1, 4, 2, 2), (-2, 2, 0, 2), (3, 1, 0, 1)}
    assert marked == 0


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_rows_and_counts_read_what_the_orm_reads_without_a_session(database, tmp_path):
    """`Direct.rows` (every matching row, values converted as the ORM converts them) and `Direct.count`
    (a value compared to NULL counted as SQL's IS NULL; with `at_most`, no further), against the same
    reads through a session."""
    key = "t" + secrets.token_hex(4)

    async def scenario():
        db = await Database(database_url(database, tmp_path)).open()
        seen: list[str] = []
        user = User(username=key, username_key=key, password_hash="-", created_at=NOW)
        user.id = await db.direct.insert(Insert(USERS, new_row(user)))
        for i, read_at in enumerate([None, NOW, None, NOW + timedelta(days=1), None]):
            row = Notification(user_id=user.id, kind="challenge", subject=str(i), created_at=NOW)
            row.read_at = read_at
            await db.direct.insert(Insert(NOTIFICATIONS, new_row(row)))
        event.listen(db.engine.sync_engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
        unread = await db.direct.count(Count(NOTIFICATIONS, {"user_id": user.id, "read_at": None}))
        nobody = await db.direct.count(Count(NOTIFICATIONS, {"user_id": -1, "read_at": None}))
        capped = [
            await db.direct.count(Count(NOTIFICATIONS, {"user_id": user.id, "read_at": None}, at_most=n))
            for n in (2, 3, 10)
        ]
        columns = ("id", "subject", "read_at", "created_at")
        rows = await db.direct.rows(Rows(NOTIFICATIONS, columns, {"user_id": user.id}))
        none = await db.direct.rows(Rows(NOTIFICATIONS, columns, {"user_id": -1}))
        direct_reads = list(seen)
        async with db.session() as s:
            mine = Notification.user_id == user.id
            stored = list(await s.scalars(select(Notification).where(mine)))
            counted = await s.scalar(select(func.count()).where(mine, Notification.read_at.is_(None)))
            await s.execute(delete(Notification).where(mine))
            await s.execute(delete(User).where(User.id == user.id))
            await s.commit()
        await db.close()
        return unread, nobody, capped, rows, none, stored, counted, direct_reads

    unread, nobody, capped, rows, none, stored, counted, direct_reads = asyncio.run(scenario())
    assert unread == counted == 3 and nobody == 0
    assert capped == [2, 3, 3]  # counted up to `at_most`
    expected = [
        {"id": n.id, "subject": n.subject, "read_at": n.read_at, "created_at": n.created_at} for n in stored
    ]
    assert sorted(rows, key=lambda r: r["id"]) == sorted(expected, key=lambda r: r["id"])
    assert {r["read_at"] for r in rows} == {None, NOW, NOW + timedelta(days=1)}  # aware datetimes, as stored
    assert none == []
    if database == "sqlite":
        assert direct_reads == []  # the stdlib connection, not the async engine
