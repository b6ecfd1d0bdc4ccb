"""PDN 3.0 reading and writing (RULES.md §5)."""

from __future__ import annotations

import contextlib
import io
import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shashki.rules import VARIANTS, PdnError, Position, get_variant
from shashki.rules.game import Game
from shashki.rules.pdn import IllegalPdnMove, iter_games, normalize_result, read_games, write_game

# ------------------------------------------------------------------------------------------------
# Reading movetext


def test_movetext_skips_comments_variations_nags_and_move_numbers():
    text = """
[Event "Annotated"]
[GameType "25"]
; a line comment before the moves
% an escape line
1. c3-d4 {a comment
spanning lines (with a parenthesis) and ; a semicolon} f6-e5!? $1
   (1... f6-g5 (1... b6-a5 2. d4-c5) 2. g3-h4) ; comment
2.d4:f6 2... g7:e5?! $14 3. b2-c3 ! 1-0
"""
    (game,) = read_games(text)
    assert game.tags == {"Event": "Annotated", "GameType": "25"}
    assert game.moves == ["c3-d4", "f6-e5", "d4:f6", "g7:e5", "b2-c3"]
    assert game.result == "1-0"
    assert [m.notation(game.variant) for m in game.replay().moves] == game.moves


def test_black_first_numbering_and_ellipsis_tokens():
    (game,) = read_games('[GameType "21"]\n1. ... 9-13? 22-18 2. 11-15!! 3 1519 *')
    assert game.moves == ["9-13", "22-18", "11-15", "1519"]


@pytest.mark.parametrize(
    ("token", "result"),
    [
        ("1-0", "1-0"),
        ("0-1", "0-1"),
        ("1/2-1/2", "1/2-1/2"),
        ("*", "*"),
        ("2-0", "1-0"),
        ("0-2", "0-1"),
        ("1-1", "1/2-1/2"),
        ("0-0", "0-0"),
    ],
)
def test_results_in_both_styles(token, result):
    (game,) = read_games(f'[GameType "20"]\n1. 32-28 19-23 {token}')
    assert game.result == result
    assert game.moves == ["32-28", "19-23"]
    assert normalize_result(token) == result


def test_result_tag_used_when_movetext_has_no_result():
    (game,) = read_games('[Result "2-0"]\n1. c3-d4')
    assert game.result == "1-0"
    (game,) = read_games('[Result "?"]\n1. c3-d4')
    assert game.result == "*"


def test_multi_game_text_split_by_results_and_by_tag_sections():
    text = """[Event "one"]
1. c3-d4 f6-g5 *
[Event "two"]
1. e3-f4
[Event "three"]
1. a3-b4 b6-a5 0-1
1. g3-h4 *
"""
    games = read_games(text)
    assert [g.index for g in games] == [1, 2, 3, 4]
    assert [g.tags.get("Event") for g in games] == ["one", "two", "three", None]
    assert [g.moves for g in games] == [["c3-d4", "f6-g5"], ["e3-f4"], ["a3-b4", "b6-a5"], ["g3-h4"]]
    assert [g.result for g in games] == ["*", "*", "0-1", "*"]
    assert [g.line for g in games] == [1, 3, 5, 7]


def test_iter_games_reads_a_stream_lazily():
    stream = io.StringIO("1. c3-d4 *\n" * 3 + "1. c3-d4 {open")
    games = iter_games(stream)
    assert next(games).moves == ["c3-d4"]
    assert next(games).index == 2
    assert next(games).index == 3
    with pytest.raises(PdnError, match="line 4"):
        next(games)


def test_tag_values_with_escapes():
    (game,) = read_games(r'[Event "The \"big\" one \\ 2024"] [Site "Moscow [RUS]"]' + "\n*")
    assert game.tags == {"Event": 'The "big" one \\ 2024', "Site": "Moscow [RUS]"}
    assert game.moves == []


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("1. c3-d4 {never closed\n\n", "line 1"),
        ("1. c3-d4\n(f6-g5 (b6-a5)\n", "line 2"),
        ('[Event "x]\n1. c3-d4', "line 1"),
        ('1. c3-d4 (f6-g5\n[Event "next"]\n', "line 1"),
    ],
)
def test_unreadable_text_is_a_pdn_error_with_its_line(text, where):
    with pytest.raises(PdnError, match=where):
        read_games(text)


def test_empty_text_has_no_games():
    assert read_games("") == []
    assert read_games("  \n{just a comment}\n; and this\n") == []


# ------------------------------------------------------------------------------------------------
# Variants and set-up positions


