"""Players' profiles and games: what they played, how it went, and the games as PDN or JSON.

Games are public, as on lichess and lidraughts: anyone may read a game, a player's list of games and
their export. A profile shows only public data (name, bot or not, ratings, counts); an account's
tokens, sessions and pending challenges are its owner's alone and appear in no profile.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

from sqlalchemy import and_, case, func, or_, select

from shashki.rules import Color
from shashki.server.accounts import AccountService
from shashki.server.accounts.models import User
from shashki.server.errors import Invalid, NotFound
from shashki.server.games.models import GameRecord, GameStatus, MoveRecord
from shashki.server.games.service import GameService
from shashki.server.history.export import game_json, pdn
from shashki.server.lidraughts import variant_key
from shashki.server.ratings import RatingService
from shashki.server.ratings.service import check_speed
from shashki.server.ratings.speed import LIMITS as SPEED_LIMITS
from shashki.server.ratings.speed import speed_of
from shashki.server.storage import Database

RESULTS = ("win", "loss", "draw")
COUNTS = ("all", "rated", "win", "loss", "draw", "playing")
NOW_PLAYING_KEYS = (
    "id", "variant", "double_diagonal", "rated", "white", "black", "ply", "fen", "side_to_move"
)
MAX_PER_PAGE = 100
EXPORT_BATCH = 50


@dataclass(frozen=True)
class GameFilter:
    """Which of a player's games: by variant, speed, rated or casual, colour, opponent, result."""

    variant: str | None = None
    speed: str | None = None
    rated: bool | None = None
    color: str | None = None
    vs: str | None = None
    result: str | None = None
    finished_only: bool = False

    def __post_init__(self) -> None:
        if self.variant:
            object.__setattr__(self, "variant", variant_key(self.variant))
        if self.speed:
            check_speed(self.speed)
        if self.color not in (None, "white", "black"):
            raise Invalid("bad_color", "The colour is white or black.")
        if self.result not in (None, *RESULTS):
            raise Invalid("bad_result", f"Results are {', '.join(RESULTS)}.")


def _won(user_id: int):
    # Written without negation: a player id is NULL for the computer, and NOT NULL is not true.
    return or_(
        and_(GameRecord.white_id == user_id, GameRecord.winner == Color.WHITE),
        and_(GameRecord.black_id == user_id, GameRecord.winner == Color.BLACK),
    )


def _lost(user_id: int):
    return or_(
        and_(GameRecord.white_id == user_id, GameRecord.winner == Color.BLACK),
        and_(GameRecord.black_id == user_id, GameRecord.winner == Color.WHITE),
    )


