"""benchmarks/tune_patterns.py, which fits the pattern weights (issue 15 point 3): the model it fits is the
evaluation the engine plays, and its fit finds the weights that made synthetic results."""

from __future__ import annotations

import math
import random
from dataclasses import replace

from benchmark_scripts import load_script

from shashki.engine.evaluation import Evaluator, shipped_weights
from shashki.engine.patterns import pattern_size
from shashki.rules import Game, get_variant

tune = load_script("tune_patterns")


def test_the_fitted_model_scores_a_position_as_the_engine_does():
    variant = get_variant("russian-giveaway")
    names = tune.FAMILIES["giveaway"].features
    rng = random.Random(4)
    patterns = tuple(rng.randrange(-90, 91) for _ in range(pattern_size(variant)))
    weights = replace(shipped_weights(variant), patterns=patterns)
    engine = Evaluator(variant, weights)
    reader = Evaluator(variant, replace(weights, patterns=(0,) * len(patterns)))
    dense = [float(getattr(weights, name)) for name in names]
    checked = 0
    for _ in range(20):
        game = Game(variant)
        for _ in range(rng.randrange(0, 30)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        pos = game.position
        row = tune.row_of(reader, pos, names, 1.0)
        assert tune.evaluation(dense, [float(x) for x in patterns], row) == engine(pos)
        assert row[3] == (1.0 if pos.white_to_move else 0.0)  # the result for the side to move
        checked += 1
    assert checked == 20


def test_the_fit_finds_the_pattern_weights_that_made_the_results():
    rng = random.Random(9)
    size, k = 12, 400.0
    truth = [0.0] * size
    truth[2], truth[7] = 300.0, -300.0
    rows = []
    for _ in range(4000):
        terms = [(rng.randrange(size), rng.choice((1, -1))) for _ in range(3)]
        side = rng.choice((1, -1))
        score = side * sum(truth[i] * sign for i, sign in terms)
        y = 1.0 if rng.random() < 1 / (1 + math.exp(-score / k)) else 0.0
        rows.append(([0], terms, side, y))
    dense, patterns = tune.fit(rows, [0.0], size, k, epochs=20, l2=0.01, seed=1)
    assert patterns[2] > 150 and patterns[7] < -150
    assert all(abs(patterns[i]) < 100 for i in range(size) if i not in (2, 7))
    assert tune.error(dense, patterns, rows, k) < tune.error(dense, [0.0] * size, rows, k)


def test_the_self_play_positions_kept_are_read_back_only_for_the_same_games(tmp_path):
    path = tmp_path / "data.pickle"
    made: list[int] = []

    def make(value: float):
        def run():
            made.append(1)
            return [[([1], [(0, 1)], 1, value)]]
        return run

    first = tune.cached(path, ("international", 10, 1000, 1), make(1.0))
    again = tune.cached(path, ("international", 10, 1000, 1), make(0.0))
    assert again == first and len(made) == 1  # read from the file, not played again
    other = tune.cached(path, ("international", 10, 1000, 2), make(0.0))  # another seed: played
    assert other == [[([1], [(0, 1)], 1, 0.0)]] and len(made) == 2
    assert tune.cached(None, ("x",), make(0.5)) == [[([1], [(0, 1)], 1, 0.5)]] and len(made) == 3
