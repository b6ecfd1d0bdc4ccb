"""Positions whose complete move lists prove one rule each (RULES.md §7 and the variants of §4).

Every test compares the exact, complete list of legal moves in the variant's own notation; a move
marked `promotes` ends with a man crowned.
"""

from __future__ import annotations

import pytest

from shashki.rules import VARIANTS, Color, Position, Result


def legal(fen: str, key: str) -> list[str]:
    """The legal moves of a position, sorted, in the variant's notation."""
    variant = VARIANTS[key]
    pos = Position.from_fen(fen, variant)
    return sorted(move.notation(variant) for move in pos.legal_moves())


def only_move(fen: str, key: str):
    pos = Position.from_fen(fen, VARIANTS[key])
    moves = pos.legal_moves()
    assert len(moves) == 1, [m.notation(pos.variant) for m in moves]
    return pos, moves[0]


RUSSIAN_FAMILY = ("russian", "russian-giveaway")


# ----------------------------------------------------------------------------------------------
# RULES.md §7: the Russian family (and the Brazilian notes)


@pytest.mark.parametrize("key", RUSSIAN_FAMILY)
def test_turkish_strike_captured_pieces_block_and_cannot_be_jumped_twice(key):
    assert legal("W:WKb2:Bb4,c3,b6,e7", key) == ["b2:d4:a7", "b2:f6:d8:a5"]


@pytest.mark.parametrize("key", RUSSIAN_FAMILY)
def test_king_landing_rule_must_land_where_capture_continues(key):
    assert legal("W:WKa1:Bc3,f4", key) == ["a1:e5:g3", "a1:e5:h2"]


@pytest.mark.parametrize("key", RUSSIAN_FAMILY)
def test_promotion_mid_capture_continues_as_king(key):
    assert legal("W:Wb6:Bc7,f6", key) == ["b6:d8:g5", "b6:d8:h4"]
    pos = Position.from_fen("W:Wb6:Bc7,f6", VARIANTS[key])
    assert all(move.promotes for move in pos.legal_moves())
    after = pos.play(pos.legal_moves()[0])
    assert after.counts() == (0, 1, 0, 0)


@pytest.mark.parametrize("key", ("brazilian", "brazilian-giveaway"))
def test_brazilian_promotion_mid_capture_stops_when_the_man_cannot_go_on(key):
    # The man passes d8 as a man; as a man it has nothing more to take, so it stops there, crowned.
    pos, move = only_move("W:Wb6:Bc7,f6", key)
    assert move.notation(pos.variant) == "b6xd8"
    assert move.promotes


@pytest.mark.parametrize("key", RUSSIAN_FAMILY)
def test_man_captures_backward(key):
    assert legal("W:We5:Bd4", key) == ["e5:c3"]


@pytest.mark.parametrize("key", RUSSIAN_FAMILY)
def test_capture_must_be_completed(key):
    assert legal("W:Wc3:Bd4,f6", key) == ["c3:e5:g7"]


@pytest.mark.parametrize("key", RUSSIAN_FAMILY)
def test_free_choice_of_capture_not_the_most_pieces(key):
    assert legal("W:Wa3,g3:Bb4,d6,f4,f6", key) == ["a3:c5:e7:g5:e3", "g3:e5:c7", "g3:e5:g7"]


@pytest.mark.parametrize("key", ("brazilian", "brazilian-giveaway"))
def test_brazilian_must_capture_the_most_pieces(key):
    assert legal("W:Wa3,g3:Bb4,d6,f4,f6", key) == ["a3xc5xe7xg5xe3"]


@pytest.mark.parametrize("key", RUSSIAN_FAMILY)
def test_blocked_side_has_no_legal_move(key):
    pos = Position.from_fen("W:Wh2:Bg3,f4", VARIANTS[key])
    assert pos.legal_moves() == []
    assert not pos.has_legal_move()


