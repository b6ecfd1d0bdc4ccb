"""The legal moves as clients receive them (games/view.py) say what the rules say: each move's text is
its notation in the variant, its path and captures are the squares' labels."""

from __future__ import annotations

import random

import pytest

from shashki.rules import VARIANTS, Game
from shashki.rules.notation import square_label
from shashki.server.games.view import legal_moves_of, move_named


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_legal_move_is_shown_in_the_variants_notation(name):
    variant = VARIANTS[name]
    rng = random.Random(name)
    checked = 0
    for _ in range(3):
        game = Game(variant)
        while game.outcome is None and checked < 400:
            position = game.position
            moves = position.legal_moves()
            shown = legal_moves_of(position)
            assert len(shown) == len(moves)
            for move, view in zip(moves, shown, strict=True):
                assert view.move == move.notation(variant)
                assert view.path == tuple(square_label(variant, b) for b in move.path)
                assert view.captures == tuple(square_label(variant, b) for b in move.captured)
                assert move_named(position, view.move) == move
                checked += 1
            if not moves:
                break
            game.play(rng.choice(moves))
    assert checked > 0
