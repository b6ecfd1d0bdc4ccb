"""The two evaluations: ordinary draughts and giveaway."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shashki.engine.evaluation import (
    FAMILIES,
    FEATURES,
    PARENT,
    DraughtsWeights,
    Evaluator,
    GiveawayWeights,
    evaluator,
    family_file,
    family_of,
    shipped_weights,
)
from shashki.rules import Game, Position, get_variant
from shashki.rules.variant import VARIANTS


@pytest.mark.parametrize("key", ["russian", "russian-giveaway", "international", "english", "italian"])
def test_the_start_position_is_even_for_both_sides(key):
    variant = get_variant(key)
    assert evaluator(variant)(Position.start(variant)) == 0


@pytest.mark.parametrize("key", ["russian", "russian-giveaway"])
def test_a_position_and_its_colour_mirror_score_the_same_for_the_side_to_move(key):
    # The board turned round with the colours swapped (square n <-> 33 - n): the same for the mover.
    variant = get_variant(key)
    board = variant.board
    evaluate = evaluator(variant)

    def turn(bb: int) -> int:
        return sum(1 << board.bit_of_number(board.squares + 1 - board.number(b)) for b in board.iter_bits(bb))

    for fen in ("W:Wc3,e3,Kh2:Bf6,d6", "W:Wa1,b4,g5,h2:Bh8,c5,Ke1", "B:Wa3,c3,e3:Bb6,d6,Kf2"):
        pos = Position.from_fen(fen, variant)
        mirror = Position(variant, turn(pos.black), turn(pos.white), turn(pos.kings), not pos.white_to_move)
        assert mirror.fen(algebraic=True) != fen
        assert evaluate(pos) == evaluate(mirror), fen


def test_in_russian_an_extra_man_is_good_and_in_giveaway_it_is_bad():
    # The hand-set giveaway weights (the tuning's starting point); the tuned ones keep men a cost.
    fen = "W:Wc3,e3,g3:Bf6,d6"
    assert evaluator(get_variant("russian"))(Position.from_fen(fen, "russian")) > 0
    giveaway = get_variant("russian-giveaway")
    assert evaluator(giveaway, GiveawayWeights())(Position.from_fen(fen, giveaway)) < 0
    # The shipped evaluation too (its man weight alone is not the cost of a man: the pattern weights over
    # the board's regions, fitted with it, price every man where it stands).
    assert evaluator(giveaway)(Position.from_fen(fen, giveaway)) < 0


def test_in_giveaway_a_king_costs_more_than_a_man():
    variant = get_variant("russian-giveaway")
    evaluate = evaluator(variant, GiveawayWeights())
    with_king = Position.from_fen("W:WKc3:Bf6", variant)
    with_man = Position.from_fen("W:Wc3:Bf6", variant)
    assert evaluate(with_king) < evaluate(with_man)


def test_weights_are_named_constants_and_the_shipped_giveaway_weights_load():
    assert DraughtsWeights().man == 100
    shipped = GiveawayWeights.shipped(get_variant("russian-giveaway"))
    assert isinstance(shipped, GiveawayWeights)
    if family_file("giveaway").exists():
        data = json.loads(family_file("giveaway").read_text())
        assert GiveawayWeights.from_dict(_with_patterns(data)) == shipped
        assert data["tuning"]["games"] > 0


def _with_patterns(data: dict) -> dict:
    """A weights file's weights, with its pattern weights when it has them."""
    if "patterns" not in data:
        return data["weights"]
    return data["weights"] | {"patterns": data["patterns"]["values"]}


