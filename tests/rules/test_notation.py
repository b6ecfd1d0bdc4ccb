"""Move notation (RULES.md §5): liberal input, the variant's own output, and every refusal with its reason."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fen import positions

from shashki.rules import VARIANTS, Game, IllegalMove, Position
from shashki.rules.notation import parse_move, parse_square, split_squares, square_label


def position(key: str, fen: str | None = None) -> Position:
    variant = VARIANTS[key]
    return Position.from_fen(fen, variant) if fen else Position.start(variant)


def parsed(key: str, text: str, fen: str | None = None) -> str:
    pos = position(key, fen)
    return parse_move(pos, text).notation(pos.variant)


def refusal(key: str, text: str, fen: str | None = None) -> IllegalMove:
    with pytest.raises(IllegalMove) as info:
        parse_move(position(key, fen), text)
    assert info.value.message
    return info.value


# ----------------------------------------------------------------------------------------------
# Liberal input


@pytest.mark.parametrize("text", [
    "c3-d4", "c3d4", "C3-D4", " c3 - d4 ", "c3:d4", "c3xd4", "c3-d4!", "c3-d4?!", "22-18", "2218", "22x18",
])
def test_quiet_move_is_read_in_every_accepted_spelling(text):
    assert parsed("russian", text) == "c3-d4"


@pytest.mark.parametrize("text", ["c3:e5", "c3xe5", "c3-e5", "c3e5", "c3×e5", "22x15", "22-15"])
def test_capture_is_read_with_any_separator(text):
    assert parsed("russian", text, "W:Wc3:Bd4") == "c3:e5"


def test_capture_by_start_and_end_only_when_that_names_one_move():
    assert parsed("russian", "c3:g3", "W:Wc3:Bd4,f4") == "c3:e5:g3"
    assert parsed("russian", "c3g3", "W:Wc3:Bd4,f4") == "c3:e5:g3"
    assert parsed("russian", "a1:h2", "W:WKa1:Bc3,f4") == "a1:e5:h2"
    assert parsed("russian", "a1:e5:h2?", "W:WKa1:Bc3,f4") == "a1:e5:h2"


def test_capture_with_some_landing_squares_left_out():
    fen = "W:Wa3,g3:Bb4,d6,f4,f6"
    assert parsed("russian", "a3:c5:e7:g5:e3", fen) == "a3:c5:e7:g5:e3"
    assert parsed("russian", "a3:e7:e3", fen) == "a3:c5:e7:g5:e3"
    assert parsed("russian", "a3:e3", fen) == "a3:c5:e7:g5:e3"


def test_numeric_squares_on_every_8x8_variant_and_lidraughts_move_strings():
    assert parsed("brazilian", "22-18") == "c3-d4"
    assert parsed("russian-giveaway", "2218") == "c3-d4"
    assert parsed("international", "3227") == "32-27"
    assert parsed("international", "32-27") == "32-27"
    assert parsed("english", "0913") == "9-13"
    assert parsed("italian", "2117") == "21-17"
    assert parsed("italian", "b3-a4") == "21-17"  # Italian names are mirrored: 21 = b3


def test_parse_square_reads_numbers_and_names():
    russian = VARIANTS["russian"]
    board = russian.board
    assert parse_square(russian, "a1") == parse_square(russian, "29") == board.bit_of_number(29)
    assert parse_square(russian, " B8 ") == board.bit_of_number(1)
    assert parse_square(russian, "a2") is None  # a light square
    assert parse_square(russian, "0") is None and parse_square(russian, "33") is None
    assert parse_square(russian, "²") is None  # not an ASCII digit
    italian = VARIANTS["italian"]
    assert parse_square(italian, "a8") == italian.board.bit_of_number(1)
    assert parse_square(VARIANTS["international"], "50") == VARIANTS["international"].board.bit_of_number(50)
    assert parse_square(VARIANTS["international"], "51") is None


def test_split_squares_lists_the_squares_in_order():
    russian = VARIANTS["russian"]
    names = [russian.board.square_name(b) for b in split_squares(russian, "a3:c5:e7:g5:e3")]
    assert names == ["a3", "c5", "e7", "g5", "e3"]
    assert split_squares(russian, "a3c5e7") == split_squares(russian, "a3 x c5 x e7")


# ----------------------------------------------------------------------------------------------
# Output


@pytest.mark.parametrize(("key", "fen", "expected"), [
    ("russian", None, "c3-d4"),
    ("russian", "W:Wc3:Bd4,f4", "c3:e5:g3"),
    ("russian-giveaway", "W:WKa1:Bc3,f4", "a1:e5:g3"),
    ("brazilian", "W:Wc3:Bd4,f4", "c3xe5xg3"),
    ("international", None, "32-28"),
    ("international", "W:W12:B8,9", "12x3x14"),
    ("english", "W:W27:B23", "27x18"),
    ("pool", "W:W9:B6,7", "9x2x11"),
    ("italian", None, "22-18"),
    ("italian", "W:W26,K28:B21,23", "28x19"),
])
def test_move_is_written_in_the_variants_notation(key, fen, expected):
    pos = position(key, fen)
    assert expected in [move.notation(pos.variant) for move in pos.legal_moves()]
    assert pos.notation(parse_move(pos, expected)) == expected


def test_square_label_is_a_name_or_a_number():
    assert square_label(VARIANTS["russian"], VARIANTS["russian"].board.bit_of_number(29)) == "a1"
    assert square_label(VARIANTS["pool"], VARIANTS["pool"].board.bit_of_number(29)) == "29"
    assert square_label(VARIANTS["italian"], VARIANTS["italian"].board.bit_of_number(1)) == "1"


# ----------------------------------------------------------------------------------------------
# Refusals: every IllegalMove code


def test_capture_required_lists_the_captures():
    error = refusal("russian", "g3-h4", "W:Wc3,g3:Bd4")
    assert error.code == "capture_required"
    assert error.legal == ["c3:e5"]
    assert "c3:e5" in error.message
    error = refusal("russian", "g3:c5", "W:Wa3,g3:Bb4,d6,f4,f6")
    assert error.code == "capture_required"
    assert sorted(error.legal) == ["a3:c5:e7:g5:e3", "g3:e5:c7", "g3:e5:g7"]


@pytest.mark.parametrize(("fen", "text", "must"), [
    ("W:Wc3:Bd4,f6", "c3:e5", ["c3:e5:g7"]),
    ("W:WKa1:Bc3,f4", "a1:e5", ["a1:e5:g3", "a1:e5:h2"]),
    ("W:Wa3,g3:Bb4,d6,f4,f6", "a3:c5:e7", ["a3:c5:e7:g5:e3"]),
])
def test_capture_incomplete_names_how_it_goes_on(fen, text, must):
    error = refusal("russian", text, fen)
    assert error.code == "capture_incomplete"
    assert sorted(error.legal) == must


@pytest.mark.parametrize("text", ["a1:d4", "a1:f6", "a1:g7", "a1:h8", "a1xf6"])
def test_king_landing_refused_where_the_capture_cannot_go_on(text):
    # W:WKa1:Bc3,f4: behind c3 only e5 lets the king take f4 as well.
    error = refusal("russian", text, "W:WKa1:Bc3,f4")
    assert error.code == "king_landing"
    assert sorted(error.legal) == ["a1:e5:g3", "a1:e5:h2"]


def test_king_landing_refused_on_a_later_jump_of_the_capture():
    # W:WKa1:Bc3,f4,f2: after a1:e5 the king takes f4 and must land on g3, from where it takes f2;
    # landing on h2 ends the capture while it could go on.
    error = refusal("russian", "a1:e5:h2", "W:WKa1:Bc3,f4,f2")
    assert error.code == "king_landing"
    assert error.legal == ["a1:e5:g3:e1"]


def test_ambiguous_start_and_end_lists_the_candidates():
    fen = "W:WKh2:BKb6,Kc5,Kf4,Kc3"
    error = refusal("russian", "h2:d2", fen)
    assert error.code == "ambiguous"
    assert sorted(error.legal) == ["h2:c7:a5:d2", "h2:d6:b4:d2"]
    assert "h2:c7:a5:d2" in error.message and "h2:d6:b4:d2" in error.message
    # Naming one landing square in between is enough to tell them apart.
    assert parsed("russian", "h2:d6:b4:d2", fen) == "h2:d6:b4:d2"
    assert parsed("russian", "h2:a5:d2", fen) == "h2:c7:a5:d2"


def test_a_whole_route_is_read_even_when_it_is_the_start_and_end_of_a_longer_one():
    # The king takes g3 alone (f4:h2), or g5, g7, e7 and then g3 (f4:h6:f8:d6:h2): both end on h2. The
    # notation of the first is its whole route and must read back (a stored game is replayed from it).
    fen = "W:WKf4:Bg3,g5,g7,e7"
    pos = position("russian", fen)
    assert sorted(m.notation(pos.variant) for m in pos.legal_moves()) == ["f4:h2", "f4:h6:f8:d6:h2"]
    assert parsed("russian", "f4:h2", fen) == "f4:h2"
    assert parsed("russian", "f4xh2", fen) == "f4:h2"
    assert parsed("russian", "f4:h6:f8:d6:h2", fen) == "f4:h6:f8:d6:h2"
    assert parsed("russian", "f4:d6:h2", fen) == "f4:h6:f8:d6:h2"  # some landing squares: the longer one
    game = Game.replay(["f4:h2"], "russian-giveaway", fen)
    assert game.moves[0].notation(game.variant) == "f4:h2" and len(game.moves[0].captured) == 1


def test_man_backward():
    error = refusal("russian", "d4-c3", "W:Wd4:Bh8")
    assert error.code == "man_backward"
    assert "d4" in error.message


@pytest.mark.parametrize(("variant", "fen", "text", "code", "legal"), [
    # Brazilian, International, Pool: a man passing the last row in a capture stays a man (RULES.md §4)
    ("brazilian", "W:Wb6:Bc7,f6", "b6xd8xg5", "man_stays_man", ["b6xd8"]),
    ("brazilian-giveaway", "W:Wb6:Bc7,f6", "b6xd8xg5", "man_stays_man", ["b6xd8"]),
    # English, Italian: its move ends there, crowned
    ("english", "W:W9:B1,6", "9x2x1", "crowned_move_ends", ["9x2"]),
    # a piece is taken once, and lifted only when the move ends (§2.8)
    ("russian", "W:WKb2:Bb4,c3,b6,e7", "b2:f6:d8:a5:c3", "captured_once", ["b2:d4:a7", "b2:f6:d8:a5"]),
    # Italian men do not capture kings (§4)
    ("italian", "W:W22:BK18", "22x13", "man_takes_king", ["22-19"]),
])
def test_refusals_name_the_rule_broken(variant, fen, text, code, legal):
    """Found by an audit: these were refused as "capture is compulsory" or with no reason at all."""
    error = refusal(variant, text, fen)
    assert (error.code, sorted(error.legal)) == (code, sorted(legal)), error.message


def test_no_piece_and_not_your_piece():
    assert refusal("russian", "d4-e5").code == "no_piece"
    error = refusal("russian", "b6-a5")
    assert error.code == "not_your_piece"
    assert "white to move" in error.message


@pytest.mark.parametrize(("text", "legal"), [
    ("c3-e5", ["c3-b4", "c3-d4"]),
    ("c3-c5", ["c3-b4", "c3-d4"]),
    ("a1-b2", []),  # a man that cannot move at all
])
def test_illegal_destination_lists_what_the_piece_can_do(text, legal):
    error = refusal("russian", text)
    assert error.code == "illegal_destination"
    assert sorted(error.legal) == legal


@pytest.mark.parametrize("text", [
    "", "   ", "hello", "c3", "c3-", "a2-b3", "z9-x1", "c3-d9", "99-98", "221", "0-1", "x", "22", "c3 d4",
])
def test_malformed_input(text):
    assert refusal("russian", text).code == "malformed"


def test_malformed_when_not_text():
    with pytest.raises(IllegalMove) as info:
        parse_move(position("russian"), None)  # type: ignore[arg-type]
    assert info.value.code == "malformed"


def test_light_square_is_named_as_such():
    assert "light square" in refusal("russian", "a2-b3").message


@pytest.mark.parametrize(("key", "fen", "text", "legal"), [
    ("brazilian", "W:Wa3,g3:Bb4,d6,f4,f6", "g3xe5xc7", ["a3xc5xe7xg5xe3"]),
    ("brazilian", "W:Wa3,g3:Bb4,d6,f4,f6", "g3xc7", ["a3xc5xe7xg5xe3"]),
    ("international", "W:W31,34:B20,27,30", "31x22", ["34x25x14"]),
    ("italian", "W:W26,K28:B21,23", "26x17", ["28x19"]),
])
def test_capture_precedence_names_the_captures_that_must_be_played(key, fen, text, legal):
    error = refusal(key, text, fen)
    assert error.code == "capture_precedence"
    assert error.legal == legal


def test_game_over_when_there_is_no_legal_move():
    assert refusal("russian", "h2-g3", "W:Wh2:Bg3,f4").code == "game_over"


# ----------------------------------------------------------------------------------------------
# Properties


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_notation_round_trip_of_every_legal_move(pos):
    variant = pos.variant
    board = variant.board
    legal = pos.legal_moves()
    for move in legal:
        assert parse_move(pos, move.notation(variant)).key == move.key
        # Numbers work on every board, names on every 8x8 board.
        sep = variant.capture_separator if move.is_capture else "-"
        assert parse_move(pos, sep.join(str(board.number(b)) for b in move.path)).key == move.key
        if board.size == 8:
            assert parse_move(pos, "".join(board.square_name(b) for b in move.path)).key == move.key
    # Every capture route, written out in full, names its move.
    if legal and legal[0].is_capture:
        keys = {move.key for move in legal}
        for route in pos.capture_routes():
            assert parse_move(pos, route.notation(variant)).key == route.key
            assert route.key in keys
    # Start and end alone name a move exactly when no other move shares them, or when they are the whole
    # route of one of those that do.
    for move in legal:
        short = f"{square_label(variant, move.start)}-{square_label(variant, move.end)}"
        twins = [m for m in legal if m.start == move.start and m.end == move.end]
        whole = [m for m in twins if len(m.path) == 2]
        if len(twins) == 1 or whole:
            assert parse_move(pos, short).key == (whole or twins)[0].key
        else:
            with pytest.raises(IllegalMove) as info:
                parse_move(pos, short)
            assert info.value.code == "ambiguous"
            assert sorted(info.value.legal) == sorted(m.notation(variant) for m in twins)


MOVE_ALPHABET = st.sampled_from(list("abcdefghijk0123456789-x:×!?+# ²٣K\n"))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(), st.one_of(st.text(), st.text(MOVE_ALPHABET, max_size=20)))
def test_parser_raises_only_illegal_move_on_any_text(pos, text):
    try:
        move = parse_move(pos, text)
    except IllegalMove as error:
        assert error.code in {
            "capture_required", "capture_incomplete", "king_landing", "capture_precedence", "man_backward",
            "no_piece", "not_your_piece", "illegal_destination", "ambiguous", "malformed", "game_over",
            "man_stays_man", "crowned_move_ends", "captured_once", "man_takes_king",
        }
        assert error.message
    else:
        assert move in pos.legal_moves()
