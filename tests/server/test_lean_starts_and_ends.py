"""A game's start and a casual game's end cost what they must and no more (issue 11): a new game is held
in memory as written, not read back and replayed; an end that moves no rating is written like a move, on
the direct path, and only an end an end hook applies to (a rated game's) opens a session for it."""

from __future__ import annotations

import asyncio

from sqlalchemy import event

from shashki.server.games.store import EndHook
from shashki.server.games.terms import GameTerms

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
    assert any(s.startswith("INSERT INTO games") for s in seen)


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
