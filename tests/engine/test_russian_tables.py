"""The endgame tables of ordinary Russian draughts, and how the search respects FMJD-64's count rules.

- The shipped tables are what the builder makes (1-3 pieces here, 4 pieces in the slow test), and every
  entry checked follows from its children's entries under the rules (no legal move loses).
- The facts `shashki.engine.counts` rests on, measured on the shipped tables.
- The search's count tracker agrees with the rules' own counters, move after move.
- Played through `Game` (the rules decide the end): the engine does not claim a table win that a count
  turns into a draw, and converts won endings within the counts.
"""

from __future__ import annotations

import random
from collections import defaultdict
from itertools import combinations
from math import comb

import pytest
from test_tbbuild import expected_code, random_positions

from shashki.engine import Engine
from shashki.engine.alphabeta import WIN_BOUND
from shashki.engine.counts import FRESH_LONG_DIAGONAL, Counts
from shashki.engine.search import MAX_PLY, Limit
from shashki.engine.tablebase import Tablebase, _decode, _Indexer, default_tablebase
from shashki.rules import Game, Position, get_variant
from shashki.rules.draws import LONG_DIAGONAL
from shashki.rules.variant import Color, DrawRule

VARIANT = get_variant("russian")


def table() -> Tablebase:
    return default_tablebase("russian")


def test_the_shipped_one_to_three_piece_tables_are_what_the_builder_makes(tmp_path):
    built = Tablebase.build(3, directory=tmp_path, reuse=False, variant_key="russian")
    shipped = table()
    assert shipped.pieces == 4
    for k in (1, 2, 3):
        assert built.tables[k] == shipped.tables[k], k
        assert (tmp_path / f"russian-{k}.bin").stat().st_size == _Indexer(VARIANT, k).size


@pytest.mark.slow
def test_the_shipped_four_piece_table_is_what_the_builder_makes(tmp_path):
    built = Tablebase.build(4, directory=tmp_path, reuse=False, variant_key="russian")
    assert built.tables[4] == table().tables[4]


@pytest.mark.parametrize("pieces", [2, 3, 4])
def test_every_entry_checked_follows_from_its_children_and_no_move_loses(pieces):
    tb = table()
    results: dict[int, int] = defaultdict(int)
    for pos in random_positions(pieces, 1500, seed=pieces, variant=VARIANT):
        assert tb.code(pos) == expected_code(tb, pos), pos.fen()
        results[tb.probe(pos)[0]] += 1
    assert set(results) == {1, 0, -1}
    blocked = Position.from_fen("W:Wa1:Bc3,b2", "russian")  # White's man cannot move: White has lost
    assert not blocked.legal_moves() and tb.probe(blocked) == (-1, 0)


def class_maxima(tb: Tablebase, k: int, on_diagonal: bool) -> dict[tuple[str, bool], int]:
    """The longest table distance (win or loss) per ending, named strong side first ("KKM-K"), and
    whether the stronger side (the one that is not a lone king) is to move; with `on_diagonal`, only
    the positions whose lone king stands on the long diagonal."""
    board = VARIANT.board
    diagonal = {board.number(board.by_name[name]) - 1 for name in LONG_DIAGONAL}
    combos = sorted(combinations(range(32), k), key=lambda sq: sum(comb(s, i + 1) for i, s in enumerate(sq)))
    entries = tb.tables[k]
    found: dict[tuple[str, bool], int] = defaultdict(int)
    for kinds in range(4**k):
        slots = [(kinds >> (2 * (k - 1 - i))) & 3 for i in range(k)]  # the lowest square first
        for lone, strong in ((3, (0, 1)), (1, (2, 3))):
            if slots.count(lone) != 1 or slots.count(strong[0]) + slots.count(strong[1]) != k - 1:
                continue
            name = "K" * slots.count(strong[1]) + "M" * slots.count(strong[0]) + "-K"
            slot = slots.index(lone)
            for side in (0, 1):
                strong_to_move = (side == 0) == (lone == 3)
                codes = set()
                for rank, squares in enumerate(combos):
                    if on_diagonal and squares[slot] not in diagonal:
                        continue
                    codes.add(entries[(rank * 4**k + kinds) * 2 + side])
                for code in codes:
                    if code >= 2:
                        key = (name, strong_to_move)
                        found[key] = max(found[key], _decode(code)[1])
    return found


