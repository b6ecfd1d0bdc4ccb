"""The compiled tables' builder (shashki.engine.tbbuild) against independent references.

- A retrograde builder written over the rules' own move generator (`Position.legal_moves`, `play`): the
  slow builder that made the shipped 1-3 piece tables. The compiled one has its own move generator (and
  unmoves), so agreeing byte for byte checks both.
- The 4-piece table (shipped) against the rules directly: every position's entry must follow from its
  children's entries (the definition of won/lost in d plies), and short results from a brute-force search.
"""

from __future__ import annotations

import random
from array import array

import pytest

from shashki.engine import Engine
from shashki.engine.alphabeta import WIN
from shashki.engine.search import Limit, Searcher
from shashki.engine.tablebase import (
    DRAW_CODE,
    SHIPPED_PIECES,
    Tablebase,
    _decode,
    _encode,
    _Indexer,
    data_dir,
    default_tablebase,
)
from shashki.rules import Game, Position, get_variant
from shashki.rules.variant import Variant

VARIANT = get_variant("russian-giveaway")


def reference_table(smaller: Tablebase, k: int) -> bytearray:
    """The k-piece table by retrograde analysis over Position's moves (no unmoves: edges kept)."""
    indexer = _Indexer(VARIANT, k)
    size = indexer.size
    table = bytearray(size)
    unresolved = array("H", bytes(2 * size))
    children: dict[int, list[int]] = {}  # child -> parents by quiet moves
    buckets: dict[int, list[tuple[int, bool]]] = {}  # distance -> (position, a child lost for the opponent)
    for index in range(size):
        pos = indexer.position(index)
        if pos is None:
            continue
        table[index] = DRAW_CODE
        moves = pos.legal_moves()
        if not moves:
            buckets.setdefault(0, []).append((index, True))  # RULES.md §3: no move wins in giveaway
            continue
        unresolved[index] = len(moves)
        for move in moves:
            child = pos.play(move)
            if move.capture_mask:
                code = smaller.code(child)
                assert code
                if code != DRAW_CODE:
                    result, plies = _decode(code)
                    buckets.setdefault(plies + 1, []).append((index, result == -1))
            else:
                children.setdefault(indexer.index(child), []).append(index)
    d = 0
    while buckets:
        for index, wins in buckets.pop(d, []):
            if table[index] != DRAW_CODE:
                continue  # decided already
            if not wins:
                unresolved[index] -= 1
                if unresolved[index]:
                    continue
            table[index] = _encode(1 if wins else -1, d)
            for parent in children.get(index, []):
                buckets.setdefault(d + 1, []).append((parent, not wins))
        d += 1
    # A capture position left undecided has a drawn child: a draw; nothing else is left to mark.
    return table


def test_compiled_builder_matches_the_position_based_builder_up_to_two_pieces(tmp_path):
    built = Tablebase.build(2, directory=tmp_path, reuse=False)
    reference = Tablebase([b""], VARIANT)
    for k in (1, 2):
        reference = Tablebase([*reference.tables, reference_table(reference, k)], VARIANT)
        assert built.tables[k] == reference.tables[k], k


@pytest.mark.slow
def test_compiled_builder_matches_the_position_based_builder_for_three_pieces(tmp_path):
    shipped = default_tablebase()
    reference = Tablebase(list(shipped.tables[:3]), VARIANT)
    assert reference_table(reference, 3) == Tablebase.build(3, directory=tmp_path, reuse=False).tables[3]


def test_three_piece_table_built_now_is_the_one_the_old_builder_shipped(tmp_path):
    assert Tablebase.build(3, directory=tmp_path, reuse=False).tables[3] == default_tablebase().tables[3]


@pytest.mark.slow
def test_four_piece_table_builds_from_scratch_as_shipped(tmp_path):
    assert Tablebase.build(4, directory=tmp_path, reuse=False).tables[4] == default_tablebase().tables[4]


def expected_code(table: Tablebase, pos: Position) -> int:
    """The entry a position must have, from its children's entries (what won/lost in d plies means);
    without a legal move the side to move wins in the giveaway forms and loses otherwise (RULES.md §3)."""
    moves = pos.legal_moves()
    if not moves:
        return _encode(1 if pos.variant.giveaway else -1, 0)
    wins, losses, drawn = [], [], False
    for move in moves:
        result, plies = table.probe(pos.play(move))
        if result == -1:
            wins.append(plies + 1)
        elif result == 1:
            losses.append(plies + 1)
        else:
            drawn = True
    if wins:
        return _encode(1, min(wins))
    return DRAW_CODE if drawn else _encode(-1, max(losses))


