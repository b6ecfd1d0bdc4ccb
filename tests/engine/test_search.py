"""The search: results of the variant's rules, forced wins, limits, legality."""

from __future__ import annotations

import random
import time

import pytest

from shashki.engine import WIN, Engine, Limit, analyse, play
from shashki.engine.alphabeta import CHECK_EVERY
from shashki.engine.search import WIN_BOUND, Searcher
from shashki.rules import Game, Position, get_variant


def minimax(pos: Position, depth: int, ply: int = 0) -> int:
    """+1 a forced win for the side to move within `depth` plies, -1 a forced loss, 0 not decided."""
    moves = pos.legal_moves()
    if not moves:
        return 1 if pos.variant.giveaway else -1
    if depth == 0:
        return 0
    return max(-minimax(pos.play(m), depth - 1, ply + 1) for m in moves)


def random_men_position(rng: random.Random, variant, men: int) -> Position:
    """Men only, away from the promotion rows, so that no position repeats within a few plies."""
    board = variant.board
    squares = [b for b, row in board.rows.items() if 2 <= row <= board.size - 3]
    chosen = rng.sample(squares, 2 * men)
    white = sum(1 << b for b in chosen[:men])
    black = sum(1 << b for b in chosen[men:])
    return Position(variant, white, black, 0, rng.random() < 0.5)


def test_sacrifice_wins_giveaway_kings_ending():
    # RULES.md §7: after g1-d4 Black must capture, and White, with no pieces left, wins.
    game = Game("russian-giveaway", "W:WKg1:BKe5")
    result = play(game, Limit(depth=4))
    assert result.move.notation(game.variant) == "g1-d4"
    assert result.score == WIN - 2


def test_no_legal_move_wins_in_giveaway_and_loses_in_russian():
    # RULES.md §3 and §7, the blocked side: after Black's e5-f4 White (h2 against g3, f4) cannot move.
    # In giveaway that wins for White, so Black avoids it; in Russian it wins for Black at once.
    assert play(Position.from_fen("W:Wh2:Bg3,f4", "russian-giveaway")).move is None
    giveaway = play(Position.from_fen("B:Wh2:Bg3,e5", "russian-giveaway"), Limit(depth=2))
    assert giveaway.move.notation(get_variant("russian-giveaway")) != "e5-f4"
    russian = play(Position.from_fen("B:Wh2:Bg3,e5", "russian"), Limit(depth=2))
    assert russian.move.notation(get_variant("russian")) == "e5-f4"
    assert russian.score == WIN - 1


@pytest.mark.parametrize("key", ["russian-giveaway", "russian", "international-giveaway"])
def test_finds_every_forced_win_and_loss_that_exhaustive_search_finds(key):
    variant = get_variant(key)
    rng = random.Random(7)
    checked = 0
    for _ in range(60):
        pos = random_men_position(rng, variant, rng.randint(1, 3))
        if not pos.legal_moves():
            continue
        truth = minimax(pos, 4)
        score = play(pos, Limit(depth=4)).score
        if truth == 1:
            assert score >= WIN_BOUND, pos.fen()
            checked += 1
        elif truth == -1:
            assert score <= -WIN_BOUND, pos.fen()
            checked += 1
    assert checked >= 5  # the sample holds decided positions


def test_a_capture_sequence_never_ends_at_the_horizon():
    # Depth 1: White plays c3-d4?? only if it ignores Black's reply e5:c3 and White's d2:b4 recapture.
    # At depth 1 the search must still see every forced capture after the move.
    # (Without the endgame tables, which would settle the four-piece positions after the first capture.)
    pos = Position.from_fen("W:Wc3,d2,h2:Be5,b8", "russian")
    line = next(iter(Searcher(use_tablebase=False).iterate(pos, Limit(depth=1))))
    assert line.seldepth >= 3


@pytest.mark.parametrize("key", ["russian-giveaway", "russian", "brazilian", "international", "english",
                                 "italian", "pool", "english-giveaway"])
def test_never_plays_an_illegal_move_in_any_variant(key):
    game = Game(key)
    engine = Engine(seed=1)
    for _ in range(16):
        if game.is_over:
            break
        result = engine.play(game, Limit(nodes=300))
        assert result.move in game.position.legal_moves()
        game.play(result.move)


def test_respects_the_node_limit():
    pos = Position.start(get_variant("russian"))
    result = play(pos, Limit(nodes=2000))
    assert result.move in pos.legal_moves()
    assert result.nodes <= 2000


def test_respects_the_time_limit():
    pos = Position.start(get_variant("international"))
    start = time.perf_counter()
    result = play(pos, Limit(time=0.3))
    assert time.perf_counter() - start < 0.6
    assert result.move in pos.legal_moves()


