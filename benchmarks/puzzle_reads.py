"""The next puzzle and the themes page as the puzzle collection grows (issue 11: work that grows with the
history; puzzles are made from the server's games).

    python benchmarks/puzzle_reads.py [--sizes 5000,50000,200000] [--repeat 40]

For each of `--sizes` puzzles of one variant in a fresh SQLite database (the server's schema, its
migrations; the starter set's positions under new random ids, most at 1500 as new puzzles stand, the
rest spread around it), this times, through `PuzzleService`:

- the next puzzle of a visitor (`next`: a band drawn by its count, a random point of it: puzzles/draw.py),
  against the same draw as it was in the same run (the reference: the window's puzzles counted, then
  one read at a random offset of them in id order);
- the same for a theme (the theme of the fewest puzzles), against its reference (the window walked and
  each puzzle's themes matched);
- the themes page (`themes`: the counts kept), against its reference (every puzzle of every variant
  counted, and the variant's themes read off each of its puzzles).

The draw and the page should stay flat as the puzzles grow while their references grow with them.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from growth import report, timed  # noqa: E402
from rich.console import Console  # noqa: E402
from sqlalchemy import func, select  # noqa: E402

from shashki.server.puzzles.draw import WINDOW  # noqa: E402
from shashki.server.puzzles.models import PuzzleRow  # noqa: E402
from shashki.server.puzzles.service import PuzzleService  # noqa: E402
from shashki.server.puzzles.starter import read_puzzles, starter_file  # noqa: E402
from shashki.server.storage import Database  # noqa: E402

VARIANT = "russian"
RATING = 1500.0


def made(count: int, rng: random.Random, shipped: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`count` puzzles: the shipped positions under new ids, as `import_puzzles` takes them."""
    return [{**shipped[i % len(shipped)], "id": f"{rng.getrandbits(40):010x}"} for i in range(count)]


async def spread(db: Database, rng: random.Random) -> None:
    """A third of the puzzles rated away from 1500 (their draw's rows and counts moved with them)."""
    from shashki.server.puzzles import draw

    async with db.session() as s:
        unrated = select(PuzzleRow.id, PuzzleRow.rating).where(PuzzleRow.rating == RATING)
        rows = (await s.execute(unrated)).all()
        for puzzle_id, rating in rows:
            if rng.random() < 1 / 3:
                new = min(2600.0, max(600.0, rng.gauss(RATING, 250)))
                row = await s.get(PuzzleRow, puzzle_id)
                assert row is not None
                row.rating = new
                await draw.rerated(s, puzzle_id, rating, new)
        await s.commit()


class Reference:
    """The reads as they were before puzzles/draw.py, on the same database."""

    def __init__(self, db: Database, rng: random.Random) -> None:
        self.db, self.rng = db, rng

    async def next(self, theme: str) -> PuzzleRow | None:
        query = select(PuzzleRow).where(PuzzleRow.variant == VARIANT)
        if theme != "any":
            query = query.where(PuzzleRow.themes.like(f"%,{theme},%"))
        near_by = query.where(PuzzleRow.rating.between(RATING - WINDOW, RATING + WINDOW))
        async with self.db.session() as s:
            count = await s.scalar(select(func.count()).select_from(near_by.subquery()))
            offset = self.rng.randrange(count or 1)
            return await s.scalar(near_by.order_by(PuzzleRow.id).offset(offset).limit(1))

    async def themes(self) -> tuple[object, Counter]:
        async with self.db.session() as s:
            counted = select(PuzzleRow.variant, func.count()).group_by(PuzzleRow.variant)
            variants = (await s.execute(counted.order_by(PuzzleRow.variant))).all()
            tags = await s.scalars(select(PuzzleRow.themes).where(PuzzleRow.variant == VARIANT))
            return variants, Counter(t for themes in tags for t in themes.split(",") if t)


async def measure(path: Path, sizes: list[int], repeat: int, console: Console) -> list[tuple]:
    db = await Database(f"sqlite+aiosqlite:///{path}").open()
    service = PuzzleService(db, starter_sets=False)
    rng = random.Random(1)
    service.random = random.Random(2)
    reference = Reference(db, random.Random(3))
    shipped = list(read_puzzles(starter_file(VARIANT)))
    rows: list[tuple] = []
    try:
        have = 0
        for size in sizes:
            with console.status(f"storing {size:,} puzzles"):
                for start in range(have, size, 5000):
                    await service.import_puzzles(made(min(5000, size - start), rng, shipped))
                await spread(db, rng)
            have = size
            page = await service.themes(VARIANT)
            assert page["variants"] == [{"key": VARIANT, "count": size}], page["variants"]
            rare = min(page["themes"], key=lambda t: t["count"])["key"]
            row: list = [size, rare]
            row.append(await timed(lambda: service.next(VARIANT, "any", None), repeat))
            row.append(await timed(lambda: reference.next("any"), max(1, repeat // 4)))
            row.append(await timed(lambda: service.next(VARIANT, rare, None), repeat))  # noqa: B023
            row.append(await timed(lambda: reference.next(rare), max(1, repeat // 4)))  # noqa: B023
            row.append(await timed(lambda: service.themes(VARIANT), repeat))
            row.append(await timed(reference.themes, max(1, repeat // 4)))
            rows.append(tuple(row))
    finally:
        await db.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="5000,50000,200000", help="puzzles of the variant")
    parser.add_argument("--repeat", type=int, default=40, help="calls timed per round")
    options = parser.parse_args(argv)
    sizes = sorted(int(s) for s in options.sizes.split(","))
    console = Console()
    with tempfile.TemporaryDirectory(prefix="shashki-puzzles-") as work:
        rows = asyncio.run(measure(Path(work) / "db.sqlite3", sizes, options.repeat, console))
    title = f"The puzzles of {VARIANT} (SQLite), microseconds a call, a visitor rated {RATING:.0f}"
    columns = ("puzzles", "next", "ref.: count, offset", "next, rarest theme", "ref.: count, offset",
               "themes page", "ref.: count all")  # fmt: skip
    growths = [("the next", 1, 2), ("of a theme", 3, 4), ("the themes page", 5, 6)]
    report(console, title, columns, [(size, *figures) for size, _rare, *figures in rows], "puzzles", growths)
    console.print(f"the rarest theme: {rows[-1][1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