def random_positions(k: int, count: int, seed: int, variant: Variant = VARIANT) -> list[Position]:
    indexer = _Indexer(variant, k)
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        pos = indexer.position(rng.randrange(indexer.size))
        if pos is not None:
            found.append(pos)
    return found


def test_four_piece_table_ships_and_every_entry_checked_follows_from_its_children():
    table = default_tablebase()
    assert SHIPPED_PIECES == 4 and table.pieces >= 4
    results = {1: 0, 0: 0, -1: 0}
    for pos in random_positions(4, 3000, seed=7):
        assert table.code(pos) == expected_code(table, pos), pos.fen()
        results[table.probe(pos)[0]] += 1
    assert min(results.values()) > 0  # wins, draws and losses all met


def minimax(pos: Position, depth: int) -> int:
    """+1 forced win for the side to move within `depth` plies, -1 forced loss, 0 neither."""
    moves = pos.legal_moves()
    if not moves:
        return 1
    if depth == 0:
        return 0
    return max(-minimax(pos.play(m), depth - 1) for m in moves)


def test_four_piece_short_results_agree_with_brute_force_search():
    table = default_tablebase()
    checked = 0
    for pos in random_positions(4, 400, seed=13):
        result, plies = table.probe(pos)
        if result != 0 and plies <= 5:
            assert minimax(pos, plies) == result, pos.fen()
            if result == 1 and plies:
                assert minimax(pos, plies - 1) != 1, pos.fen()  # no shorter win
            checked += 1
        elif result == 0:
            assert minimax(pos, 3) == 0, pos.fen()
            checked += 1
    assert checked > 50


def test_search_scores_a_four_piece_position_by_the_table():
    table = default_tablebase()
    for pos in random_positions(4, 200, seed=21):
        result, plies = table.probe(pos)
        if result == 1 and plies >= 15 and pos.legal_moves()[0].capture_mask == 0:
            break
    else:
        pytest.fail("no long win met")
    line = list(Searcher().iterate(pos, Limit(depth=2)))[-1]
    assert line.score == WIN - plies  # the table's distance, far beyond a depth-2 search


def test_tables_are_built_into_and_found_in_the_tablebase_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("SHASHKI_TABLEBASE_DIR", str(tmp_path / "tb"))
    assert data_dir() == tmp_path / "tb"
    Tablebase.build(2, reuse=False)
    assert (tmp_path / "tb" / "russian-giveaway-2.bin").stat().st_size == _Indexer(VARIANT, 2).size
    monkeypatch.setattr("shashki.engine.tablebase.SHIPPED_DIR", tmp_path / "nothing-shipped")
    assert Tablebase.default().pieces == 2  # what the directory holds, nothing else


def table_move(table: Tablebase, pos: Position):
    """The defender's move: the longest loss (or a draw or win if it has one), as the table says."""
    def value(move) -> tuple[int, int]:
        result, plies = table.probe(pos.play(move))
        return (-result, plies if result == 1 else -plies)
    return max(pos.legal_moves(), key=value)


def test_won_four_piece_endings_are_converted_against_a_table_perfect_defender():
    table = default_tablebase()
    converted = 0
    for pos in random_positions(4, 400, seed=5):
        result, plies = table.probe(pos)
        if result != 1 or plies < 11:
            continue
        game = Game(VARIANT, pos)
        winner = pos.side_to_move
        engine = Engine()
        while not game.is_over and game.ply < plies + 10:
            if game.position.side_to_move is winner:
                move = engine.play(game, Limit(depth=4)).move
            else:
                move = table_move(table, game.position)
            game.play(move)
        assert game.outcome is not None and game.outcome.winner is winner, pos.fen()
        assert game.ply == plies, pos.fen()  # the table's distance: no faster (a perfect defence), no slower
        converted += 1
        if converted == 3:
            break
    assert converted == 3


def test_compiled_probe_reads_the_entry_the_indexer_names():
    table = default_tablebase()
    for k in (1, 2, 3, 4):
        indexer = _Indexer(VARIANT, k)
        for pos in random_positions(k, 300, seed=k):
            assert table.code(pos) == table.tables[k][indexer.index(pos)], pos.fen()
    crowded = Position.from_fen("W:W21,22,23,24,25:B5,6,7", "russian-giveaway")
    assert table.code(crowded) is None and table.probe(crowded) is None  # more pieces than any table
