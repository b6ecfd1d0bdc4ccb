"""Each level against the one below it (issues 3 and 15; goal: above 60% each).

    python benchmarks/engine_levels.py [--variant russian-giveaway] [--games 40] [--time 0.5]
        [--levels 2,3,4,5,6,7,8]

Russian giveaway by default; `--variant` plays the ladder in another variant (the ordinary variants
search selectively, giveaway full width, so each family has a ladder of its own to check).
For each level N given, level N plays level N-1 over `--games` games: random 4-ply openings (fixed seed,
the same for every pair; benchmarks/tune_evaluation.py's `openings`), each played with both colours. Every
engine gets `--time` seconds a move at most (levels 6 and 7 have their own, smaller or equal, caps; level
8 uses the time given). Levels with randomness use fixed seeds, so a run can be repeated. Games not over
after 160 plies are draws. Prints one line per pair and the score of the higher level. Level 1's pair
(`--levels 1`) is against "level 0", a random mover.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from tune_evaluation import MAX_PLIES, VARIANT, openings  # noqa: E402

from shashki.engine import Engine, Limit, PlayResult  # noqa: E402
from shashki.rules import Game  # noqa: E402

SEED = 31


class RandomMover:
    """"Level 0": a uniformly random legal move, every move (the floor of the ladder: level 1 should beat
    it, and still lose to a beginner who looks a move ahead)."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def play(self, game: Game, limit: Limit) -> PlayResult:
        move = self.random.choice(game.legal_moves())
        return PlayResult(move, 0, 0, (move,), 0)


def engine(level: int, seed: int) -> Engine | RandomMover:
    return RandomMover(seed) if level == 0 else Engine(level=level, seed=seed)


def play_game(white: int, black: int, opening: list[str], seconds: float, seed: int,
              variant: str = VARIANT) -> float:
    """White's score."""
    game = Game.replay(opening, variant)
    engines = {True: engine(white, seed), False: engine(black, seed + 1)}
    limit = Limit(time=seconds)
    while not game.is_over and game.ply < MAX_PLIES:
        game.play(engines[game.position.white_to_move].play(game, limit).move)
    if game.outcome is None or game.outcome.winner is None:
        return 0.5
    return 1.0 if game.outcome.winner.value == "white" else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Each level against the one below.")
    parser.add_argument("--variant", default=VARIANT, help=f"the variant played (default {VARIANT})")
    parser.add_argument("--games", type=int, default=40, help="games per pair (even; default 40)")
    parser.add_argument("--time", type=float, default=0.5, help="seconds a move at most (default 0.5)")
    parser.add_argument("--levels", default="2,3,4,5,6,7,8",
                        help="the higher level of each pair (1: level 1 against a random mover)")
    args = parser.parse_args(argv)
    try:
        lines = openings(SEED, args.games // 2, variant_key=args.variant)
    except ValueError as error:
        parser.error(str(error))
    print(f"{args.variant}, {args.games} games per pair, at most {args.time} s a move")
    failed = []
    for high in (int(x) for x in args.levels.split(",")):
        low = high - 1
        start = time.perf_counter()
        wins = draws = losses = 0
        for i, opening in enumerate(lines):
            for high_white in (True, False):
                seed = 1000 * high + 2 * i + high_white
                if high_white:
                    s = play_game(high, low, opening, args.time, seed, args.variant)
                else:
                    s = 1 - play_game(low, high, opening, args.time, seed, args.variant)
                wins += s == 1.0
                draws += s == 0.5
                losses += s == 0.0
        games = wins + draws + losses
        score = (wins + draws / 2) / games
        if score <= 0.6:
            failed.append(high)
        verdict = "above" if score > 0.6 else "NOT above"
        against = f"level {low}" if low else "a random mover"
        print(f"level {high} vs {against}: +{wins} ={draws} -{losses} of {games}, score {score:.1%} "
              f"({verdict} 60%; {time.perf_counter() - start:.0f} s)", flush=True)
    if failed:
        print(f"goal not met for level(s) {', '.join(map(str, failed))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
