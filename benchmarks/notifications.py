"""A player's notifications as they pile up (issue 11: work that grows with the history).

    python benchmarks/notifications.py [--sizes 100,2000,20000] [--repeat 50]

A bot is told of every challenge and reads none, so its unread notifications grow with the games it
plays, and every new notification pushes the unread count to its pages. For one player holding each of
`--sizes` unread notifications in a fresh SQLite database (the server's schema, its migrations), this
times, through `NotificationService`:

- the unread count pushed with every notification (`unread`: counted up to `UNREAD_COUNTED`), against
  the count of them all in the same run (the reference: what it was, an index walk over every unread
  row, on the event loop);
- the list of the newest (`list`: read by the index on the player and the id), against the same list
  with that index dropped (the reference: the player's rows sorted to find the newest).

Both should stay flat as the notifications grow while their references grow with them.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from growth import report, timed  # noqa: E402
from rich.console import Console  # noqa: E402

from shashki.server.accounts.models import User  # noqa: E402
from shashki.server.notifications import NotificationService  # noqa: E402
from shashki.server.notifications.service import NOTIFICATIONS, UNREAD_COUNTED  # noqa: E402
from shashki.server.redisbus import make_bus  # noqa: E402
from shashki.server.storage import Database  # noqa: E402
from shashki.server.storage.direct import Count  # noqa: E402

PLAYER = 1


async def measure(path: Path, sizes: list[int], repeat: int) -> list[tuple[int, float, float, float, float]]:
    db = await Database(f"sqlite+aiosqlite:///{path}").open()
    async with db.session() as s:
        now = datetime.now(UTC)
        s.add(User(id=PLAYER, username="bot", username_key="bot", password_hash="-", created_at=now))
        await s.commit()
    service = NotificationService(db, make_bus(None))
    raw = sqlite3.connect(path)
    stamp = now.isoformat()
    everything = Count(NOTIFICATIONS, {"user_id": PLAYER, "read_at": None})
    rows = []
    try:
        for size in sizes:
            have = raw.execute("SELECT count(*) FROM notifications").fetchone()[0]
            raw.executemany(
                "INSERT INTO notifications (user_id, kind, subject, ply, data, created_at) "
                "VALUES (?, 'challenge', ?, 0, '{}', ?)",
                [(PLAYER, str(i), stamp) for i in range(have, size)],
            )
            raw.commit()
            assert await db.direct.count(everything) == size
            counted = await timed(lambda: service.unread(PLAYER), repeat)
            counted_all = await timed(lambda: db.direct.count(everything), repeat)
            listed = await timed(lambda: service.list(PLAYER), max(1, repeat // 5))
            raw.execute("DROP INDEX ix_notifications_user_newest")
            raw.commit()
            listed_sorting = await timed(lambda: service.list(PLAYER), max(1, repeat // 5))
            raw.execute("CREATE INDEX ix_notifications_user_newest ON notifications (user_id, id)")
            raw.commit()
            rows.append((size, counted, counted_all, listed, listed_sorting))
    finally:
        raw.close()
        await db.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,2000,20000", help="unread notifications of the player")
    parser.add_argument("--repeat", type=int, default=50, help="calls timed per round")
    options = parser.parse_args(argv)
    sizes = sorted(int(s) for s in options.sizes.split(","))
    with tempfile.TemporaryDirectory(prefix="shashki-notifications-") as work:
        rows = asyncio.run(measure(Path(work) / "db.sqlite3", sizes, options.repeat))
    columns = ("unread", f"unread count (to {UNREAD_COUNTED})", "reference: count all", "list of the newest",
               "reference: list, sorting")  # fmt: skip
    title = "One player's notifications (SQLite), microseconds a call"
    report(Console(), title, columns, rows, "unread", [("the count", 1, 2), ("the list", 3, 4)])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
