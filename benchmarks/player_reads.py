"""A player's profile as their games pile up (issue 11: work that grows with the history; a bot plays
thousands of games).

    python benchmarks/player_reads.py [--sizes 1000,10000,100000] [--repeat 50]

For one player holding each of `--sizes` games (a twentieth of as many other games in play on the
server) in a fresh SQLite database (the server's schema, its migrations), this times, through
`GameQueries`, the two reads of the profile:

- the player's counts (`counts_of_player`: their row of `player_game_counts`, kept with the games by
  games/tally.py), against the counts made over the player's games in the same run (the reference:
  what the profile did, every game of the player read);
- the player's games in play (`in_play_of_player`: each seat's from its (player, status) index), against
  the read as it was (the reference: one condition on either seat, which SQLite answered from the
  status's index, reading every game in play on the server).

Both should stay flat as the games grow while their references grow with them.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from growth import report, timed  # noqa: E402
from rich.console import Console  # noqa: E402
from sqlalchemy import and_, case, func, or_, select  # noqa: E402

from shashki.rules import Color  # noqa: E402
from shashki.server.accounts.models import User  # noqa: E402
from shashki.server.games import tally  # noqa: E402
from shashki.server.games.models import GameRecord, GameStatus  # noqa: E402
from shashki.server.games.queries import GameQueries  # noqa: E402
from shashki.server.storage import Database  # noqa: E402

PLAYER, OTHERS = 1, (2, 3, 4, 5)


class Reference:
    """The profile's reads as they were, on the same database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def counts(self) -> tuple:
        g, finished = GameRecord, GameRecord.status == GameStatus.FINISHED
        white, black = g.white_id == PLAYER, g.black_id == PLAYER
        won = or_(and_(white, g.winner == Color.WHITE), and_(black, g.winner == Color.BLACK))
        lost = or_(and_(white, g.winner == Color.BLACK), and_(black, g.winner == Color.WHITE))

        def count(condition):
            return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)

        query = select(
            func.count(), count(and_(finished, g.rated)), count(and_(finished, won)),
            count(and_(finished, lost)), count(and_(finished, g.winner.is_(None))),
            count(g.status == GameStatus.STARTED),
        ).where(or_(white, black))  # fmt: skip
        async with self.db.session() as s:
            return tuple((await s.execute(query)).one())

    async def in_play(self) -> list[str]:
        g = GameRecord
        either = or_(g.white_id == PLAYER, g.black_id == PLAYER)
        query = select(g.id).where(either, g.status == GameStatus.STARTED)
        async with self.db.session() as s:
            return sorted(await s.scalars(query))


def store_games(path: Path, start: int, size: int, rng: random.Random) -> None:
    """The player's games from `start` to `size` (all but two finished), and a twentieth as many others
    in play, written straight into the table."""
    stamp = datetime(2026, 1, 1, tzinfo=UTC).isoformat(" ")
    rows: list[tuple] = []
    for i in range(start, size):
        other = rng.choice(OTHERS)
        white, black = (PLAYER, other) if rng.random() < 0.5 else (other, PLAYER)
        status = "started" if i < 2 else rng.choice(("finished", "finished", "finished", "aborted"))
        winner = rng.choice(("white", "black", None)) if status == "finished" else None
        rows.append((f"p{i:07d}", white, black, int(rng.random() < 0.5), status, winner))
    for i in range(start // 20, size // 20):
        rows.append((f"o{i:07d}", rng.choice(OTHERS), None, 0, "started", None))
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO games (id, variant, double_diagonal, white_id, black_id, rated, clock_increment_ms, "
            "turn_started_at, ply, version, status, winner, created_at) "
            f"VALUES (?, 'russian', 0, ?, ?, ?, 0, '{stamp}', 0, 1, ?, ?, '{stamp}')",
            rows,
        )


async def measure(path: Path, sizes: list[int], repeat: int, console: Console) -> list[tuple]:
    db = await Database(f"sqlite+aiosqlite:///{path}").open()
    async with db.session() as s:
        now = datetime.now(UTC)
        s.add_all(User(id=i, username=f"p{i}", username_key=f"p{i}", password_hash="-", created_at=now)
                  for i in (PLAYER, *OTHERS))  # fmt: skip
        await s.commit()
    queries, reference = GameQueries(db), Reference(db)
    rng = random.Random(1)
    rows, have = [], 0
    try:
        for size in sizes:
            with console.status(f"storing {size:,} games"):
                store_games(path, have, size, rng)
                async with db.session() as s:
                    await tally.rebuild(s)  # the games were written straight into the table
                    await s.commit()
            have = size
            kept = await queries.counts_of_player(PLAYER)
            again = await reference.counts()
            assert tuple(vars(kept).values()) == again, (kept, again)
            assert await queries.in_play_of_player(PLAYER) == await reference.in_play()
            rows.append((
                size,
                await timed(lambda: queries.counts_of_player(PLAYER), repeat),
                await timed(reference.counts, max(1, repeat // 5)),
                await timed(lambda: queries.in_play_of_player(PLAYER), repeat),
                await timed(reference.in_play, max(1, repeat // 5)),
            ))  # fmt: skip
    finally:
        await db.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="games of the player")
    parser.add_argument("--repeat", type=int, default=50, help="calls timed per round")
    options = parser.parse_args(argv)
    sizes = sorted(int(s) for s in options.sizes.split(","))
    console = Console()
    with tempfile.TemporaryDirectory(prefix="shashki-player-") as work:
        rows = asyncio.run(measure(Path(work) / "db.sqlite3", sizes, options.repeat, console))
    columns = ("games", "counts", "ref.: counted", "in play", "ref.: either seat")
    growths = [("the counts", 1, 2), ("the games in play", 3, 4)]
    report(console, "A player's profile (SQLite), microseconds a call", columns, rows, "games", growths)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
