"""Group commit on SQLite (storage/group.py): the writes asked for in one turn of the event loop share one
transaction once turns hold several, yet each writer's statements stand or fall alone, and nobody is
answered before the COMMIT."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from typing import cast

import pytest
from sqlalchemy import Table, func, select
from sqlalchemy.exc import IntegrityError

from shashki.server.games.models import GameRecord, MoveRecord
from shashki.server.storage.direct import Insert, Read, Refused, Update
from shashki.server.storage.group import SIBLINGS
from tests.server.test_direct_statements import NOW, _database

GAMES = cast(Table, GameRecord.__table__)
MOVES = cast(Table, MoveRecord.__table__)


def _row(game: str, ply: int) -> Insert:
    row = {"game_id": game, "ply": ply, "notation": "c3-d4", "played_at": NOW, "clock_ms": None}
    return Insert(MOVES, row)


def _game(game: str) -> Insert:
    row = {
        "id": game, "variant": "russian-giveaway", "double_diagonal": False, "white_id": 1, "black_id": None,
        "computer_level": 1, "rated": False, "clock_increment_ms": 0, "turn_started_at": NOW, "ply": 0,
        "version": 1, "status": "started", "created_at": NOW,
    }  # fmt: skip
    return Insert(GAMES, row)


def _move(game: str, version: int, ply: int) -> tuple[Update, Insert]:
    """A move as the games store writes it: the compare-and-set, then the move's row."""
    change = Update(GAMES, {"ply": ply + 1, "version": version + 1}, {"id": game, "version": version})
    return change, _row(game, ply)


async def _grouping(db) -> None:
    """The group as under load: the turns that wrote lately held several writes each."""
    await asyncio.sleep(0)  # the count of the turns before is made first
    db.direct._group.per_turn = SIBLINGS


async def _counts(db) -> tuple[int, dict[str, int]]:
    async with db.session() as s:
        moves = await s.scalar(select(func.count()).select_from(MoveRecord))
        versions = dict((await s.execute(select(GameRecord.id, GameRecord.version))).all())
    return moves, versions


