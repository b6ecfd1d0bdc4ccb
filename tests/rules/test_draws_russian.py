"""The counted draw rules of Russian draughts (FMJD-64 7.2.4-7.2.8; RULES.md §4), each at its boundary.

Every rule is played from both sides to move where its condition arises: the game is drawn after
exactly the move the rule names and goes on one ply before (`play_out`). 7.2.4, 7.2.7 and 7.2.8 count
the moves of the side that must win ("by his 15th move"), so they end on ply 2N - 1 when that side is
to move where the ending arises and on ply 2N when the defender is; 7.2.5 and 7.2.6 count N moves of
each player, 2N plies either way.
"""

from __future__ import annotations

import pytest
from draw_play import (
    LONG_DIAGONAL,
    OFF_LONG_DIAGONAL,
    advance_man,
    assert_drawn_by,
    assert_going_on,
    can_advance,
    can_promote,
    capture,
    on,
    play_out,
    plies_for,
    wander,
)

from shashki.rules import DrawRule
from shashki.rules.game import Game

# --- 7.2.4: three kings or more against a lone king, 15 moves of the kings -------------------------

THREE_KINGS = "WKa1,Kb8,Kh8:BKe1"


@pytest.mark.parametrize("kings_to_move", [True, False], ids=["kings-to-move", "lone-king-to-move"])
def test_kings_3_vs_1_15_draws_after_the_15th_move_of_the_kings(kings_to_move):
    side = "W" if kings_to_move else "B"
    play_out(Game("russian", f"{side}:{THREE_KINGS}"), plies_for(15, kings_to_move), DrawRule.KINGS_3_VS_1_15)


ISSUE_17_START = "B:WKc1,Kb2,Ke1,Kb8:BKh8"
ISSUE_17_MOVES = [
    "h8:a1", "e1-a5", "a1-h8", "c1-a3", "h8-f6", "b8-f4", "f6-d4", "a5-c7", "d4-f2", "a3-d6", "f2-g1",
    "f4-c1", "g1-f2", "c1-g5", "f2-h4", "g5-c1", "h4-d8", "c7-b8", "d8-a5", "b8-a7", "a5-d8", "a7-b8",
    "d8-h4", "b8-a7", "h4-d8", "d6-b8", "d8-h4", "b8-c7", "h4-e7", "a7-c5",
]


def test_kings_3_vs_1_15_draws_on_whites_15th_move_when_blacks_capture_made_the_ending():
    # Issue 17: Black's capture h8:a1 leaves three kings against one with White to move; White's 15th
    # move a7-c5 does not take the king, so 7.2.4 draws there, before Black can play e7:b4.
    rule = DrawRule.KINGS_3_VS_1_15
    before = Game.replay(ISSUE_17_MOVES[:-1], "russian", ISSUE_17_START)
    assert_going_on(before, rule)
    game = Game.replay(ISSUE_17_MOVES, "russian", ISSUE_17_START)
    assert_drawn_by(game, rule)
    assert game.ply == 30 and game.counters[rule] == 29


def test_kings_3_vs_1_15_count_restarts_when_a_capture_makes_the_ending():
    rule = DrawRule.KINGS_3_VS_1_15
    game = Game("russian", "B:WKa1,Kh8,Kb8,Kf4:BKh6")  # four kings: the count runs, Black to move
    capture(game, rule)  # the lone king takes one: three kings, White to move, a new count
    assert game.counters[rule] == 0
    play_out(game, plies_for(15, True), rule)
    assert game.ply == 30, "a count from the start would have drawn at ply 30 too, but on Black's move"


def test_kings_3_vs_1_15_does_not_count_while_the_kings_have_a_man():
    # 7.2.4 names kings only: three kings and a man against a lone king is a 5-piece ending with kings
    # on both sides (7.2.6, 30 moves each), not this one, however the man moves.
    rule = DrawRule.KINGS_3_VS_1_15
    game = Game("russian", "W:WKa1,Kb2,Kc1,e3:BKh6")
    wander(game, 20, rule, goal=can_advance)
    advance_man(game, rule)
    wander(game, 20, rule)  # ply 41: past both 29 and 30 plies
    assert game.counters[rule] == 0
    assert game.counters[DrawRule.NO_PROGRESS_30_60] == 41


