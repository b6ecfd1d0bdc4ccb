"""A game's start and a casual game's end cost what they must and no more (issue 11): a new game is held
in memory as written, not read back and replayed, and written with the rows it claims (the seek or
challenge it answers) in one transaction on the direct path, no session; an end that moves no rating is
written like a move, and a rated game's end with its ratings, in one transaction on the direct path too —
planned again when a rating it read changed before the write, so that no rating change is lost."""

from __future__ import annotations

import asyncio
import secrets
from typing import cast

import pytest
from sqlalchemy import Table, event, func, select

from shashki.server.accounts.models import User
from shashki.server.errors import Conflict
from shashki.server.games.computer import RandomOpponent
from shashki.server.games.hooks import EndHook, EndWrite
from shashki.server.games.models import GameRecord
from shashki.server.games.service import GameService
from shashki.server.games.statements import GAMES, Claim
from shashki.server.games.terms import GameTerms
from shashki.server.redisbus import make_bus
from shashki.server.storage import Database
from shashki.server.storage.base import utcnow
from shashki.server.storage.direct import Insert, Update, new_row

from .helpers import database_url, first_moves_in
from .test_game_parts import _service

USERS = cast(Table, User.__table__)


def _statements(db) -> list[str]:
    """Every statement the async engine runs from now on (the direct SQLite path does not use it)."""
    seen: list[str] = []

    @event.listens_for(db.engine.sync_engine, "before_cursor_execute")
    def record(conn, cursor, statement, parameters, context, executemany):  # noqa: ARG001
        seen.append(" ".join(statement.split()))

    return seen


def test_a_new_game_is_not_read_back_and_its_moves_not_replayed(tmp_path):
    async def scenario():
        db, games = await _service(tmp_path)
        seen = _statements(db)
        live = await games.create(white_id=1, black_id=2, terms=GameTerms(clock_initial_ms=60_000))
        cached = await games.store.live(live.id)
        state = await games.move(1, live.id, "c3-d4", ply=0)
        await games.close()
        await db.close()
        return live, cached, state, seen

    live, cached, state, seen = asyncio.run(scenario())
    assert cached is live  # the game in memory is the one made at its start
    assert state["moves"] == ["c3-d4"] and state["white"]["username"] == "Anna"
    assert not [s for s in seen if "FROM moves" in s or s.startswith("SELECT games.")]


def test_a_game_and_the_rows_it_claims_are_written_together_without_a_session_or_not_at_all(tmp_path):
    """A claim is a guarded update written with the game (here the rematch column of an earlier game, as a
    seek's status or a challenge's is): the first game to claim the row gets it; a second, refused, is
    not stored, and its caller gets the claim's error."""

    async def scenario():
        db, games = await _service(tmp_path)
        first = await games.create(white_id=1, black_id=2, terms=GameTerms())

        def claims(game_id: str) -> list[Claim]:
            taken = Update(GAMES, {"rematch_id": game_id}, {"id": first.id, "rematch_id": None})
            return [Claim(taken, Conflict("rematch_taken", "Someone else took it."))]

        seen = _statements(db)
        second = await games.create(white_id=2, black_id=1, terms=GameTerms(), claims=claims)
        statements = list(seen)
        with pytest.raises(Conflict) as refused:
            await games.create(white_id=2, black_id=1, terms=GameTerms(), claims=claims)
        cached = games.store.cached
        async with db.session() as s:
            stored = await s.scalar(select(func.count()).select_from(GameRecord))
            claimed = await s.scalar(select(GameRecord.rematch_id).where(GameRecord.id == first.id))
            row = await s.get(GameRecord, second.id)
            assert row is not None
            as_written = {c.key: getattr(row, c.key) for c in GAMES.columns}
        in_memory = {c.key: getattr(second.record, c.key) for c in GAMES.columns}
        await games.close()
        await db.close()
        return second, statements, refused.value, cached, stored, claimed, as_written, in_memory

    second, statements, refused, cached, stored, claimed, as_written, in_memory = asyncio.run(scenario())
    assert statements == []  # the game's row and its claim went on the direct path
    assert claimed == second.id
    assert refused.code == "rematch_taken"
    assert stored == 2 and cached == 2  # the refused game was neither stored nor held in memory
    assert in_memory == as_written  # the record in memory is the row stored, defaults included


