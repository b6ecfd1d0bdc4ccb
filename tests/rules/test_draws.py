"""The automatic draw rules (RULES.md §3, §4; shashki.rules.draws) that count no moves: threefold
repetition, the giveaway variants' draws and the double-diagonal option; which counters a variant has.

The counted rules are proved at their boundaries in test_draws_russian.py (FMJD-64) and
test_draws_other.py (Brazilian, International, English, Pool), with the helpers of draw_play.py, and
against an independent count over the whole history in test_draws_property.py.
"""

from __future__ import annotations

import pytest
from draw_play import assert_drawn_by, assert_going_on, wander

from shashki.rules import VARIANTS, DrawRule, Position, UnavailableOption, get_variant
from shashki.rules.draws import Material, Repetition, draw_counters
from shashki.rules.game import Game

# --- Threefold repetition (FMJD-64 7.2.3, FMJD 6.1, RULES.md §3) ------------------------------------

KINGS_SHUTTLE = "W:WKc1:BKf8"
SHUTTLE = ["c1-d2", "f8-g7", "d2-c1", "g7-f8"]


@pytest.mark.parametrize("variant", ["russian-giveaway", "russian", "brazilian", "english", "pool"])
def test_threefold_repetition_draws_at_the_third_occurrence_counting_the_start(variant):
    rule = DrawRule.THREEFOLD
    game = Game.replay(SHUTTLE * 2, variant, KINGS_SHUTTLE)  # the start position, ply 4, ply 8
    assert_drawn_by(game, rule)
    assert game.ply == 8
    short = Game.replay((SHUTTLE * 2)[:7], variant, KINGS_SHUTTLE)  # c1-d2 at plies 1 and 5 only
    assert_going_on(short, rule)
    assert short.counters[rule] == 2


def test_threefold_repetition_needs_the_same_side_to_move():
    rule = DrawRule.THREEFOLD
    # The start pieces recur twice with White to move, then with Black to move (White's king goes
    # c1-d2-e3-c1): only two occurrences of the same position.
    triangle = ["c1-d2", "f8-g7", "d2-e3", "g7-f8", "e3-c1"]
    game = Game.replay(SHUTTLE + triangle, "russian-giveaway", KINGS_SHUTTLE)
    assert (game.position.white, game.position.black) == (game.start.white, game.start.black)
    assert not game.position.white_to_move
    assert_going_on(game, rule)
    assert game.counters[rule] == 1


def test_threefold_repetition_keys_positions_by_their_pieces_not_their_hash():
    variant = get_variant("russian-giveaway")
    board = variant.board
    a = Position(variant, 1 << board.by_name["c1"], 1 << board.by_name["f8"], 0, True, hash=42)
    b = Position(variant, 1 << board.by_name["d2"], 1 << board.by_name["f8"], 0, True, hash=42)
    rule = Repetition()
    rule.start(a, Material.of(a))
    king_move = a.legal_moves()[0]
    for pos in (b, b, a):
        rule.update(pos, king_move, True, Material.of(pos))
    assert rule.count == 2 and not rule.drawn, "threefold-repetition: positions sharing a hash counted as one"


def test_threefold_repetition_forgets_positions_before_a_man_move_or_a_capture():
    # Neither can be undone, so no earlier position can recur: the table keeps only what can.
    variant = get_variant("russian-giveaway")
    start = Position.from_fen("W:WKc1,a3:BKf8", variant)
    rule = Repetition()
    rule.start(start, Material.of(start))
    pos = start
    for text in ["c1-d2", "f8-g7", "d2-c1", "g7-f8", "a3-b4"]:
        move = pos.parse_move(text)
        king_move = bool(pos.kings >> move.path[0] & 1)
        pos = pos.play(move)
        rule.update(pos, move, king_move, Material.of(pos))
    assert (rule.count, len(rule.seen)) == (1, 1), "threefold-repetition: table not emptied after a man move"


# --- Giveaway ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_every_active_draw_rule_has_its_counter_in_order(key):
    variant = get_variant(key, double_diagonal=key == "russian-giveaway")
    assert [c.rule for c in draw_counters(variant)] == list(variant.active_draw_rules)


def test_giveaway_variants_have_only_threefold_repetition():
    for key in ("russian-giveaway", "brazilian-giveaway", "international-giveaway", "english-giveaway",
                "italian-giveaway", "pool-giveaway"):
        rules = [c.rule for c in draw_counters(get_variant(key))]
        assert rules == [DrawRule.THREEFOLD], f"{key}: automatic draws {rules}; RULES.md §4: threefold only"


def test_giveaway_has_no_15_king_move_rule():
    # RULES.md §3: such a game is played out or agreed drawn.
    game = Game("russian-giveaway", "W:WKa1,Kc1:BKh8,Kf8")
    wander(game, 40, DrawRule.THREEFOLD)
    assert_going_on(game, DrawRule.THREEFOLD)


# --- Double-diagonal kings (RULES.md §3, russian-giveaway option) ----------------------------------


def test_double_diagonal_draws_kings_on_the_two_double_diagonals():
    rule = DrawRule.DOUBLE_DIAGONAL
    game = Game("russian-giveaway", "W:WKc1:BKd6", double_diagonal=True)
    assert_going_on(game, rule)
    game.play("c1-e3")  # e3 on g1-a7, d6 on h2-b8
    assert_drawn_by(game, rule)


def test_double_diagonal_draws_a_start_position_at_once():
    game = Game("russian-giveaway", "W:WKg1:BKh2", double_diagonal=True)
    assert_drawn_by(game, DrawRule.DOUBLE_DIAGONAL)


def test_double_diagonal_is_off_by_default():
    game = Game.replay(["c1-e3"], "russian-giveaway", "W:WKc1:BKd6")
    assert_going_on(game, DrawRule.DOUBLE_DIAGONAL)
    assert DrawRule.DOUBLE_DIAGONAL not in game.counters


@pytest.mark.parametrize(
    "fen, move, why",
    [
        ("W:WKc1:BKd6", "c1-d2", "d2 is on neither double diagonal"),
        ("W:WKc1:BKd6", "c1-f4", "both kings on h2-b8"),
        ("W:WKc1,a3:BKd6", "c1-e3", "a man is left"),
        ("W:WKc1,Kh8:BKd6", "c1-e3", "two white kings"),
    ],
)
def test_double_diagonal_needs_one_king_each_on_different_double_diagonals(fen, move, why):
    game = Game.replay([move], "russian-giveaway", fen, double_diagonal=True)
    assert game.outcome is None or game.outcome.reason != DrawRule.DOUBLE_DIAGONAL.value, why
    assert game.counters[DrawRule.DOUBLE_DIAGONAL] == 0, why


def test_double_diagonal_option_exists_only_in_russian_giveaway():
    with pytest.raises(ValueError):
        Game("russian", double_diagonal=True)
    for key, variant in VARIANTS.items():
        if key == "russian-giveaway":
            assert get_variant(key, double_diagonal=True).double_diagonal
            continue
        with pytest.raises(UnavailableOption) as info:
            get_variant(variant, double_diagonal=True)
        assert info.value.code == "bad_option"
        assert info.value.message == "The double-diagonal option belongs to Russian giveaway."
