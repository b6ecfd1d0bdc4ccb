"""A timed game aborts itself when the side to move does not make its first move in time
(`FirstMoveTimer`, `SHASHKI_FIRST_MOVE_SECONDS`); the state tells every client how long is left
(`first_move_ms`), so that the page counts it down under the clock as lichess does: "N seconds to play the
first move". Counted from the turn's start with the timer's own wait; none once each side has moved, in a
game without a clock, or when the timer is off."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from shashki.server.games.computer import RandomOpponent
from shashki.server.games.service import GameService
from shashki.server.games.terms import GameTerms
from shashki.server.games.view import ALWAYS_PATCHED, build_view, state_patch
from shashki.server.redisbus import make_bus

from .test_faults import _database

CLOCK = GameTerms(clock_initial_ms=60_000)


def _states(tmp_path, **options):
    """The states of a timed game before, between and after each side's first move, the view of its start
    20 s into the first turn, and the states of an untimed game and of a resigned one."""

    async def scenario():
        db = await _database(tmp_path)
        games = GameService(
            db, make_bus(None), engine=RandomOpponent(seed=1), computer_delay_seconds=0, **options
        )
        live = await games.create(white_id=1, black_id=2, terms=CLOCK)
        states = [games.state(live)]
        started = live.record.turn_started_at
        later = build_view(
            live, started + timedelta(seconds=20), gone_ms=None, claim_after_ms=0, first_move_ms=25_000
        ).to_json()
        for ply, (mover, move) in enumerate([(1, "c3-d4"), (2, "f6-g5")]):
            states.append(await games.move(mover, live.id, move, ply=ply))
        untimed = games.state(await games.create(white_id=1, black_id=2))
        resigned = await games.create(white_id=1, black_id=2, terms=CLOCK)
        await games.resign(1, resigned.id)
        ended = games.state(await games.live(resigned.id))
        await games.close()
        await db.close()
        return states, later, untimed, ended

    return asyncio.run(scenario())


def test_each_sides_first_move_has_the_configured_wait_left_counted_from_its_turns_start(tmp_path):
    (start, after_white, after_both), later, untimed, ended = _states(tmp_path, first_move_seconds=25)
    assert 20_000 < start["first_move_ms"] <= 25_000 and start["side_to_move"] == "white"
    # Black's turn begins when White has moved: the whole wait again, for Black's first move.
    assert 20_000 < after_white["first_move_ms"] <= 25_000 and after_white["side_to_move"] == "black"
    assert later["first_move_ms"] == 5_000  # 20 s of the 25 gone
    # Once each side has moved the clocks run and nothing aborts the game any more.
    assert after_both["first_move_ms"] is None and after_both["clocks"]["running"] == "white"
    assert untimed["first_move_ms"] is None  # no clock, no hurry (either player may abort it)
    assert ended["status"] == "aborted" and ended["first_move_ms"] is None


def test_no_first_move_time_is_shown_when_the_timer_is_off(tmp_path):
    (start, after_white, _), *_ = _states(tmp_path, first_move_seconds=0)
    assert start["first_move_ms"] is None and after_white["first_move_ms"] is None


def test_every_patch_carries_the_first_move_time_left_as_it_is_when_built():
    # A state of the same seq built later has less time left: a patch never leaves the value before.
    assert "first_move_ms" in ALWAYS_PATCHED
    before = {"seq": 1, "moves": [], "first_move_ms": 30_000}
    after = {"seq": 2, "moves": ["c3-d4"], "first_move_ms": 30_000}
    assert state_patch(before, after)["set"]["first_move_ms"] == 30_000