def test_game_type_names_the_variant():
    for number, key in [(20, "international"), (21, "english"), (22, "italian"), (23, "pool"),
                        (25, "russian"), (26, "brazilian")]:
        (game,) = read_games(f'[GameType "{number}"]\n*')
        assert game.variant.key == key


def test_game_type_with_extra_fields():
    (game,) = read_games('[GameType "20,W,10,10,N2,0"]\n*')
    assert game.variant.key == "international"


def test_variant_tag_wins_over_game_type():
    (game,) = read_games('[GameType "25"]\n[Variant "russian-giveaway"]\n*')
    assert game.variant.key == "russian-giveaway"


def test_no_variant_tags_uses_the_default():
    (game,) = read_games("1. c3-d4 *")
    assert game.variant.key == "russian-giveaway"
    (game,) = read_games("1. 9-13 *", default_variant="english")
    assert game.variant.key == "english"


@pytest.mark.parametrize("tags", ['[GameType "24"]', '[GameType "abc"]', '[Variant "frisian"]'])
def test_unknown_variant_or_game_type_is_a_clear_pdn_error(tags):
    (game,) = read_games(tags + "\n1. c3-d4 *")
    with pytest.raises(PdnError, match="game 1") as info:
        game.replay()
    assert info.value.code == "unknown_variant"
    assert info.value.game_index == 1


def test_fen_tag_sets_up_the_start():
    (game,) = read_games('[Variant "russian"]\n[FEN "W:WKb2:Bb4,c3,b6,e7"]\n1. b2:f6:d8:a5 *')
    replayed = game.replay()
    variant = get_variant("russian")
    assert replayed.start == Position.from_fen("W:WKb2:Bb4,c3,b6,e7", variant)
    assert replayed.position == Position.from_fen("B:WKa5:Bb4", variant)


def test_bad_fen_tag_is_a_pdn_error():
    (game,) = read_games('[FEN "W:Wz9"]\n*')
    with pytest.raises(PdnError, match="game 1: bad FEN"):
        game.replay()


def test_double_diagonal_option_tag():
    (game,) = read_games('[Variant "russian-giveaway"]\n[Options "double-diagonal"]\n*')
    assert game.variant.double_diagonal


# ------------------------------------------------------------------------------------------------
# Replay errors


def test_replay_reports_game_index_move_number_and_the_reason():
    text = "1. c3-d4 f6-g5 *\n\n1. c3-d4 f6-e5 2. d4-c5 e5:c3 *\n"
    first, second = read_games(text)
    first.replay()
    with pytest.raises(IllegalPdnMove) as info:
        second.replay()
    err = info.value
    assert (err.game_index, err.move_number, err.ply, err.move_text) == (2, 2, 3, "d4-c5")
    assert err.illegal.code == "capture_required"
    assert str(err).startswith("game 2: illegal move 2. d4-c5: ")
    assert isinstance(err, PdnError)


def test_replay_error_survives_pickling():
    (game,) = read_games("1. c3-d4 f6-e5 2. d4-c5 *")
    with pytest.raises(IllegalPdnMove) as info:
        game.replay()
    copy = pickle.loads(pickle.dumps(info.value))
    assert (copy.game_index, copy.move_number, copy.move_text, copy.illegal.code) == (1, 2, "d4-c5",
                                                                                      "capture_required")
    assert str(copy) == str(info.value)


def test_replay_black_move_number_after_black_to_move_fen():
    (game,) = read_games('[Variant "russian"]\n[FEN "B:Wc3:Bf6"]\n1... f6-g5 2. c3-b4 g5-g4 *')
    with pytest.raises(IllegalPdnMove) as info:
        game.replay()
    assert (info.value.move_number, info.value.move_text) == (2, "g5-g4")
    assert "2... g5-g4" in str(info.value)


def test_replay_of_moves_after_the_end_is_illegal():
    (game,) = read_games('[Variant "russian-giveaway"]\n[FEN "W:WKg1:BKe5"]\n1. g1-d4 e5:c3 2. c3-d4 *')
    with pytest.raises(IllegalPdnMove) as info:
        game.replay()
    assert info.value.illegal.code == "game_over"


# ------------------------------------------------------------------------------------------------
# Writing