def test_no_legal_move_wins_in_giveaway_and_loses_in_russian():
    assert VARIANTS["russian-giveaway"].result is Result.GIVEAWAY
    assert VARIANTS["russian"].result is Result.NORMAL
    game_module = pytest.importorskip("shashki.rules.game")
    for key, winner in (("russian-giveaway", Color.WHITE), ("russian", Color.BLACK)):
        game = game_module.Game(key, fen="W:Wh2:Bg3,f4")
        assert game.outcome is not None, key
        assert game.outcome.winner is winner, key


@pytest.mark.parametrize("key", RUSSIAN_FAMILY)
def test_flying_king_in_the_corner_moves_along_its_free_diagonal(key):
    assert legal("W:WKa7:BKb8", key) == ["a7-b6", "a7-c5", "a7-d4", "a7-e3", "a7-f2", "a7-g1"]


@pytest.mark.parametrize("key", RUSSIAN_FAMILY)
def test_king_sacrifice_leaves_white_without_pieces(key):
    variant = VARIANTS[key]
    pos = Position.from_fen("W:WKg1:BKe5", variant)
    assert legal("W:WKg1:BKe5", key) == ["g1-a7", "g1-b6", "g1-c5", "g1-d4", "g1-e3", "g1-f2", "g1-h2"]
    after = pos.play(pos.parse_move("g1-d4"))
    replies = after.legal_moves()
    assert sorted(m.notation(variant) for m in replies) == ["e5:a1", "e5:b2", "e5:c3"]
    for reply in replies:
        final = after.play(reply)
        assert final.white == 0 and final.white_to_move
        assert final.legal_moves() == []  # in giveaway, White (to move, nothing left) has won


def test_king_sacrifice_wins_for_white_in_giveaway():
    game_module = pytest.importorskip("shashki.rules.game")
    game = game_module.Game("russian-giveaway", fen="W:WKg1:BKe5")
    game.play("g1-d4")
    game.play("e5:a1")
    assert game.outcome is not None
    assert game.outcome.winner is Color.WHITE


# ----------------------------------------------------------------------------------------------
# Promotion: crossing the last row in the middle of a capture (RULES.md §4)


def test_russian_man_crossing_the_last_row_is_crowned_and_captures_on_as_a_king():
    # b6 takes c7, reaches d8 and, crowned, takes e7 as a flying king: three landing squares.
    assert legal("W:Wb6:Bc7,e7", "russian") == ["b6:d8:f6", "b6:d8:g5", "b6:d8:h4"]
    pos = Position.from_fen("W:Wb6:Bc7,e7", VARIANTS["russian"])
    assert all(move.promotes for move in pos.legal_moves())


@pytest.mark.parametrize(("key", "fen", "expected"), [
    ("brazilian", "W:Wb6:Bc7,e7", "b6xd8xf6"),
    ("pool", "W:W9:B6,7", "9x2x11"),
    ("international", "W:W12:B8,9", "12x3x14"),
])
def test_passing_promotion_man_crosses_the_last_row_and_stays_a_man(key, fen, expected):
    # The man reaches the last row mid-capture, goes on capturing backward as a man, and ends the
    # move off the last row: it is not crowned.
    pos, move = only_move(fen, key)
    assert move.notation(pos.variant) == expected
    assert not move.promotes
    assert pos.play(move).kings == 0


@pytest.mark.parametrize(("key", "fen", "expected"), [
    ("brazilian", "W:Wb6:Bc7", "b6xd8"),
    ("pool", "W:W9:B6", "9x2"),
    ("international", "W:W12:B8", "12x3"),
])
def test_passing_promotion_man_ending_on_the_last_row_is_crowned(key, fen, expected):
    pos, move = only_move(fen, key)
    assert move.notation(pos.variant) == expected
    assert move.promotes
    assert pos.play(move).kings == 1 << move.end


