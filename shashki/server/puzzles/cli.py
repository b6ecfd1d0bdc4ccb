"""`shashki puzzles generate | import | stats`: make puzzles, load them into the server, count them.

    shashki puzzles generate --variant russian-giveaway --count 500 --seed 1 --out puzzles.jsonl
    shashki puzzles import puzzles.jsonl            # into the server's database (DATABASE_URL / --data)
    shashki puzzles stats puzzles.jsonl             # per variant, theme and verification

`generate` is reproducible: the same variant, seed and depths give the same puzzles, in the same order,
whatever `--workers` (see `shashki.server.puzzles.generate`). Its output is JSON lines (`.gz`: gzipped),
one puzzle a line, the shape of the starter set in `shashki/server/puzzles/data/`.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import typer

from shashki.rules import DEFAULT_VARIANT_KEY
from shashki.server.puzzles.starter import open_text, read_puzzles, starter_files

puzzles_app = typer.Typer(help="Puzzles: generate them from games, import them, count them.",
                          no_args_is_help=True, rich_markup_mode=None)


@puzzles_app.command("generate")
def generate(
    variant: str = typer.Option(DEFAULT_VARIANT_KEY, help="The variant's key."),
    count: int = typer.Option(100, min=1, help="Puzzles to find."),
    seed: int = typer.Option(1, help="The run's seed: the same seed gives the same puzzles."),
    out: Path = typer.Option(None, help="Write the puzzles here as JSON lines (.gz: gzipped); else stdout."),
    workers: int = typer.Option(1, min=1, max=64, help="Processes playing and searching games."),
    screen: int = typer.Option(None, min=1, max=20, help="Screening depth (plies; default per variant)."),
    verify: int = typer.Option(None, min=1, max=30, help="Verification depth (plies; default per variant)."),
    start: int = typer.Option(0, min=0, help="The first game of the run (to continue an earlier run)."),
    database: str = typer.Option(None, help="Also the finished games between people of this server's "
                                 "database (a DATABASE_URL), searched first."),
) -> None:
    """Find puzzles in games (the server's, with --database, then self-play games reproducible from the
    seed), with a progress bar."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from shashki.rules import get_variant
    from shashki.server.puzzles.generate import Budget, default_budget, generate_puzzles

    key = get_variant(variant).key
    budget = default_budget(key)
    budget = Budget(screen or budget.screen, verify or budget.verify)
    console = Console(stderr=True)
    sink = open_text(out, "wt") if out else None
    found = games = 0
    started = time.perf_counter()

    written: set[str] = set()  # the server's games and the self-play games may meet a position twice

    def sink_write(puzzle) -> bool:
        if puzzle.id in written:
            return False
        written.add(puzzle.id)
        line = json.dumps(puzzle.to_json(), ensure_ascii=False)
        if sink is not None:
            sink.write(line + "\n")
            sink.flush()
        else:
            print(line, flush=True)
        return True

    try:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("{task.fields[games]} games"), TimeElapsedColumn(), console=console) as bar:
            task = bar.add_task(f"{key} puzzles", total=count, games=0)
            for puzzle in human_puzzles(database, key, budget) if database else ():
                found += sink_write(puzzle)
                bar.update(task, completed=found)
                if found >= count:
                    break
            runs = generate_puzzles(key, seed, budget=budget, workers=workers, start=start)
            for index, puzzle in runs if found < count else ():
                if puzzle is None:
                    games = index + 1 - start
                    bar.update(task, games=games)
                    continue
                found += sink_write(puzzle)
                bar.update(task, completed=found)
                if found >= count:
                    break
    finally:
        if sink is not None:
            sink.close()
    minutes = (time.perf_counter() - started) / 60
    console.print(f"{found} puzzles from {games} games in {minutes:.1f} min: "
                  f"{found / minutes if minutes else 0:.1f} puzzles/minute ({workers} worker(s), "
                  f"depths {budget.screen}/{budget.verify})")


def human_puzzles(database: str, variant: str, budget):
    """The puzzles of the finished games between people stored in `database`, game by game (by id)."""
    import asyncio

    from shashki.server.games.queries import GameQueries
    from shashki.server.puzzles.generate import game_puzzles
    from shashki.server.storage import Database

    async def batch(after: str) -> list[tuple[str, str | None, list[str]]]:
        db = await Database(database).open()
        try:
            return await GameQueries(db).finished_between_people(variant, after=after)
        finally:
            await db.close()

    seen: set[str] = set()
    after = ""
    while games := asyncio.run(batch(after)):
        for game_id, fen, moves in games:
            for puzzle in game_puzzles(variant, game_id, fen, moves, budget):
                if puzzle.id not in seen:
                    seen.add(puzzle.id)
                    yield puzzle
        after = games[-1][0]


@puzzles_app.command("import")
def import_(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="JSON lines (.gz: gzipped)."),
    data: str = typer.Option(None, help="Data directory (default ./data or $SHASHKI_DATA)."),
) -> None:
    """Add puzzles to the server's database (those already there are kept as they are)."""
    import asyncio
    import os

    from shashki.server.config import Settings
    from shashki.server.puzzles.service import PuzzleService
    from shashki.server.storage import Database

    if data:
        os.environ["SHASHKI_DATA"] = data

    async def main() -> int:
        db = await Database(Settings.from_env().sqlalchemy_url).open()
        try:
            return await PuzzleService(db).import_puzzles(read_puzzles(file))
        finally:
            await db.close()

    added = asyncio.run(main())
    typer.echo(f"{added} puzzles added")


@puzzles_app.command("stats")
def stats(file: Path = typer.Argument(None, help="A JSON-lines file; default the starter set.")) -> None:
    """Count puzzles per variant, theme, verification and length."""
    files = [file] if file else starter_files()
    variants: Counter[str] = Counter()
    themes: Counter[tuple[str, str]] = Counter()
    verified: Counter[tuple[str, str]] = Counter()
    lengths: Counter[tuple[str, int]] = Counter()
    for path in files:
        for puzzle in read_puzzles(path):
            v = puzzle["variant"]
            variants[v] += 1
            themes.update((v, t) for t in puzzle["themes"])
            verified[(v, puzzle["verified"])] += 1
            lengths[(v, (len(puzzle["solution"]) + 1) // 2)] += 1
    for v, n in variants.most_common():
        typer.echo(f"{v}: {n} puzzles")
        typer.echo("  themes: " + ", ".join(f"{t} {c}" for (w, t), c in themes.most_common() if w == v))
        typer.echo("  verified: " + ", ".join(f"{k} {c}" for (w, k), c in verified.most_common() if w == v))
        typer.echo("  solver moves: " + ", ".join(f"{k}: {c}" for (w, k), c in sorted(lengths.items())
                                                   if w == v))