def test_write_game_tag_order_numbers_and_result():
    game = Game("russian-giveaway", "W:WKg1:BKe5")
    game.play("g1-d4")
    game.play("e5:c3")
    text = write_game(game, {"Black": "Bob", "Annotator": "me", "White": "Alice", "Event": "Cup"})
    head, moves = text.split("\n\n")
    assert head.splitlines() == [
        '[Event "Cup"]',
        '[Site "?"]',
        '[Date "????.??.??"]',
        '[Round "?"]',
        '[White "Alice"]',
        '[Black "Bob"]',
        '[Result "1-0"]',
        '[GameType "25"]',
        '[Variant "russian-giveaway"]',
        '[FEN "W:WK32:BK15"]',
        '[Annotator "me"]',
    ]
    assert moves == "1. g1-d4 e5:c3 1-0\n"


def test_write_game_without_fen_from_the_start_and_black_first():
    game = Game("english")
    for move in ("9-13", "22-18", "13-17"):
        game.play(move)
    text = write_game(game)
    assert "FEN" not in text
    assert '[GameType "21"]' in text
    assert text.endswith("\n\n1. 9-13 22-18 2. 13-17 *\n")


def test_write_game_second_player_first_from_fen():
    game = Game("russian", "B:Wc3:Bf6")
    game.play("f6-g5")
    game.play("c3-d4")
    assert write_game(game).endswith("\n\n1... f6-g5 2. c3-d4 *\n")


def test_write_game_unfinished_uses_a_valid_result_tag():
    game = Game("russian")
    game.play("c3-d4")
    assert write_game(game, {"Result": "0-2"}).endswith("1. c3-d4 0-1\n")
    assert write_game(game, {"Result": "nonsense"}).endswith("1. c3-d4 *\n")


def test_write_game_wraps_lines_at_80():
    long_game = _random_game(get_variant("international"), seed=7, plies=120)
    text = write_game(long_game)
    movetext = text.split("\n\n", 1)[1]
    assert all(len(line) <= 80 for line in movetext.splitlines())
    assert len(movetext.splitlines()) > 1


# ------------------------------------------------------------------------------------------------
# Properties


def _random_game(variant, seed: int, plies: int) -> Game:
    import random

    rng = random.Random(seed)
    game = Game(variant)
    for _ in range(plies):
        if game.outcome is not None:
            break
        moves = game.legal_moves()
        if not moves:
            break
        game.play(rng.choice(moves))
    return game


tag_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    key=st.sampled_from(sorted(VARIANTS)),
    double_diagonal=st.booleans(),
    seed=st.integers(0, 2**32),
    plies=st.integers(0, 200),
    event=tag_text,
    white=tag_text,
)
def test_write_then_read_round_trips_moves_and_result(key, double_diagonal, seed, plies, event, white):
    variant = get_variant(key, double_diagonal=double_diagonal and key == "russian-giveaway")
    game = _random_game(variant, seed, plies)
    text = write_game(game, {"Event": event, "White": white})
    (read,) = read_games(text)
    assert read.variant == variant
    assert read.tags["Event"] == " ".join(event.split())
    assert read.tags["White"] == " ".join(white.split())
    replayed = read.replay()
    assert replayed.moves == game.moves
    assert replayed.position == game.position
    expected = game.outcome.result if game.outcome else "*"
    assert read.result == expected
    assert (replayed.outcome and replayed.outcome.result) == (game.outcome and game.outcome.result)


def test_round_trip_from_a_set_up_position_with_long_captures():
    game = Game("russian", "W:WKb2:Bb4,c3,b6,e7")
    game.play("b2:f6:d8:a5")
    (read,) = read_games(write_game(game))
    assert read.replay().position == game.position


pdn_alphabet = st.sampled_from(
    list('[]{}()";%$!?.*-x:/\\ \n\t0123456789abcdefghKWB') + ["1-0", "2-0", "1/2-1/2", '[Event "e"]']
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.lists(pdn_alphabet, max_size=80).map("".join)))
def test_reading_arbitrary_text_raises_only_pdn_error(text):
    try:
        games = read_games(text)
    except PdnError:
        return
    for game in games:
        with contextlib.suppress(PdnError):
            game.replay()


def test_a_byte_order_mark_before_the_text_is_no_move():
    """Found by an audit: a PDN file saved with a UTF-8 byte-order mark (as Windows programs write it) and
    sent as it is read made a phantom game whose first "move" was the mark."""
    text = '\ufeff[Event "x"]\n[GameType "25"]\n1. c3-d4 f6-g5 *\n'
    (game,) = read_games(text)
    assert game.moves == ["c3-d4", "f6-g5"] and game.tags["Event"] == "x"
    (bare,) = read_games("\ufeff1. c3-d4 *")
    assert bare.moves == ["c3-d4"]
