"""How a game in play is made in memory from the database, for the games store's cache (`GameStore`):
loaded whole (its record, its moves replayed, its players, its tournament), made from a record just
written, or caught up with the moves another process has stored since it was cached.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from shashki.rules import Color, IllegalMove
from shashki.server.errors import NotFound
from shashki.server.games.live import LiveGame, Player
from shashki.server.games.models import GameRecord, MoveRecord
from shashki.server.games.replay import catch_up, replay
from shashki.server.storage import Database

log = logging.getLogger(__name__)

# How the store learns the players' names: the accounts' public lookup (`AccountService.users_by_id`).
PlayerLookup = Callable[[set[int]], Awaitable[dict[int, Player]]]
# The tournament a game belongs to, asked when a game is loaded (the tournaments own that table).
TournamentLookup = Callable[[AsyncSession, str], Awaitable[str | None]]


class GameLoader:
    def __init__(self, db: Database, players: PlayerLookup, computer_name: str) -> None:
        self.db = db
        self.computer_name = computer_name
        self.tournament_of: TournamentLookup | None = None  # set by the tournaments service
        self._players = players

    async def load(self, game_id: str) -> LiveGame:
        """The game as stored, its moves replayed; NotFound if there is none."""
        async with self.db.session() as s:
            record = await s.get(GameRecord, game_id)
            if record is None:
                raise NotFound("no_such_game", f"There is no game {game_id!r}.")
            moves = list(
                await s.scalars(
                    select(MoveRecord.notation).where(MoveRecord.game_id == game_id).order_by(MoveRecord.ply)
                )
            )
            tournament = await self.tournament_of(s, game_id) if self.tournament_of else None
        return self.made(record, moves, tournament, await self.accounts_of(record))

    async def accounts_of(self, record: GameRecord) -> dict[int, Player]:
        return await self._players({i for i in (record.white_id, record.black_id) if i is not None})

    def made(
        self, record: GameRecord, moves: list[str], tournament: str | None, accounts: dict[int, Player]
    ) -> LiveGame:
        """The game in memory: its record, its moves replayed, its players."""

        def player(user_id: int | None) -> Player:
            if user_id is None:
                return Player.computer(record.computer_level, self.computer_name)
            return accounts[user_id]

        return LiveGame(
            record=record,
            rules=replay(record, moves),
            notations=moves,
            players={Color.WHITE: player(record.white_id), Color.BLACK: player(record.black_id)},
            tournament=tournament,
        )

    async def catch_up(self, live: LiveGame) -> bool:
        """Bring a game another process has moved on up to date as a delta (issue 11: a reload replayed
        the whole game at every foreign move): its record read again and the moves stored since applied
        to the cached rules game. False when the stored moves do not follow the cached ones (then the
        game is to be loaded afresh)."""
        have = len(live.notations)
        async with self.db.reading() as s:  # the moves read after the record: no snapshot needed
            record = await s.get(GameRecord, live.id)
            later = list(
                await s.scalars(
                    select(MoveRecord.notation)
                    .where(MoveRecord.game_id == live.id, MoveRecord.ply >= have)
                    .order_by(MoveRecord.ply)
                )
            )
        if record is None or record.ply != have + len(later):
            return False
        try:
            catch_up(live.rules, record, later)
        except IllegalMove:
            log.error("game %s: a stored move does not follow the cached game; loading it afresh", live.id)
            return False
        live.record = record
        live.notations.extend(later)
        return True