def test_an_end_that_moves_no_rating_is_written_like_a_move_and_a_rated_end_runs_its_hook(tmp_path):
    ran: list[str] = []

    async def rate(record, outcome, now):
        ran.append(record.id)
        return EndWrite([], {"white_rating": 1234})

    async def scenario():
        db, games = await _service(tmp_path)
        games.end_hooks.append(EndHook(applies=lambda record, outcome: record.rated, plan=rate))
        terms = GameTerms(clock_initial_ms=60_000)
        casual = await games.create(white_id=1, black_id=2, terms=terms)
        rated_terms = GameTerms(clock_initial_ms=60_000, rated=True)
        rated = await games.create(white_id=1, black_id=2, terms=rated_terms)
        for game in (casual, rated):
            await first_moves_in(games, game.id, 1, 2)
        seen = _statements(db)
        casual_end = await games.resign(2, casual.id)
        rated_end = await games.resign(1, rated.id)
        stored = await games.store.record(casual.id)  # finished: read from the database
        stored_rated = await games.store.record(rated.id)
        await games.close()
        await db.close()
        return casual_end, rated_end, seen, stored, stored_rated, rated.id

    casual_end, rated_end, seen, stored, stored_rated, rated_id = asyncio.run(scenario())
    assert casual_end["status"] != "started" and casual_end["winner"] == "white"
    assert rated_end["status"] != "started" and rated_end["winner"] == "black"
    assert ran == [rated_id]  # the hook ran for the rated game's end only
    assert not [s for s in seen if s.startswith("UPDATE games")]  # both ends on the direct path
    assert (stored.status, stored.result, stored.version) == (casual_end["status"], "1-0", 4)
    assert (stored_rated.result, stored_rated.white_rating) == ("0-1", 1234)  # the hook's column with it


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_a_rating_changed_between_the_read_and_the_write_has_the_end_planned_again(database, tmp_path):
    """Two rated games of one player ending at once: the second end's compare-and-set on the rating it
    read loses to the first, and it is planned again from the rating the first one left; both count."""
    from shashki.server.ratings.service import RatingService

    async def scenario():
        db = await Database(database_url(database, tmp_path)).open()
        ids = []
        for _ in range(2):  # fresh accounts: the PostgreSQL database is shared
            name = "r" + secrets.token_hex(5)
            user = User(username=name, username_key=name, password_hash="-", created_at=utcnow())
            ids.append(await db.direct.insert(Insert(USERS, new_row(user))))
        anna_id, boris_id = ids
        games = GameService(db, make_bus(None), engine=RandomOpponent(seed=1), computer_delay_seconds=0)
        ratings = RatingService(db)
        games.end_hooks.append(ratings.end_hook)
        terms = GameTerms(clock_initial_ms=60_000, rated=True)
        first = await games.create(white_id=anna_id, black_id=boris_id, terms=terms)
        second = await games.create(white_id=anna_id, black_id=boris_id, terms=terms)
        third = await games.create(white_id=anna_id, black_id=boris_id, terms=terms)
        for game in (first, second, third):
            await first_moves_in(games, game.id, anna_id, boris_id)
        await games.resign(boris_id, first.id)  # both players have a rating row now
        planned: list[str] = []
        plan = ratings.on_game_end

        async def plan_with_a_rival(record, outcome, now):
            found = await plan(record, outcome, now)
            planned.append(record.id)
            if len(planned) == 1:  # after this read, another game's end moves the same ratings
                await games.resign(boris_id, second.id)
            return found

        games.end_hooks[:] = [EndHook(applies=ratings.rates, plan=plan_with_a_rival)]
        await games.resign(boris_id, third.id)
        anna = await ratings.of_user(anna_id)
        stored = await games.store.record(third.id)
        await games.close()
        await db.close()
        return planned, anna, stored, (first.id, second.id, third.id)

    planned, anna, stored, (first, second, third) = asyncio.run(scenario())
    assert planned == [third, second, third]  # the third's end planned again after the second's won
    assert [r["games"] for r in anna] == [3]  # three rated wins, none lost to the race
    assert stored.result == "1-0" and stored.white_rating_diff is not None and stored.white_rating_diff > 0