@pytest.mark.parametrize(("key", "fen", "expected"), [
    ("english", "W:W9:B6,7", "9x2"),
    ("italian", "W:W12:B6,7", "12x3"),
])
def test_capture_stops_at_promotion_and_the_man_is_crowned(key, fen, expected):
    # English and Italian: reaching the last row ends the move, although a king could take on.
    pos, move = only_move(fen, key)
    assert move.notation(pos.variant) == expected
    assert move.promotes
    assert len(move.captured) == 1


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_man_reaching_the_last_row_by_a_quiet_move_is_crowned(key):
    variant = VARIANTS[key]
    board = variant.board
    # A white man one step from the last row, alone with a black king on the bottom row.
    man = next(bit for bit in board.rows if board.rows[bit] == 1)
    king = next(bit for bit in board.rows if board.rows[bit] == board.size - 1)
    pos = Position(variant, 1 << man, 1 << king, 1 << king, True)
    moves = [m for m in pos.legal_moves() if m.start == man]
    assert moves and all(m.promotes and board.rows[m.end] == 0 for m in moves)
    assert all(pos.play(m).kings >> m.end & 1 for m in moves)


# ----------------------------------------------------------------------------------------------
# Capture precedence: quantity (Brazilian, International) and Italian


def test_international_must_capture_the_most_pieces():
    # 31 can take one man, 34 two: only 34's capture is legal.
    assert legal("W:W31,34:B20,27,30", "international") == ["34x25x14"]


def test_international_majority_counts_a_king_as_one_piece():
    # The king 50 could take the king 44; the man 31 takes two men, which is more.
    assert legal("W:W31,33,K50:B17,27,K44", "international") == ["31x22x11"]


def test_italian_precedence_most_pieces():
    # Criterion 1: 26 takes two men, 28 one.
    assert legal("W:W26,28:B13,21,23", "italian") == ["26x17x10"]


def test_italian_precedence_capture_with_a_king_rather_than_a_man():
    # Criterion 2: the man 26 and the king 28 each take one man: the king must take.
    assert legal("W:W26,K28:B21,23", "italian") == ["28x19"]


def test_italian_precedence_most_kings_taken():
    # Criterion 3: the king takes one piece either way; taking the king 15 is compulsory.
    assert legal("W:WK19:B14,K15", "italian") == ["19x12"]


def test_italian_precedence_most_kings_comes_before_the_king_met_first():
    # 27x20x11x4 takes man, king, king; 27x18x9x2 takes king, man, man. Both take three pieces with
    # a king; the one with more kings wins although the other meets a king first.
    variant = VARIANTS["italian"]
    pos = Position.from_fen("W:WK27:B5,K7,13,K15,K22,23", variant)
    every = {m.notation(variant): [bool(pos.kings >> c & 1) for c in m.captured]
             for m in pos.generate(precedence=False)}
    assert every == {"27x20x11x4": [False, True, True], "27x18x9x2": [True, False, False]}
    assert legal("W:WK27:B5,K7,13,K15,K22,23", "italian") == ["27x20x11x4"]


def test_italian_precedence_the_king_met_first():
    # Criterion 4: two captures of a king and a man each; the one that takes the king first.
    variant = VARIANTS["italian"]
    pos = Position.from_fen("W:WK16:BK20,K11,12,28", variant)
    every = {m.notation(variant): [bool(pos.kings >> c & 1) for c in m.captured]
             for m in pos.generate(precedence=False)}
    assert every == {"16x7x14": [False, True], "16x23x32": [True, False]}
    assert legal("W:WK16:BK20,K11,12,28", "italian") == ["16x23x32"]


def test_italian_men_cannot_capture_kings():
    assert legal("W:W23:BK19", "italian") == ["23-20"]  # the man may not take the king on 19
    assert legal("W:W23:B19", "italian") == ["23x14"]  # a man it may
    assert legal("W:WK23:BK19", "italian") == ["23x14"]  # and a king may take a king


@pytest.mark.parametrize("key", ("italian", "italian-giveaway"))
def test_italian_men_cannot_capture_kings_in_either_form(key):
    assert legal("W:W23:BK19", key) == ["23-20"]


# ----------------------------------------------------------------------------------------------
# Backward captures and short kings


