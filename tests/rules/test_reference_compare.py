"""The fast move generator agrees with the reference generator (tests/rules/reference.py) everywhere.

Positions come from random play from the start and from random placement (kings included, both sides
to move), with fixed seeds. For each one the capture routes ("all paths"), the distinct legal moves and
the positions they lead to must be the same. A few hundred positions per variant run by default, ten
thousand behind `slow`. The reference itself is held to the perft numbers of RULES.md §6, so that the
two generators cannot agree on a mistake the published counts would show.
"""

from __future__ import annotations

import copy
import random

import pytest
from reference import BLACK, WHITE, Piece, ReferenceRules, Route, apply_route, perft

from shashki.rules import VARIANTS, Position, Precedence, Variant
from shashki.rules.notation import square_label

VARIANT_KEYS = sorted(VARIANTS)

FAST_SAMPLE = 300
SLOW_SAMPLE = 10_000


def reference_board(pos: Position) -> dict[tuple[int, int], Piece]:
    board = pos.board
    pieces = {}
    for color, bb in ((WHITE, pos.white), (BLACK, pos.black)):
        for bit in board.iter_bits(bb):
            pieces[(board.rows[bit], board.cols[bit])] = Piece(color, bool(pos.kings >> bit & 1))
    return pieces


def route_of_move(pos: Position, move) -> tuple:
    board = pos.board
    square = {bit: (board.rows[bit], board.cols[bit]) for bit in move.path + move.captured}
    return (tuple(square[b] for b in move.path), tuple(square[b] for b in move.captured), move.promotes)


def route_of_reference(route: Route) -> tuple:
    return (route.path, route.captured, route.promotes)


def identity(route: tuple) -> tuple:
    path, captured, promotes = route
    return (path[0], path[-1], frozenset(captured), promotes)


def random_play_positions(variant: Variant, count: int, rng: random.Random) -> list[Position]:
    """Every position of random games from the start position, until `count` are collected."""
    positions: list[Position] = []
    while len(positions) < count:
        pos = Position.start(variant)
        for _ in range(rng.randint(20, 200)):
            positions.append(pos)
            moves = pos.legal_moves()
            if not moves or len(positions) >= count:
                break
            pos = pos.play(rng.choice(moves))
    return positions


def random_placement(variant: Variant, rng: random.Random) -> Position:
    """Random men and kings of both sides anywhere they may stand, either side to move."""
    board = variant.board
    squares = list(board.rows)
    rng.shuffle(squares)
    white_to_move = rng.random() < 0.5
    # Mix dense middlegames (few kings) with open endings (many kings), where kings capture far,
    # and hunts: a few attackers among many scattered victims, where long capture chains arise.
    king_share = rng.choice((0.0, 0.1, 0.3, 0.6, 1.0))
    hunt = rng.random() < 0.3
    white = black = kings = 0
    for side in ("white", "black"):
        attacker = (side == "white") == white_to_move
        if hunt and attacker:
            count = rng.randint(1, 3)
        elif hunt:
            count = rng.randint(4, variant.men_per_side)
        else:
            count = rng.randint(1, rng.choice((3, 6, variant.men_per_side)))
        promotion_row = board.white_promotion_row if side == "white" else board.black_promotion_row
        placed = 0
        for bit in list(squares):
            if placed == count:
                break
            edge = board.rows[bit] in (0, board.size - 1) or board.cols[bit] in (0, board.size - 1)
            if hunt and not attacker and edge:
                continue  # victims off the edge can be jumped
            squares.remove(bit)
            placed += 1
            # A man never stands on its own promotion row.
            if rng.random() < king_share or promotion_row >> bit & 1:
                kings |= 1 << bit
            if side == "white":
                white |= 1 << bit
            else:
                black |= 1 << bit
    return Position(variant, white, black, kings, white_to_move)


