"""Endgame tables for Russian giveaway: known facts, brute force, and the engine playing them."""

from __future__ import annotations

import random

from shashki.engine import Engine, Limit
from shashki.engine.search import Searcher
from shashki.engine.tablebase import Tablebase, _Indexer, default_tablebase
from shashki.rules import Game, Position, get_variant

VARIANT = get_variant("russian-giveaway")


def minimax(pos: Position, depth: int) -> int:
    """+1 forced win for the side to move within `depth` plies, -1 forced loss, 0 neither."""
    moves = pos.legal_moves()
    if not moves:
        return 1
    if depth == 0:
        return 0
    return max(-minimax(pos.play(m), depth - 1) for m in moves)


def test_one_king_each_exactly_16_of_1984_positions_are_draws(tmp_path):
    table = Tablebase.build(2, directory=tmp_path, reuse=False)  # from scratch: about a second
    board = VARIANT.board
    draws = set()
    total = 0
    for w in board.rows:
        for b in board.rows:
            if w == b:
                continue
            for white_to_move in (True, False):
                total += 1
                pos = Position(VARIANT, 1 << w, 1 << b, (1 << w) | (1 << b), white_to_move)
                if table.probe(pos)[0] == 0:
                    draws.add(frozenset((board.square_name(w), board.square_name(b))))
    assert total == 1984
    # One king on a7 or g1, the other on b8 or h2, either side to move: 4 pairs x 2 orders x 2 sides.
    assert draws == {frozenset(p) for p in (("a7", "b8"), ("a7", "h2"), ("g1", "b8"), ("g1", "h2"))}
    assert sum(table.probe(Position(VARIANT, 1 << w, 1 << b, (1 << w) | (1 << b), s))[0] == 0
               for w in board.rows for b in board.rows if w != b for s in (True, False)) == 16


def test_shipped_tables_cover_three_pieces_and_match_a_fresh_build(tmp_path):
    shipped = default_tablebase()
    assert shipped.pieces >= 3
    fresh = Tablebase.build(2, directory=tmp_path, reuse=False)
    assert shipped.tables[1] == fresh.tables[1] and shipped.tables[2] == fresh.tables[2]


def test_index_and_position_are_inverse():
    indexer = _Indexer(VARIANT, 3)
    rng = random.Random(5)
    for _ in range(500):
        index = rng.randrange(indexer.size)
        pos = indexer.position(index)
        if pos is not None:
            assert indexer.index(pos) == index


def test_three_piece_results_and_distances_agree_with_brute_force():
    table = default_tablebase()
    indexer = _Indexer(VARIANT, 3)
    rng = random.Random(11)
    checked = {1: 0, 0: 0, -1: 0}
    while min(checked.values()) < 6:
        pos = indexer.position(rng.randrange(indexer.size))
        if pos is None:
            continue
        result, plies = table.probe(pos)
        if result == 0:
            assert minimax(pos, 5) == 0, pos.fen()
        elif plies <= 5:
            assert minimax(pos, plies) == result, pos.fen()
            if plies and result == 1:
                assert minimax(pos, plies - 1) != 1, pos.fen()  # not a shorter win
        else:
            continue
        checked[result] += 1


def test_with_the_tables_the_engine_wins_every_won_ending_it_is_given():
    table = default_tablebase()
    indexer = _Indexer(VARIANT, 3)
    rng = random.Random(3)
    played = 0
    while played < 4:
        pos = indexer.position(rng.randrange(indexer.size))
        if pos is None or table.probe(pos)[0] != 1 or table.probe(pos)[1] < 9:
            continue
        game = Game(VARIANT, pos)
        winner = game.position.side_to_move
        strong, weak = Engine(), Engine()
        weak.searcher = Searcher(use_tablebase=False)
        while not game.is_over and game.ply < 60:
            engine = strong if game.position.side_to_move is winner else weak
            game.play(engine.play(game, Limit(depth=3)).move)
        assert game.outcome is not None and game.outcome.winner is winner, pos.fen()
        assert game.ply <= table.probe(pos)[1]  # never slower than the tables' distance
        played += 1
