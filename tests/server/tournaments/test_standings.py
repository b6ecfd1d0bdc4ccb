"""Swiss and round robin standings: FIDE tie-breaks, with unplayed rounds as FIDE C.07 Article 16 says."""

from __future__ import annotations

from shashki.rules import Color
from shashki.server.tournaments.standings import round_robin_standings, swiss_standings
from shashki.server.tournaments.swiss import Bye, ByeKind, SwissGame, SwissPlayer

W, B = Color.WHITE, Color.BLACK
PLAYERS = [SwissPlayer(i, 2000 - i) for i in range(1, 5)]
# Round 1: 1 beats 2, 3 draws 4. Round 2: 1 draws 3, 4 beats 2. Final: 1 1.5, 2 0, 3 1, 4 1.5.
GAMES = [SwissGame(1, 1, 2, W), SwissGame(1, 3, 4, None), SwissGame(2, 3, 1, None), SwissGame(2, 2, 4, B)]


def by_player(standings):
    return {s.player: s for s in standings}


def test_buchholz_is_the_sum_of_the_opponents_scores():
    s = by_player(swiss_standings(PLAYERS, GAMES, [], 2))
    assert s[1].buchholz == 0 + 1  # opponents 2 (0) and 3 (1)
    assert s[4].buchholz == 1 + 0


def test_buchholz_cut_1_drops_the_weakest_opponent():
    s = by_player(swiss_standings(PLAYERS, GAMES, [], 2))
    assert s[1].buchholz_cut1 == 1
    assert s[3].buchholz_cut1 == 1.5  # opponents 4 (1.5) and 1 (1.5)


def test_sonneborn_berger_adds_the_beaten_opponents_and_half_the_drawn():
    s = by_player(swiss_standings(PLAYERS, GAMES, [], 2))
    assert s[1].sonneborn_berger == 0 + 0.5 * 1
    assert s[4].sonneborn_berger == 0.5 * 1 + 0


def test_ties_are_broken_in_the_order_buchholz_cut_sonneborn_berger_wins_direct_encounter():
    standings = swiss_standings(PLAYERS, GAMES, [], 2)
    assert [s.player for s in standings] == [1, 4, 3, 2]  # 1 and 4 tie on points and Buchholz; cut 1 decides
    assert [s.rank for s in standings] == [1, 2, 3, 4]


def test_direct_encounter_separates_players_tied_on_everything_else():
    players = [SwissPlayer(1, 1), SwissPlayer(2, 2)]
    games = [SwissGame(1, 2, 1, B)]
    standings = round_robin_standings([2, 1], games + [SwissGame(2, 1, 2, None)])
    assert [s.player for s in standings] == [1, 2]  # 1.5 to 0.5
    tied = round_robin_standings([1, 2], [SwissGame(1, 1, 2, W), SwissGame(2, 2, 1, W)])
    assert [s.direct_encounter for s in tied] == [1.0, 1.0]
    del players


def test_a_pairing_bye_counts_as_a_game_against_oneself_in_buchholz():
    players = [SwissPlayer(i, 2000 - i) for i in range(1, 4)]
    games = [SwissGame(1, 1, 2, W)]
    byes = [Bye(1, 3, ByeKind.PAIRING)]
    s = by_player(swiss_standings(players, games, byes, 1))
    assert s[3].points == 1.0
    assert s[3].buchholz == 1.0  # the dummy opponent has the player's own score
    assert s[3].sonneborn_berger == 1.0  # 1 point times the dummy's 1
    assert s[3].wins == 0  # a bye is not a game won


def test_an_opponents_missed_rounds_count_as_draws_in_buchholz():
    players = [SwissPlayer(1, 2), SwissPlayer(2, 1)]
    games = [SwissGame(1, 1, 2, W)]  # 2 then misses round 2 (withdrew): 0 points, counted as a draw
    s = by_player(swiss_standings(players, games, [], 2))
    assert s[1].buchholz == 0.5 + 1.0  # opponent 2 (0 + 0.5 for the missed round) + round 2 unplayed (own 1)
    assert s[2].buchholz_cut1 == s[2].buchholz - 0.0  # the missed round (own score 0) is cut first


def test_a_late_joiners_half_point_bye_counts_as_half_a_point():
    players = [SwissPlayer(1, 2), SwissPlayer(2, 1), SwissPlayer(3, 3)]
    games = [SwissGame(1, 1, 2, W), SwissGame(2, 3, 1, None)]
    byes = [Bye(1, 3, ByeKind.LATE_JOIN)]
    s = by_player(swiss_standings(players, games, byes, 2))
    assert s[3].points == 1.0


def test_round_robin_standings_rank_by_points_then_sonneborn_berger():
    games = [SwissGame(1, 1, 2, W), SwissGame(1, 3, 4, W), SwissGame(2, 1, 3, B), SwissGame(2, 2, 4, W),
             SwissGame(3, 1, 4, W), SwissGame(3, 2, 3, W)]
    standings = round_robin_standings([1, 2, 3, 4], games)
    # 1, 2 and 3 score 2 each: SB of 1 = 2 (beat 2) + 0 (beat 4), of 2 = 0 + 2 (beat 4 and 3), of 3 = 0 + 2
    # (beat 4 and 1): still tied; 2 wins each; direct encounter a cycle, 1 each: the lower id first.
    assert [s.player for s in standings] == [1, 2, 3, 4]
    assert all(s.buchholz is None for s in standings)
    assert [s.points for s in standings] == [2, 2, 2, 0]


def test_wins_count_games_won_over_the_board_not_by_forfeit():
    # 1 beats 2 over the board, and 3 by forfeit (3 withdrew: the game was never played).
    games = [SwissGame(1, 1, 2, W), SwissGame(2, 1, 3, W, played=False), SwissGame(3, 2, 3, B)]
    s = by_player(round_robin_standings([1, 2, 3], games))
    assert s[1].points == 2 and s[1].wins == 1
    assert s[3].wins == 1  # its win over 2 was played
