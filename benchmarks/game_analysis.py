"""Computer analysis of a game (issue 14): seconds to analyse a 60-move game at the default budget, per
engine worker.

    python benchmarks/game_analysis.py [--moves 60] [--seconds 0.25] [--games 2] [--seed 1]

Each game is played first by the engine against itself at level 3 (60 moves each side when it lasts;
Russian draughts, which lasts, and Russian giveaway), then analysed by `reviews.service.evaluate_game` —
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


def self_play(variant: str, moves: int, seed: int) -> Game:
    rng = random.Random(seed)
    engine = Engine(level=3)
    game = Game(variant)
    while not game.is_over and len(game.moves) < 2 * moves:
        legal = game.legal_moves()
        # A random opening keeps the games apart; then the engine plays.
        move = rng.choice(legal) if len(game.moves) < 4 else engine.play(game, Limit(depth=3)).move
        game.play(move)
    return game


async def main(args) -> None:
    engine = AsyncEngine(workers=1)
    try:
        for index in range(args.games):
            variant = "russian" if index % 2 == 0 else "russian_giveaway"
            game = self_play(variant, args.moves, args.seed + index)
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
    parser.add_argument("--seed", type=int, default=1)
    asyncio.run(main(parser.parse_args()))
