"""Pattern weights over board regions (shashki/engine/patterns.py, issue 15 point 3)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from shashki.engine.evaluation import Evaluator, GiveawayWeights, shipped_weights
from shashki.engine.patterns import Regions, band_count, pattern_size, region_count, regions, table_size
from shashki.rules import Game, Position, get_variant


def _positions(key: str, count: int, seed: int) -> list[Position]:
    """Positions of random games (men of both colours all over the board)."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        game = Game(get_variant(key))
        for _ in range(rng.randrange(0, 40)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        found.append(game.position)
    return found


def _turned(pos: Position) -> Position:
    """The board turned round, colours and the side to move swapped: the same position for the mover."""
    board = pos.variant.board

    def turn(bb: int) -> int:
        return sum(1 << board.bit_of_number(board.squares + 1 - board.number(b)) for b in board.iter_bits(bb))

    return Position(pos.variant, turn(pos.black), turn(pos.white), turn(pos.kings), not pos.white_to_move)


def _random_patterns(key: str, seed: int) -> tuple[int, ...]:
    rng = random.Random(seed)
    return tuple(rng.randrange(-50, 51) for _ in range(pattern_size(get_variant(key))))


def test_an_8x8_board_has_seven_bands_of_eight_squares():
    variant = get_variant("russian-giveaway")
    assert band_count(variant) == 7 and region_count(variant) == 7 and table_size(variant) == 3**8
    board = variant.board
    assert regions(variant)[0] == sorted(board.iter_bits(board.row_masks[0] | board.row_masks[1]))


def test_a_10x10_band_has_two_regions_of_four_squares_a_row_overlapping_on_three():
    variant = get_variant("international")
    board = variant.board
    assert region_count(variant) == 18 and pattern_size(variant) == 18 * 3**8
    found = regions(variant)
    for band in range(9):
        left, right = set(found[2 * band]), set(found[2 * band + 1])
        rows = board.row_masks[band] | board.row_masks[band + 1]
        assert len(left) == len(right) == 8 and len(left & right) == 6
        assert sum(1 << b for b in left | right) == rows  # the two cover the band
        for region in (left, right):  # four squares of each row, side by side
            for row in (board.row_masks[band], board.row_masks[band + 1]):
                cols = sorted(board.cols[b] for b in region if row >> b & 1)
                assert len(cols) == 4 and cols[-1] - cols[0] == 6
    # Turned round, the left region of a band is the right one of the band turned to.
    turned = {b: board.bit_of_number(board.squares + 1 - board.number(b)) for b in board.rows}
    assert sorted(turned[b] for b in found[0]) == found[-1]
    assert sorted(turned[b] for b in found[1]) == found[-2]


@pytest.mark.parametrize("key", ["russian-giveaway", "russian", "international"])
def test_a_position_turned_round_with_colours_swapped_scores_the_same_for_the_mover(key):
    # Black's patterns are White's table read from the other end: any error in that reading (a band, a
    # square order, the ghost bit in odd bands) breaks this for random weights.
    variant = get_variant(key)
    base = shipped_weights(variant)
    evaluate = Evaluator(variant, replace(base, patterns=_random_patterns(key, 7)))
    plain = Evaluator(variant, replace(base, patterns=()))
    differ = 0
    for pos in _positions(key, 60, 3):
        turned = _turned(pos)
        assert evaluate(pos) == evaluate(turned), pos.fen()
        differ += evaluate(pos) != plain(pos)
    assert differ > 50  # the patterns do count


def test_the_patterns_add_exactly_their_terms_for_the_side_to_move():
    variant = get_variant("russian-giveaway")
    patterns = _random_patterns(variant.key, 11)
    with_patterns = Evaluator(variant, replace(shipped_weights(variant), patterns=patterns))
    without = Evaluator(variant, replace(shipped_weights(variant), patterns=()))
    for pos in _positions(variant.key, 40, 5):
        terms = with_patterns.pattern_terms(pos)
        assert len(terms) == 2 * band_count(variant)
        white = sum(patterns[i] * sign for i, sign in terms)
        assert with_patterns(pos) - without(pos) == (white if pos.white_to_move else -white)
    assert without.pattern_terms(Position.start(variant)) == []


def test_a_band_index_counts_white_men_as_one_and_black_men_as_two_in_base_three():
    variant = get_variant("russian-giveaway")
    size = table_size(variant)
    bands = Regions(variant, [0] * pattern_size(variant))
    board = variant.board
    last = band_count(variant) - 1  # the bottom band: rows 7 and 8 from the top (rows 6 and 7 here)
    bottom = board.row_masks[-1]
    first = (bottom & -bottom).bit_length() - 1  # the bottom row's first square, in bit order
    # In the bottom band the four squares of the row above come first: this is its fifth square.
    white = bands.terms(1 << first, 0)
    assert white[2 * last] == (last * size + 3**4, 1)
    assert all(white[2 * band] == (band * size, 1) for band in range(last))  # the other bands read empty
    black = bands.terms(0, 1 << first)
    assert black[2 * last] == (last * size + 2 * 3**4, 1)
    # Read from Black's side, that square is the first band's, fourth of its eight (the order reversed).
    assert black[1] == (last * size + 0, -1) and black[2 * last + 1] == (0 * size + 3**3, -1)


def test_patterns_of_another_board_are_not_used():
    # A 10x10 variant given 8x8 patterns (a family's parent file) plays without them.
    international = get_variant("international-giveaway")
    eight = _random_patterns("russian-giveaway", 1)
    start = Position.start(international)
    assert Evaluator(international, GiveawayWeights(patterns=eight)).pattern_terms(start) == []
    with pytest.raises(ValueError):
        Regions(international, list(eight))


def test_weights_with_patterns_read_from_a_file_dict():
    data = {"man": -100, "patterns": ["1", 2, 3]}
    assert GiveawayWeights.from_dict(data).patterns == (1, 2, 3)