def test_kings_3_vs_1_15_counts_from_the_promotion_that_makes_the_man_a_king():
    rule = DrawRule.KINGS_3_VS_1_15
    game = Game("russian", "W:WKa1,Kb2,Kc1,e7:BKh2")
    advance_man(game, rule, promote=True)  # four kings against one, Black to move
    assert game.counters[rule] == 0
    play_out(game, plies_for(15, False), rule)
    assert game.ply == 31


def test_kings_3_vs_1_15_needs_three_kings():
    rule = DrawRule.KINGS_3_VS_1_15
    game = Game("russian", "W:WKa1,Kb8,g3,c3:BKf8")
    wander(game, 4, rule)
    assert game.counters[rule] == 0


# --- 7.2.5: 15 moves of each player with kings only ------------------------------------------------

KING_MOVES = "WKe1,a3,c3:BKd8,h6,f6"


@pytest.mark.parametrize("side", ["W", "B"])
def test_king_moves_15_draws_after_15_moves_each_of_kings_only(side):
    play_out(Game("russian", f"{side}:{KING_MOVES}"), plies_for(15, None), DrawRule.KING_MOVES_15)


def test_king_moves_15_count_restarts_after_a_man_move():
    rule = DrawRule.KING_MOVES_15
    game = Game("russian", f"W:{KING_MOVES}")
    wander(game, 10, rule, goal=can_advance)
    advance_man(game, rule)
    wander(game, 19, rule)  # ply 30
    assert game.counters[rule] == 19
    play_out(game, 11, rule)
    assert game.ply == 41


# --- 7.2.6: both sides with kings, no capture and no promotion: 30 or 60 moves of each player -----


@pytest.mark.parametrize("side", ["W", "B"])
def test_no_progress_30_60_draws_after_30_moves_each_with_4_or_5_pieces(side):
    rule = DrawRule.NO_PROGRESS_30_60
    game = Game("russian", f"{side}:WKe1,a3:BKd8,h6")
    # Men move now and then (which keeps the 15-king-move rule away), never capturing or promoting.
    wander(game, 25, rule, goal=can_advance)
    advance_man(game, rule)
    wander(game, 24, rule, goal=can_advance)
    advance_man(game, rule)
    play_out(game, 9, rule)
    assert game.ply == plies_for(30, None)


@pytest.mark.parametrize("side", ["W", "B"])
def test_no_progress_30_60_draws_after_60_moves_each_with_6_or_7_pieces(side):
    rule = DrawRule.NO_PROGRESS_30_60
    game = Game("russian", f"{side}:WKe1,a3,c3:BKd8,h6,f6,f8")
    # Men of both sides take turns to move (the side to move first decides which man moves when).
    for plies in (25, 24, 25, 24) if side == "W" else (24, 25, 24, 25):
        wander(game, plies, rule, goal=can_advance)
        advance_man(game, rule)
    play_out(game, 18, rule)
    assert game.ply == plies_for(60, None)


def test_no_progress_30_60_count_restarts_after_a_promotion():
    rule = DrawRule.NO_PROGRESS_30_60
    game = Game("russian", "W:WKe1,b6:BKh2,h6")
    # Men move now and then (which keeps the 15-king-move rule away).
    wander(game, 24, rule, goal=can_advance)
    advance_man(game, rule)  # ply 25: the white man steps to the seventh row
    wander(game, 9, rule, goal=can_promote)
    advance_man(game, rule, promote=True)  # ply 35: crowned
    assert game.counters[rule] == 0
    wander(game, 24, rule, goal=can_advance)
    advance_man(game, rule)  # ply 60, Black's man
    wander(game, 19, rule, goal=can_advance)
    advance_man(game, rule)  # ply 80
    wander(game, 4, rule)  # ply 84: 84 plies without a capture, 49 since the promotion
    assert game.counters[rule] == 49
    play_out(game, 11, rule)
    assert game.ply == 95


def test_no_progress_30_60_needs_kings_on_both_sides():
    rule = DrawRule.NO_PROGRESS_30_60
    game = Game("russian", "W:WKe1,a3:Bh6,f8")
    for _ in range(2):
        wander(game, 1, rule)
        advance_man(game, rule)
    assert game.counters[rule] == 0, f"{rule.value} counted while Black has no king"