class HistoryService:
    def __init__(
        self,
        db: Database,
        games: GameService,
        ratings: RatingService,
        accounts: AccountService | None = None,
    ) -> None:
        self.db = db
        self.games = games
        self.ratings = ratings
        self.accounts = accounts or games.accounts

    async def player(self, username: str) -> User:
        """The account of `username`, or NotFound."""
        user = await self.accounts.user_by_name(username)
        if user is None:
            raise NotFound("no_such_user", f"There is no player {username!r}.")
        return user

    # -- profiles ---------------------------------------------------------------------------------

    async def profile(self, username: str) -> dict:
        user = await self.player(username)
        mine = or_(GameRecord.white_id == user.id, GameRecord.black_id == user.id)
        won, lost = _won(user.id), _lost(user.id)
        finished = GameRecord.status == GameStatus.FINISHED

        def count(condition):
            return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)

        async with self.db.session() as s:
            row = (
                await s.execute(
                    select(
                        func.count(),
                        count(and_(finished, GameRecord.rated)),
                        count(and_(finished, won)),
                        count(and_(finished, lost)),
                        count(and_(finished, GameRecord.winner.is_(None))),
                        count(GameRecord.status == GameStatus.STARTED),
                    ).where(mine)
                )
            ).one()
            playing = list(
                await s.scalars(
                    select(GameRecord.id)
                    .where(mine, GameRecord.status == GameStatus.STARTED)
                    .order_by(GameRecord.id)
                )
            )
        return {
            "user": {
                "id": user.id,
                "username": user.username,
                "bot": user.is_bot,
                "created_at": user.created_at.isoformat(),
            },
            "ratings": await self.ratings.of_user(user.id),
            "rating_history": await self.ratings.history(user.id),
            "count": dict(zip(COUNTS, map(int, row), strict=True)),
            "playing": playing,
        }

    # -- lists of games ---------------------------------------------------------------------------

    def _query(self, user: User, f: GameFilter, vs: User | None):
        mine = or_(GameRecord.white_id == user.id, GameRecord.black_id == user.id)
        if f.color == "white":
            mine = GameRecord.white_id == user.id
        elif f.color == "black":
            mine = GameRecord.black_id == user.id
        query = select(GameRecord).where(mine)
        if f.finished_only:
            query = query.where(GameRecord.status == GameStatus.FINISHED)
        if f.variant:
            query = query.where(GameRecord.variant == f.variant)
        if f.rated is not None:
            query = query.where(GameRecord.rated == f.rated)
        if f.speed:
            query = query.where(*self._speed_condition(f.speed))
        if vs is not None:
            query = query.where(or_(GameRecord.white_id == vs.id, GameRecord.black_id == vs.id))
        if f.result:
            query = query.where(GameRecord.status == GameStatus.FINISHED)
            if f.result == "win":
                query = query.where(_won(user.id))
            elif f.result == "loss":
                query = query.where(_lost(user.id))
            else:
                query = query.where(GameRecord.winner.is_(None))
        return query

    @staticmethod
    def _speed_condition(speed: str) -> list:
        """Games of one speed, by the estimated duration (initial + 40 increments) as ratings.speed has it."""
        estimate = GameRecord.clock_initial_ms + 40 * GameRecord.clock_increment_ms
        low = 0
        for name, below in SPEED_LIMITS:
            high = None if below is None else below * 1000
            if name == speed:
                break
            low = high
        conditions = [GameRecord.clock_initial_ms.is_not(None), estimate >= low]
        if high is not None:
            conditions.append(estimate < high)
        return conditions

    async def _vs(self, f: GameFilter) -> User | None:
        return await self.player(f.vs) if f.vs else None

    async def games_page(self, username: str, f: GameFilter, *, page: int = 1, per_page: int = 20) -> dict:
        """One page of a player's games, newest first, as lidraughts' GameJson with their moves."""
        if page < 1 or not 1 <= per_page <= MAX_PER_PAGE:
            raise Invalid("bad_page", f"Pages count from 1, with 1 to {MAX_PER_PAGE} games each.")
        user = await self.player(username)
        query = self._query(user, f, await self._vs(f))
        async with self.db.session() as s:
            total = await s.scalar(select(func.count()).select_from(query.subquery()))
            records = list(
                await s.scalars(
                    query.order_by(GameRecord.created_at.desc(), GameRecord.id.desc())
                    .offset((page - 1) * per_page)
                    .limit(per_page)
                )
            )
        games = [game_json(r, moves, users) for r, moves, users in await self._with_moves(records)]
        return {
            "games": games,
            "page": page,
            "per_page": per_page,
            "total": total,
            "pages": (total + per_page - 1) // per_page,
        }

    async def _with_moves(self, records: list[GameRecord]) -> list[tuple[GameRecord, list[str], dict]]:
        """The records with their moves and players, in two queries."""
        if not records:
            return []
        ids = [r.id for r in records]
        user_ids = {i for r in records for i in (r.white_id, r.black_id) if i is not None}
        async with self.db.session() as s:
            moves: dict[str, list[str]] = {i: [] for i in ids}
            for game_id, notation in await s.execute(
                select(MoveRecord.game_id, MoveRecord.notation)
                .where(MoveRecord.game_id.in_(ids))
                .order_by(MoveRecord.game_id, MoveRecord.ply)
            ):
                moves[game_id].append(notation)
        users = await self.accounts.users_by_id(user_ids)
        return [(r, moves[r.id], users) for r in records]

    # -- exports ----------------------------------------------------------------------------------

    async def one(self, game_id: str) -> tuple[GameRecord, list[str], dict]:
        async with self.db.session() as s:
            record = await s.get(GameRecord, game_id)
        if record is None:
            raise NotFound("no_such_game", f"There is no game {game_id!r}.")
        return (await self._with_moves([record]))[0]

    async def pdn(self, game_id: str, *, site: str) -> str:
        record, moves, users = await self.one(game_id)
        return pdn(record, moves, users, site=f"{site}/game/{record.id}")

    async def json(self, game_id: str) -> dict:
        record, moves, users = await self.one(game_id)
        return game_json(record, moves, users)

    async def export(
        self, username: str, f: GameFilter, *, fmt: str, site: str, limit: int | None = None
    ) -> AsyncIterator[str]:
        """A player's games, newest first, as PDN texts or NDJSON lines, read in batches as they are sent.

        The checks (the player exists, the filter) are made before the first chunk, so that an error is
        still an HTTP error; the games follow in batches of `EXPORT_BATCH`.
        """
        user = await self.player(username)
        query = self._query(user, f, await self._vs(f)).where(GameRecord.status != GameStatus.ABORTED)

        async def chunks() -> AsyncIterator[str]:
            sent = 0
            last: tuple | None = None
            while limit is None or sent < limit:
                batch_query = query.order_by(GameRecord.created_at.desc(), GameRecord.id.desc())
                if last is not None:
                    created, game_id = last
                    batch_query = batch_query.where(
                        or_(
                            GameRecord.created_at < created,
                            and_(GameRecord.created_at == created, GameRecord.id < game_id),
                        )
                    )
                size = EXPORT_BATCH if limit is None else min(EXPORT_BATCH, limit - sent)
                async with self.db.session() as s:
                    records = list(await s.scalars(batch_query.limit(size)))
                if not records:
                    return
                for record, moves, users in await self._with_moves(records):
                    if fmt == "pdn":
                        yield pdn(record, moves, users, site=f"{site}/game/{record.id}") + "\n"
                    else:
                        yield json.dumps(game_json(record, moves, users), separators=(",", ":")) + "\n"
                sent += len(records)
                last = (records[-1].created_at, records[-1].id)

        return chunks()

    # -- games being played now -------------------------------------------------------------------

    async def now_playing(self, *, variant: str | None = None, limit: int = 30) -> list[dict]:
        """Games in progress, those with the latest moves first, as their live states."""
        query = select(GameRecord.id).where(GameRecord.status == GameStatus.STARTED)
        if variant:
            query = query.where(GameRecord.variant == variant_key(variant))
        async with self.db.session() as s:
            ids = list(await s.scalars(query.order_by(GameRecord.turn_started_at.desc()).limit(limit)))
        out = []
        for game_id in ids:
            state = self.games.state(await self.games.live(game_id))
            if state["status"] != "started":
                continue
            clocks = state["clocks"] or {"initial_ms": None, "increment_ms": 0}
            out.append(
                {key: state[key] for key in NOW_PLAYING_KEYS}
                | {"clocks": state["clocks"], "speed": speed_of(clocks["initial_ms"], clocks["increment_ms"])}
            )
        return out
