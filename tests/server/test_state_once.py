"""A change's state is made once, whoever reads it (issue 11): one JSON text for every socket of the game,
the legal moves of a position computed once for all its states, and a move in exact notation resolved
from them — while moves in other notations still go to the rules' parser."""

from __future__ import annotations

import asyncio
import json

import pytest

from shashki.server.errors import Invalid
from shashki.server.events import Encoded
from shashki.server.games.view import build_view

from .test_game_parts import _service


def test_a_published_state_is_serialised_once_and_every_listener_gets_that_text(tmp_path):
    async def scenario():
        db, games = await _service(tmp_path)
        live = await games.create(white_id=1, black_id=2)
        async with games.bus.subscribe(f"game:{live.id}") as a, games.bus.subscribe(f"game:{live.id}") as b:
            answer = await games.move(1, live.id, "c3-d4", ply=0)
            first, second = await a.get(), await b.get()
        await games.close()
        await db.close()
        return answer, first, second

    answer, first, second = asyncio.run(scenario())
    assert isinstance(first, Encoded) and first is second
    assert json.loads(first.text) == first == {"type": "state", "seq": 2, "game": answer}
    assert answer["moves"] == ["c3-d4"]


def test_the_states_of_one_position_share_its_legal_moves(tmp_path):
    async def scenario():
        db, games = await _service(tmp_path)
        one = await games.create(white_id=1, black_id=2)
        other = await games.create(white_id=2, black_id=1)
        views = [build_view(g, one.record.created_at, gone_ms=None, claim_after_ms=0) for g in (one, other)]
        await games.close()
        await db.close()
        return views

    first, second = asyncio.run(scenario())
    assert first.legal_moves and first.legal_moves == second.legal_moves
    assert first.to_json()["legal_moves"] is second.to_json()["legal_moves"]  # computed once
    assert first.to_json() is first.to_json()  # and each view's JSON made once


@pytest.mark.parametrize("typed", ["c3-d4", " c3-d4 ", "c3d4", "C3-D4"])
def test_a_move_in_any_accepted_notation_is_played_as_the_same_move(tmp_path, typed):
    async def scenario():
        db, games = await _service(tmp_path)
        live = await games.create(white_id=1, black_id=2)
        state = await games.move(1, live.id, typed, ply=0)
        with pytest.raises(Invalid):
            await games.move(2, live.id, "a1-b2", ply=1)  # refused with the rules' reason
        await games.close()
        await db.close()
        return state

    assert asyncio.run(scenario())["moves"] == ["c3-d4"]
