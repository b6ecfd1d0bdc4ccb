"""The engine's multi-PV (`Engine.lines`): the best few moves, each with its own line."""

from __future__ import annotations

import pytest

from shashki.engine import Engine, Limit
from shashki.rules import Position, get_variant


@pytest.mark.parametrize("key", ["russian-giveaway", "russian", "international", "english"])
def test_lines_are_distinct_legal_moves_best_first(key):
    position = Position.start(get_variant(key))
    lines = Engine().lines(position, Limit(depth=4), 3)
    assert len(lines) == 3
    moves = [line.move for line in lines]
    assert len(set(moves)) == 3 and all(m in position.legal_moves() for m in moves)
    assert [line.score for line in lines] == sorted((line.score for line in lines), reverse=True)
    for line in lines:  # every principal variation is a legal sequence
        pos = position
        for move in line.pv:
            assert move in pos.legal_moves()
            pos = pos.play(move)


def test_first_line_scores_as_the_single_best_move():
    position = Position.start(get_variant("russian"))
    (best, *_) = Engine().lines(position, Limit(depth=5), 2)
    single = list(Engine().analyse(position, Limit(depth=5)))[-1]
    assert best.score == single.score


def test_more_lines_than_moves_gives_every_move():
    position = Position.from_fen("W:WKg1:BKe5", "russian-giveaway")
    lines = Engine().lines(position, Limit(depth=4), 20)
    assert sorted(line.move.key for line in lines) == sorted(m.key for m in position.legal_moves())
    # The giveaway win: g1-d4 forces Black to capture its last piece away (RULES.md §3).
    assert lines[0].move.notation(position.variant) == "g1-d4" and lines[0].mate_distance == 2


def test_lines_need_a_count():
    with pytest.raises(ValueError):
        Engine().lines(Position.start(get_variant("russian")), Limit(depth=1), 0)


def test_later_lines_go_no_deeper_than_the_first_so_that_they_compare():
    position = Position.start(get_variant("international"))
    engine = Engine()
    searches: list[tuple[Limit, list[int]]] = []
    iterate = engine.searcher.iterate

    def spy(position, limit, history=(), moves=None, counts=None, ponder=None):
        depths: list[int] = []
        searches.append((limit, depths))
        for line in iterate(position, limit, history, moves=moves, counts=counts, ponder=ponder):
            depths.append(line.depth)
            yield line

    engine.searcher.iterate = spy  # type: ignore[method-assign]
    lines = engine.lines(position, Limit(time=0.3), 3)
    assert len(lines) == 3 and len(searches) == 3
    (first, first_depths), *later = searches
    assert first == Limit(time=0.3)
    for limit, depths in later:  # each later search has the first one's depth, and its time
        assert limit == Limit(time=0.3, depth=first_depths[-1])
        assert max(depths) <= first_depths[-1]
