"""The counted draw rules of Brazilian, International, English and Pool draughts, each at its boundary.

Brazilian follows its confederation (CBD, Regras Oficiais, item 16): 20 successive king moves of each
side without a capture or a man move, and no endgame counts. International follows FMJD 6.2-6.4,
whose counts are "after the two players have each played" N moves; English the WCDF's 40 moves of
each player; Pool APCA's three kings against one, 13 moves of the three kings (RULES.md §4).
"""

from __future__ import annotations

import pytest
from draw_play import (
    advance_man,
    assert_going_on,
    can_advance,
    can_promote,
    capture,
    play_out,
    plies_for,
    wander,
)

from shashki.rules import DrawRule, get_variant
from shashki.rules.game import Game

# --- Brazilian (CBD item 16) -------------------------------------------------------------------------

KING_MOVES = "WKe1,a3,c3:BKd8,h6,f6"


@pytest.mark.parametrize("side", ["W", "B"])
def test_king_moves_20_draws_after_20_moves_each_of_kings_only(side):
    play_out(Game("brazilian", f"{side}:{KING_MOVES}"), plies_for(20, None), DrawRule.KING_MOVES_20)


def test_king_moves_20_count_restarts_after_a_man_move():
    rule = DrawRule.KING_MOVES_20
    game = Game("brazilian", f"W:{KING_MOVES}")
    wander(game, 30, rule, goal=can_advance)
    advance_man(game, rule)
    wander(game, 39, rule)  # ply 70
    assert game.counters[rule] == 39
    play_out(game, 1, rule)
    assert game.ply == 71


def test_brazilian_draws_by_threefold_repetition_and_20_king_moves_only():
    # The CBD text has no endgame counts, so FMJD-64's 7.2.4-7.2.8 (Russian) do not apply.
    assert get_variant("brazilian").draw_rules == (DrawRule.THREEFOLD, DrawRule.KING_MOVES_20)


@pytest.mark.parametrize(
    "fen",
    ["W:WKa1,Kb8,Kh8:BKe1", "W:WKa3,e1,g3:BKh8", "B:WKa1,Kb8:BKh6", "W:WKa1:BKh6"],
    ids=["three-kings", "long-diagonal", "two-kings", "king"],
)
def test_brazilian_endings_are_drawn_only_by_the_20_king_moves(fen):
    # Past 7.2.4's 15 and 7.2.8's 5 moves the game goes on, to the 20th king move of each side.
    play_out(Game("brazilian", fen), plies_for(20, None), DrawRule.KING_MOVES_20)


# --- International (FMJD 6.2-6.4) -------------------------------------------------------------------

INTERNATIONAL_KINGS = "WK47,31,35,36:BK4,11,15,16"


@pytest.mark.parametrize("side", ["W", "B"])
def test_king_moves_25_draws_after_25_moves_each_of_kings_only(side):
    game = Game("international", f"{side}:{INTERNATIONAL_KINGS}")
    play_out(game, plies_for(25, None), DrawRule.KING_MOVES_25)


def test_king_moves_25_count_restarts_after_a_man_move():
    rule = DrawRule.KING_MOVES_25
    game = Game("international", f"W:{INTERNATIONAL_KINGS}")
    wander(game, 20, rule, goal=can_advance)
    advance_man(game, rule)
    wander(game, 29, rule)  # ply 50
    assert game.counters[rule] == 29
    play_out(game, 21, rule)
    assert game.ply == 71


@pytest.mark.parametrize("side", ["W", "B"])
def test_ending_16_draws_after_16_moves_each(side):
    play_out(Game("international", f"{side}:WK47,36,45:BK4"), plies_for(16, None), DrawRule.ENDING_16)


def test_ending_16_count_goes_on_through_a_promotion():
    rule = DrawRule.ENDING_16
    game = Game("international", "W:WK47,7,35:BK4")
    wander(game, 10, rule, goal=can_promote)
    advance_man(game, rule, promote=True)  # a king and two men become two kings and a man
    play_out(game, 21, rule)
    assert game.ply == 32


def test_ending_16_count_restarts_when_a_capture_makes_the_ending():
    rule = DrawRule.ENDING_16
    game = Game("international", "B:WK47,31,35,28:BK4")
    capture(game, rule)
    assert game.counters[rule] == 0
    play_out(game, plies_for(16, None), rule)
    assert game.ply == 33


@pytest.mark.parametrize(
    "pieces", ["WK47,K1:BK4", "WK47,36:BK4", "WK47:BK4"], ids=["two-kings", "king-and-man", "king"]
)
@pytest.mark.parametrize("side", ["W", "B"])
def test_ending_5_draws_after_5_moves_each(pieces, side):
    play_out(Game("international", f"{side}:{pieces}"), plies_for(5, None), DrawRule.ENDING_5)


def test_ending_5_count_restarts_when_a_capture_makes_the_ending():
    rule = DrawRule.ENDING_5
    game = Game("international", "B:WK47,31,28:BK4")
    capture(game, rule)
    play_out(game, plies_for(5, None), rule)
    assert game.ply == 11


# --- English (WCDF 40 moves), Pool (APCA 13 moves) -----------------------------------------------------

ENGLISH_KINGS = "WKa1,Kc1,a3,c3:BKh8,Kf8,h6,f6"


@pytest.mark.parametrize("side", ["W", "B"])
def test_forty_moves_draws_after_40_moves_each_without_a_man_move_or_capture(side):
    play_out(Game("english", f"{side}:{ENGLISH_KINGS}"), plies_for(40, None), DrawRule.FORTY_MOVES)


def test_forty_moves_count_restarts_after_a_man_move():
    rule = DrawRule.FORTY_MOVES
    game = Game("english", f"B:{ENGLISH_KINGS}")
    wander(game, 40, rule, goal=can_advance)
    advance_man(game, rule)
    wander(game, 39, rule)  # ply 80
    assert game.counters[rule] == 39
    assert_going_on(game, rule)


@pytest.mark.parametrize("kings_to_move", [True, False], ids=["kings-to-move", "lone-king-to-move"])
def test_kings_3_vs_1_13_draws_after_the_13th_move_of_the_kings(kings_to_move):
    side = "W" if kings_to_move else "B"
    game = Game("pool", f"{side}:WKa1,Kb8,Kh8:BKe1")
    play_out(game, plies_for(13, kings_to_move), DrawRule.KINGS_3_VS_1_13)


def test_four_kings_against_one_are_not_the_pools_13_move_ending():
    """APCA: "3 kings v 1 king" (RULES.md §4), where FMJD-64 7.2.4 says three or more: four kings play
    on past their 13th move (found by an audit: drawn at ply 25)."""
    rule = DrawRule.KINGS_3_VS_1_13
    game = Game("pool", "W:WK29,K30,K31,K28:BK14")
    wander(game, 30, rule)
    assert rule not in game.counters or game.counters[rule] == 0
    assert_going_on(game, rule)


def test_kings_3_vs_1_13_count_restarts_when_a_capture_makes_the_ending():
    rule = DrawRule.KINGS_3_VS_1_13
    game = Game("pool", "B:WKa1,Kh8,Kb8,Kf4:BKh6")
    capture(game, rule)  # four kings become three, White to move
    play_out(game, plies_for(13, True), rule)
    assert game.ply == 26
