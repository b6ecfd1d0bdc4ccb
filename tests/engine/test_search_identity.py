"""The search visits the same nodes and finds the same moves, scores and lines as the search it replaced.

Issue 15 made the search faster per node as a pure speed change: the puzzle starter set and the opening
books were verified and built with the earlier search, and the puzzle tests re-check them at fixed depths,
so at a fixed depth the faster search must give exactly what the earlier one gave. `RECORD` below is a
regression record of that earlier search: it was produced by running this file as a script,

    PYTHONPATH=<a checkout of commit 868a81d, built in place> python tests/engine/test_search_identity.py

(the search before issue 15's speed work, compiled with mypyc; its pure-Python build gives the same
figures), and pasted here. The positions are varied on purpose: openings, middle games and endings of
several variants (giveaway with the endgame tables, Russian, international, English, Brazilian, Italian,
pool), king endings, a restricted root (the multi-PV of `Engine.lines`), a node limit, the levels'
`score_moves`, and searches of a game one after another with the same searcher (its table and history
kept from move to move).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shashki.engine import Engine, Limit, Searcher
from shashki.engine.evaluation import DraughtsWeights, GiveawayWeights
from shashki.rules import Position, get_variant

# The 8x8 giveaway family's fitted weights as they were when the record was made (their file has since been
# fitted again with pattern weights, benchmarks/tune_patterns.py).
GIVEAWAY_WEIGHTS = GiveawayWeights(man=-237, king=-12, advance=-119, back_row=-254, centre=199, mobility=260,
                                   hanging=-31)

# The search as it was recorded: full width, without the selective search the ordinary variants have
# had since (Searcher.late_reductions, Searcher.probcut), which changes what a fixed depth sees.
FULL_WIDTH = {"late_reductions": False, "probcut": False}

# name: (variant, FEN, depth). The middle games come from seeded random play from the start.
CASES: dict[str, tuple[str, str, int]] = {
    "giveaway start": (
        "russian-giveaway",
        "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
        9,
    ),
    "giveaway opening": ("russian-giveaway", "W:W18,22,24,27,28,29,30,32:B1,2,3,4,5,6,8,13", 9),
    "giveaway middle": ("russian-giveaway", "W:W19,25,27,29,30:B1,2,8,13,14,21,28", 10),
    "giveaway tables": ("russian-giveaway", "W:WK16,21,27,28:B8,22", 11),
    "giveaway kings": ("russian-giveaway", "W:WK1,K6:BK27,K32,10", 9),
    "russian start": ("russian", "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12", 9),
    "russian middle": ("russian", "W:W13,23,25,27,28,29,30,32:B1,2,3,4,5,8,12,14,21", 9),
    "russian kings": ("russian", "W:WK21,22,23,25,29:B4,8", 10),
    "russian king ending": ("russian", "W:WK29,K30,K31:BK5", 9),
    "russian bench kings": (
        "russian",
        "W:Wa1,c1,e1,f2,h2,a3,c3,b4,Kc5,Kg5:Bb8,f8,h8,a7,c7,g7,b6,a5,Ke5,Kg1",
        7,
    ),
    "international": (
        "international",
        "W:W7,24,32,34,36,37,40,41,42,43,44,45,46,47,48,49,50:B2,3,4,5,6,9,10,11,12,14,15,16,21,25",
        8,
    ),
    "international start": (
        "international",
        "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:"
        "B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20",
        8,
    ),
    "international kings": ("international", "W:WK46,K50,28:BK5,10", 9),
    "international giveaway": (
        "international-giveaway",
        "W:W25,31,34,35,36,38,40,41,42,44,45,46,47,48,49,50:B1,2,3,4,5,6,8,9,10,11,13,15,18,19,20,22,27",
        8,
    ),
    "english": ("english", "B:W21,23,24,25,28,30,31,32:B2,3,4,5,6,10,16,20", 10),
    "english kings": ("english", "W:WK14,K22,30:BK3,K12", 10),
    "english giveaway": ("english-giveaway", "B:W16,17,25,27,28,29,30:B1,2,3,4,5,10,15", 9),
    "brazilian": ("brazilian", "W:W22,24,26,27,29,31,32:B3,4,7,8,12,16,21", 9),
    "italian": ("italian", "W:W23,25,27,29,30,31,32:B1,3,4,5,14,18", 10),
    "pool": ("pool", "B:W12,19,20,21,26,28,31:B2,3,4,7,10,11,13,K15", 9),
}

# A game searched move after move by one searcher (its table and history carried over).
GAME: tuple[str, str, int, int] = ("russian", "W:W13,23,25,27,28,29,30,32:B1,2,3,4,5,8,12,14,21", 8, 8)
LINES: tuple[str, str, int, int] = (
    "russian-giveaway",
    "W:W18,22,24,27,28,29,30,32:B1,2,3,4,5,6,8,13",
    7,
    3,
)
NODES: tuple[str, str, int] = (
    "russian",
    "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    100_000,
)
SCORE_MOVES: tuple[str, str, int] = ("russian-giveaway", "W:W19,25,27,29,30:B1,2,8,13,14,21,28", 5)


def _line(line, variant) -> list:
    return [line.depth, line.score, line.nodes, " ".join(m.notation(variant) for m in line.pv)]


def searcher(key: str) -> Searcher:
    """The search as recorded: Russian's endgame tables came later (issue 15 point 5) and change what the
    search sees in Russian endings, so Russian is searched here without them; and the evaluation is the
    one recorded: the hand-set weights for ordinary draughts, and the 8x8 giveaway family's fitted
    weights for every giveaway variant (each family has its own file now, issue 15 point 3)."""
    variant = get_variant(key)
    weights = GIVEAWAY_WEIGHTS if variant.giveaway else DraughtsWeights()
    return Searcher(use_tablebase=key != "russian", weights=weights, **FULL_WIDTH)


def search_case(key: str, fen: str, depth: int) -> list:
    """Each iteration of a fixed-depth search from an empty table: depth, score, nodes, the line."""
    variant = get_variant(key)
    pos = Position.from_fen(fen, variant)
    return [_line(line, variant) for line in searcher(key).iterate(pos, Limit(depth=depth))]


def game_case() -> list:
    key, fen, depth, plies = GAME
    variant = get_variant(key)
    pos = Position.from_fen(fen, variant)
    game_searcher = searcher(key)
    history: list[int] = []
    out = []
    for _ in range(plies):
        lines = list(game_searcher.iterate(pos, Limit(depth=depth), history))
        if not lines:
            break
        out.append(_line(lines[-1], variant))
        history.append(pos.hash)
        pos = pos.play(lines[-1].move)
    return out


def lines_case() -> list:
    key, fen, depth, count = LINES
    variant = get_variant(key)
    engine = Engine(weights=GIVEAWAY_WEIGHTS if variant.giveaway else None)
    engine.searcher = Searcher(weights=GIVEAWAY_WEIGHTS if variant.giveaway else None, **FULL_WIDTH)
    return [
        _line(line, variant)
        for line in engine.lines(Position.from_fen(fen, variant), Limit(depth=depth), count)
    ]


def nodes_case() -> list:
    key, fen, nodes = NODES
    variant = get_variant(key)
    lines = searcher(key).iterate(Position.from_fen(fen, variant), Limit(nodes=nodes))
    return [_line(line, variant) for line in lines]


def score_moves_case() -> list:
    key, fen, depth = SCORE_MOVES
    variant = get_variant(key)
    searcher = Searcher(weights=GIVEAWAY_WEIGHTS if variant.giveaway else None, **FULL_WIDTH)
    scored = searcher.score_moves(Position.from_fen(fen, variant), depth)
    return [[score, move.notation(variant)] for score, move in scored] + [searcher.nodes]


def record() -> dict[str, list]:
    """What the search finds on every case (the figures RECORD keeps)."""
    out: dict[str, list] = {name: search_case(*case) for name, case in CASES.items()}
    out["game"] = game_case()
    out["lines"] = lines_case()
    out["node limit"] = nodes_case()
    out["score moves"] = score_moves_case()
    return out


# Produced by the search of commit 868a81d (see the module's docstring); one JSON value per case.
RECORD: dict[str, list] = {
    "giveaway start": [
        [1, 340, 9, "g3-f4"],
        [2, -282, 91, "a3-b4 d6-c5 b4:d6 c7:e5"],
        [3, -282, 129, "a3-b4 d6-c5 b4:d6 c7:e5"],
        [4, 401, 469, "a3-b4 d6-c5 b4:d6 c7:e5 c3-d4 e5:c3 d2:b4"],
        [5, 202, 904, "e3-d4 b6-c5 d4:b6 c7:a5 c3-b4 a5:c3 b2:d4"],
        [6, 67, 1979, "e3-d4 b6-c5 d4:b6 c7:a5 f2-e3 a5-b4 a3:c5 d6:b4 c3:a5"],
        [7, -119, 4933, "e3-d4 f6-e5 d4:f6 g7:e5 g3-f4 e5:g3 f2:h4 e7-f6 d2-e3"],
        [8, -260, 9126, "c3-b4 d6-c5 b4:d6 c7:e5 g3-f4 e5:g3 f2:h4 h6-g5 b2-c3 e7-d6"],
        [9, -90, 15076, "e3-d4 f6-e5 d4:f6 g7:e5 g3-f4 e5:g3 f2:h4 e7-f6 d2-e3 f6-g5 h4:f6 h6-g5 f6:h4"],
    ],
    "giveaway opening": [
        [1, 1155, 11, "g3-f4"],
        [2, 587, 57, "c3-b4 a5:c3:e5 f2-e3"],
        [3, 531, 167, "c3-b4 a5:c3:e5 g3-f4 e5:g3:e1 h2-g3 e1:h4"],
        [4, 666, 377, "c3-b4 a5:c3:e5 g3-f4 e5:g3:e1 h2-g3 e1:h4 a1-b2"],
        [5, 637, 799, "c3-b4 a5:c3:e5 g3-f4 e5:g3:e1 h2-g3 e1:h4 g1-f2 h4:e1 a1-b2"],
        [6, 461, 1603, "c3-b4 a5:c3:e5 g3-f4 e5:g3:e1 h2-g3 e1:h4 a1-b2 c7-d6 c1-d2"],
        [7, 868, 3018, "c3-b4 a5:c3:e5 g3-f4 e5:g3:e1 h2-g3 e1:h4 a1-b2 h4-g5 c1-d2 g5:c1:a3 g1-f2"],
        [8, 670, 7261, "c3-b4 a5:c3:e5 g3-f4 e5:g3:e1 h2-g3 e1:h4 a1-b2 h4-g5 g1-f2 g5-e3 f2:d4 c7-d6"],
        [
            9,
            512,
            17459,
            "c3-b4 a5:c3:e5 g3-f4 e5:g3:e1 h2-g3 e1:h4 a1-b2 h4-g5 b2-c3 c7-d6 c1-d2 g5:c1 g1-f2",
        ],
    ],
    "giveaway middle": [
        [1, 1581, 8, "b2-c3"],
        [2, 550, 46, "b2-c3 a5-b4 c3:a5"],
        [3, 613, 313, "f4-g5 h2-g1 b2-c3 g1:e3:h6"],
        [4, 941, 487, "f4-g5 d8-e7 f2-g3 h2:f4:h6 b2-c3"],
        [5, 83, 1725, "f2-e3 c5-d4 e3:c5 h2-g1 b2-c3 g1:b6"],
        [6, 483, 2696, "f4-g5 c5-b4 f2-e3 h2-g1 g5-h6 g1:d4 h6:f8"],
        [7, 71, 6314, "f4-g5 a5-b4 g5-h6 h2-g1 h6:f8 g1:e3 f8-d6 c5:e7 b2-c3 b4:d2"],
        [8, 119, 10599, "f4-g5 c5-d4 g5-f6 g7:e5 c1-d2 a3:c1:e3:g1 a1-b2 d4-e3 b2-a3 a5-b4 a3:c5 g1-f2"],
        [
            9,
            318,
            15919,
            "f4-g5 a5-b4 g5-h6 b8-c7 h6:f8 d8-e7 f8:d6:b8 b4-c3 b2:d4:b6 a3-b2 a1:c3 h2-g1 f2-g3 g1:a7",
        ],
        [10, 196, 25422, "f4-g5 c5-b4 f2-e3 b4-c3 b2:d4 a3-b2 c1:a3 a5-b4 a3:c5 d8-e7 g5-f6 e7:g5"],
    ],
    "giveaway tables": [
        [1, 1266, 18, "a3-b4 c3:a5"],
        [2, 29982, 68, "a3-b4 c3:a5 g5-f6 g7:e5 h2-g3 e5-f4 g3:e5 a5-b4 e5-d6 b4-c3"],
        [3, 29982, 217, "a3-b4 c3:a5 g5-f6 g7:e5 h2-g3 e5-f4 g3:e5 a5-b4 e5-d6 b4-c3 d6-e7"],
        [4, 29982, 525, "a3-b4 c3:a5 g5-f6 g7:e5 h2-g3 e5-f4 g3:e5 a5-b4 e5-d6 b4-c3 d6-e7 c3-d2"],
        [5, 29988, 959, "a3-b4 c3:a5 g5-d2 a5-b4 d2:a5 g7-h6 h2-g3 h6-g5 g3-f4 g5:e3:g1 a5-b6 g1:a7"],
        [6, 29988, 1527, "a3-b4 c3:a5 g5-d2 a5-b4 d2:a5 g7-h6 h2-g3 h6-g5 g3-f4 g5:e3:g1 a5-b6 g1:a7"],
        [7, 29990, 2553, "a3-b4 c3:a5 g5-c1 a5-b4 h2-g3 g7-f6 c1-g5 f6:h4 f2-e3 h4:f2:d4"],
        [8, 29990, 4256, "a3-b4 c3:a5 g5-c1 a5-b4 h2-g3 g7-f6 c1-g5 f6:h4 f2-e3 h4:f2:d4"],
        [9, 29990, 6986, "a3-b4 c3:a5 g5-c1 a5-b4 h2-g3 g7-f6 c1-g5 f6:h4 f2-e3 h4:f2:d4"],
        [10, 29990, 11147, "a3-b4 c3:a5 g5-c1 a5-b4 h2-g3 g7-f6 c1-g5 f6:h4 f2-e3 h4:f2:d4"],
    ],
    "giveaway kings": [
        [1, -29997, 1, "c7:g3:e1 g1-f2 e1:g3"],
        [2, -29997, 2, "c7:g3:e1 g1-f2 e1:g3"],
        [3, -29997, 3, "c7:g3:e1 g1-f2 e1:g3"],
        [4, -29997, 4, "c7:g3:e1 g1-f2 e1:g3"],
        [5, -29997, 5, "c7:g3:e1 g1-f2 e1:g3"],
        [6, -29997, 6, "c7:g3:e1 g1-f2 e1:g3"],
        [7, -29997, 7, "c7:g3:e1 g1-f2 e1:g3"],
        [8, -29997, 8, "c7:g3:e1 g1-f2 e1:g3"],
        [9, -29997, 9, "c7:g3:e1 g1-f2 e1:g3"],
    ],
    "russian start": [
        [1, 9, 9, "g3-f4"],
        [2, -10, 54, "g3-f4 d6-e5 f4:d6 c7:e5"],
        [3, -10, 118, "g3-f4 d6-e5 f4:d6 c7:e5"],
        [4, 9, 617, "g3-h4 f6-g5 h4:f6 g7:e5 e3-f4 e5:g3 h2:f4"],
        [5, -2, 1312, "g3-h4 d6-e5 a3-b4 e5-d4 c3:e5 f6:d4 e3:c5 b6:d4"],
        [6, 7, 5788, "a3-b4 d6-e5 b4-a5 c7-d6 a5:c7 d8:b6 g3-f4 e5:g3 h2:f4"],
        [7, 2, 11142, "c3-b4 d6-e5 d2-c3 b6-a5 g3-f4 e5:g3 f2:h4 f6-g5 h4:f6 g7:e5"],
        [8, 0, 23036, "e3-f4 f6-g5 g3-h4 g5:e3 d2:f4 g7-f6 f2-e3 d6-e5 f4:d6 c7:e5"],
        [
            9,
            4,
            54495,
            "c3-b4 b6-a5 g3-f4 a5:c3 d2:b4 f6-g5 b4-c5 d6:b4 a3:c5 c7-d6 b2-a3 d6:b4 a3:c5 "
            "e7-d6 c5:e7 f8:d6",
        ],
    ],
    "russian middle": [
        [1, -102, 10, "e3-d4 c5:e3 f2:d4"],
        [2, -117, 79, "e3-d4 c5:e3 f2:d4 a7-b6 a5:c7 b8:d6"],
        [3, -117, 154, "e3-d4 c5:e3 f2:d4 a7-b6 a5:c7 b8:d6"],
        [4, -108, 351, "e3-d4 c5:e3 f2:d4 a7-b6 a5:c7 b8:d6 b2-c3"],
        [5, -119, 1726, "b2-c3 a7-b6 a5:c7 b8:d6 c3-d4 c5-b4"],
        [6, -114, 3510, "b2-c3 g7-f6 e3-d4 c5:e3 f2:d4 a7-b6 a5:c7 b8:d6 h2-g3"],
        [7, -117, 6878, "b2-c3 g7-f6 e3-d4 c5:e3 f2:d4 a7-b6 a5:c7 b8:d6 h2-g3 h6-g5"],
        [8, -112, 28746, "e3-f4 a7-b6 a5:c7 b8:d6 b2-c3 g7-f6 f2-e3 f6-e5 c3-b4 e5:g3 h2:f4"],
        [9, -115, 49077, "e3-f4 a7-b6 a5:c7 b8:d6 b2-c3 g7-f6 f2-e3 d8-c7 h2-g3 c7-b6"],
    ],
    "russian kings": [
        [1, 534, 13, "a3-c5"],
        [2, 531, 40, "a3-e7 g7-h6"],
        [3, 536, 166, "a3-e7 g7-h6 b2-a3"],
        [4, 628, 481, "a3-e7 g7-h6 e7-f6 h8-g7 f6:h8 h6-g5"],
        [5, 29991, 1045, "a3-e7 g7-h6 e3-f4 h8-g7 e7-g5 g7-f6 g5:e7 h6-g5 f4:h6"],
        [6, 29993, 2497, "a3-e7 g7-h6 e3-f4 h8-g7 c3-b4 g7-f6 e7:g5"],
        [7, 29993, 4350, "a3-e7 g7-h6 e3-f4 h8-g7 c3-b4 g7-f6 e7:g5"],
    ],
    "russian king ending": [
        [1, 612, 31, "a1-c3"],
        [2, 608, 103, "a1-c3 a7-b6"],
        [3, 612, 721, "a1-c3 a7-b6 c1-f4"],
        [4, 612, 1893, "a1-c3 a7-b6 c1-f4 b6-c5"],
        [5, 616, 4492, "a1-e5 a7-b6 c1-b2 b6-c5 e1-d2"],
        [6, 616, 13838, "a1-b2 a7-b8 e1-b4 b8-c7 c1-e3 c7-g3"],
        [7, 616, 28531, "a1-b2 a7-b8 e1-b4 b8-c7 c1-e3 c7-g3 b4-c5"],
        [8, 616, 63384, "a1-b2 a7-b8 e1-b4 b8-c7 c1-e3 c7-g3 b4-c5 g3-c7"],
        [9, 616, 134507, "a1-b2 a7-b8 e1-b4 b8-c7 c1-e3 c7-g3 b4-c5 g3-c7 b2-f6"],
    ],
    "russian bench kings": [
        [1, 219, 153, "c5-e3 e5:b2 a1:c3"],
        [2, 202, 189, "c5-e3 e5:b2 a1:c3 g7-h6"],
        [3, 202, 507, "c5-e3 e5:b2 a1:c3 b6-c5 b4:d6 c7:e5"],
        [4, -6, 1484, "c5-e3 e5:b2 a1:c3 c7-d6 g5-h6 b6-c5 e3:b6 a7:c5"],
        [5, -6, 2761, "c5-e3 e5:b2 a1:c3 c7-d6 g5-h4 b6-c5 e3:b6 a7:c5"],
        [6, 4, 6160, "c5-e3 e5:b2 a1:c3 g7-h6 g5-f4 c7-d6 f4:c7 b8:d6 h2-g3"],
        [7, -11, 11013, "c5-e3 e5:b2 a1:c3 g7-h6 g5-f6 c7-d6 f6-h4 b6-c5 e3:b6 a7:c5"],
    ],
    "international": [
        [1, 446, 1, "7x18"],
        [2, 431, 22, "7x18 14-20"],
        [3, 454, 174, "7x18 14-20 32-27 20x29 34x23 21x32 37x28"],
        [4, 441, 397, "7x18 2-8 34-30 25x34 40x29 8-12 18x7 11x2"],
        [5, 431, 1113, "7x18 14-20 32-27 20x29 34x23 21x32 37x28 9-13 18x9 4x13"],
        [6, 438, 2584, "7x18 14-20 34-29 9-13 18x9 4x13 32-27 21x32 37x28"],
        [7, 431, 6634, "7x18 14-20 32-27 20x29 34x23 21x32 37x28 11-17 40-34 9-13 18x9 4x13"],
        [8, 432, 28308, "7x18 3-8 37-31 14-19 24x13 8x19 44-39 9-13 18x9 4x13 34-30 25x34 40x29 11-17"],
    ],
    "international start": [
        [1, 9, 10, "34-29"],
        [2, -10, 79, "34-29 18-23 29x18 12x23"],
        [3, -10, 165, "34-29 18-23 29x18 12x23"],
        [4, 11, 1276, "34-30 19-24 30x19 14x23 33-29 23x34 40x29"],
        [5, -2, 2903, "34-30 17-22 31-27 22x31 37x26 16-21 26x17 11x22"],
        [6, 7, 6713, "34-29 17-21 40-34 18-22 31-27 22x31 37x26x17 11x22"],
        [7, 0, 23439, "34-30 20-25 31-27 25x34 39x30 17-21 37-31 18-22 27x18 13x22"],
        [
            8,
            2,
            42183,
            "34-30 20-25 31-26 25x34 40x29 19-24 29x20 14x25 35-30 25x34 39x30 17-21 26x17 11x22",
        ],
    ],
    "international kings": [
        [1, 325, 10, "46-41"],
        [2, 320, 31, "46-41 10-14"],
        [3, 324, 255, "46-41 10-14 50-44"],
        [4, 29991, 716, "50-33 10-14 33-20 14x25 28-23 5x28 46x19 25-30 19x35"],
        [5, 29993, 1217, "28-23 10-14 50-28 14-20 23-19 5x23x32 46x14x25"],
        [6, 29993, 2776, "28-23 10-14 50-28 14-20 23-19 5x23x32 46x14x25"],
        [7, 29993, 4811, "28-23 10-14 50-28 14-20 23-19 5x23x32 46x14x25"],
    ],
    "international giveaway": [
        [1, -718, 2, "25x14x23x12 8x17"],
        [2, -317, 19, "25x14x23x12 8x17 44-39"],
        [3, -779, 151, "25x14x23x12 8x17 38-33 9-14"],
        [4, -638, 252, "25x14x23x12 8x17 38-33 9-14 35-30"],
        [5, -724, 524, "25x14x23x12 8x17 38-33 9-14 33-28 22x33 31x22 17x28 36-31"],
        [6, -638, 1538, "25x14x23x12 8x17 38-33 17-21 35-30 27-32 34-29"],
        [7, -838, 3393, "25x14x23x12 8x17 38-33 17-21 35-30 27-32 42-38 32x43 49x38"],
        [8, -507, 6717, "25x14x23x12 8x17 38-33 17-21 35-30 27-32 31-27 22x31 36x27x16x7 1x12 34-29"],
    ],
    "english": [
        [1, 7, 2, "20x27 31x24"],
        [2, 20, 18, "20x27 31x24 16-20"],
        [3, -5, 55, "20x27 31x24 16-20 23-18 20x27 32x23"],
        [4, 0, 192, "20x27 31x24 16-20 23-19 20x27 32x23 6-9"],
        [5, -11, 813, "20x27 31x24 16-20 23-19 20x27 32x23 6-9 25-22"],
        [6, -4, 1192, "20x27 31x24 16-20 23-19 20x27 32x23 6-9 25-22 9-14"],
        [7, -5, 3632, "20x27 31x24 6-9 25-22 9-13 24-19 16-20 23-18"],
        [8, -4, 10935, "20x27 31x24 16-20 23-19 20x27 32x23 10-14 28-24 6-10 25-22 5-9"],
        [9, -3, 26504, "20x27 31x24 6-9 25-22 9-14 24-19 16-20 19-16 5-9 16-11"],
        [10, 0, 49030, "20x27 31x24 6-9 24-19 16-20 23-18 10-14 18-15 3-8 15-10 8-11"],
    ],
    "english kings": [
        [1, 118, 11, "14-9"],
        [2, 114, 38, "14-9 3-7"],
        [3, 118, 168, "30-26 3-7 26-23"],
        [4, 114, 376, "30-26 3-7 26-23 12-16"],
        [5, 114, 768, "30-26 3-7 26-23 12-16 14-9"],
        [6, 118, 1779, "30-26 3-7 26-23 12-16 22-25 7-2"],
        [7, 118, 3434, "30-26 3-7 26-23 12-16 22-25 7-2 14-9"],
        [8, 117, 7697, "30-26 12-16 26-23 3-8 14-9 16-11 23-19 11-7"],
        [9, 117, 12552, "30-26 12-16 26-23 3-8 14-9 8-11 23-18 16-19 22-25"],
        [10, 118, 21655, "30-26 12-16 26-23 3-8 14-9 8-11 22-25 11-15 9-6 16-11"],
    ],
    "english giveaway": [
        [1, 767, 12, "5-9"],
        [2, 822, 79, "10-14 17x10 5-9"],
        [3, 522, 256, "10-14 17x10 3-7 10x3 4-8 3x12"],
        [4, 923, 595, "10-14 17x10 3-7 10x3 4-8 3x12 5-9"],
        [5, 410, 2443, "10-14 17x10 5-9 10-6 1x10 30-26 15-18"],
        [6, 199, 5563, "10-14 17x10 4-8 10-6 1x10 25-22 10-14"],
        [7, 205, 8738, "5-9 30-26 10-14 17x10 4-8 10-6 1x10 16-11 8-12"],
        [8, 233, 20181, "10-14 17x10 4-8 10-6 1x10 25-22 5-9 22-18 15x22 16-11 8x15"],
        [9, 201, 35745, "5-9 17-14 10x17 16-11 9-14 25-22 17x26 30x23 4-8 11x4 15-19 23x16 14-18"],
    ],
    "brazilian": [
        [1, 11, 14, "g3-h4"],
        [2, -8, 93, "c3-d4 e7-d6"],
        [3, 7, 471, "d2-e3 g7-f6 e3-f4 g5xe3 f2xd4"],
        [4, -6, 930, "d2-e3 g5-h4 e3-d4 g7-f6"],
        [5, 3, 1726, "d2-e3 g7-f6 c3-b4 a3xc5 e3-f4 g5xe3 f2xd4xb6 e7-d6"],
        [6, -8, 4301, "d2-e3 g5-h4 g3-f4 e7-d6 e3-d4 g7-f6"],
        [7, 11, 8314, "c3-d4 g7-f6 f2-e3 e7-d6 g3-f4 f8-e7 d2-c3"],
        [8, 4, 15667, "c3-d4 g7-f6 f2-e3 g5-h4 g3-f4 f6-g5 d2-c3 e7-d6"],
        [9, 15, 34832, "c3-d4 g7-f6 f2-e3 e7-d6 g3-f4 f8-e7 d2-c3 g5-h4 c3-b4 a3xc5 d4xb6"],
    ],
    "italian": [
        [1, 109, 19, "27-22 18x27 31x22"],
        [2, 102, 62, "27-22 18x27 31x22 5-10"],
        [3, 117, 208, "27-22 18x27 31x22 5-10 22-18 14x21 25x18"],
        [4, 120, 540, "27-22 18x27 31x22 5-10 22-18 14x21 25x18 1-5"],
        [5, 123, 1252, "27-22 18x27 31x22 5-10 22-18 14x21 25x18 1-5 23-19"],
        [6, 116, 2894, "27-22 18x27 31x22 5-10 22-18 14x21 25x18 4-7 23-19 7-11"],
        [7, 119, 7812, "29-26 4-7 26-21 7-12 27-22 18x27 31x22 5-10 21-18 14x21 25x18"],
        [8, 118, 15991, "29-26 5-10 26-21 1-5 27-22 18x27 31x22 4-7 21-18 14x21 25x18 7-11"],
        [9, 123, 34293, "27-22 18x27 31x22 4-7 22-18 14x21 25x18 7-11 23-19 5-10 32-28 1-5 28-23"],
        [10, 120, 56984, "27-22 18x27 31x22 4-7 22-18 14x21 25x18 7-11 23-19 5-10 32-28 1-5 28-23 5-9"],
    ],
    "pool": [
        [1, 98, 4, "15x24 28x19"],
        [2, 98, 5, "15x24 28x19"],
        [3, 121, 50, "15x24 20x27 10-14"],
        [4, 112, 122, "15x24 20x27 10-14 26-22"],
        [5, 123, 262, "15x24 20x27 10-14 26-22 7-10"],
        [6, 114, 663, "15x24 20x27 10-14 26-22 7-10 27-23"],
        [7, 117, 1310, "15x24 20x27 10-14 26-22 7-10 27-23 10-15"],
        [8, 104, 5134, "15x24 20x27 10-14 26-22 7-10 27-23 10-15 23-19 15x24 28x19"],
        [9, 109, 7687, "15x24 20x27 10-14 26-22 7-10 27-23 10-15 28-24 2-6"],
    ],
    "game": [
        [8, -112, 28746, "e3-f4 a7-b6 a5:c7 b8:d6 b2-c3 g7-f6 f2-e3 f6-e5 c3-b4 e5:g3 h2:f4"],
        [8, 115, 18069, "a7-b6 a5:c7 b8:d6 b2-c3 g7-f6 f2-e3 d8-c7 h2-g3 c7-b6 g3-h4"],
        [8, -115, 8, "a5:c7 b8:d6 b2-c3 g7-f6 f2-e3 d8-c7 h2-g3 c7-b6 g3-h4"],
        [8, 114, 3586, "b8:d6 b2-c3 g7-f6 f2-e3 d8-c7 h2-g3 f6-e5 c3-b4"],
        [8, -115, 12889, "b2-c3 d8-c7 f2-e3 c7-b6 h2-g3 g7-f6 c3-d4 c5-b4"],
        [8, 110, 23697, "g7-f6 f2-e3 d8-e7 c3-d4 c5-b4 h2-g3 d6-c5 d4:b6 f6-e5 f4:d6 e7:c5:a7"],
        [8, -111, 16023, "f2-e3 f6-g5 a1-b2 g5-h4 c3-d4 d8-e7 d4:b6 d6-e5 f4:d6 e7:c5:a7 b2-c3"],
        [8, 110, 33854, "f8-g7 c3-d4 c5-b4 h2-g3 f6-e5 d4:f6 g7:e5 g1-h2 d6-c5 f4:d6 c5:e7 g3-f4"],
    ],
    "lines": [
        [7, 868, 3018, "c3-b4 a5:c3:e5 g3-f4 e5:g3:e1 h2-g3 e1:h4 a1-b2 h4-g5 c1-d2 g5:c1:a3 g1-f2"],
        [7, 207, 3226, "g3-f4 a7-b6 c3-b4 a5:c3:e5:g3:e1 h2-g3 e1:h4 g1-f2 h4:e1 c1-d2 e1:b4 a1-b2"],
        [7, -321, 3872, "f2-e3 a5-b4 c3:a5 c7-d6 d4-c5 d6:b4 a5:c3 g7-f6 g3-f4 a7-b6"],
    ],
    "node limit": [
        [1, 9, 9, "g3-f4"],
        [2, -10, 54, "g3-f4 d6-e5 f4:d6 c7:e5"],
        [3, -10, 118, "g3-f4 d6-e5 f4:d6 c7:e5"],
        [4, 9, 617, "g3-h4 f6-g5 h4:f6 g7:e5 e3-f4 e5:g3 h2:f4"],
        [5, -2, 1312, "g3-h4 d6-e5 a3-b4 e5-d4 c3:e5 f6:d4 e3:c5 b6:d4"],
        [6, 7, 5788, "a3-b4 d6-e5 b4-a5 c7-d6 a5:c7 d8:b6 g3-f4 e5:g3 h2:f4"],
        [7, 2, 11142, "c3-b4 d6-e5 d2-c3 b6-a5 g3-f4 e5:g3 f2:h4 f6-g5 h4:f6 g7:e5"],
        [8, 0, 23036, "e3-f4 f6-g5 g3-h4 g5:e3 d2:f4 g7-f6 f2-e3 d6-e5 f4:d6 c7:e5"],
        [
            9,
            4,
            54495,
            "c3-b4 b6-a5 g3-f4 a5:c3 d2:b4 f6-g5 b4-c5 d6:b4 a3:c5 c7-d6 b2-a3 d6:b4 a3:c5 e7-d6 "
            "c5:e7 f8:d6",
        ],
        [10, 0, 97372, "c3-b4 f6-g5 b4-a5 g5-h4 d2-c3 g7-f6 c3-d4 d6-c5 b2-c3 e7-d6"],
    ],
    "score moves": [
        [-902, "f4-e5"],
        [83, "f2-e3"],
        [-157, "f4-g5"],
        [-1234, "b2-c3"],
        [-298, "f2-g3"],
        [-157, "c1-d2"],
        2976,
    ],
}


@pytest.mark.parametrize("name", list(CASES))
def test_fixed_depth_search_visits_the_recorded_nodes_and_finds_the_recorded_lines(name):
    assert search_case(*CASES[name]) == RECORD[name]


def test_a_game_searched_move_after_move_repeats_the_recorded_searches():
    assert game_case() == RECORD["game"]


def test_multi_pv_lines_repeat_the_recorded_lines():
    assert lines_case() == RECORD["lines"]


def test_a_node_limited_search_stops_where_the_recorded_one_stopped():
    assert nodes_case() == RECORD["node limit"]


def test_the_levels_move_scores_repeat_the_recorded_scores():
    assert score_moves_case() == RECORD["score moves"]


def test_the_pure_python_build_finds_the_recorded_figures(tmp_path):
    # The same source uncompiled (what runs without a C compiler): copied without its compiled modules.
    import shutil

    root = Path(__file__).resolve().parents[2]
    shutil.copytree(
        root / "shashki", tmp_path / "shashki", ignore=shutil.ignore_patterns("*.so", "__pycache__")
    )
    names = ["giveaway opening", "giveaway tables", "russian middle", "international kings", "english"]
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import test_search_identity as t; "
        "from shashki.engine import alphabeta, evaluation; from shashki.rules import position; "
        "assert all(m.__file__.endswith('.py') for m in (alphabeta, evaluation, position)); "
        f"print(json.dumps({{n: t.search_case(*t.CASES[n]) for n in {names!r}}}))"
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-c", code, str(Path(__file__).parent)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout) == {name: RECORD[name] for name in names}


if __name__ == "__main__":
    print(json.dumps(record(), indent=None))
