"""Arena rules: lichess's scoring (streaks, berserk, quick draws, draw streaks), standings, pairing waves and
pauses."""

from __future__ import annotations

import random

from shashki.rules import Color
from shashki.server.tournaments.arena import (
    ArenaGame,
    ArenaPlayer,
    ArenaRules,
    Flag,
    Outcome,
    arena_sheet,
    arena_standings,
    performance,
)
from shashki.server.tournaments.arena_pairing import Waiting, pair_wave, rejoin_delay

W, B = Color.WHITE, Color.BLACK
LONG = 80  # plies: long enough for every lichess condition


def win(opponent: int = 9, plies: int = LONG, berserk: bool = False) -> ArenaGame:
    """A game player 1 wins with white."""
    return ArenaGame(1, opponent, W, plies, white_berserk=berserk)


def loss(opponent: int = 9, plies: int = LONG) -> ArenaGame:
    return ArenaGame(1, opponent, B, plies)


def draw(opponent: int = 9, plies: int = LONG) -> ArenaGame:
    return ArenaGame(1, opponent, None, plies)


def points(*games: ArenaGame, rules: ArenaRules = ArenaRules()) -> list[int]:
    return [e.points for e in arena_sheet(1, games, rules).entries]


def test_a_win_is_two_points_a_draw_one_a_loss_none():
    assert points(win(), loss(), draw(), loss()) == [2, 0, 1, 0]


def test_two_wins_in_a_row_double_every_further_win_until_a_non_win():
    assert points(win(), win(), win(), win(), loss(), win()) == [2, 2, 4, 4, 0, 2]


def test_a_draw_on_fire_is_doubled_and_ends_the_streak():
    # The FAQ's example: "two wins followed by a draw will be worth 6 points: 2 + 2 + (2 x 1)"
    sheet = arena_sheet(1, [win(), win(), draw(), win()])
    assert [e.points for e in sheet.entries] == [2, 2, 2, 2]
    assert sheet.total == 8


def test_the_player_is_on_fire_after_two_wins_and_not_after_a_non_win():
    assert arena_sheet(1, [loss(), win(), win()]).on_fire
    assert not arena_sheet(1, [win(), win(), draw()]).on_fire
    assert not arena_sheet(1, [win(), win()], ArenaRules(streaks=False)).on_fire


def test_streaks_switched_off_score_every_win_two():
    assert points(win(), win(), win(), draw(), rules=ArenaRules(streaks=False)) == [2, 2, 2, 1]


def test_a_draw_within_the_first_ten_moves_gives_neither_player_a_point():
    game = ArenaGame(1, 2, None, 19)
    assert arena_sheet(1, [game]).entries[0].outcome is Outcome.QUICK_DRAW
    assert arena_sheet(1, [game]).total == arena_sheet(2, [game]).total == 0
    assert points(ArenaGame(1, 2, None, 20)) == [1]


def test_a_quick_draw_ends_a_streak():
    assert points(win(), win(), draw(plies=10), win()) == [2, 2, 0, 2]


def test_a_short_draw_in_a_draw_streak_scores_nothing_and_a_long_one_scores():
    # "only the first draw will result in a point or draws lasting more than 30 moves"
    assert points(draw(), draw(plies=59), draw(plies=60)) == [1, 0, 1]


def test_the_draw_streak_is_broken_by_a_win_not_by_a_loss():
    assert points(draw(), loss(), draw(plies=40)) == [1, 0, 0]
    assert points(draw(), win(), draw(plies=40)) == [1, 2, 1]


def test_the_draw_streak_rule_can_be_switched_off_as_lidraughts_has_no_such_rule():
    assert points(draw(), draw(plies=40), rules=ArenaRules(draw_streak_min_plies=None)) == [1, 1]


def test_berserk_adds_a_point_to_a_win_of_at_least_seven_moves():
    assert points(win(berserk=True, plies=14)) == [3]
    assert points(win(berserk=True, plies=13)) == [2]
    sheet = arena_sheet(1, [win(berserk=True, plies=13)])
    assert sheet.entries[0].berserk and not sheet.entries[0].berserk_valid