@pytest.mark.parametrize(("key", "fen", "expected"), [
    ("english", "W:W18:B22", ["18-14", "18-15"]),
    ("italian", "W:W19:B23", ["19-14", "19-15"]),
    ("russian", "W:Wd4:Bc3", ["d4:b2"]),
    ("pool", "W:W18:B22", ["18x25"]),
    ("brazilian", "W:Wd4:Bc3", ["d4xb2"]),
    ("international", "W:W28:B33", ["28x39"]),
])
def test_men_capture_backward_only_where_the_variant_allows(key, fen, expected):
    assert legal(fen, key) == expected


@pytest.mark.parametrize(("key", "far", "near"), [
    ("english", ("W:WK29:B22", ["29-25"]), ("W:WK29:B25", ["29x22"])),
    ("italian", ("W:WK32:B23", ["32-28"]), ("W:WK32:B28", ["32x23"])),  # 32 = h1, the mirrored corner
])
def test_short_king_moves_and_captures_one_square(key, far, near):
    # A king in the corner, an enemy man two squares up its diagonal: one step, no capture.
    assert legal(far[0], key) == far[1]
    # The enemy man adjacent: the king takes it and lands right behind it.
    assert legal(near[0], key) == near[1]


def test_english_king_captures_backward_and_goes_on():
    # A king takes in every direction: 18 takes 22 backward, then 15 forward is no longer adjacent.
    assert legal("W:WK18:B22,23", "english") == ["18x25", "18x27"]


@pytest.mark.parametrize("key", ("russian", "pool", "brazilian"))
def test_flying_king_captures_from_a_distance(key):
    variant = VARIANTS[key]
    fen = "W:WKa1:Bd4" if variant.algebraic else "W:WK29:B18"
    sep = variant.capture_separator
    names = ["e5", "f6", "g7", "h8"] if variant.algebraic else ["15", "11", "8", "4"]
    start = "a1" if variant.algebraic else "29"
    assert legal(fen, key) == sorted(f"{start}{sep}{n}" for n in names)


# ----------------------------------------------------------------------------------------------
# First moves and numbering


@pytest.mark.parametrize(("key", "expected"), [
    ("russian", ["a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"]),
    ("brazilian", ["a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"]),
    # English and Pool: Black moves first (WCDF 1.5, APCA).
    ("english", ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]),
    ("pool", ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]),
    # Italian: White moves first from 21-24, on the mirrored board.
    ("italian", ["21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"]),
    ("international", ["31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30"]),
])
def test_first_moves_and_who_moves_first(key, expected):
    variant = VARIANTS[key]
    pos = Position.start(variant)
    assert pos.side_to_move is variant.first_player
    assert sorted(m.notation(variant) for m in pos.legal_moves()) == expected


def test_italian_mirrored_numbering_square_1_is_a8():
    board = VARIANTS["italian"].board
    names = {n: board.square_name(board.bit_of_number(n)) for n in (1, 4, 5, 29, 32)}
    assert names == {1: "a8", 4: "g8", 5: "b7", 29: "b1", 32: "h1"}
    assert board.rows[board.bit_of_number(1)] == 0  # the top row, Black's side
    assert "a1" not in board.by_name and "h1" in board.by_name  # a1 is a light square (FID 2.3)
    start = Position.start(VARIANTS["italian"])
    assert start.fen() == "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


def test_standard_numbering_square_1_is_b8_and_29_is_a1():
    board = VARIANTS["english"].board
    names = {n: board.square_name(board.bit_of_number(n)) for n in (1, 4, 5, 29, 32)}
    assert names == {1: "b8", 4: "h8", 5: "a7", 29: "a1", 32: "g1"}


def test_international_numbering_runs_from_the_top_left():
    board = VARIANTS["international"].board
    assert board.rows[board.bit_of_number(1)] == 0 and board.cols[board.bit_of_number(1)] == 1
    assert board.rows[board.bit_of_number(46)] == 9 and board.cols[board.bit_of_number(46)] == 0
    assert Position.start(VARIANTS["international"]).fen() == (
        "W:W" + ",".join(map(str, range(31, 51))) + ":B" + ",".join(map(str, range(1, 21)))
    )
