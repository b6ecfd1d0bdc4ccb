"""Opening books (issue 15, point 4): every shipped book replayed through the rules, the build reproducible
from its seed, and the engine's levels taking their opening moves from the book (variety below the top
level, the best-scored move at the top)."""

from __future__ import annotations

import gzip
import json
from collections import deque

import pytest
from typer.testing import CliRunner

from shashki.cli import app
from shashki.engine import Engine, Limit
from shashki.engine.book import Book, book_for, book_path, shipped_variants
from shashki.engine.book_build import build, candidates
from shashki.engine.search import WIN
from shashki.rules import Position, get_variant
from shashki.rules.variant import VARIANTS

SHIPPED = list(VARIANTS)  # a book for every variant (issue 15, point 4: per variant family and beyond)


def test_the_package_ships_a_book_for_each_variant_of_a_few_hundred_kilobytes_at_most():
    assert set(SHIPPED) <= set(shipped_variants())
    for key in SHIPPED:
        path = book_path(get_variant(key))
        assert path.stat().st_size < 400_000, f"{path} is {path.stat().st_size} bytes"
        assert len(book_for(get_variant(key))) >= 100


@pytest.mark.parametrize("key", SHIPPED)
def test_every_book_entry_is_legal_and_reached_from_the_start_through_book_moves(key):
    """Walk the book from the variant's start: each position's moves are legal there (the rules' own
    notation of one of its legal moves), and every position of the file is reached this way."""
    variant = get_variant(key)
    book = book_for(variant)
    assert book is not None
    start = Position.start(variant)
    seen = {start.fen()}
    queue = deque([start])
    while queue:
        position = queue.popleft()
        stored = book.entries.get(position.fen(), [])
        legal = {m.notation(variant): m for m in position.legal_moves()}
        for notation, weight, _score in stored:
            assert notation in legal, f"{key}: {notation} is not legal in {position.fen()}"
            assert weight > 0
            child = position.play(legal[notation])
            if child.fen() not in seen:
                seen.add(child.fen())
                queue.append(child)
        assert len(book.moves(position)) == len(stored)  # the lookup resolves every stored move
    assert set(book.entries) <= seen, f"{key}: positions no book line reaches"


def test_a_book_is_reproducible_from_its_seed_byte_for_byte(tmp_path):
    variant = get_variant("russian")
    first = build(variant, seed=5, games=12, plies=6, depth=3)
    again = build(variant, seed=5, games=12, plies=6, depth=3)
    assert first.to_json() == again.to_json()
    assert first.save(tmp_path / "a.json.gz") == again.save(tmp_path / "b.json.gz")
    assert (tmp_path / "a.json.gz").read_bytes() == (tmp_path / "b.json.gz").read_bytes()
    loaded = Book.load(tmp_path / "a.json.gz", variant)
    assert loaded.entries == first.entries and loaded.meta["seed"] == 5


def test_the_self_play_counts_each_choice_of_a_position():
    variant = get_variant("russian")
    book = build(variant, seed=2, games=20, plies=4, depth=3)
    start = Position.start(variant).fen()
    assert sum(weight for _, weight, _ in book.entries[start]) == 20  # every game chose once there


def test_candidates_keep_close_moves_and_never_mix_a_forced_loss_with_material():
    scored = [(10, "a"), (4, "b"), (-30, "c"), (-WIN + 5, "d")]
    assert candidates(scored, margin=12, most=4) == [(10, "a"), (4, "b")]
    assert candidates(scored, margin=1000, most=4) == [(10, "a"), (4, "b"), (-30, "c")]
    assert candidates(scored, margin=12, most=1) == [(10, "a")]
    winning = [(WIN - 3, "w"), (WIN - 9, "x"), (200, "y")]
    assert candidates(winning, margin=1000, most=4) == [(WIN - 3, "w"), (WIN - 9, "x")]


def test_the_command_builds_a_book_file_that_loads(tmp_path):
    out = tmp_path / "book.json.gz"
    result = CliRunner().invoke(app, ["engine", "book", "build", "--variant", "russian", "--seed", "4",
                                      "--games", "6", "--plies", "4", "--depth", "2", "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert "positions" in result.output and "bytes" in result.output
    data = json.loads(gzip.decompress(out.read_bytes()))
    assert (data["variant"], data["seed"], data["plies"], data["games"]) == ("russian", 4, 4, 6)
    assert len(Book.load(out, get_variant("russian"))) > 0


def test_lower_levels_vary_their_openings_from_the_book_and_the_top_level_plays_its_best_move():
    variant = get_variant("russian-giveaway")
    start = Position.start(variant)
    book = book_for(variant)
    assert len(book.moves(start)) >= 2, "the giveaway book offers several first moves"
    weighted = {Engine(level=5, seed=seed).play(start).move for seed in range(40)}
    assert len(weighted) >= 2
    assert weighted <= {m.move for m in book.moves(start)}
    top = Engine(level=8).play(start, Limit(depth=2))
    assert top.book and top.move == book.moves(start)[0].move and top.nodes == 0


def test_the_book_leaves_the_search_alone_out_of_it_and_without_a_level():
    variant = get_variant("russian-giveaway")
    start = Position.start(variant)
    assert not Engine().play(start, Limit(depth=2)).book  # analysis and the Hub search every move
    assert not Engine(level=8, book="off").play(start, Limit(depth=2)).book
    assert not Engine(level=1, seed=1).play(start).book  # the beginner levels play without it
    late = Position.from_fen("W:WK32:BK15", get_variant("russian-giveaway"))
    assert not Engine(level=8).play(late, Limit(depth=3)).book


def test_the_double_diagonal_option_has_no_book():
    assert book_for(get_variant("russian-giveaway", double_diagonal=True)) is None
