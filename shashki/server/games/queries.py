"""The read side of the games' tables, for the other domains: a player's counts and lists of games, the
moves of finished games, the games being played now.

The games domain owns `games` and `moves` (issue 9, item 4: each domain owns its tables); the others
(history's profiles, lists and exports) ask here, through intention-named methods that return records,
ids or small dataclasses, never SQLAlchemy expressions. What a selection means in the other domains'
words (a username, a speed name) is theirs to translate: `PlayerGames` holds only ids and columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import ColumnElement, CompoundSelect, Select, and_, func, or_, select, union_all

from shashki.rules import Color
from shashki.server.games.models import GameRecord, GameStatus, MoveRecord
from shashki.server.games.tally import COUNTS, TALLY
from shashki.server.storage import Database
from shashki.server.storage.direct import Row

Result = Literal["win", "loss", "draw"]


@dataclass(frozen=True)
class PlayerCounts:
    """How many games an account has: all of them, then by kind (a profile's figures)."""

    total: int
    rated: int  # finished rated games
    win: int
    loss: int
    draw: int
    playing: int  # games in play


@dataclass(frozen=True)
class PlayerGames:
    """Which of a player's games: the columns a list or an export is filtered on.

    `estimated_ms` holds ranges of the estimated duration of timed games (initial time + 40 increments,
    as the speeds of `ratings.speed` are defined), each upper bound excluded, None for no upper bound;
    `untimed` the games without a clock (the correspondence speed: days per move, or no limit). With
    either, a game is kept when it is in one of the ranges or, with `untimed`, has no clock;
    `since` and `before` bound when the games began (`since` included, `before` not).
    """

    user_id: int
    color: Color | None = None
    variant: str | None = None
    rated: bool | None = None
    estimated_ms: tuple[tuple[int, int | None], ...] = ()
    untimed: bool = False
    since: datetime | None = None
    before: datetime | None = None
    opponent_id: int | None = None
    result: Result | None = None
    finished_only: bool = False
    with_aborted: bool = True


@dataclass(frozen=True)
class GamePage:
    """One page of games, newest first, and how many games the whole selection holds."""

    records: list[GameRecord]
    total: int


# Where a list of games newest first goes on: the creation time and id of the last game read.
Cursor = tuple[datetime, str]


def _won(user_id: int) -> ColumnElement[bool]:
    # Written without negation: a player id is NULL for the computer, and NOT NULL is not true.
    return or_(
        and_(GameRecord.white_id == user_id, GameRecord.winner == Color.WHITE),
        and_(GameRecord.black_id == user_id, GameRecord.winner == Color.BLACK),
    )


def _lost(user_id: int) -> ColumnElement[bool]:
    return or_(
        and_(GameRecord.white_id == user_id, GameRecord.winner == Color.BLACK),
        and_(GameRecord.black_id == user_id, GameRecord.winner == Color.WHITE),
    )


def _plays(user_id: int) -> ColumnElement[bool]:
    return or_(GameRecord.white_id == user_id, GameRecord.black_id == user_id)


def _in_play_of(user_id: int) -> CompoundSelect:
    """The ids of the player's games in play: each seat's from its (player, status) index (one condition
    on either seat reads every game in play, or every game of the player)."""
    return union_all(
        *(select(GameRecord.id).where(seat == user_id, GameRecord.status == GameStatus.STARTED)
          for seat in (GameRecord.white_id, GameRecord.black_id))
    )


def _seats(g: PlayerGames) -> list[ColumnElement[bool]]:
    """The player's seats selected, a condition each (a game counted in one of them only)."""
    white = GameRecord.white_id == g.user_id
    black = GameRecord.black_id == g.user_id
    if g.color is not None:
        return [white if g.color is Color.WHITE else black]
    return [white, and_(black, or_(GameRecord.white_id.is_(None), GameRecord.white_id != g.user_id))]


def _filters(g: PlayerGames) -> list[ColumnElement[bool]]:
    """The selection's conditions besides the player's seat."""
    where: list[ColumnElement[bool]] = []
    if g.finished_only:
        where.append(GameRecord.status == GameStatus.FINISHED)
    if not g.with_aborted:
        where.append(GameRecord.status != GameStatus.ABORTED)
    if g.variant:
        where.append(GameRecord.variant == g.variant)
    if g.rated is not None:
        where.append(GameRecord.rated == g.rated)
    if g.estimated_ms or g.untimed:
        estimate = GameRecord.clock_initial_ms + 40 * GameRecord.clock_increment_ms
        speeds: list[ColumnElement[bool]] = []
        for low, high in g.estimated_ms:
            timed = [GameRecord.clock_initial_ms.is_not(None), estimate >= low]
            if high is not None:
                timed.append(estimate < high)
            speeds.append(and_(*timed))
        if g.untimed:
            speeds.append(GameRecord.clock_initial_ms.is_(None))
        where.append(or_(*speeds))
    if g.since is not None:
        where.append(GameRecord.created_at >= g.since)
    if g.before is not None:
        where.append(GameRecord.created_at < g.before)
    if g.opponent_id is not None:
        where.append(_plays(g.opponent_id))
    if g.result:
        where.append(GameRecord.status == GameStatus.FINISHED)
        if g.result == "win":
            where.append(_won(g.user_id))
        elif g.result == "loss":
            where.append(_lost(g.user_id))
        else:
            where.append(GameRecord.winner.is_(None))
    return where


def _kept(g: PlayerGames) -> bool:
    """Whether the player's counts kept hold the selection's size (no filter by colour, variant, speed
    or opponent; rated or casual only among finished games, without a result)."""
    speed = bool(g.estimated_ms) or g.untimed
    when = g.since is not None or g.before is not None
    if g.color is not None or g.variant or speed or when or g.opponent_id is not None:
        return False
    return g.rated is None or (g.finished_only and not g.result)


def _kept_total(g: PlayerGames, c: PlayerCounts) -> int:
    """The size of a selection the counts hold (`_kept`), from them."""
    finished = c.win + c.loss + c.draw
    if g.rated is not None:
        return c.rated if g.rated else finished - c.rated
    if g.result:
        return {"win": c.win, "loss": c.loss, "draw": c.draw}[g.result]
    if g.finished_only:
        return finished
    return c.total if g.with_aborted else c.playing + finished


def _selected(g: PlayerGames) -> Select[GameRecord]:
    return select(GameRecord).where(or_(*_seats(g)), *_filters(g))


NEWEST_FIRST = (GameRecord.created_at.desc(), GameRecord.id.desc())


def _newest(
    g: PlayerGames, *, limit: int, offset: int = 0, after: Cursor | None = None
) -> Select[GameRecord]:
    """`limit` of the selected games newest first, from `offset` or after the game `after`. Each seat's
    games are read in that order from its index (`ix_games_white_newest`, `ix_games_black_newest`), as
    many as the page can need, and the two runs merged: a page costs what it shows and skips, not a sort
    of every game the player ever played (issue 11: a bot's games grow by thousands a day)."""
    where = _filters(g)
    if after is not None:
        created, game_id = after
        where.append(
            or_(
                GameRecord.created_at < created,
                and_(GameRecord.created_at == created, GameRecord.id < game_id),
            )
        )
    runs = [
        select(GameRecord.id, GameRecord.created_at)
        .where(seat, *where)
        .order_by(*NEWEST_FIRST)
        .limit(offset + limit)
        .subquery()
        for seat in _seats(g)
    ]
    merged = runs[0]
    if len(runs) > 1:
        merged = union_all(*(select(r.c.id, r.c.created_at) for r in runs)).subquery()
    page = (
        select(merged.c.id)
        .order_by(merged.c.created_at.desc(), merged.c.id.desc())
        .offset(offset)
        .limit(limit)
    )
    return select(GameRecord).where(GameRecord.id.in_(page)).order_by(*NEWEST_FIRST)


class GameQueries:
    """Reads of the games' tables that the other domains need (`GameService.queries`)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def stored(self, game_id: str) -> GameRecord | None:
        """The game's record as the database holds it now (None: no such game)."""
        async with self.db.session() as s:
            return await s.get(GameRecord, game_id)

    async def counts_of_player(self, user_id: int) -> PlayerCounts:
        """The account's games counted: all, finished rated, won, lost, drawn, in play (as kept with the
        games: games/tally.py; an account without a game has no row)."""
        row = await self.db.direct.row(Row(TALLY, COUNTS, {"user_id": user_id}))
        if row is None:
            return PlayerCounts(0, 0, 0, 0, 0, 0)
        return PlayerCounts(row["games"], row["rated"], row["won"], row["lost"], row["drawn"], row["playing"])

    async def in_play_of_player(self, user_id: int) -> list[str]:
        """The ids of the account's games in play, in the order of their ids."""
        async with self.db.session() as s:
            return sorted(await s.scalars(_in_play_of(user_id)))

    async def in_play_of_players(self, user_ids: set[int], *, clocked: bool = False) -> dict[int, list[str]]:
        """The ids of the games each of these accounts plays now, newest first (none: not listed);
        `clocked`: only those with a running clock (not correspondence, not untimed)."""
        if not user_ids:
            return {}
        query = (
            select(GameRecord.id, GameRecord.white_id, GameRecord.black_id)
            .where(
                GameRecord.status == GameStatus.STARTED,
                or_(GameRecord.white_id.in_(user_ids), GameRecord.black_id.in_(user_ids)),
                *([GameRecord.clock_initial_ms.is_not(None)] if clocked else []),
            )
            .order_by(GameRecord.created_at.desc(), GameRecord.id)
        )
        found: dict[int, list[str]] = {}
        async with self.db.session() as s:
            for game_id, white_id, black_id in await s.execute(query):
                for seated in (white_id, black_id):
                    if seated in user_ids:
                        found.setdefault(seated, []).append(game_id)
        return found

    async def page_of_player(self, games: PlayerGames, *, page: int, per_page: int) -> GamePage:
        """Page `page` (from 1) of the selected games, `per_page` each, newest first, with how many
        games the selection holds: from the player's counts when they give it, else counted."""
        total = await self.total_of_player(games)
        async with self.db.session() as s:
            records = await s.scalars(_newest(games, offset=(page - 1) * per_page, limit=per_page))
            return GamePage(list(records), total)

    async def total_of_player(self, games: PlayerGames) -> int:
        """How many games the selection holds: read from the player's counts kept (games/tally.py) when
        the selection is one of theirs (all, finished, won, lost, drawn, rated...), else counted over the
        player's games (a filter by colour, variant, speed or opponent)."""
        if _kept(games):
            return _kept_total(games, await self.counts_of_player(games.user_id))
        return await self.counted_total_of_player(games)

    async def counted_total_of_player(self, games: PlayerGames) -> int:
        """How many games the selection holds, counted over the player's games."""
        async with self.db.session() as s:
            return int(await s.scalar(select(func.count()).select_from(_selected(games).subquery())) or 0)

    async def newest_of_player(
        self, games: PlayerGames, *, limit: int, after: Cursor | None = None
    ) -> list[GameRecord]:
        """Up to `limit` of the selected games, newest first, from the one after `after` (the last read):
        a batch of a long export, read without an offset that would slow down page after page."""
        async with self.db.session() as s:
            return list(await s.scalars(_newest(games, limit=limit, after=after)))

    async def casual_games_of_player(self, user_id: int) -> list[str]:
        """The ids of the account's casual games, any status, oldest first (an anonymous visitor's games,
        handed to the account they register: `GameService.adopt_games`)."""
        query = (
            select(GameRecord.id)
            .where(_plays(user_id), GameRecord.rated.is_(False))
            .order_by(GameRecord.created_at, GameRecord.id)
        )
        async with self.db.session() as s:
            return list(await s.scalars(query))

    async def computer_games_of_player(self, user_id: int) -> list[str]:
        """The games against the computer the account is playing now, oldest first (each may keep an
        engine worker busy: the lobby caps them per account)."""
        query = (
            select(GameRecord.id)
            .where(
                GameRecord.status == GameStatus.STARTED,
                GameRecord.computer_level.is_not(None),
                or_(GameRecord.white_id == user_id, GameRecord.black_id == user_id),
            )
            .order_by(GameRecord.created_at, GameRecord.id)
        )
        async with self.db.session() as s:
            return list(await s.scalars(query))

    async def moves_of(self, game_ids: list[str], column: str = "notation") -> dict[str, list[Any]]:
        """The moves of each game, as played (an empty list for a game without moves): their notations,
        or another column of theirs (`clock_ms`: the time each left its player)."""
        moves: dict[str, list[Any]] = {i: [] for i in game_ids}
        if not game_ids:
            return moves
        query = (
            select(MoveRecord.game_id, getattr(MoveRecord, column))
            .where(MoveRecord.game_id.in_(game_ids))
            .order_by(MoveRecord.game_id, MoveRecord.ply)
        )
        async with self.db.session() as s:
            for game_id, value in await s.execute(query):
                moves[game_id].append(value)
        return moves

    async def now_playing(
        self, *, variant: str | None = None, limit: int, clocked: bool = False
    ) -> list[str]:
        """The ids of up to `limit` games in play (of one variant, if given; `clocked`: with a clock only),
        the latest moves first."""
        query = select(GameRecord.id).where(GameRecord.status == GameStatus.STARTED)
        if variant:
            query = query.where(GameRecord.variant == variant)
        if clocked:
            query = query.where(GameRecord.clock_initial_ms.is_not(None))
        query = query.order_by(GameRecord.turn_started_at.desc()).limit(limit)
        async with self.db.session() as s:
            return list(await s.scalars(query))

    async def finished_between_people(self, variant: str, *, after: str = "", limit: int = 200
                                      ) -> list[tuple[str, str | None, list[str]]]:
        """Finished games of one variant (its plain rules) between two people, by id after `after`:
        (id, initial FEN or None for the variant's start, moves) — the puzzles' human games."""
        query = (
            select(GameRecord.id, GameRecord.initial_fen)
            .where(
                GameRecord.variant == variant,
                GameRecord.status == GameStatus.FINISHED,
                GameRecord.computer_level.is_(None),
                GameRecord.double_diagonal.is_(False),
                GameRecord.id > after,
            )
            .order_by(GameRecord.id)
            .limit(limit)
        )
        async with self.db.session() as s:
            rows = (await s.execute(query)).all()
        moves = await self.moves_of([row.id for row in rows])
        return [(row.id, row.initial_fen, moves[row.id]) for row in rows]

    async def count_of_player(self, user_id: int) -> int:
        """How many games an account has played or plays (any status)."""
        return (await self.counts_of_player(user_id)).total

    async def started_ids(self, user_id: int | None = None) -> list[str]:
        """The games in play (of one player, if given)."""
        every = select(GameRecord.id).where(GameRecord.status == GameStatus.STARTED)
        async with self.db.session() as s:
            return list(await s.scalars(every if user_id is None else _in_play_of(user_id)))

    async def deadlines_before(self, until: datetime) -> list[tuple[str, datetime]]:
        """The correspondence games in play whose side to move's days run out before `until`, with
        their deadlines (an indexed read: the flag timer's sweep)."""
        query = select(GameRecord.id, GameRecord.move_deadline_at).where(
            GameRecord.status == GameStatus.STARTED,
            GameRecord.move_deadline_at.is_not(None),
            GameRecord.move_deadline_at < until,
        )
        async with self.db.session() as s:
            return [(game_id, at) for game_id, at in await s.execute(query) if at is not None]

    async def playing(self, user_ids: list[int]) -> set[int]:
        """Which of these accounts have a game in play."""
        if not user_ids:
            return set()
        query = select(GameRecord.white_id, GameRecord.black_id).where(
            GameRecord.status == GameStatus.STARTED,
            or_(GameRecord.white_id.in_(user_ids), GameRecord.black_id.in_(user_ids)),
        )
        async with self.db.session() as s:
            seated = {i for row in await s.execute(query) for i in row if i is not None}
        return seated & set(user_ids)