# --- 7.2.7: three pieces against a lone king on the long diagonal, 5 moves of the three ------------

LONG_DIAGONAL_ENDING = "WKa3,e1,g3:BKh8"


@pytest.mark.parametrize("three_to_move", [True, False], ids=["three-to-move", "lone-king-to-move"])
def test_long_diagonal_5_draws_after_the_5th_move_of_the_three_pieces(three_to_move):
    side = "W" if three_to_move else "B"
    game = Game("russian", f"{side}:{LONG_DIAGONAL_ENDING}")
    play_out(game, plies_for(5, three_to_move), DrawRule.LONG_DIAGONAL_5, keep=on(LONG_DIAGONAL))


def test_long_diagonal_5_count_goes_on_when_a_piece_of_the_stronger_side_steps_onto_the_diagonal():
    # Issue 17: White's capture f8:d6 makes three kings against the king on h8, Black to move. White's
    # 5th move b8-e5 puts a white king on the long diagonal too; the rule places the lone king only
    # ("against a lone king on the long diagonal", RULES.md §4), so the ending is still 7.2.7's.
    rule = DrawRule.LONG_DIAGONAL_5
    moves = [
        "f8:d6", "h8-c3", "d6-c7", "c3-b2", "c7-g3", "b2-g7", "g3-f4", "g7-h8", "f4-g5", "h8-g7", "b8-e5",
    ]
    before = Game.replay(moves[:-1], "russian", "W:WKg1,Kb8,Kf8:BKe7,Kh8")
    assert_going_on(before, rule)
    game = Game.replay(moves, "russian", "W:WKg1,Kb8,Kf8:BKe7,Kh8")
    assert_drawn_by(game, rule)
    assert game.counters[rule] == plies_for(5, False)


def test_long_diagonal_5_count_stops_when_the_lone_king_leaves_the_long_diagonal():
    rule = DrawRule.LONG_DIAGONAL_5
    game = Game("russian", f"W:{LONG_DIAGONAL_ENDING}")
    wander(game, 5, rule, keep=on(LONG_DIAGONAL))
    assert game.counters[rule] == 5
    # Black steps off at ply 6 and back on at ply 10: the count starts again there, White to move.
    wander(game, 5, rule, keep=on(OFF_LONG_DIAGONAL), goal=on(LONG_DIAGONAL))
    assert game.counters[rule] == 0
    play_out(game, plies_for(5, True), rule, keep=on(LONG_DIAGONAL))
    assert game.ply == 19


# --- 7.2.8: two pieces or a king against a lone king, 5 moves of the stronger side -----------------


@pytest.mark.parametrize("pieces", ["WKa1,Kb8:BKh6", "WKa1,c3:BKh6"], ids=["two-kings", "king-and-man"])
@pytest.mark.parametrize("stronger_to_move", [True, False], ids=["stronger-to-move", "lone-king-to-move"])
def test_small_ending_5_draws_after_the_5th_move_of_the_stronger_side(pieces, stronger_to_move):
    side = "W" if stronger_to_move else "B"
    play_out(Game("russian", f"{side}:{pieces}"), plies_for(5, stronger_to_move), DrawRule.SMALL_ENDING_5)


@pytest.mark.parametrize("side", ["W", "B"])
def test_small_ending_5_king_against_king_draws_after_the_5th_move_of_the_side_to_move(side):
    # Both sides have "one king against a lone king": the first of them to make its 5th move, the side
    # to move where the ending arises, ends the game.
    play_out(Game("russian", f"{side}:WKa1:BKh6"), plies_for(5, True), DrawRule.SMALL_ENDING_5)


def test_small_ending_5_count_restarts_when_a_capture_makes_the_ending():
    rule = DrawRule.SMALL_ENDING_5
    game = Game("russian", "B:WKa1,Kb8,f4:BKh6")
    game.play("h6:d2")  # two kings against one, White to move
    play_out(game, plies_for(5, True), rule)
    assert game.ply == 10


def test_small_ending_5_needs_a_king_on_the_stronger_side():
    game = Game("russian", "W:Wa3,c3:BKh6")
    advance_man(game, DrawRule.SMALL_ENDING_5)
    assert game.counters[DrawRule.SMALL_ENDING_5] == 0
