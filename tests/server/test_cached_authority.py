"""With events in this process (no Redis) the cached game is the authority: no read of its version before
each action (games/store.py `refresh`), and yet a second writer on the same database file loses nothing:
the compare-and-set refuses the stale write, and the next action works on the game reloaded."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from shashki.server.accounts.models import User
from shashki.server.errors import Conflict
from shashki.server.games.computer import RandomOpponent
from shashki.server.games.models import GameRecord, GameStatus
from shashki.server.games.rematch import RematchService
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


def test_two_players_offering_each_other_a_draw_from_two_processes_agree(tmp_path):
    """The offer that loses the compare-and-set (the other's offer was committed after this process read
    the game) is made again on the game read afresh: offering back is accepting, across processes too
    (found by an audit: 409 ply_already_played)."""

    async def scenario():
        db = await _database(tmp_path)
        here, elsewhere = _games(db), _games(db)
        game = await here.create(white_id=1, black_id=2)
        await here.move(1, game.id, "c3-d4", ply=0)
        await here.move(2, game.id, "f6-g5", ply=1)
        offered = await elsewhere.offer_draw(2, game.id)  # here has not heard of it
        agreed = await here.offer_draw(1, game.id)
        for service in (here, elsewhere):
            await service.close()
        await db.close()
        return offered, agreed

    offered, agreed = asyncio.run(scenario())
    assert offered["status"] == "started" and offered["draw_offer"] == "black"
    assert (agreed["status"], agreed["winner"], agreed["reason"]) == ("finished", None, "agreement")


def test_two_players_offering_each_other_a_rematch_from_two_processes_start_it(tmp_path, monkeypatch):
    """Both processes read the finished game before either writes its offer: the one refused by the
    compare-and-set reads the game again, finds the other's offer and starts the rematch; one game only."""

    async def scenario():
        db = await _database(tmp_path)
        here, elsewhere = _games(db), _games(db)
        rematch_here = RematchService(here, here.bus)
        rematch_elsewhere = RematchService(elsewhere, elsewhere.bus)
        game = await here.create(white_id=1, black_id=2)
        await here.move(1, game.id, "c3-d4", ply=0)
        await here.move(2, game.id, "f6-g5", ply=1)
        await here.resign(1, game.id)
        commit = here.store.commit
        crossed = []

        async def after_the_other_offer(live, changes, *args, **kwargs):
            if changes.get("rematch_offer") is not None and not crossed:
                # Black's offer is written elsewhere between this process's read and its write.
                crossed.append(await rematch_elsewhere.offer(2, game.id))
            return await commit(live, changes, *args, **kwargs)

        monkeypatch.setattr(here.store, "commit", after_the_other_offer)
        started = await rematch_here.offer(1, game.id)
        old = await here.record(game.id)
        games_of_white = await here.queries.started_ids(1)
        for service in (here, elsewhere):
            await service.close()
        await db.close()
        return crossed, started, old, games_of_white

    crossed, started, old, games_of_white = asyncio.run(scenario())
    assert crossed == [{"rematch": {"offer": "black", "game_id": None}}]
    new = started["game"]
    assert old.rematch_id == new["id"] and old.rematch_offer is None
    assert new["white"]["id"] == 2 and new["black"]["id"] == 1
    assert games_of_white == [new["id"]]


def test_a_rematch_accepted_on_two_processes_at_once_makes_one_game(tmp_path, monkeypatch):
    """Found by an audit (a double click behind two processes): each accept made a game, and the loser's
    was aborted but stayed in both players' histories. The old game now names its rematch in the new
    game's own transaction: the second accept stores no game and is told the rematch exists."""

    async def scenario():
        db = await _database(tmp_path)
        here, elsewhere = _games(db), _games(db)
        rematch_here = RematchService(here, here.bus)
        rematch_elsewhere = RematchService(elsewhere, elsewhere.bus)
        game = await here.create(white_id=1, black_id=2)
        await here.move(1, game.id, "c3-d4", ply=0)
        await here.move(2, game.id, "f6-g5", ply=1)
        await here.resign(1, game.id)
        await rematch_here.offer(1, game.id)
        await elsewhere.live(game.id)  # read there before either accept writes
        create = elsewhere.create
        first: list[dict] = []

        async def after_the_other_accept(**terms):
            if not first:
                first.append(await rematch_here.accept(2, game.id))  # the other accept, all of it
            return await create(**terms)

        monkeypatch.setattr(elsewhere, "create", after_the_other_accept)
        with pytest.raises(Conflict) as second:
            await rematch_elsewhere.accept(2, game.id)
        async with db.session() as s:
            rows = list(await s.execute(select(GameRecord.id, GameRecord.status)))
        for service in (here, elsewhere):
            await service.close()
        await db.close()
        return first, second.value, rows

    first, second, rows = asyncio.run(scenario())
    new = first[0]["game"]["id"]
    assert second.code == "rematch_exists" and second.details["game_id"] == new
    assert len(rows) == 2 and all(status != GameStatus.ABORTED for _, status in rows), rows


def test_a_flag_check_on_a_copy_behind_the_game_is_done_again_on_the_game(tmp_path):
    """Found by an audit: the flag timer of a process that had not heard of a move yet lost its commit's
    compare-and-set (StaleCopy) and logged a traceback. It is done again on the game read afresh, which
    flags nobody when the move was in time."""

    async def scenario():
        db = await _database(tmp_path)
        here, elsewhere = _games(db), _games(db)
        checks: list[str] = []
        here.flags._fire = checks.append  # type: ignore[method-assign]  # its timer: its check done below by hand
        game = await here.create(white_id=1, black_id=2, clock_initial_ms=2000)
        await here.move(1, game.id, "c3-d4", ply=0)
        await here.move(2, game.id, "f6-g5", ply=1)  # White's clock runs from here
        await asyncio.sleep(0.5)
        await elsewhere.move(1, game.id, "g3-h4", ply=2)  # in time, behind here's back
        await asyncio.sleep(1.7)  # here's copy: White flagged; in fact Black has 0.3 s left
        await here.actions.check_flag(game.id)  # as here's flag timer does
        state = here.state(await here.live(game.id))
        for service in (here, elsewhere):
            await service.close()
        await db.close()
        return state

    state = asyncio.run(scenario())
    assert state["status"] == "started" and state["ply"] == 3 and state["side_to_move"] == "black"
