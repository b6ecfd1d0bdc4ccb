"""A Swiss event's standings while a round is being played (found by an audit: the round in progress
counted as a round that nobody played, a dummy opponent and half a point for each, which moved Buchholz,
Buchholz cut 1 and Sonneborn-Berger during the event). The tie-breaks are those after the completed rounds
(a round is complete when all its games have ended); the points count every game ended; the final
standings are as before."""

from __future__ import annotations

import asyncio

from shashki.rules import Color
from shashki.server.tournaments.standings import swiss_standings
from shashki.server.tournaments.swiss import SwissGame, SwissPlayer

from .test_tournaments_director import end_games, pairings, process, swiss_with_players

W, B = Color.WHITE, Color.BLACK
PLAYERS = [SwissPlayer(i, 2000 - i) for i in range(1, 5)]
ROUND_1 = [SwissGame(1, 1, 2, W), SwissGame(1, 3, 4, None)]


def tiebreaks(rows):
    return {s.player: (s.buchholz, s.buchholz_cut1, s.sonneborn_berger, s.wins) for s in rows}


def test_the_tiebreaks_during_a_round_are_those_of_the_rounds_completed():
    after_round_1 = swiss_standings(PLAYERS, ROUND_1, [], 1)
    # Round 2 in play: 1 v 3 still running, 4 has beaten 2.
    during = swiss_standings(PLAYERS, [*ROUND_1, SwissGame(2, 2, 4, B)], [], 2, completed=1)
    assert tiebreaks(during) == tiebreaks(after_round_1)
    points = {s.player: s.points for s in during}
    assert points == {1: 1.0, 2: 0.0, 3: 0.5, 4: 1.5}  # the game ended counts already
    assert [s.player for s in during][:2] == [4, 1]
    assert {s.player: s.buchholz for s in during} == {1: 0.0, 2: 1.0, 3: 0.5, 4: 0.5}


def test_the_final_standings_do_not_change():
    games = [*ROUND_1, SwissGame(2, 2, 4, B), SwissGame(2, 3, 1, None)]
    assert swiss_standings(PLAYERS, games, [], 2, completed=2) == swiss_standings(PLAYERS, games, [], 2)


def test_a_swiss_events_standings_while_round_2_is_played(tmp_path):
    async def run():
        p = await process(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}")
        tid, users = await swiss_with_players(p, 4, rounds=2)
        p.clock.advance(1)
        await p.director.run_once()
        opponent = {}
        for x in await pairings(p.db, tid, "started"):
            opponent[x.white_id], opponent[x.black_id] = x.black_id, x.white_id
        await end_games(p, tid)  # round 1: Black wins both games
        await p.director.run_once()  # round 2 paired and in play
        playing = await pairings(p.db, tid, "started")
        first = (await p.service.snapshot(tid)).standings()
        await p.games.resign(playing[0].white_id, playing[0].game_id)  # one round-2 game ends
        for _ in range(100):
            if len(await pairings(p.db, tid, "started")) == 1:
                break
            await asyncio.sleep(0.02)
        second = (await p.service.snapshot(tid)).standings()
        await end_games(p, tid)
        snap = await p.service.snapshot(tid)
        await p.close()
        return opponent, first, second, snap, playing[0].black_id

    opponent, first, second, snap, winner = asyncio.run(run())
    score = {s.user_id: s.score for s in first}
    for s in first:  # after one complete round: Buchholz is the round-1 opponent's score, no more
        assert s.tiebreaks is not None
        assert s.tiebreaks["buchholz"] == score[opponent[s.user_id]], first
        assert s.tiebreaks["buchholz_cut1"] == 0, first
        assert s.tiebreaks["sonneborn_berger"] == 0, first  # the winners beat players who scored 0
    before = {s.user_id: s.tiebreaks for s in first}
    assert {s.user_id: s.tiebreaks for s in second} == before  # a round-2 game ended: round 2 is not complete
    assert next(s.score for s in second if s.user_id == winner) == score[winner] + 1  # live points
    final = swiss_standings(snap.swiss_players(), snap.swiss_games(), snap.byes(), snap.tournament.round)
    assert [(s.user_id, s.tiebreaks) for s in snap.standings()] == [
        (s.player, {"buchholz": s.buchholz, "buchholz_cut1": s.buchholz_cut1,
                    "sonneborn_berger": s.sonneborn_berger, "wins": s.wins, "direct": s.direct_encounter})
        for s in final
    ]
