"""Puzzle generation (issue 14): puzzles found per minute on one worker, for Russian giveaway and Russian
draughts, from a fixed seed at the default depths (`shashki puzzles generate`'s).

    python benchmarks/puzzle_generation.py [--games 20] [--seed 1] [--variants russian-giveaway russian]

Each self-play game of the run is played and searched for puzzles by
`shashki.server.puzzles.generate.self_play_puzzles`, the unit of work of the command. The reference,
measured in the same run on the same games: playing them alone (the raw self-play game rate), so the
ratio says what the screening and verification searches cost; and the engine's nodes per second on the
start position (depth 8), the machine's speed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shashki.engine import Engine, Limit  # noqa: E402
from shashki.rules import Game  # noqa: E402
from shashki.server.puzzles.generate import GameSource, default_budget, self_play_puzzles  # noqa: E402


def nodes_per_second(variant: str) -> int:
    lines = list(Engine().analyse(Game(variant), Limit(depth=8)))
    return lines[-1].nps


def main(args) -> None:
    for variant in args.variants:
        budget = default_budget(variant)
        started = time.perf_counter()
        for index in range(args.games):
            GameSource(variant, args.seed, index).play()
        playing = time.perf_counter() - started
        started = time.perf_counter()
        found = sum(len(self_play_puzzles(variant, args.seed, index, budget)) for index in range(args.games))
        took = time.perf_counter() - started
        print(f"{variant}: {found} puzzles from {args.games} games in {took:.1f} s on one worker: "
              f"{found / took * 60:.1f} puzzles/minute (depths {budget.screen}/{budget.verify}); "
              f"reference: the same games played alone {args.games / playing * 60:.0f} games/minute, "
              f"with the search {args.games / took * 60:.0f} games/minute; engine "
              f"{nodes_per_second(variant):,} nodes/s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variants", nargs="+", default=["russian-giveaway", "russian"])
    main(parser.parse_args())
