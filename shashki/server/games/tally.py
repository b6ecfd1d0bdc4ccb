"""A player's games counted as they happen (`player_game_counts`, models.PlayerTally): what a profile
shows — all of a player's games, those in play, the finished rated ones, won, lost and drawn — read as
one row, not counted over every game the player ever played (issue 11: no read that grows with the
history; a bot plays thousands of games).

The counts change in the transaction of the change they count, by the statements made here: a game's
start (`started`), its end and a seat given to another account (`changed`: an anonymous visitor's games
handed to the account they log in to). Each is an `Upsert` adding to the player's row (made at their
first game). What a seat adds to the counts is `_counted`: a game in play counts in `games` and
`playing`, a finished one in `games`, in `rated` when rated, and in one of `won`, `lost`, `drawn`; an
aborted one in `games` only. `recounted` makes them again from the games themselves (every game read):
what the counts kept must equal, and what `rebuild` stores after games were written by other means.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection
from typing import Any, cast

from sqlalchemy import Table, delete, insert, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from shashki.rules import Color
from shashki.server.games.models import GameRecord, GameStatus, PlayerTally
from shashki.server.storage.ops import Upsert, upsert_in

TALLY = cast(Table, PlayerTally.__table__)
COUNTS = ("games", "playing", "rated", "won", "lost", "drawn")
SEATS = (("white_id", Color.WHITE), ("black_id", Color.BLACK))


def _counted(status: GameStatus | str, rated: bool, winner: Color | None, color: Color) -> dict[str, int]:
    """What one seat of a game adds to its player's counts."""
    finished = status == GameStatus.FINISHED
    return {
        "games": 1,
        "playing": int(status == GameStatus.STARTED),
        "rated": int(finished and rated),
        "won": int(finished and winner is color),
        "lost": int(finished and winner is color.other),
        "drawn": int(finished and winner is None),
    }


def _upsert(rows: list[dict[str, Any]]) -> list[Upsert]:
    """One upsert of the rows, in the order of the players' ids: two transactions changing the same two
    players' rows (two of their games ending at once) take them in the same order, so that neither waits
    for the other on PostgreSQL."""
    ordered = sorted(rows, key=lambda row: row["user_id"])
    return [Upsert(TALLY, ordered, ("user_id",), COUNTS)] if rows else []


def _minus(counts: dict[str, int]) -> dict[str, int]:
    return {k: -n for k, n in counts.items()}


def started(record: GameRecord) -> list[Upsert]:
    """A new game (in play) counted for its players."""
    return _upsert([
        {"user_id": user_id, **_counted(GameStatus.STARTED, record.rated, None, color)}
        for column, color in SEATS
        if (user_id := getattr(record, column)) is not None
    ])


def changed(record: GameRecord, changes: dict[str, Any]) -> list[Upsert]:
    """The counts' change for `changes` to the game `record` (as it stood): its end, or a seat given to
    another account; nothing for anything else (a move, a draw offer)."""
    rows = []
    status = changes.get("status", record.status)
    winner = changes.get("winner", record.winner)
    for column, color in SEATS:
        before, after = getattr(record, column), changes.get(column, getattr(record, column))
        was = _counted(record.status, record.rated, record.winner, color)
        now = _counted(status, record.rated, winner, color)
        if before == after:
            if before is not None and was != now:
                rows.append({"user_id": before, **{k: now[k] - was[k] for k in COUNTS}})
            continue
        if before is not None:
            rows.append({"user_id": before, **_minus(was)})
        if after is not None:
            rows.append({"user_id": after, **now})
    return _upsert(rows)


def needed(changes: dict[str, Any]) -> bool:
    """Whether `changes` may change a player's counts (the per-move path asks, and gets no)."""
    return "status" in changes or "white_id" in changes or "black_id" in changes


async def run_in(s: AsyncSession, ops: list[Upsert]) -> None:
    """`ops` in a session's transaction (a game made with a tournament's pairing, a finished game's seat
    given away), where the direct path's writes are not."""
    for op in ops:
        await upsert_in(s, op)


async def recounted(s: AsyncSession, user_ids: Collection[int] | None = None) -> dict[int, dict[str, int]]:
    """Players' counts made from the games stored (a read of every game; of these players' when given)."""
    totals: defaultdict[int, Counter] = defaultdict(Counter)
    g = GameRecord
    seats = select(g.white_id, g.black_id, g.status, g.rated, g.winner)
    if user_ids is not None:
        seats = seats.where(or_(g.white_id.in_(user_ids), g.black_id.in_(user_ids)))
    for white, black, status, rated, winner in await s.execute(seats):
        for user_id, color in ((white, Color.WHITE), (black, Color.BLACK)):
            if user_id is not None and (user_ids is None or user_id in user_ids):
                totals[user_id].update(_counted(status, rated, winner, color))
    return {user_id: {k: counts[k] for k in COUNTS} for user_id, counts in totals.items()}


async def rebuild(s: AsyncSession, user_ids: Collection[int] | None = None) -> None:
    """The counts stored again from the games (of these players when given), for games written by other
    means: an import, a repair."""
    counts = await recounted(s, user_ids)
    gone = delete(PlayerTally)
    await s.execute(gone if user_ids is None else gone.where(PlayerTally.user_id.in_(user_ids)))
    if counts:
        await s.execute(insert(PlayerTally), [{"user_id": u, **c} for u, c in counts.items()])
