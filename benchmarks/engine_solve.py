"""Giveaway test positions with known results, solved by the engine within a time limit (issue 3).

    python benchmarks/engine_solve.py [--time 1.0] [--count 40]

The positions: a few hand-picked endings whose forced result (win or loss for the side to move, in
plies) was proved by a deep search with the 3-piece tables (`POSITIONS` below), and `--count` won
3-piece positions drawn at random (fixed seed) from the endgame tables, won in 9 plies or more. The
engine searches each *without* the tables for at most `--time` seconds. A hand-picked position counts as
solved when the search proves its result; a table position when the engine's move keeps the win (the
tables say the opponent is then lost). Prints how many.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shashki.engine import Limit, Searcher  # noqa: E402
from shashki.engine.search import WIN_BOUND  # noqa: E402
from shashki.engine.tablebase import _Indexer, default_tablebase  # noqa: E402
from shashki.rules import Position, get_variant  # noqa: E402

VARIANT = get_variant("russian-giveaway")

# (label, FEN, result for the side to move: +plies = won in that many plies, -plies = lost).
POSITIONS = (
    ("king sacrifice (RULES.md §7)", "W:WKg1:BKe5", 2),
    ("king offered to three men", "W:WKa1:Bb6,d6,f8", 2),
    ("three men each", "W:Wa3,c3,e3:Bb6,d6,f6", 12),
    ("two men each, lost", "W:Wc3,e3:Bd6,f6", -5),
    ("two men each, lost late", "W:Wc3,e3:Bf6,h6", -15),
    ("two men each, a long loss", "W:Wg3,h2:Bb8,c7", -23),
)


def search(pos: Position, seconds: float):
    """The last line of a search without the tables, and the time it took."""
    searcher = Searcher(use_tablebase=False)
    start = time.perf_counter()
    last = None
    for line in searcher.iterate(pos, Limit(time=seconds)):
        last = line
    return last, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Giveaway test positions solved within a time limit.")
    parser.add_argument("--time", type=float, default=1.0, help="seconds per position (default 1)")
    parser.add_argument("--count", type=int, default=40, help="won 3-piece positions from the tables")
    parser.add_argument("--seed", type=int, default=9)
    args = parser.parse_args(argv)

    print(f"Russian giveaway, at most {args.time} s per position, the engine without endgame tables")
    solved = total = 0
    for label, fen, expected in POSITIONS:
        pos = Position.from_fen(fen, VARIANT)
        line, seconds = search(pos, args.time)
        found = line.mate_distance if line is not None and abs(line.score) >= WIN_BOUND else None
        ok = found is not None and (found > 0) == (expected > 0)
        total += 1
        solved += ok
        said = f"{'win' if found > 0 else 'loss'} in {abs(found)}" if found is not None else "not proved"
        print(f"  {'solved' if ok else 'NOT solved':<10} {label:<28} {fen:<24} expected "
              f"{'win' if expected > 0 else 'loss'} in {abs(expected)}, found {said} ({seconds:.2f} s)")
    hand_picked = solved

    table = default_tablebase()
    indexer = _Indexer(VARIANT, 3)
    rng = random.Random(args.seed)
    picked: list[tuple[Position, int]] = []
    while len(picked) < args.count:
        pos = indexer.position(rng.randrange(indexer.size))
        if pos is None or not pos.legal_moves():
            continue
        result, plies = table.probe(pos)
        if result == 1 and plies >= 9:
            picked.append((pos, plies))
    table_solved = 0
    for pos, _ in picked:
        last, _ = search(pos, args.time)
        child = pos.play(last.move)
        child_result = table.probe(child)
        keeps_win = (child_result is not None and child_result[0] == -1) or not child.legal_moves()
        table_solved += keeps_win
    total += len(picked)
    solved += table_solved
    print(f"hand-picked positions: {hand_picked} of {len(POSITIONS)} solved (the forced result proved)")
    print(f"3-piece table positions (won in 9+ plies): {table_solved} of {len(picked)} kept the win")
    print(f"solved: {solved} of {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
