"""A tournament's game is never aborted by a player (found by an audit: aborting on the opponent's turn
charged the opponent with not starting, a forfeit in a Swiss event, a pause in an arena), as on lichess;
and berserk's "before your first move" follows the side that moves first (Black in English draughts)."""

from __future__ import annotations

import asyncio

import pytest

from shashki.rules import Color
from shashki.server.errors import Conflict

from .test_tournament_forfeits import _event, _recorded


@pytest.mark.parametrize("system", ["swiss", "roundrobin"])
def test_neither_player_aborts_a_tournament_game_and_the_timer_still_charges_the_absent(tmp_path, system):
    async def run():
        p, tid, _ = await _event(tmp_path, system, "russian-giveaway", 2)
        try:
            (pairing,) = await _pairings(p, tid)
            refused = []
            for user in (pairing.black_id, pairing.white_id):  # the side not to move first, then the mover
                with pytest.raises(Conflict) as error:
                    await p.games.abort(user, pairing.game_id)
                refused.append(error.value.code)
            still = (await p.games.record(pairing.game_id)).status.value
            await p.games.actions.abort_unstarted(pairing.game_id, 0)  # White, to move, never started
            (done,) = await _recorded(p, tid)
            return refused, still, done.winner
        finally:
            await p.close()

    refused, still, winner = asyncio.run(run())
    assert refused == ["tournament_game", "tournament_game"]
    assert still == "started"
    assert winner == "black"


async def _pairings(p, tid):
    from .test_tournaments_director import pairings

    for _ in range(100):
        found = await pairings(p.db, tid, "started")
        if found:
            return found
        await asyncio.sleep(0.02)
    raise AssertionError("no game was paired")


def test_berserk_is_before_ones_own_first_move_when_black_moves_first(tmp_path):
    async def run():
        p, tid, _ = await _event(tmp_path, "swiss", "english", 2)
        try:
            (pairing,) = await _pairings(p, tid)
            state = p.games.state(await p.games.live(pairing.game_id))
            assert state["side_to_move"] == "black"  # English draughts: Black moves first
            await p.games.move(pairing.black_id, pairing.game_id, state["legal_moves"][0]["move"])
            white = await p.games.halve_clock(pairing.game_id, Color.WHITE)  # White has not moved yet
            with pytest.raises(Conflict) as error:
                await p.games.halve_clock(pairing.game_id, Color.BLACK)  # Black has
            return white["clocks"], error.value.code
        finally:
            await p.close()

    clocks, refused = asyncio.run(run())
    assert clocks["white_ms"] == clocks["initial_ms"] // 2 and clocks["black_ms"] == clocks["initial_ms"]
    assert refused == "already_moved"


def test_a_tournament_game_has_no_rematch(tmp_path):
    """As on lichess (found by an audit: an arena's players could play a rematch outside the arena; the
    same in any system): the tournament pairs its players again itself."""
    from shashki.server.games.rematch import RematchService

    async def run():
        p, tid, _ = await _event(tmp_path, "swiss", "russian-giveaway", 2)
        try:
            (pairing,) = await _pairings(p, tid)
            rematch = RematchService(p.games, p.games.bus)
            state = p.games.state(await p.games.live(pairing.game_id))
            await p.games.move(pairing.white_id, pairing.game_id, state["legal_moves"][0]["move"])
            await p.games.resign(pairing.black_id, pairing.game_id)
            with pytest.raises(Conflict) as error:
                await rematch.offer(pairing.white_id, pairing.game_id)
            return error.value.code
        finally:
            await p.close()

    assert asyncio.run(run()) == "tournament_rematch"
