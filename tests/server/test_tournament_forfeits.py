"""A tournament game that nobody starts (aborted before each side has moved): in a Swiss event or a round
robin it is lost by the side that was to move, by forfeit, in every variant, Black first in English and
Pool included (found by an audit: the point went to the absent Black); a forfeit scores as a win but not
as a game won over the board (the wins tie-break leaves it out); and a round robin's free round, which
scores nothing, is shown on the sheet as no game."""

from __future__ import annotations

import asyncio

import pytest

from shashki.server.tournaments.terms import TournamentTerms

from .test_tournaments_director import pairings, process


async def _event(tmp_path, system: str, variant: str, players: int):
    p = await process(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}")
    users = [await p.service.accounts.register(f"f{i}", "correct horse battery") for i in range(players)]
    terms = TournamentTerms("Forfeits", system, variant, 60, 0, starts_at=p.clock.now, rounds=1)
    t = await p.service.create(users[0], terms)
    for u in users:
        await p.service.join(u, t["id"])
    p.clock.advance(1)
    await p.director.run_once()
    return p, t["id"], users


async def _recorded(p, tid: str) -> list:
    for _ in range(100):
        if not await pairings(p.db, tid, "started"):
            return await pairings(p.db, tid)
        await asyncio.sleep(0.02)
    raise AssertionError("the results were not recorded")


@pytest.mark.parametrize(
    ("variant", "plies", "winner"),
    [
        ("russian-giveaway", 0, "black"),  # White, to move first, did not start
        ("russian-giveaway", 1, "white"),  # White moved; Black did not answer
        ("english", 0, "white"),  # Black moves first in English draughts: Black did not start
        ("pool-giveaway", 0, "white"),
        ("english", 1, "black"),
    ],
)
def test_the_side_that_did_not_start_loses_by_forfeit(tmp_path, variant, plies, winner):
    async def run():
        p, tid, _ = await _event(tmp_path, "swiss", variant, 2)
        (pairing,) = await pairings(p.db, tid, "started")
        if plies:
            state = p.games.state(await p.games.live(pairing.game_id))
            mover = pairing.white_id if state["side_to_move"] == "white" else pairing.black_id
            await p.games.move(mover, pairing.game_id, state["legal_moves"][0]["move"])
        await p.games.actions.abort_unstarted(pairing.game_id, 0)  # the first-move timer
        (done,) = await _recorded(p, tid)
        standings = (await p.service.standings(tid))["players"]
        await p.close()
        return done, standings

    done, standings = asyncio.run(run())
    assert (done.winner, done.result) == (winner, "+-" if winner == "white" else "-+")
    top = standings[0]
    assert top["score"] == 1 and top["tiebreaks"]["wins"] == 0, standings  # no win over the board


def test_the_round_robins_free_round_is_no_game_on_the_sheet(tmp_path):
    async def run():
        p, tid, _ = await _event(tmp_path, "roundrobin", "russian-giveaway", 3)
        free = next(x for x in await pairings(p.db, tid) if x.bye is not None)
        snap = await p.service.snapshot(tid)
        await p.close()
        return free, snap

    free, snap = asyncio.run(run())
    marks, *_ = snap._sheets()[free.white_id]
    assert free.bye == "free" and marks == ["-"]
