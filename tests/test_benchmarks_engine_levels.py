"""benchmarks/engine_levels.py, each level against the one below (issues 3 and 15), in any variant."""

from __future__ import annotations

import pytest
from benchmark_scripts import load_script

levels = load_script("engine_levels")


def test_the_ladder_plays_the_variant_asked_for_with_both_colours(monkeypatch, capsys):
    seen: list[tuple] = []
    real = levels.play_game

    def play(white, black, opening, seconds, seed, variant):
        seen.append((white, black, variant, len(opening)))
        return real(white, black, opening, seconds, seed, variant)

    monkeypatch.setattr(levels, "play_game", play)
    assert levels.main(["--variant", "international", "--games", "2", "--time", "0.01", "--levels", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("international, 2 games per pair, at most 0.01 s a move")
    assert "level 2 vs level 1: +" in out and " of 2, score " in out
    assert seen == [(2, 1, "international", 4), (1, 2, "international", 4)]


def test_an_unknown_variant_is_refused_with_the_known_ones():
    with pytest.raises(SystemExit) as refused:
        levels.main(["--variant", "chess"])
    assert refused.value.code == 2


def test_level_one_plays_a_random_mover_that_plays_only_legal_moves(capsys):
    assert levels.main(["--variant", "russian", "--games", "2", "--time", "0.01", "--levels", "1"]) == 0
    assert "level 1 vs a random mover: +" in capsys.readouterr().out
    mover = levels.RandomMover(7)
    game = levels.Game("russian")
    for _ in range(30):
        if game.is_over:
            break
        move = mover.play(game, levels.Limit(time=0.01)).move
        assert move in game.legal_moves()
        game.play(move)