def test_the_writes_of_one_turn_of_the_loop_share_one_transaction_and_all_commit(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        for name in ("g2", "g3", "g4"):
            await db.direct.write(_game(name))
        await _grouping(db)
        group = db.direct._group
        before = group.transactions, group.writes
        await asyncio.gather(*(db.direct.write(*_move(g, 1, 0)) for g in ("g1", "g2", "g3", "g4")))
        after = group.transactions, group.writes
        counts = await _counts(db)
        await db.close()
        return before, after, counts

    before, after, (moves, versions) = asyncio.run(scenario())
    assert after[0] - before[0] == 1 and after[1] - before[1] == 4  # four writers, one COMMIT
    assert moves == 4 and versions == {"g1": 2, "g2": 2, "g3": 2, "g4": 2}


def test_a_lost_compare_and_set_in_a_batch_rolls_back_that_writer_alone(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        await db.direct.write(_game("g2"))
        await _grouping(db)
        # g1's writer puts its row first and then loses its compare-and-set (version 7 is not g1's):
        # its row must go; g2's move, in the same transaction, stays.
        losing = db.direct.write(_row("g1", 0), Update(GAMES, {"ply": 1}, {"id": "g1", "version": 7}))
        results = await asyncio.gather(losing, db.direct.write(*_move("g2", 1, 0)), return_exceptions=True)
        counts = await _counts(db)
        await db.close()
        return results, counts

    results, (moves, versions) = asyncio.run(scenario())
    assert isinstance(results[0], Refused) and results[1] is None
    assert moves == 1 and versions == {"g1": 1, "g2": 2}


def test_a_duplicate_row_in_a_batch_undoes_that_writers_earlier_statement_only(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        await db.direct.write(_game("g2"))
        await db.direct.write(_row("g1", 0))
        await _grouping(db)
        # g1's compare-and-set succeeds, then its row is a duplicate (ply 0 is stored): the change goes too.
        results = await asyncio.gather(
            db.direct.write(*_move("g1", 1, 0)), db.direct.write(*_move("g2", 1, 0)), return_exceptions=True
        )
        counts = await _counts(db)
        ply = await db.direct.scalar(Read(GAMES, "ply", {"id": "g1"}))
        await db.close()
        return results, counts, ply

    results, (moves, versions), ply = asyncio.run(scenario())
    assert isinstance(results[0], IntegrityError) and results[1] is None
    assert versions == {"g1": 1, "g2": 2} and ply == 0 and moves == 2  # g1's old row, g2's new one


def test_a_batch_goes_without_savepoints_and_is_written_again_writer_by_writer_only_when_one_fails(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        for name in ("g2", "g3"):
            await db.direct.write(_game(name))
        group = db.direct._group
        said: list[str] = []
        group._connection().set_trace_callback(said.append)
        await _grouping(db)
        counted = group.transactions, group.writes
        await asyncio.gather(*(db.direct.write(*_move(g, 1, 0)) for g in ("g1", "g2", "g3")))
        happy, said[:] = list(said), []
        after_happy = group.transactions - counted[0], group.writes - counted[1]
        await _grouping(db)
        # g2's writer loses its compare-and-set (it is at version 2 now): g1's and g3's moves stay.
        results = await asyncio.gather(
            db.direct.write(*_move("g1", 2, 1)),
            db.direct.write(*_move("g2", 1, 1)),
            db.direct.write(*_move("g3", 2, 1)),
            return_exceptions=True,
        )
        unhappy = list(said)
        after = group.transactions - counted[0], group.writes - counted[1]
        counts = await _counts(db)
        await db.close()
        return happy, after_happy, results, unhappy, after, counts

    happy, after_happy, results, unhappy, after, (moves, versions) = asyncio.run(scenario())
    assert not any("SAVEPOINT" in sql for sql in happy) and happy.count("COMMIT") == 1
    assert after_happy == (1, 3)
    assert results[0] is None and isinstance(results[1], Refused) and results[2] is None
    # The batch was rolled back whole, then written again with a savepoint a writer: one COMMIT in all.
    assert unhappy.index("ROLLBACK") < unhappy.index("SAVEPOINT writer")
    assert unhappy.count("COMMIT") == 1 and after == (2, 6)
    assert moves == 5 and versions == {"g1": 3, "g2": 2, "g3": 3}


def test_nobody_is_answered_before_the_commit_and_a_writer_cancelled_before_its_turn_writes_nothing(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        seen_once_answered = []

        async def write_and_read() -> None:
            await db.direct.write(*_move("g1", 1, 0))
            # Once answered, another connection sees it: the transaction has committed.
            other = sqlite3.connect(tmp_path / "db.sqlite3")
            seen_once_answered.append(other.execute("SELECT version FROM games WHERE id='g1'").fetchone()[0])
            other.close()

        await write_and_read()
        await _grouping(db)
        task = asyncio.create_task(db.direct.write(*_move("g1", 2, 1)))
        await asyncio.sleep(0)  # the write waits for its turn
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        kept = asyncio.create_task(db.direct.write(_row("g1", 7)))
        await kept  # the next writer's turn comes all the same
        version = await db.direct.scalar(Read(GAMES, "version", {"id": "g1"}))
        moves = (await _counts(db))[0]
        await db.close()
        return seen_once_answered, version, moves

    seen, version, moves = asyncio.run(scenario())
    assert seen == [2]
    assert version == 2 and moves == 2  # the cancelled writer's change is not made; the next one's is


def test_writes_wait_for_a_sessions_open_transaction_then_commit_together(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        await db.direct.write(_game("g2"))
        await _grouping(db)
        opened = asyncio.Event()
        go_on = asyncio.Event()

        async def session_writer() -> None:
            async with db.session() as s:
                record = await s.get(GameRecord, "g1")
                record.draw_offer = None
                record.ply = 40
                await s.flush()  # takes the write lock: SQLite's write transaction is this session's
                opened.set()
                await go_on.wait()
                await s.commit()

        holder = asyncio.create_task(session_writer())
        await opened.wait()
        writes = [asyncio.create_task(db.direct.write(*_move("g2", 1, ply))) for ply in (0,)]
        writes.append(asyncio.create_task(db.direct.write(_row("g2", 5))))
        await asyncio.sleep(0.05)
        waited = [w.done() for w in writes]
        go_on.set()
        await holder
        await asyncio.gather(*writes)
        counts = await _counts(db)
        await db.close()
        return waited, counts

    waited, (moves, versions) = asyncio.run(scenario())
    assert waited == [False, False]  # behind the session's transaction, not failing on SQLite's lock
    assert moves == 2 and versions == {"g1": 1, "g2": 2}


def test_a_batch_meeting_another_processs_lock_goes_through_the_async_engine_writer_by_writer(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        await db.direct.write(_game("g2"))
        await _grouping(db)
        holder = sqlite3.connect(tmp_path / "db.sqlite3", isolation_level=None, check_same_thread=False)
        holder.execute("BEGIN IMMEDIATE")
        released = threading.Timer(0.3, lambda: holder.execute("ROLLBACK"))
        released.start()
        fallbacks = db.direct.fallbacks
        results = await asyncio.gather(
            db.direct.write(*_move("g1", 1, 0)),
            db.direct.write(_row("g2", 0), Update(GAMES, {"ply": 1}, {"id": "g2", "version": 9})),
            return_exceptions=True,
        )
        fallbacks = db.direct.fallbacks - fallbacks
        released.join()
        holder.close()
        counts = await _counts(db)
        await db.close()
        return results, fallbacks, counts

    results, fallbacks, (moves, versions) = asyncio.run(scenario())
    assert results[0] is None and isinstance(results[1], Refused)
    assert fallbacks == 2 and moves == 1 and versions == {"g1": 2, "g2": 1}


def test_writes_are_grouped_only_once_the_turns_hold_several(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        games = [f"g{i}" for i in range(2, 12)]
        for name in games:  # one write a turn: each alone, at once
            await db.direct.write(_game(name))
        group = db.direct._group
        alone = group.transactions, group.per_turn
        versions = dict.fromkeys(games, 1)
        for _ in range(30):  # ten writes a turn, turn after turn: the average climbs, then they group
            changes = [Update(GAMES, {"version": v + 1}, {"id": g, "version": v})
                       for g, v in versions.items()]
            await asyncio.gather(*(db.direct.write(change) for change in changes))
            versions = {g: v + 1 for g, v in versions.items()}
        grouped = group.transactions, group.writes, group.per_turn
        counts = await _counts(db)
        await db.close()
        return alone, grouped, counts

    alone, grouped, (_, versions) = asyncio.run(scenario())
    assert alone[0] == 0 and alone[1] < SIBLINGS  # no group formed
    assert grouped[0] >= 1 and grouped[1] >= 10 * grouped[0] and grouped[2] >= SIBLINGS
    assert versions == {"g1": 1} | {f"g{i}": 31 for i in range(2, 12)}  # every write made, grouped or not
