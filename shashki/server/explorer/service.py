"""The opening explorer (issue 14, point 4).

An index built as games finish, never a scan per request: when a game ends (a listener of the games
store), each of its first `DEPTH` plies adds one to the row (variant, position before the move, move) —
one `INSERT ... ON CONFLICT DO UPDATE` each, in one transaction with the game's mark in `explorer_games`,
whose primary key keeps a game from being counted twice (two processes, a rebuild). The games that
finish while a transaction is being written wait and go together in the next one (issue 11: a session
and a transaction per finished game, when a busy server ends games by the dozen a second). A question is
then one indexed read: the rows of (variant, position).

Counted: finished games (not aborted) between two players (not the computer), from the variant's start
position; the same position reached by different move orders is one position (its Zobrist hash).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Table, select
from sqlalchemy.exc import IntegrityError

from shashki.rules import Color, Game, Position
from shashki.server.errors import log_failure
from shashki.server.explorer.models import ExplorerGame, ExplorerMove
from shashki.server.storage import Database
from shashki.server.storage.direct import Insert, Upsert

log = logging.getLogger("shashki.explorer")

DEPTH = 40  # plies of each game in the explorer: the opening and early middle game


def signed(hash64: int) -> int:
    """A 64-bit Zobrist hash as the signed integer a BIGINT column holds."""
    return hash64 - (1 << 64) if hash64 >= 1 << 63 else hash64


@dataclass(frozen=True)
class FinishedGame:
    """What the explorer needs of a finished game."""

    id: str
    variant: str  # the variant's key, options included (e.g. double diagonal)
    positions: list[Position]  # before each ply, and after the last
    notations: list[str]
    winner: Color | None  # None: a draw
    ratings: tuple[int, int] | None  # both players' ratings when the game was rated


def variant_key(position: Position) -> str:
    variant = position.variant
    return f"{variant.key}+dd" if variant.double_diagonal else variant.key


MOVES = cast(Table, ExplorerMove.__table__)
GAMES = cast(Table, ExplorerGame.__table__)
COUNTS = ("games", "white", "black", "draws", "rated", "rating_sum")


def _counts(games: list[FinishedGame]) -> Upsert:
    """One to each (variant, position, move) row of the games' first plies, with its result."""
    rows: dict[tuple[str, int, str], dict[str, int]] = {}
    for game in games:
        result = {
            "white": int(game.winner is Color.WHITE),
            "black": int(game.winner is Color.BLACK),
            "draws": int(game.winner is None),
        }
        rated = game.ratings is not None
        rating_sum = sum(game.ratings) if game.ratings else 0
        for position, move in zip(game.positions[:DEPTH], game.notations[:DEPTH], strict=False):
            key = (game.variant, signed(position.hash), move)
            row = rows.setdefault(key, dict.fromkeys(COUNTS, 0))
            row["games"] += 1
            for name, value in result.items():
                row[name] += value
            row["rated"] += int(rated)
            row["rating_sum"] += rating_sum
    values = [{"variant": v, "position": p, "move": m, **counts} for (v, p, m), counts in rows.items()]
    return Upsert(MOVES, values, ("variant", "position", "move"), COUNTS)


class ExplorerService:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._waiting: list[FinishedGame] = []  # finished, not written yet
        self._writer: asyncio.Task | None = None

    # -- writing ------------------------------------------------------------------------------------

    async def add(self, game: FinishedGame) -> bool:
        """Count the game's first plies; False if it was counted already."""
        try:
            await self.db.direct.write(Insert(GAMES, {"game_id": game.id}), _counts([game]))
        except IntegrityError:
            return False
        return True

    async def add_many(self, games: Iterable[FinishedGame]) -> int:
        """Count a batch in one transaction (a rebuild, the benchmark); games counted already are skipped."""
        batch = list(games)
        async with self.db.reading() as s:
            ids = [g.id for g in batch]
            known = set(await s.scalars(select(ExplorerGame.game_id).where(ExplorerGame.game_id.in_(ids))))
        fresh = list({g.id: g for g in batch if g.id not in known}.values())  # each game once
        # The games' marks and their counts in one short transaction on the direct path (issue 11: in a
        # session, SQLite's one writer was held across several trips to its thread, up to half a second
        # under load, and every move waited).
        await self.db.direct.write(*(Insert(GAMES, {"game_id": g.id}) for g in fresh), _counts(fresh))
        return len(fresh)

    # -- the games store's listener -------------------------------------------------------------------

    def __call__(self, live: Any) -> None:
        """Told after every commit of the games store; a game that has just finished is counted."""
        r = live.record
        if live.is_live or r.status.value != "finished" or r.initial_fen is not None:
            return
        if r.computer_level is not None or r.white_id is None or r.black_id is None:
            return
        rules: Game = live.rules
        ratings = (r.white_rating, r.black_rating) if r.rated and r.white_rating and r.black_rating else None
        game = FinishedGame(
            id=r.id,
            variant=variant_key(rules.positions[0]),
            positions=list(rules.positions),
            notations=list(live.notations),
            winner=r.winner,
            ratings=ratings,
        )
        self._waiting.append(game)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_waiting())

    async def _write_waiting(self) -> None:
        """Write the games waiting, in one transaction, as long as there are some (those that finish
        meanwhile go in the next one)."""
        while self._waiting:
            batch, self._waiting = self._waiting, []
            try:
                try:
                    if len(batch) > 1:
                        await self.add_many(batch)
                    else:
                        await self.add(batch[0])  # no read of the games known first
                except IntegrityError:  # one of them counted meanwhile (another process): one by one
                    for game in batch:
                        await self.add(game)
            except Exception:
                log_failure(log, "%d games not added to the explorer: %s", len(batch), [g.id for g in batch])

    async def close(self) -> None:
        if self._writer is not None:
            await asyncio.gather(self._writer, return_exceptions=True)

    # -- reading ------------------------------------------------------------------------------------

    async def moves(self, position: Position) -> dict[str, Any]:
        """The moves played from `position` on this server, most played first."""
        variant = variant_key(position)
        async with self.db.session() as s:
            rows = list(
                await s.scalars(
                    select(ExplorerMove).where(
                        ExplorerMove.variant == variant, ExplorerMove.position == signed(position.hash)
                    )
                )
            )
        rows.sort(key=lambda r: (-r.games, r.move))
        return {
            "variant": position.variant.key,
            "fen": position.fen(),
            "games": sum(r.games for r in rows),
            "moves": [
                {
                    "move": r.move,
                    "games": r.games,
                    "white": r.white,
                    "draws": r.draws,
                    "black": r.black,
                    "average_rating": round(r.rating_sum / (2 * r.rated)) if r.rated else None,
                }
                for r in rows
            ],
        }