def _random_positions(key: str, count: int, seed: int) -> list[Position]:
    """Positions of seeded random games (openings, middle games, endings with kings)."""
    rng = random.Random(seed)
    variant = get_variant(key)
    positions = []
    for _ in range(count):
        game = Game(variant)
        for _ in range(rng.randrange(0, 90)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        positions.append(game.position)
    return positions


@settings(max_examples=25, deadline=None)
@given(
    key=st.sampled_from(["russian", "brazilian", "international", "english", "pool", "russian-giveaway"]),
    values=st.fixed_dictionaries({name: st.integers(-300, 300) for name in FEATURES}),
    seed=st.integers(0, 1000),
)
def test_the_score_is_the_weighted_difference_of_both_sides_features(key, values, seed):
    # The search's `score` (summed per side, extra features only when weighted) must equal the
    # features the tuning fits, weighted: whatever the weights.
    variant = get_variant(key)
    weights = DraughtsWeights(**values)
    evaluate = Evaluator(variant, weights)
    per_feature = [values[name] for name in FEATURES]
    if not variant.flying_kings:
        per_feature[FEATURES.index("king")] = weights.short_king
    for pos in _random_positions(key, 8, seed):
        own = evaluate.features(pos, pos.white_to_move)
        other = evaluate.features(pos, not pos.white_to_move)
        expected = sum(w * (a - b) for w, a, b in zip(per_feature, own, other, strict=True))
        assert evaluate.score(pos) == expected, pos.fen()


def _features(fen: str, white: bool = True, key: str = "russian") -> dict[str, int]:
    variant = get_variant(key)
    values = Evaluator(variant, DraughtsWeights()).features(Position.from_fen(fen, variant), white)
    return dict(zip(FEATURES, values, strict=True))


def test_kings_on_the_long_diagonal():
    assert _features("W:WKa1,Kd4,Kc1:Bh8")["main_diagonal"] == 2  # a1 and d4 lie on a1-h8, c1 does not
    assert _features("W:Wc3,e3:Bh8")["main_diagonal"] == 0  # men do not count
    assert _features("W:Wc3:BKh8,Kb2", white=False)["main_diagonal"] == 2


def test_men_about_to_crown_need_a_free_square_to_crown_on():
    # White crowns on row 8: c7 can go to b8 or d8, a7 only to b8, g7 to f8 or h8.
    assert _features("W:Wc7:Bh8")["near_crown"] == 1
    assert _features("W:Wc7:Bb8,d8")["near_crown"] == 0
    assert _features("W:Wc7,g7,a7:Bf8,h8,d8")["near_crown"] == 2  # c7 (b8) and a7 (b8); g7 is blocked
    assert _features("W:Wc5:Bh8")["near_crown"] == 0  # two steps away
    # Black crowns on row 1: b2 has a1 and c1, h2 only g1 (taken).
    assert _features("W:Wg1:Bb2,h2", white=False)["near_crown"] == 1
    assert _features("W:Wg1:Bh2", white=False)["near_crown"] == 0


def test_backed_men_and_men_spread_unevenly_over_the_wings():
    # White's men move up: d4 is backed by c3 (behind it), c3 by nothing.
    assert _features("W:Wc3,d4:Bh8")["backed"] == 1
    assert _features("W:Wc3,g3:Bh8")["backed"] == 0
    assert _features("W:Wd6:Bc7,e7", white=False)["backed"] == 0  # d6 is White's
    assert _features("W:Wa1:Bd6,c7", white=False)["backed"] == 1  # c7 is behind d6 for Black
    assert _features("W:Wa1,c1,d2,b2:Bh8")["imbalance"] == 4  # all four on the left half (a-d)
    assert _features("W:Wa1,g1,c3,f4:Bh8")["imbalance"] == 0


def test_a_runaway_man_has_no_opposing_piece_on_its_way_to_the_crowning_row():
    # White moves up: c5's cone is b6, d6, a7, c7, e7, b8, d8, f8.
    assert _features("W:Wc5:Bh8")["runaway"] == 1  # h8 is outside c5's cone
    assert _features("W:Wc5:Bf8")["runaway"] == 0  # f8 is inside it (c5-d6-e7-f8)
    assert _features("W:Wc5:BKa7")["runaway"] == 0  # a king in the way counts too
    assert _features("W:Wc3:Bh8")["runaway"] == 0  # not past the middle of the board yet
    assert _features("W:Wc5,g5:Bb8")["runaway"] == 1  # g5 runs; c5 does not
    assert _features("W:WKc5:Bh8")["runaway"] == 0  # a king is no man
    # Black moves down: f4's cone is e3, g3, d2, f2, h2, c1, e1, g1.
    assert _features("W:Wa1:Bf4", white=False)["runaway"] == 1
    assert _features("W:Wa3:Bf4", white=False)["runaway"] == 1
    assert _features("W:Wc1:Bf4", white=False)["runaway"] == 0
    # International (10x10): White's 23 is past the middle (squares 1-25), 28 not yet.
    assert _features("W:W23:B45", key="international")["runaway"] == 1  # 45 is behind it
    assert _features("W:W23:B19", key="international")["runaway"] == 0  # 19 is right in front of it
    assert _features("W:W28:B45", key="international")["runaway"] == 0


def test_men_on_the_edge_files():
    assert _features("W:Wa1,h2,c3,a5:Bh8")["edge"] == 3  # a1, h2, a5
    assert _features("W:WKa1,c3:Bh8")["edge"] == 0  # kings do not count
    assert _features("W:W6,15,28:B1", key="international")["edge"] == 2  # 6 and 15 on the edge files


def test_every_variant_has_one_family_whose_file_holds_the_weights_it_plays_with():
    assert sorted(key for keys in FAMILIES.values() for key in keys) == sorted(VARIANTS)
    for name, keys in FAMILIES.items():
        path = family_file(name)
        for key in keys:
            variant = get_variant(key)
            assert family_of(variant) == name
            kind = GiveawayWeights if variant.giveaway else DraughtsWeights
            shipped = shipped_weights(variant)
            assert isinstance(shipped, kind)
            assert Evaluator(variant).weights == shipped
            if not path.exists():
                parent = PARENT.get(name)
                if parent is not None and family_file(parent).exists():
                    assert shipped == shipped_weights(get_variant(FAMILIES[parent][0])), key
                else:
                    assert shipped == kind(), key  # no file: the hand-set weights
                continue
            data = json.loads(path.read_text())
            assert shipped == kind.from_dict(_with_patterns(data)), key
            assert data["tuning"]["games"] > 0
            assert data["tuning"]["check_score_vs_defaults"] > 0.5, "shipped only if it beat the hand-set"
            if "patterns" in data:
                # Patterns ship only when they beat the weights without them, at equal nodes and time.
                fitting = data["patterns"]["fitting"]
                assert fitting["check_score_vs_shipped"] > 0.5, key
                assert fitting["check_score_vs_shipped_at_equal_time"] > 0.5, key
                assert fitting["mse_held_out_fitted"] < fitting["mse_held_out_shipped"], key
            if variant.giveaway:
                # A man still to give away is a cost (with patterns, they price the men where they stand).
                assert shipped.man < 0 or shipped.patterns, key
            else:
                # Scores stay in hundredths of a man (the analysis and the puzzles read them so), and a
                # man that crowns gains.
                assert shipped.man == 100
                assert (shipped.king if variant.flying_kings else shipped.short_king) > shipped.man, key

