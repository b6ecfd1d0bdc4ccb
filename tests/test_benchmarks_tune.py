"""benchmarks/tune_evaluation.py, which fits the shipped evaluation weights (issue 15 point 3): its pieces
on small inputs, so that the script that made the weights files can make them again."""

from __future__ import annotations

import math
import random

from benchmark_scripts import load_script

from shashki.engine.evaluation import FAMILIES as SHIPPED_FAMILIES
from shashki.engine.evaluation import DraughtsWeights, Evaluator, GiveawayWeights
from shashki.rules import Position, get_variant

tune = load_script("tune_evaluation")


def test_the_script_tunes_every_family_the_engine_ships_and_plays_its_variants():
    assert set(tune.FAMILIES) == set(SHIPPED_FAMILIES)
    for name, family in tune.FAMILIES.items():
        assert set(family.variants) <= set(SHIPPED_FAMILIES[name])
        for key in family.variants:
            assert get_variant(key).giveaway == (family.kind is GiveawayWeights)


def test_a_short_king_is_fitted_as_short_king_and_a_flying_one_as_king():
    names = (*tune.FEATURES, "short_king")
    for key, column in (("english", "short_king"), ("russian", "king")):
        variant = get_variant(key)
        pos = Position.from_fen("W:WK1,K2,21:B12", variant)  # White: two kings and a man; Black: a man
        values = tune.feature_row(Evaluator(variant, DraughtsWeights()), pos, names)
        row = dict(zip(names, values, strict=True))
        other = "king" if column == "short_king" else "short_king"
        assert row[column] == 2 and row[other] == 0, key
        assert row["man"] == 0  # one man each


def test_openings_are_spread_over_the_family_variants_and_are_the_same_for_a_seed():
    lines = tune.family_openings("english", 7, 6, 4)
    assert [variant for variant, _ in lines] == ["english", "italian"] * 3
    assert lines == tune.family_openings("english", 7, 6, 4)
    assert len({(variant, tuple(line)) for variant, line in lines}) == 6


def test_the_fit_finds_the_weights_that_made_the_results():
    rng = random.Random(1)
    truth = [100.0, -40.0, 15.0]
    k = 100.0
    xs = [[rng.randint(-3, 3) for _ in truth] for _ in range(400)]
    ys = [1 / (1 + math.exp(-sum(w * x for w, x in zip(truth, row, strict=True)) / k)) for row in xs]
    fitted = tune.fit(xs, ys, [50.0, 0.0, 0.0], k, epochs=400)
    assert tune.error(fitted, xs, ys, k) < tune.error([50.0, 0.0, 0.0], xs, ys, k) / 100
    for got, want in zip(fitted, truth, strict=True):
        assert abs(got - want) < 5, (fitted, truth)


def test_checking_a_variant_without_a_family_file_says_there_is_nothing_to_check(capsys):
    assert tune.main(["--check-shipped", "english", "--check-pairs", "1"]) == 2
    assert "no weights file" in capsys.readouterr().out