def test_berserk_adds_nothing_to_a_draw_or_a_loss():
    drawn = ArenaGame(1, 2, None, LONG, white_berserk=True)
    lost = ArenaGame(1, 2, B, LONG, white_berserk=True)
    assert points(drawn, lost) == [1, 0]


def test_a_berserk_win_on_fire_is_five_points():
    assert points(win(), win(), win(berserk=True)) == [2, 2, 5]


def test_berserk_counts_only_in_arenas_that_allow_it():
    assert points(win(berserk=True), rules=ArenaRules(berserk=False)) == [2]


def test_both_wins_that_start_a_streak_are_marked_and_a_lone_win_is_not():
    flags = [e.flag for e in arena_sheet(1, [win(), loss(), win(), win(), win()]).entries]
    assert flags == [Flag.NORMAL, Flag.NORMAL, Flag.STREAK_STARTER, Flag.STREAK_STARTER, Flag.DOUBLE]


def test_the_sheet_of_each_player_is_their_own():
    game = ArenaGame(1, 2, W, LONG)
    assert arena_sheet(1, [game]).total == 2
    assert arena_sheet(2, [game]).total == 0


# ------------------------------------------------------------------------------------------------
# Standings


def test_performance_is_the_mean_of_opponent_rating_plus_or_minus_500():
    games = [ArenaGame(1, 2, W, LONG, black_rating=1600), ArenaGame(3, 1, W, LONG, white_rating=1800),
             ArenaGame(1, 4, None, LONG, black_rating=1700)]
    assert performance(1, games) == round((2100 + 1300 + 1700) / 3)
    assert performance(5, games) is None


def test_standings_rank_by_points_then_performance():
    players = [ArenaPlayer(1, 1500), ArenaPlayer(2, 1500), ArenaPlayer(3, 1500), ArenaPlayer(4, 1500)]
    games = [ArenaGame(1, 2, W, LONG, white_rating=1500, black_rating=1200),
             ArenaGame(3, 4, W, LONG, white_rating=1500, black_rating=1900)]
    standings = arena_standings(players, games)
    assert [s.player for s in standings] == [3, 1, 2, 4]  # 3 beat a 1900, 1 beat a 1200
    assert [s.rank for s in standings] == [1, 2, 3, 4]


def test_before_any_game_the_standings_follow_the_ratings():
    standings = arena_standings([ArenaPlayer(1, 1400), ArenaPlayer(2, 1900), ArenaPlayer(3, 1600)], [])
    assert [s.player for s in standings] == [2, 3, 1]


def test_standings_show_the_streak_mark_and_keep_withdrawn_players():
    players = [ArenaPlayer(1, 1500), ArenaPlayer(9, 1500, withdrawn=True)]
    standings = arena_standings(players, [win(), win()])
    assert standings[0].player == 1 and standings[0].on_fire and standings[0].score == 4
    assert standings[1].player == 9 and standings[1].score == 0


# ------------------------------------------------------------------------------------------------
# Pairing waves


def _standings(n: int, games: list[ArenaGame] = ()) -> list:
    return arena_standings([ArenaPlayer(i, 2000 - i) for i in range(1, n + 1)], list(games))


def _waiting(*players: int) -> list[Waiting]:
    return [Waiting(p, float(k)) for k, p in enumerate(players)]


def test_a_wave_pairs_neighbours_in_the_standings():
    pairs = pair_wave(_waiting(1, 2, 3, 4), _standings(4), [])
    assert sorted(tuple(sorted(p)) for p in pairs) == [(1, 2), (3, 4)]


def test_a_wave_never_pairs_a_player_with_their_last_opponent():
    games = [ArenaGame(1, 2, W, LONG), ArenaGame(3, 4, W, LONG)]
    pairs = pair_wave(_waiting(1, 2, 3, 4), _standings(4, games), games)
    assert sorted(tuple(sorted(p)) for p in pairs) in ([(1, 3), (2, 4)], [(1, 4), (2, 3)])