def test_respects_the_depth_limit_and_reports_each_iteration():
    pos = Position.start(get_variant("russian-giveaway"))
    lines = list(analyse(pos, Limit(depth=4)))
    assert [line.depth for line in lines] == [1, 2, 3, 4]
    assert all(line.pv and line.pv[0] in pos.legal_moves() for line in lines)
    assert lines[-1].nodes >= lines[0].nodes


def test_repetition_along_the_game_scores_as_a_draw():
    # Two kings each shuffling: every position repeated from the game history scores 0.
    game = Game("russian", "W:WKa1:BKh2")
    for move in ("a1-b2", "h2-g1", "b2-a1", "g1-h2"):
        game.play(move)
    engine = Engine()
    history = [p.hash for p in game.positions[:-1]]
    assert game.position.hash in history
    line = list(engine.analyse(game, Limit(depth=3)))[-1]
    assert abs(line.score) < WIN_BOUND


def test_stop_event_ends_a_search_early():
    engine = Engine()
    engine.stop()  # set before: setting the search up clears it, so the search runs
    pos = Position.start(get_variant("russian"))
    assert engine.play(pos, Limit(depth=2)).depth == 2


def test_a_stop_asked_for_after_the_search_is_set_up_ends_it_even_before_it_runs():
    # The Hub sets its search up at `go` and runs it in a thread of its own: a `stop` that comes before
    # that thread has begun to search must still end it, after the first iteration (a move to play).
    searcher = Searcher()
    search = searcher.iterate(Position.start(get_variant("russian")), Limit(depth=12))
    searcher.stop_event.set()
    lines = list(search)
    assert lines[0].depth == 1 and lines[-1].depth < 12
    # Ended at its first look at the stop (every CHECK_EVERY nodes) once the first iteration was done.
    assert searcher.nodes <= lines[-1].nodes + CHECK_EVERY


def test_a_stop_left_over_from_an_earlier_search_does_not_cut_the_scoring_of_every_move():
    pos = Position.start(get_variant("russian"))
    fresh, stopped = Searcher(), Searcher()
    stopped.stop_event.set()  # as Engine.stop() leaves it once the search it stopped has ended
    assert stopped.score_moves(pos, 5) == fresh.score_moves(pos, 5)
    assert stopped.nodes == fresh.nodes


def test_the_first_iteration_completes_even_with_a_tiny_node_limit():
    pos = Position.start(get_variant("international"))
    result = play(pos, Limit(nodes=1))
    assert result.depth == 1 and result.move in pos.legal_moves()


def _searched(searcher: Searcher, pos: Position, depth: int) -> tuple[int, int, str]:
    line = list(searcher.iterate(pos, Limit(depth=depth)))[-1]
    return searcher.nodes, line.score, line.move.notation(pos.variant)


@pytest.mark.parametrize("key", ["russian", "international", "brazilian"])
def test_ordinary_draughts_is_searched_selectively_each_option_on_its_own(key):
    # Each option changes which nodes a search of the same depth visits (fewer or more at a shallow
    # depth: their gain, measured by benchmarks/engine_ab.py, is depth at equal time, not shown here).
    pos = Game(key).position
    full = _searched(Searcher(late_reductions=False, probcut=False), pos, 7)
    for options in ({"probcut": False}, {"late_reductions": False}, {}):
        nodes, _, move = _searched(Searcher(**options), pos, 7)
        assert nodes != full[0], options
        assert move in {m.notation(pos.variant) for m in pos.legal_moves()}


@pytest.mark.parametrize("key", ["russian-giveaway", "international-giveaway", "english-giveaway"])
def test_giveaway_keeps_the_full_width_search(key):
    pos = Game(key).position
    assert _searched(Searcher(), pos, 7) == _searched(Searcher(late_reductions=False, probcut=False), pos, 7)


def test_a_ponder_clock_hit_before_the_search_starts_counts_the_time_from_the_hit():
    from shashki.engine.timeman import PonderClock

    clock = PonderClock()
    clock.hit()  # ponder-hit may come before the search thread has begun
    start = time.perf_counter()
    lines = list(Searcher().iterate(Position.start(get_variant("russian")), Limit(time=0.1), ponder=clock))
    assert lines and time.perf_counter() - start < 3.0
    assert clock.attach(None) is not None  # the search detached itself; the hit is remembered


def test_a_ponder_clock_never_hit_leaves_only_the_depth_and_node_limits():
    from shashki.engine.timeman import PonderClock

    clock = PonderClock()
    limit = Limit(time=0.001, depth=7)
    lines = list(Searcher().iterate(Position.start(get_variant("russian")), limit, ponder=clock))
    assert lines[-1].depth == 7  # a thinking search would have stopped long before depth 7
