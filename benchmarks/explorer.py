"""Opening explorer answer time (issue 14): questions to an explorer holding 100,000 games.

    python benchmarks/explorer.py [--games 100000] [--plies 40] [--questions 2000] [--seed 1] [--db PATH]

`--games` random legal Russian giveaway games of `--plies` plies (their first moves drawn from a few
favourites, as real openings are, then uniformly) are counted into a fresh SQLite explorer through the
service's own batch path (`ExplorerService.add_many`, the code a rebuild uses; each finished game goes
through `add`). Then `--questions` positions drawn from those games (the start, early and deep plies,
and positions nobody reached) are asked through `ExplorerService.moves` — what `GET /api/explorer`
does after parsing — and the answer times are printed as percentiles.

The reference, measured in the same run on the same database: the cheapest read the server makes, one
row by its primary key through the same session machinery. The ratio says what an explorer question costs
beside it; the goal is an answer in milliseconds that does not grow with the number of games (compare
runs with other `--games`).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.progress import Progress  # noqa: E402
from sqlalchemy import select  # noqa: E402

from shashki.rules import Color, Game  # noqa: E402
from shashki.server.explorer.models import ExplorerGame  # noqa: E402
from shashki.server.explorer.service import ExplorerService, FinishedGame, variant_key  # noqa: E402
from shashki.server.storage import Database  # noqa: E402

VARIANT = "russian_giveaway"
BATCH = 500


def random_game(rng: random.Random, index: int, plies: int) -> FinishedGame:
    game = Game(VARIANT)
    for ply in range(plies):
        moves = game.legal_moves()
        if not moves:
            break
        # Openings concentrate on a few moves, as players' do: the first two plies favour the first moves.
        moves.sort(key=lambda m: m.notation(game.variant))
        move = moves[min(int(rng.expovariate(1.0)), len(moves) - 1)] if ply < 4 else rng.choice(moves)
        game.play(move)
    winner = rng.choice([Color.WHITE, Color.BLACK, None])
    ratings = (rng.randint(1000, 2200), rng.randint(1000, 2200)) if rng.random() < 0.5 else None
    return FinishedGame(f"g{index:011d}", variant_key(game.positions[0]), list(game.positions),
                        game.notations(), winner, ratings)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(args) -> None:
    rng = random.Random(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="shashki-explorer-"))
    path = Path(args.db) if args.db else folder / "explorer.sqlite3"
    db = await Database(f"sqlite+aiosqlite:///{path}").open()
    explorer = ExplorerService(db)
    asked = []  # positions to ask: a sample of every game's positions
    started = time.perf_counter()
    with Progress() as progress:
        task = progress.add_task(f"counting {args.games:,} games", total=args.games)
        for start in range(0, args.games, BATCH):
            batch = [random_game(rng, i, args.plies) for i in range(start, min(args.games, start + BATCH))]
            for game in batch[:5]:
                asked.append(game.positions[rng.randrange(len(game.positions))])
            await explorer.add_many(batch)
            progress.advance(task, len(batch))
    build = time.perf_counter() - started
    start_position = Game(VARIANT).position
    unknown = Game(VARIANT, "W:WK1:BK32").position  # a position no game reaches
    questions = [start_position, unknown] + [rng.choice(asked) for _ in range(args.questions)]

    answer_times, lines = [], 0
    for position in questions:
        t = time.perf_counter()
        answer = await explorer.moves(position)
        answer_times.append(time.perf_counter() - t)
        lines += len(answer["moves"])
    reference = []
    async with db.session() as s:
        first = (await s.scalars(select(ExplorerGame.game_id).limit(1))).one()
    for _ in range(len(questions)):
        t = time.perf_counter()
        async with db.session() as s:
            await s.get(ExplorerGame, first)
        reference.append(time.perf_counter() - t)
    await db.close()

    size = path.stat().st_size / 1e6
    ms = lambda seconds: f"{seconds * 1000:.2f} ms"  # noqa: E731
    print(f"explorer of {args.games:,} games of {args.plies} plies ({size:.0f} MB of SQLite), "
          f"built in {build:.0f} s")
    print(f"{len(questions):,} questions ({lines / len(questions):.1f} moves an answer):")
    print(f"  explorer answer   p50 {ms(statistics.median(answer_times))}"
          f"  p95 {ms(percentile(answer_times, 0.95))}  p99 {ms(percentile(answer_times, 0.99))}"
          f"  max {ms(max(answer_times))}")
    print(f"  reference (one row by primary key, same sessions)   p50 {ms(statistics.median(reference))}"
          f"  p99 {ms(percentile(reference, 0.99))}")
    ratio = statistics.median(answer_times) / statistics.median(reference)
    print(f"  ratio of medians: {ratio:.2f}x the cheapest read")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--plies", type=int, default=40)
    parser.add_argument("--questions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", help="the SQLite file to build (default: a temporary one)")
    asyncio.run(main(parser.parse_args()))