def test_with_an_odd_number_waiting_the_latest_to_arrive_waits():
    pairs = pair_wave(_waiting(1, 2, 3), _standings(3), [])
    assert sorted(sorted(p) for p in pairs) == [[1, 2]]
    pairs = pair_wave([Waiting(1, 5.0), Waiting(2, 1.0), Waiting(3, 2.0)], _standings(3), [])
    assert sorted(sorted(p) for p in pairs) == [[2, 3]]


def test_if_the_latest_arrival_must_play_for_anyone_to_play_they_do():
    games = [ArenaGame(1, 2, W, LONG)]
    pairs = pair_wave([Waiting(1, 1.0), Waiting(2, 2.0), Waiting(3, 3.0)], _standings(3, games), games)
    assert len(pairs) == 1 and 3 in pairs[0]


def test_the_last_two_active_players_may_play_again():
    games = [ArenaGame(1, 2, W, LONG)]
    assert len(pair_wave(_waiting(1, 2), _standings(2, games), games)) == 1  # the arena has only them
    assert pair_wave(_waiting(1, 2), _standings(5, games), games, active_players=5) == []
    assert len(pair_wave(_waiting(1, 2), _standings(5, games), games, active_players=2)) == 1


def test_the_player_with_more_whites_gets_black():
    games = [ArenaGame(1, 5, W, LONG), ArenaGame(6, 2, W, LONG)]
    pairs = pair_wave(_waiting(1, 2), _standings(6, games), games)
    assert pairs == [(2, 1)]


def test_two_players_with_three_whites_in_a_row_do_not_meet():
    games = [ArenaGame(p, o, W, LONG) for p, o in ((1, 5), (2, 6), (1, 7), (2, 8), (1, 5), (2, 6))]
    assert pair_wave(_waiting(1, 2), _standings(8, games), games) == []


def test_just_after_the_start_players_are_paired_down_the_rating_list():
    pairs = pair_wave(_waiting(4, 3, 2, 1), _standings(4), [], recently_started=True, rng=random.Random(3))
    assert sorted(tuple(sorted(p)) for p in pairs) == [(1, 2), (3, 4)]


def test_a_wave_of_a_thousand_pairs_everyone_and_no_one_with_their_last_opponent():
    rng = random.Random(7)
    players = [ArenaPlayer(i, rng.randint(1000, 2400)) for i in range(1000)]
    order = list(range(1000))
    rng.shuffle(order)
    games = [ArenaGame(order[k], order[k + 1], rng.choice([W, B, None]), LONG) for k in range(0, 1000, 2)]
    standings = arena_standings(players, games)
    pairs = pair_wave([Waiting(p, float(p)) for p in range(1000)], standings, games, rng=rng)
    paired = [p for pair in pairs for p in pair]
    assert len(paired) == len(set(paired)) >= 996
    last = {g.white: g.black for g in games} | {g.black: g.white for g in games}
    assert all(last[a] != b for a, b in pairs)


# ------------------------------------------------------------------------------------------------
# Pauses


def test_the_first_pause_costs_ten_seconds():
    assert rejoin_delay([0.0], 0.0, 180, 0) == 10.0
    assert rejoin_delay([0.0], 9.5, 180, 0) == 0.0  # lila: a delay of a second or less is none


def test_each_further_pause_costs_more_up_to_two_minutes():
    assert rejoin_delay([0.0, 60.0, 120.0], 120.0, 600, 0) == 80.0  # (600 / 15) x 2
    assert rejoin_delay([0.0, 60.0, 120.0, 180.0], 180.0, 600, 5) == 120.0


def test_twenty_minutes_without_a_pause_reset_the_delay():
    assert rejoin_delay([0.0, 1300.0], 1300.0, 600, 0) == 10.0
