"""PDN variations and comments kept by the reader, and the whole tree played through the rules."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shashki.rules import VARIANTS, Game, PdnError, Position, get_variant
from shashki.rules.pdn import IllegalPdnMove, read_games, write_game
from shashki.rules.pdn_tree import play_tree

ANNOTATED = """[Event "Annotated"]
[GameType "25"]
{Before the first move} 1. c3-d4 {the centre} f6-e5!? $1
   (1... f6-g5 {a flank} (1... b6-a5 2. d4-c5) 2. g3-h4) ; after the variation
2. d4:f6 g7:e5 *
"""


def test_reader_keeps_comments_marks_and_nested_variations():
    (game,) = read_games(ANNOTATED)
    first, second, third, fourth = game.mainline
    assert game.moves == ["c3-d4", "f6-e5", "d4:f6", "g7:e5"]
    assert (first.before, first.comment, first.line) == ("Before the first move", "the centre", 3)
    assert second.marks == ["!?", "$1"]
    assert second.comment == "after the variation"
    (variation,) = second.variations
    assert [m.text for m in variation] == ["f6-g5", "g3-h4"]
    assert variation[0].comment == "a flank"
    (nested,) = variation[0].variations
    assert [m.text for m in nested] == ["b6-a5", "d4-c5"]
    assert third.variations == [] and fourth.variations == []


def test_tree_plays_each_variation_from_the_position_before_the_move_it_replaces():
    (game,) = read_games(ANNOTATED)
    root = play_tree(game)
    (after_c3d4,) = root.children
    assert [c.notation for c in after_c3d4.children] == ["f6-e5", "f6-g5", "b6-a5"]
    variant = get_variant("russian")
    for child in after_c3d4.children:
        expected = Game.replay(["c3-d4", child.notation], variant).position
        assert child.position == expected and child.ply == 2
    main = after_c3d4.children[0]
    assert main.children[0].children[0].position == game.replay().position
    nested = after_c3d4.children[2]
    assert [c.notation for c in nested.children] == ["d4-c5"]
    assert nested.children[0].position == Game.replay(["c3-d4", "b6-a5", "d4-c5"], variant).position


def test_illegal_move_in_a_variation_names_game_move_and_line():
    text = '[Event "ok"]\n1. c3-d4 f6-g5 *\n\n[Event "bad"]\n1. c3-d4 f6-e5\n(1... f6-g5\n2. d4-d5 g5-h4) *\n'
    first, second = read_games(text)
    play_tree(first)
    with pytest.raises(IllegalPdnMove) as info:
        play_tree(second)
    error = info.value
    assert (error.game_index, error.move_number, error.move_text, error.line) == (2, 2, "d4-d5", 7)
    assert "game 2" in str(error) and "line 7" in str(error) and "2. d4-d5" in str(error)


def test_tree_of_a_bad_fen_is_a_pdn_error():
    (game,) = read_games('[FEN "W:Wz9"]\n1. c3-d4 *')
    with pytest.raises(PdnError, match="game 1: bad FEN"):
        play_tree(game)


def _random_game(variant, seed: int, plies: int) -> Game:
    rng = random.Random(seed)
    game = Game(variant)
    for _ in range(plies):
        moves = game.legal_moves()
        if not moves:
            break
        game.play(rng.choice(moves))
    return game


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 2**32), plies=st.integers(0, 120))
def test_exported_game_imports_as_a_tree_of_the_same_positions(key, seed, plies):
    game = _random_game(get_variant(key), seed, plies)
    (read,) = read_games(write_game(game))
    node = play_tree(read)
    positions = [node.position]
    while node.children:
        (node,) = node.children
        positions.append(node.position)
    assert positions == game.positions
    assert node.outcome == game.outcome
    assert isinstance(positions[0], Position)
