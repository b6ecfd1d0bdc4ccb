"""A game's start and a casual game's end cost what they must and no more (issue 11): a new game is held
in memory as written, not read back and replayed, and written with the rows it claims (the seek or
challenge it answers) in one transaction on the direct path, no session; an end that moves no rating is
written like a move, on the direct path, and only an end an end hook applies to (a rated game's) opens a
session for it."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import event, func, select

from shashki.server.errors import Conflict
from shashki.server.games.models import GameRecord
from shashki.server.games.statements import GAMES, Claim
from shashki.server.games.store import EndHook
from shashki.server.games.terms import GameTerms
from shashki.server.storage.direct import Update

from .test_game_parts import _service


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
        cached = len(games.store._live)
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

    async def rate(s, record, outcome, now):
        ran.append(record.id)
        return {}

    async def scenario():
        db, games = await _service(tmp_path)
        games.end_hooks.append(EndHook(applies=lambda record, outcome: record.rated, run=rate))
        terms = GameTerms(clock_initial_ms=60_000)
        casual = await games.create(white_id=1, black_id=2, terms=terms)
        rated_terms = GameTerms(clock_initial_ms=60_000, rated=True)
        rated = await games.create(white_id=1, black_id=2, terms=rated_terms)
        seen = _statements(db)
        casual_end = await games.resign(2, casual.id)
        casual_statements = list(seen)
        rated_end = await games.resign(1, rated.id)
        stored = await games.store.record(casual.id)  # finished: read from the database
        await games.close()
        await db.close()
        return casual_end, casual_statements, rated_end, seen, stored, rated.id

    casual_end, casual_statements, rated_end, seen, stored, rated_id = asyncio.run(scenario())
    assert casual_end["status"] != "started" and casual_end["winner"] == "white"
    assert rated_end["status"] != "started" and rated_end["winner"] == "black"
    assert ran == [rated_id]  # the hook ran for the rated game's end only
    assert not [s for s in casual_statements if s.startswith("UPDATE games")]  # on the direct path
    assert [s for s in seen if s.startswith("UPDATE games")]  # the rated end, in the hook's session
    assert (stored.status, stored.result, stored.version) == (casual_end["status"], "1-0", 2)
