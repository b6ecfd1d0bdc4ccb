"""benchmarks/tune_evaluation.py, which fits the shipped evaluation weights (issue 15 point 3): its pieces
on small inputs, so that the script that made the weights files can make them again."""

from __future__ import annotations

import json
import math
import random

import pytest
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


def test_try_reads_named_weights_and_refuses_anything_else():
    assert tune.parse_changes("king=275,centre=-4", DraughtsWeights) == {"king": 275, "centre": -4}
    for bad in ("kings=275", "king=2.5", "king", "patterns=1"):
        with pytest.raises(SystemExit, match="NAME=INTEGER"):
            tune.parse_changes(bad, DraughtsWeights)


def test_try_plays_the_changed_weights_and_writes_them_with_the_change_kept(tmp_path, monkeypatch, capsys):
    shipped = tune.family_file("international")
    copy = tmp_path / shipped.name
    copy.write_text(shipped.read_text())
    before = json.loads(copy.read_text())
    played = []

    def match(family, a, b, lines, nodes, jobs=1, seconds=None):
        played.append((family, a, b, len(lines), nodes, seconds))
        return 0.625, 2 * len(lines)

    monkeypatch.setattr(tune, "match", match)
    monkeypatch.setattr(tune, "family_file", lambda name: copy)
    argv = ["--check-shipped", "international", "--try", "king=275", "--check-pairs", "3", "--seconds", "0.1",
            "--write"]
    assert tune.main(argv) == 0
    family, changed, shipped_weights, pairs, _, seconds = played[0]
    assert (family, pairs, seconds) == ("international", 3, 0.1)
    assert changed.king == 275 and shipped_weights.king == before["weights"]["king"]
    assert changed.mobility == shipped_weights.mobility  # only the named weight changed
    after = json.loads(copy.read_text())
    assert after["weights"] == {**before["weights"], "king": 275}
    assert after["tuning"] == before["tuning"]
    record = after["adjusted"][-1]
    assert record["from"] == {"king": before["weights"]["king"]} and record["to"] == {"king": 275}
    assert (record["games"], record["seconds_per_move"], record["score_vs_shipped"]) == (6, 0.1, 0.625)
    assert "62.5%" in capsys.readouterr().out
