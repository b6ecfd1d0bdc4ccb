"""benchmarks/tune_from_scan.py, which fits the international evaluation to Scan 2.0's scores (issue 15
point 3): its positions are quiet, its rows are the evaluation the engine plays with Scan's score as the
target, and it speaks Scan's Hub protocol (here to a stand-in engine: Scan itself is built from its
source, which the tests do not fetch)."""

from __future__ import annotations

import math
import stat
import sys
from dataclasses import asdict

from benchmark_scripts import load_script

from shashki.engine.evaluation import Evaluator, shipped_weights
from shashki.engine.hub_notation import hub_position
from shashki.rules import Game, get_variant

tune = load_script("tune_from_scan")
fitting = load_script("tune_patterns")  # the model fitted and its fit, shared

# A stand-in for Scan's Hub loop: it answers as Scan 2.0 does, and scores a position by its number of
# black men minus white men (times 100, for the side to move), printing nothing below depth 12 as Scan.
FAKE_SCAN = r"""
import sys
pos = ""
depth = 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "hub":
        print("name Scan 2.0"); print("wait")
    elif words[0] == "init":
        print("ready")
    elif words[0] == "pos":
        pos = words[1]; depth = 0
    elif words[0] == "depth":
        depth = int(words[1])
    elif words[0] == "analyse":
        white, black = pos[1:].count("w"), pos[1:].count("b")
        score = 100 * (white - black) * (1 if pos[0] == "w" else -1)
        if depth >= 12:
            print(f"info {depth} 14.0 {score} 1000 0.01 0.1 46-41")
        print("move 46-41")
    elif words[0] == "quit":
        break
    sys.stdout.flush()
"""


def test_the_positions_kept_are_quiet_ones_of_a_self_play_game():
    base = shipped_weights(get_variant("international"))
    opening = tune.family_openings("international", 3, 1, 6)[0][1]
    fens = tune._game_positions((asdict(base), opening, 200))
    assert fens
    for fen in fens:
        moves = Game("international", fen).position.legal_moves()
        assert moves and not moves[0].capture_mask


def test_the_scorer_reads_scans_score_for_the_side_to_move(tmp_path):
    exe = tmp_path / "scan"
    exe.write_text(f"#!{sys.executable}\n{FAKE_SCAN}")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    scorer = tune.ScanScorer(exe)
    try:
        white_up = "W:W31,32,33:B1,2"  # White to move, a man up
        assert hub_position(Game("international", white_up).position)[0] == "W"
        assert scorer.score(white_up, 12) == 100
        assert scorer.score("B:W31,32,33:B1,2", 12) == -100  # the same for Black to move
        assert scorer.score(white_up, 11) is None  # Scan prints no score below depth 12
    finally:
        scorer.send("quit")
        scorer.proc.wait(timeout=10)


def test_a_row_is_the_engines_evaluation_with_scans_score_as_its_target():
    variant = get_variant("international")
    base = shipped_weights(variant)
    game = Game(variant)
    for notation in ("32-28", "19-23", "28x19", "14x23", "37-32"):
        game.play(notation)
    fens = [game.position.fen(), "W:W31,32,33:B1,2"]
    k = 200.0
    rows = tune.rows([fens], [150, 5000], base, False, k)[0]
    evaluator = Evaluator(variant, base)
    names = tune.FAMILIES["international"].features
    dense = [float(getattr(base, name)) for name in names]
    for fen, row in zip(fens, rows, strict=True):
        pos = Game(variant, fen).position
        assert fitting.evaluation(dense, [], row) == evaluator(pos)
    assert math.isclose(rows[0][3], 1 / (1 + math.exp(-150 / k)))
    assert math.isclose(rows[1][3], 1 / (1 + math.exp(-tune.CUT / k)))  # a won position's score cut
    unscored = tune.rows([fens], [None, 10], base, False, k)[0]  # a position Scan gave no score: left out
    assert len(unscored) == 1 and math.isclose(unscored[0][3], 1 / (1 + math.exp(-10 / k)))
