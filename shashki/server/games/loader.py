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
# The tournaments some games belong to (those that belong to one), asked when games are loaded (the
# tournaments own that table).
TournamentLookup = Callable[[AsyncSession, list[str]], Awaitable[dict[str, str]]]


class GameLoader:
    def __init__(self, db: Database, players: PlayerLookup, computer_name: str) -> None:
        self.db = db
        self.computer_name = computer_name
        self.tournaments_of: TournamentLookup | None = None  # set by the tournaments service
        self._players = players

    async def load(self, game_id: str) -> LiveGame:
        """The game as stored, its moves replayed; NotFound if there is none."""
        found = await self.load_many([game_id])
        if game_id not in found:
            raise NotFound("no_such_game", f"There is no game {game_id!r}.")
        return found[game_id]

    async def load_many(self, game_ids: list[str]) -> dict[str, LiveGame]:
        """The games among `game_ids` that are stored, each with its moves replayed: a few reads for
        them all (their records, their moves, their tournaments, their players), not a few per game —
        the server's start loads every game in play (issue 11: 1,000 games cut off mid-play took 8 s
        to resume on PostgreSQL, a session and its round trips per game)."""
        if not game_ids:
            return {}
        async with self.db.session() as s:
            found = await s.scalars(select(GameRecord).where(GameRecord.id.in_(game_ids)))
            records = {record.id: record for record in found}
            moves: dict[str, list[str]] = {game_id: [] for game_id in records}
            rows = await s.execute(
                select(MoveRecord.game_id, MoveRecord.notation)
                .where(MoveRecord.game_id.in_(list(records)))
                .order_by(MoveRecord.game_id, MoveRecord.ply)
            )
            for game_id, notation in rows:
                moves[game_id].append(notation)
            tournaments = {}
            if self.tournaments_of is not None and records:
                tournaments = await self.tournaments_of(s, list(records))
        ids = {i for r in records.values() for i in (r.white_id, r.black_id) if i is not None}
        accounts = await self._players(ids) if ids else {}
        return {
            game_id: self.made(record, moves[game_id], tournaments.get(game_id), accounts)
            for game_id, record in records.items()
        }

    async def tournament_of(self, s: AsyncSession, game_id: str) -> str | None:
        """The tournament of one game, in the session `s`; None when it belongs to none."""
        if self.tournaments_of is None:
            return None
        return (await self.tournaments_of(s, [game_id])).get(game_id)

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
        if record.takebacks != live.record.takebacks:
            return False  # taken back since (games/takeback.py): the moves before may differ too
        try:
            catch_up(live.rules, record, later)
        except IllegalMove:
            log.error("game %s: a stored move does not follow the cached game; loading it afresh", live.id)
            return False
        live.record = record
        live.notations.extend(later)
        return True
