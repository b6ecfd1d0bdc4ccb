"""Computer analysis of a game (issue 14): seconds to analyse a 60-move game at the default budget, per
engine worker.

    python benchmarks/game_analysis.py [--moves 60] [--seconds 0.25] [--games 2] [--seed 1]

Each game is first played by the engine against itself (after eight random plies) until one lasts
`--moves` moves each side, cut there (Russian draughts; for Russian giveaway, whose games are shorter, the
longest of the tries), then analysed by `reviews.service.evaluate_game` —
the code a review runs — on one engine process (`AsyncEngine(workers=1)`, as one `shashki worker
--processes 1` would). The reference, measured in the same run: the engine's thinking budget alone, plies
× seconds per position; the ratio says what the rest costs (process hops, the judging). The default
budget is `SHASHKI_REVIEW_SECONDS_PER_MOVE` (0.25 s).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shashki.engine import AsyncEngine, Engine, Limit  # noqa: E402
from shashki.rules import Game  # noqa: E402
from shashki.server.reviews.service import evaluate_game  # noqa: E402


def long_game(variant: str, moves: int, seed: int, attempts: int = 60) -> Game:
    """A game of `moves` moves each side, cut there: the engine against itself (depth 4) after eight
    random plies, from seed `seed` on, the first that lasts that long — or the longest of `attempts`
    (Russian giveaway games rarely last 60 moves: the length analysed is printed)."""
    longest: Game | None = None
    for attempt in range(attempts):
        rng = random.Random(seed + attempt)
        engine = Engine(level=None)
        game = Game(variant)
        while not game.is_over and len(game.moves) < 2 * moves:
            legal = game.legal_moves()
            game.play(rng.choice(legal) if len(game.moves) < 8 else engine.play(game, Limit(depth=4)).move)
        if longest is None or len(game.moves) > len(longest.moves):
            longest = game
        if len(game.moves) == 2 * moves:
            break
    assert longest is not None
    return longest


async def main(args) -> None:
    engine = AsyncEngine(workers=1)
    try:
        for index in range(args.games):
            variant = "russian" if index % 2 == 0 else "russian_giveaway"
            game = long_game(variant, args.moves, args.seed + index)
            plies = len(game.moves)
            started = time.perf_counter()
            review = await evaluate_game(engine, game, args.seconds)
            took = time.perf_counter() - started
            budget = (plies + 1) * args.seconds
            marks = sum(1 for m in review["moves"] if m["mark"])
            print(f"{variant}: {plies} plies ({plies / 2:.0f} moves) analysed in {took:.1f} s on one worker "
                  f"(reference: the thinking budget alone {budget:.1f} s; ratio {took / budget:.2f}); "
                  f"{marks} moves marked, accuracy {review['accuracy']}")
    finally:
        await engine.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=0.25)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=30)
    asyncio.run(main(parser.parse_args()))
