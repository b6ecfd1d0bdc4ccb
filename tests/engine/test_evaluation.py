"""The two evaluations: ordinary draughts and giveaway."""

from __future__ import annotations

import json

import pytest

from shashki.engine.evaluation import WEIGHTS_FILE, DraughtsWeights, GiveawayWeights, evaluator
from shashki.rules import Position, get_variant


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
    assert GiveawayWeights.shipped().man < 0


def test_in_giveaway_a_king_costs_more_than_a_man():
    variant = get_variant("russian-giveaway")
    evaluate = evaluator(variant, GiveawayWeights())
    with_king = Position.from_fen("W:WKc3:Bf6", variant)
    with_man = Position.from_fen("W:Wc3:Bf6", variant)
    assert evaluate(with_king) < evaluate(with_man)


def test_weights_are_named_constants_and_the_shipped_giveaway_weights_load():
    assert DraughtsWeights().man == 100
    shipped = GiveawayWeights.shipped()
    assert isinstance(shipped, GiveawayWeights)
    if WEIGHTS_FILE.exists():
        data = json.loads(WEIGHTS_FILE.read_text())
        assert GiveawayWeights.from_dict(data["weights"]) == shipped
        assert data["tuning"]["games"] > 0
