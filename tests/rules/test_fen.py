"""FEN (RULES.md §5): PDN FEN with numbers, algebraic squares and ranges; errors say what is wrong."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shashki.rules import VARIANTS, FenError, Position
from shashki.rules.fen import read_fen, write_fen

VARIANT_KEYS = sorted(VARIANTS)


@st.composite
def positions(draw, keys=tuple(VARIANT_KEYS)):
    """Any position a FEN can describe: reached by play from the start, or men and kings placed anywhere
    they may stand (at most the variant's number of men per side), either side to move."""
    variant = VARIANTS[draw(st.sampled_from(keys))]
    if draw(st.booleans()):
        pos = Position.start(variant)
        for choice in draw(st.lists(st.integers(0, 1000), max_size=60)):
            moves = pos.legal_moves()
            if not moves:
                break
            pos = pos.play(moves[choice % len(moves)])
        return pos
    board = variant.board
    cells = draw(st.dictionaries(st.sampled_from(sorted(board.rows)), st.sampled_from("wWbB"),
                                 max_size=variant.men_per_side))
    white = black = kings = 0
    for bit, piece in cells.items():
        own_promotion_row = board.white_promotion_row if piece in "wW" else board.black_promotion_row
        if piece in "WB" or own_promotion_row >> bit & 1:
            kings |= 1 << bit
        if piece in "wW":
            white |= 1 << bit
        else:
            black |= 1 << bit
    return Position(variant, white, black, kings, draw(st.booleans()))


# ----------------------------------------------------------------------------------------------
# Reading and writing


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_fen_round_trip_with_numbers(pos):
    fen = write_fen(pos)
    assert Position.from_fen(fen, pos.variant) == pos
    assert Position.from_fen(fen, pos.variant.key).fen() == fen


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_fen_round_trip_with_algebraic_squares(pos):
    fen = write_fen(pos, algebraic=True)
    assert Position.from_fen(fen, pos.variant) == pos
    assert Position.from_fen(fen, pos.variant).hash == pos.hash


def test_fen_of_the_start_position():
    assert Position.start(VARIANTS["russian"]).fen() == (
        "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    )
    assert Position.start(VARIANTS["english"]).fen().startswith("B:")  # Black moves first


def test_fen_algebraic_and_numeric_squares_name_the_same_position():
    russian = VARIANTS["russian"]
    pos = Position.from_fen("W:WKa1,c3:Bb8", russian)
    assert pos == Position.from_fen("W:W22,K29:B1", russian)
    assert write_fen(pos) == "W:W22,K29:B1"
    assert write_fen(pos, algebraic=True) == "W:Wc3,Ka1:Bb8"
    # Numbers are accepted on every 8x8 variant, names on the algebraic ones and in Italian's mirror.
    assert Position.from_fen("W:W22,K29:B1", VARIANTS["pool"]).fen() == "W:W22,K29:B1"
    assert Position.from_fen("W:Wh1:Ba8", VARIANTS["italian"]).fen() == "W:W32:B1"


def test_fen_ranges_in_international():
    international = VARIANTS["international"]
    assert Position.from_fen("W:W31-50:B1-20", international) == Position.start(international)
    pos = Position.from_fen("B:W31-33,K48:BK1-3,20", international)
    assert pos.fen() == "B:W31,32,33,K48:BK1,K2,K3,20"
    assert not pos.white_to_move


def test_fen_with_an_empty_side_is_valid():
    russian_giveaway = VARIANTS["russian-giveaway"]
    pos = Position.from_fen("W:W:B1", russian_giveaway)
    assert pos.white == 0 and pos.black.bit_count() == 1
    assert pos.fen() == "W:W:B1"
    assert pos.legal_moves() == []  # a finished giveaway game: White has no pieces
    assert Position.from_fen("B:W22:B", russian_giveaway).fen() == "B:W22:B"


def test_fen_accepts_lowercase_spaces_quotes_and_move_counters():
    russian = VARIANTS["russian"]
    expected = Position.from_fen("W:W22,K29:B1", russian)
    assert Position.from_fen('"w:w22, k29 :b1"', russian) == expected
    assert Position.from_fen("W:W22,K29:B1.", russian) == expected
    assert Position.from_fen("W:W22,K29:B1:H0:F1", russian) == expected  # lidraughts' clock and move number


# ----------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize(("key", "fen", "words"), [
    ("russian", "W:W22,22:B1", ["two pieces", "c3"]),
    ("russian", "W:W22:B22", ["two pieces", "c3"]),
    ("international", "W:W31-40:B1-31", ["two pieces", "31"]),
    ("russian", "W:Wa2:Bb8", ["a2", "dark square"]),
    ("russian", "W:Wc3:Bh1", ["h1", "dark square"]),
    ("russian", "W:Wb8:Bc7", ["white man", "promotion row", "b8"]),
    ("russian", "W:Wc3:Ba1", ["black man", "promotion row", "a1"]),
    ("international", "W:W3:B20", ["white man", "promotion row", "3"]),
    ("italian", "W:W1:B20", ["white man", "promotion row", "1"]),
    ("russian", "W:W17-29:B1", ["13 pieces", "12"]),
    ("russian", "W:W5:BK1-4,9-17", ["Black has 13 pieces"]),
    ("international", "W:W10-30:B1", ["21 pieces", "20"]),
    ("russian", "W:W0:B1", ["0", "not on the board", "1-32"]),
    ("russian", "W:W33:B1", ["33", "not on the board"]),
    ("international", "W:W51:B1", ["51", "1-50"]),
    ("russian", "W:W32-30:B1", ["backwards"]),
    ("russian", "W:WK:B1", ["K with no square"]),
    ("russian", "W:W22:X1", ["X1", "neither a W nor a B"]),
    ("russian", "W:W22:W23:B1", ["white pieces twice"]),
    ("russian", "X:W22:B1", ["side to move"]),
    ("russian", "", ["side to move"]),
    ("russian", "hello", ["side to move"]),
    ("russian", "W", ["lists no pieces"]),
    ("russian", "W;W22;B1", ["side to move"]),
    ("russian", "W:Wz9:B1", ["z9"]),
    ("russian", "W:W22-:B1", ["22-"]),
])
def test_bad_fen_is_refused_with_a_clear_message(key, fen, words):
    with pytest.raises(FenError) as info:
        Position.from_fen(fen, VARIANTS[key])
    assert info.value.code == "bad_fen"
    for word in words:
        assert word in info.value.message, (fen, info.value.message)


def test_fen_must_be_text():
    with pytest.raises(FenError):
        read_fen(None, VARIANTS["russian"])  # type: ignore[arg-type]


FEN_ALPHABET = st.sampled_from(list("WBKwbk:,-.0123456789 abcdefghij\"HF²٣xX"))
FEN_LIKE = st.one_of(st.text(), st.text(FEN_ALPHABET), st.text(FEN_ALPHABET).map("W:W".__add__))


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(VARIANT_KEYS), FEN_LIKE)
def test_reading_any_text_as_fen_raises_only_fen_error(key, text):
    try:
        pos = Position.from_fen(text, VARIANTS[key])
    except FenError as error:
        assert error.message
    else:
        assert Position.from_fen(pos.fen(), pos.variant) == pos
