"""A round robin's game between two players who have both withdrawn (found by an audit: stored with no
winner and "0-0", it was scored as a draw, ½ each, on the standings, the sheets, the draw counts and in
Sonneborn-Berger). A double forfeit scores 0 for both (FIDE), is no game played over the board (not a
draw, no win) and shows on both sheets as a forfeit loss ("0")."""

from __future__ import annotations

import asyncio

from shashki.rules import Color
from shashki.server.tournaments.results import figures
from shashki.server.tournaments.standings import round_robin_standings, swiss_standings
from shashki.server.tournaments.state import DOUBLE_FORFEIT
from shashki.server.tournaments.swiss import SwissGame, SwissPlayer, _states
from shashki.server.tournaments.terms import TournamentTerms

from .test_tournaments_director import end_games, pairings, process

W = Color.WHITE


def by_player(rows):
    return {s.player: s for s in rows}


def test_a_double_forfeit_scores_nothing_for_either_in_the_round_robin_standings():
    # 1 beats 2 over the board; 2 and 3 had both withdrawn when they were to meet.
    games = [SwissGame(1, 1, 2, W), SwissGame(2, 2, 3, None, played=False, double_forfeit=True)]
    s = by_player(round_robin_standings([1, 2, 3], games))
    assert (s[2].points, s[3].points) == (0, 0)
    assert s[1].sonneborn_berger == 0  # 2, beaten, scored nothing (no half point from a "draw")
    assert s[2].wins == s[3].wins == 0
    assert s[2].direct_encounter is None  # 2 and 3 tie on everything but never met over the board


def test_a_double_forfeit_is_an_unplayed_round_of_each_in_the_swiss_records():
    players = [SwissPlayer(i, 2000 - i) for i in (1, 2, 3, 4)]
    games = [SwissGame(1, 1, 2, W), SwissGame(1, 3, 4, None, played=False, double_forfeit=True)]
    s = by_player(swiss_standings(players, games, [], 1))
    assert (s[3].points, s[4].points) == (0, 0)
    assert s[3].buchholz == 0  # a dummy opponent with the player's own score, 0
    states = {r.id: r for r in _states(players, games, [], 2)}
    assert (states[3].score, states[4].score) == (0, 0)
    assert states[3].colors == [] and 4 in states[3].opponents  # nobody sat down; they are not paired again


def test_two_withdrawn_players_game_is_lost_by_both_on_the_standings_and_sheets(tmp_path):
    async def run():
        p = await process(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}")
        users = [await p.service.accounts.register(f"d{i}", "correct horse battery") for i in range(4)]
        terms = TournamentTerms("Double", "roundrobin", "russian-giveaway", 60, 0, starts_at=p.clock.now)
        tid = (await p.service.create(users[0], terms))["id"]
        for u in users:
            await p.service.join(u, tid)
        p.clock.advance(1)
        await p.director.run_once()  # round 1 (Berger, 4 players): 1 v 4, 2 v 3
        a, b = users[2], users[3]  # numbers 3 and 4, who meet in round 2 (4 v 3)
        await p.service.withdraw(a, tid)
        await p.service.withdraw(b, tid)
        await end_games(p, tid)  # Black wins every game: 3 and 4 have a point each
        await p.director.run_once()  # round 2: 4 v 3 stored done, both withdrawn
        snap = await p.service.snapshot(tid)
        (double,) = [x for x in await pairings(p.db, tid) if {x.white_id, x.black_id} == {a.id, b.id}]
        await p.close()
        return snap, double, a.id, b.id

    snap, double, a, b = asyncio.run(run())
    assert (double.winner, double.result, double.status) == (None, DOUBLE_FORFEIT, "finished")
    rows = {s.user_id: s for s in snap.standings()}
    for me in (a, b):
        row = rows[me]
        assert row.score == 1.0, row  # the round-1 win only: nothing for the double forfeit
        assert (row.wins, row.draws, row.losses) == (1, 0, 1), row
        assert row.sheet == "1 0", row
        assert row.tiebreaks is not None and row.tiebreaks["wins"] == 1
        assert figures(snap, me) == {**figures(snap, me), "score": 2, "sheet": "1 0"}  # half points