def test_the_endings_whose_counts_restart_fit_their_new_limit_as_counts_py_says():
    tb = table()
    # 7.2.8 (two pieces with a king, or a king, against a lone king: 9 plies when the stronger side is
    # to move where the count starts, else 10): every table result fits, whoever wins.
    small = class_maxima(tb, 3, on_diagonal=False) | class_maxima(tb, 2, on_diagonal=False)
    for (name, strong_to_move), plies in small.items():
        if "K" in name.split("-")[0]:
            assert plies <= (9 if strong_to_move or name == "K-K" else 10), (name, strong_to_move, plies)
    # 7.2.4 (three kings against a lone king: 29 or 30 plies).
    four = class_maxima(tb, 4, on_diagonal=False)
    assert four[("KKK-K", True)] <= 29 and four[("KKK-K", False)] <= 30
    # 7.2.7 starts when the lone king steps onto the long diagonal, the stronger side then to move:
    # with three kings every result there fits the 9 plies; with a man among the three it does not,
    # hence counts.py's FRESH_LONG_DIAGONAL bound for those endings.
    diagonal = class_maxima(tb, 4, on_diagonal=True)
    assert diagonal[("KKK-K", True)] <= FRESH_LONG_DIAGONAL == 9
    assert diagonal[("KKM-K", True)] > 9 and diagonal[("KMM-K", True)] > 9


# --- the count tracker against the rules' counters -----------------------------------------------

RULES = (DrawRule.KING_MOVES_15, DrawRule.NO_PROGRESS_30_60, DrawRule.KINGS_3_VS_1_15,
         DrawRule.LONG_DIAGONAL_5, DrawRule.SMALL_ENDING_5)


def tracker_states(counts: Counts, ply: int) -> dict[DrawRule, tuple[int, int]]:
    states = {DrawRule.KING_MOVES_15: (counts.quiet[ply], 30)}
    for rule, count, limit in ((DrawRule.NO_PROGRESS_30_60, counts.progress, counts.progress_limit),
                               (DrawRule.KINGS_3_VS_1_15, counts.kings3, counts.kings3_limit),
                               (DrawRule.LONG_DIAGONAL_5, counts.long, counts.long_limit),
                               (DrawRule.SMALL_ENDING_5, counts.small, counts.small_limit)):
        if count[ply] >= 0:
            states[rule] = (count[ply], limit[ply])
    return states


def new_tracker() -> Counts:
    board = VARIANT.board
    return Counts(sum(1 << board.by_name[name] for name in LONG_DIAGONAL), MAX_PLY + 2)


@pytest.mark.parametrize("seed", range(6))
def test_the_search_counts_as_the_rules_do_move_after_move(seed):
    rng = random.Random(seed)
    starts = ["W:WKa1,Kc1,Ke1:BKd8", "W:WKc1,Ke1,a3:BKd8", "B:WKb2,c3,e3:BKh8", "W:WKa1,Kc3:BKh8",
              "W:WKc1,e3:BKa7", "W:WKg1,Kc5:BKd8,h6", "W:Wa3,c3,e3:BKg7", "W:WKe1,a5:Bh6,Kg7"]
    compared = 0
    for fen in starts * 4:
        game = Game(VARIANT, fen)
        counts = new_tracker()
        pos = game.position
        counts.root(pos.white, pos.black, pos.kings, pos.white_to_move, 0, -1, -1, 0, -1, 0, -1, 0, False)
        assert tracker_states(counts, 0) == game.count_states, fen
        ply = 0
        while not game.is_over and ply < 60:
            game.play(rng.choice(game.legal_moves()))
            ply += 1
            pos = game.position
            bound = counts.node(pos.white, pos.black, pos.kings, pos.white_to_move, ply)
            if not game.is_over:
                assert tracker_states(counts, ply) == game.count_states, (fen, game.notations())
                assert bound >= 0
                compared += 1
            elif game.outcome.reason != "no-legal-move" and game.outcome.reason != "threefold-repetition":
                assert bound < 0, (fen, game.notations(), game.outcome)
    assert compared > 150


def test_the_root_takes_the_games_counts():
    game = Game(VARIANT, "W:WKa1,Kc1,Ke1:BKd8")
    for move in ("c1-b2", "d8-c7", "b2-c1", "c7-d8", "e1-f2"):
        game.play(move)
    counts = new_tracker()
    pos = game.position
    states = game.count_states
    quiet, progress = states[DrawRule.KING_MOVES_15][0], states[DrawRule.NO_PROGRESS_30_60][0]
    kings3, kings3_limit = states[DrawRule.KINGS_3_VS_1_15]
    counts.root(pos.white, pos.black, pos.kings, pos.white_to_move, quiet, progress, kings3, kings3_limit,
                -1, 0, -1, 0, True)
    assert tracker_states(counts, 0) == states
    assert states[DrawRule.KINGS_3_VS_1_15] == (5, 29)