def sample_positions(variant: Variant, count: int, seed: int) -> list[Position]:
    rng = random.Random(f"{variant.key}-{seed}")
    positions = random_play_positions(variant, count // 2, rng)
    positions += [random_placement(variant, rng) for _ in range(count - len(positions))]
    return positions


def mismatch_report(pos: Position, fast: list, reference: list, what: str) -> str:
    """The position and both move lists, written in the variant's notation."""
    variant = pos.variant
    board = variant.board
    label = {(board.rows[b], board.cols[b]): square_label(variant, b) for b in board.rows}

    def text(route: tuple) -> str:
        if len(route) == 4:  # an identity: start, end, captured set, promotes
            start, end, captured, promotes = route
            path = (start, end)
        else:
            path, captured, promotes = route
        taken = ",".join(sorted(label[sq] for sq in captured))
        out = "-".join(label[sq] for sq in path) + (f" x[{taken}]" if taken else "")
        return out + (" =K" if promotes else "")

    def listing(routes) -> str:
        return ", ".join(sorted(map(text, routes))) or "none"

    return "\n".join([
        f"{what} differ in {variant.key} at {pos.fen(algebraic=variant.algebraic)}",
        str(pos),
        "fast:           " + listing(fast),
        "reference:      " + listing(reference),
        "only fast:      " + listing(set(fast) - set(reference)),
        "only reference: " + listing(set(reference) - set(fast)),
    ])


def check_position(pos: Position, rules: ReferenceRules) -> None:
    board = reference_board(pos)
    color = WHITE if pos.white_to_move else BLACK
    reference_routes = rules.routes(board, color)
    expected_routes = [route_of_reference(r) for r in reference_routes]
    fast_routes = [route_of_move(pos, m) for m in pos.capture_routes()]
    assert sorted(fast_routes) == sorted(expected_routes), mismatch_report(
        pos, fast_routes, expected_routes, "capture routes (all paths)"
    )

    fast_moves = pos.legal_moves()
    fast_ids = [identity(route_of_move(pos, m)) for m in fast_moves]
    expected_ids = {identity(r) for r in expected_routes}
    if len(fast_ids) != len(set(fast_ids)):
        pytest.fail(mismatch_report(pos, fast_ids, expected_ids, "duplicate moves"))
    assert set(fast_ids) == expected_ids, mismatch_report(pos, fast_ids, expected_ids, "distinct legal moves")

    # Without the precedence rule (used to explain a refused capture), every complete capture route.
    if rules.precedence is not Precedence.FREE and fast_routes and fast_routes[0][1]:
        unfiltered = [route_of_move(pos, m) for m in pos.generate(distinct=False, precedence=False)]
        expected = [route_of_reference(r) for r in free_choice(rules).routes(board, color)]
        assert sorted(unfiltered) == sorted(expected), mismatch_report(
            pos, unfiltered, expected, "capture routes before precedence"
        )

    # Each move leads to the position the reference computes from the same route, with the Zobrist
    # hash kept up to date.
    by_identity = {r.identity: r for r in reference_routes}
    for move, move_id in zip(fast_moves, fast_ids, strict=True):
        after = pos.play(move)
        assert reference_board(after) == apply_route(board, by_identity[move_id]), (
            f"{move.notation(pos.variant)} in {pos.fen()} gives {after.fen()}"
        )
        assert after.white_to_move != pos.white_to_move
        fresh = Position(pos.variant, after.white, after.black, after.kings, after.white_to_move)
        assert after.hash == fresh.hash, f"{move.notation(pos.variant)} in {pos.fen()}: stale hash"


def free_choice(rules: ReferenceRules) -> ReferenceRules:
    unfiltered = copy.copy(rules)
    unfiltered.precedence = Precedence.FREE
    return unfiltered


def compare(variant_key: str, count: int, seed: int) -> None:
    variant = VARIANTS[variant_key]
    rules = ReferenceRules(variant)
    positions = sample_positions(variant, count, seed)
    assert len(positions) == count
    for pos in positions:
        check_position(pos, rules)


@pytest.mark.parametrize("variant_key", VARIANT_KEYS)
def test_fast_generator_matches_reference_on_random_positions(variant_key):
    compare(variant_key, FAST_SAMPLE, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("variant_key", VARIANT_KEYS)
def test_fast_generator_matches_reference_on_ten_thousand_positions(variant_key):
    compare(variant_key, SLOW_SAMPLE, seed=2)


def test_random_samples_contain_captures_kings_and_both_sides_to_move():
    # The comparison proves something only if the sample exercises the capture rules.
    for key in ("russian", "international", "italian"):
        positions = sample_positions(VARIANTS[key], FAST_SAMPLE, seed=1)
        captures = [p for p in positions if p.is_capture_required()]
        king_captures = [p for p in captures if any(p.kings >> m.start & 1 for m in p.legal_moves())]
        multi = [p for p in captures if any(len(m.captured) >= 3 for m in p.legal_moves())]
        assert len(captures) > FAST_SAMPLE // 5, key
        assert len(king_captures) > FAST_SAMPLE // 20, key
        assert multi, key
        assert {p.white_to_move for p in positions} == {True, False}


# RULES.md §6, all paths from the start position, depth 1 ... 7 (the fast generator goes deeper in
# test_perft.py). The reference runs about 40,000 positions a second.
REFERENCE_PERFT = {
    "russian": [7, 49, 302, 1469, 7482, 37986, 190146],
    "brazilian": [7, 49, 302, 1469, 7473, 37628, 187302],
    "pool": [7, 49, 302, 1469, 7482, 37986, 190146],
    "english": [7, 49, 302, 1469, 7361, 36768, 179740],
    "italian": [7, 49, 302, 1469, 7361, 36473, 177532],
    "international": [9, 81, 658, 4265, 27117],
}
WOLDOUBY = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"
WOLDOUBY_DISTINCT = [6, 12, 30, 73, 215, 590, 1944, 6269, 22369]


def reference_perft(pos: Position, depth: int, all_paths: bool) -> int:
    color = WHITE if pos.white_to_move else BLACK
    return perft(ReferenceRules(pos.variant), reference_board(pos), color, depth, all_paths)


@pytest.mark.parametrize("key", sorted(REFERENCE_PERFT))
def test_reference_generator_reproduces_the_published_perft(key):
    depth = 4 if key == "international" else 5
    pos = Position.start(VARIANTS[key])
    assert reference_perft(pos, depth, all_paths=True) == REFERENCE_PERFT[key][depth - 1]


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(REFERENCE_PERFT))
def test_reference_generator_reproduces_the_published_perft_deeper(key):
    depth = len(REFERENCE_PERFT[key])
    pos = Position.start(VARIANTS[key])
    assert reference_perft(pos, depth, all_paths=True) == REFERENCE_PERFT[key][-1]


def test_reference_generator_reproduces_the_woldouby_perft():
    pos = Position.from_fen(WOLDOUBY, VARIANTS["international"])
    assert reference_perft(pos, 6, all_paths=False) == WOLDOUBY_DISTINCT[5]


@pytest.mark.slow
def test_reference_generator_reproduces_the_woldouby_perft_deeper():
    pos = Position.from_fen(WOLDOUBY, VARIANTS["international"])
    assert reference_perft(pos, 9, all_paths=False) == WOLDOUBY_DISTINCT[8]
