"""Perft from the start position matches the reference numbers of RULES.md §6, in every variant.

"all paths" counts every capture route; "distinct" merges routes with the same start, end, captured
set and promotion. The giveaway form of a variant has the same moves, so the same perft. Shallow depths
run by default; the deep ones (8×8 to depth 9, International to depth 8) behind `slow`.
"""

from __future__ import annotations

import pytest

from shashki.rules import VARIANTS, Position
from shashki.rules.perft import divide, perft

# RULES.md §6: counts for depth 1, 2, ...
ALL_PATHS = {
    "russian": [7, 49, 302, 1469, 7482, 37986, 190146, 929905, 4570667],
    "brazilian": [7, 49, 302, 1469, 7473, 37628, 187302, 907836, 4431847],
    "pool": [7, 49, 302, 1469, 7482, 37986, 190146, 929902, 4570615],
    "english": [7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680],
    "italian": [7, 49, 302, 1469, 7361, 36473, 177532, 828783, 3860875],
    "international": [9, 81, 658, 4265, 27117, 167140, 1049442, 6483971, 41022614],
}
DISTINCT = {
    "russian": [7, 49, 302, 1469, 7482, 37986, 190146, 929899, 4570586, 22444032, 110917189],
    "international": [9, 81, 658, 4265, 27117, 167140, 1049442, 6483961, 41022423],
}
WOLDOUBY = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"
WOLDOUBY_DISTINCT = [6, 12, 30, 73, 215, 590, 1944, 6269, 22369, 88050]

FAST_DEPTH = {"international": 6}  # 8×8: 7
SLOW_DEPTH = {"international": 8}  # 8×8: 9


def cases(table: dict[str, list[int]], slow: bool):
    """(variant, depth, expected) for each depth up to the default or the slow limit."""
    out = []
    for key, counts in table.items():
        fast_depth = FAST_DEPTH.get(key, 7)
        top = min(len(counts), SLOW_DEPTH.get(key, 9)) if slow else fast_depth
        first = fast_depth + 1 if slow else 1
        for depth in range(first, top + 1):
            out.append(pytest.param(key, depth, counts[depth - 1], id=f"{key}-{depth}"))
    return out


@pytest.mark.parametrize(("key", "depth", "expected"), cases(ALL_PATHS, slow=False))
def test_perft_all_paths_from_the_start(key, depth, expected):
    assert perft(Position.start(VARIANTS[key]), depth, all_paths=True) == expected


@pytest.mark.parametrize(("key", "depth", "expected"), cases(DISTINCT, slow=False))
def test_perft_distinct_moves_from_the_start(key, depth, expected):
    assert perft(Position.start(VARIANTS[key]), depth) == expected


@pytest.mark.slow
@pytest.mark.parametrize(("key", "depth", "expected"), cases(ALL_PATHS, slow=True))
def test_deep_perft_all_paths_from_the_start(key, depth, expected):
    assert perft(Position.start(VARIANTS[key]), depth, all_paths=True, bulk=True) == expected


@pytest.mark.slow
@pytest.mark.parametrize(("key", "depth", "expected"), cases(DISTINCT, slow=True))
def test_deep_perft_distinct_moves_from_the_start(key, depth, expected):
    assert perft(Position.start(VARIANTS[key]), depth, bulk=True) == expected


@pytest.mark.parametrize("depth", range(1, 9))
def test_perft_woldouby_position_international(depth):
    pos = Position.from_fen(WOLDOUBY, VARIANTS["international"])
    assert perft(pos, depth) == WOLDOUBY_DISTINCT[depth - 1]


@pytest.mark.slow
@pytest.mark.parametrize("depth", (9, 10))
def test_deep_perft_woldouby_position_international(depth):
    pos = Position.from_fen(WOLDOUBY, VARIANTS["international"])
    assert perft(pos, depth, bulk=True) == WOLDOUBY_DISTINCT[depth - 1]


@pytest.mark.parametrize("base", sorted(ALL_PATHS))
def test_giveaway_variant_has_the_perft_of_its_base(base):
    # RULES.md §4: the giveaway form has the same moves, only the result is reversed.
    depth = FAST_DEPTH.get(base, 7) - 1
    pos = Position.start(VARIANTS[f"{base}-giveaway"])
    assert perft(pos, depth, all_paths=True) == ALL_PATHS[base][depth - 1]
    assert perft(pos, depth) == DISTINCT.get(base, ALL_PATHS[base])[depth - 1]


@pytest.mark.slow
@pytest.mark.parametrize("depth", (8, 9))
def test_deep_perft_russian_giveaway(depth):
    pos = Position.start(VARIANTS["russian-giveaway"])
    assert perft(pos, depth, bulk=True) == DISTINCT["russian"][depth - 1]


def test_bulk_counting_and_divide_agree_with_plain_perft():
    pos = Position.start(VARIANTS["russian"])
    assert perft(pos, 5, bulk=True) == perft(pos, 5) == 7482
    split = divide(pos, 4)
    assert len(split) == 7
    assert sum(count for _, count in split) == 1469
    assert {name for name, _ in split} == {"a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"}


def test_perft_depth_zero_is_one_position():
    assert perft(Position.start(VARIANTS["russian"]), 0) == 1