# --- playing through the rules --------------------------------------------------------------------


def defender_move(tb: Tablebase, pos: Position):
    """The table-perfect defence: the longest loss (a draw or a win when it has one)."""
    def value(move) -> tuple[int, int]:
        result, plies = tb.probe(pos.play(move))
        return (-result, plies if result == 1 else -plies)
    return max(pos.legal_moves(), key=value)


def far(tb: Tablebase, pos: Position, move, result: int) -> int:
    """How far the end stays after `move`, -1000 if it changes the result."""
    child_result, child_plies = tb.probe(pos.play(move))
    return child_plies if child_result == -result else -1000


def burn_the_count(fen: str, plies: int) -> Game:
    """A game from `fen` where both sides make king moves that keep the table's win far (the stronger
    side its farthest win, the defender its longest loss), never repeating a position, for `plies`."""
    tb = table()
    game = Game(VARIANT, fen)
    seen = {game.position}
    for _ in range(plies):
        pos = game.position
        options = [m for m in pos.legal_moves() if pos.play(m) not in seen]
        result = tb.probe(pos)[0]
        move = max(options, key=lambda m, p=pos, r=result: far(tb, p, m, r))
        game.play(move)
        seen.add(game.position)
    return game


def test_the_engine_claims_no_table_win_that_the_count_turns_into_a_draw():
    tb = table()
    game = burn_the_count("W:WKa1,Kc1,Ke1:BKd8", 12)  # three kings against a king: 7.2.4, 15 moves
    count, limit = game.count_states[DrawRule.KINGS_3_VS_1_15]
    result, plies = tb.probe(game.position)
    assert result == 1 and game.position.white_to_move and plies > limit - count  # won, but too late
    # A bare position (its counts starting there) is a table win; the game's position is not.
    fresh = Engine().play(game.position, Limit(depth=6))
    assert fresh.score >= WIN_BOUND
    engine = Engine()
    claims = []
    while not game.is_over:
        if game.position.white_to_move:
            played = engine.play(game, Limit(depth=6))
            claims.append(played.score)
            move = played.move
        else:
            move = defender_move(tb, game.position)
        game.play(move)
    assert game.outcome is not None and game.outcome.winner is None, game.outcome
    assert game.outcome.reason == DrawRule.KINGS_3_VS_1_15.value
    assert claims and max(claims) < WIN_BOUND, claims


def test_on_the_long_diagonal_the_lone_king_sees_no_loss_the_five_moves_forbid():
    tb = table()
    # Three pieces with a king against a lone king on the long diagonal, its side to move: lost in the
    # table far beyond the 10 plies 7.2.7 allows; the defender's engine sees no loss.
    for pos in random_positions(4, 20000, seed=3, variant=VARIANT):
        counts = pos.counts()
        lone_black = counts[2] == 0 and counts[3] == 1 and counts[0] + counts[1] == 3 and counts[1] >= 1
        diagonal = sum(1 << VARIANT.board.by_name[n] for n in LONG_DIAGONAL)
        if (lone_black and not pos.white_to_move and pos.black & diagonal and tb.probe(pos)[0] == -1
                and tb.probe(pos)[1] > 14 and not pos.legal_moves()[0].capture_mask):
            break
    else:
        pytest.fail("no such position met")
    game = Game(VARIANT, pos)
    assert game.count_states[DrawRule.LONG_DIAGONAL_5] == (0, 10)
    line = list(Engine().analyse(game, Limit(depth=8)))[-1]
    assert line.score > -WIN_BOUND, pos.fen()


@pytest.mark.parametrize(("fen", "plies"), [
    ("W:WKa1,Kc1,Ke1:BKd8", 17),  # three kings against a king off the long diagonal: 7.2.4
    ("W:WKc1,Ke1,a3:BKd8", 35),  # two kings and a man against a king: the man is crowned first
    ("W:W18,31,K32:BK7", 53),  # a king and two men against a king: beyond what the counts let the
    # search believe until the men are crowned (the table's distance guides it at the horizon)
])
def test_won_endings_are_converted_within_the_counts_through_the_rules(fen, plies):
    tb = table()
    game = Game(VARIANT, fen)
    assert tb.probe(game.position) == (1, plies)
    engine = Engine()
    while not game.is_over:
        if game.position.white_to_move:
            move = engine.play(game, Limit(nodes=60_000)).move
        else:
            move = defender_move(tb, game.position)
        game.play(move)
    assert game.outcome is not None and game.outcome.winner is Color.WHITE
    assert game.outcome.reason == "no-legal-move"
    assert game.ply <= plies + 10

