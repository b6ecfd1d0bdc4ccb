"""Ratings of players: one Glicko-2 rating per variant and speed category.

Each rated game is one rating period for both players (lichess does the same): each is rated against the
other's rating as it stood before the game, with τ = 0.75; no rating decays while a player is away.
A rating is provisional until its player has finished `PROVISIONAL_GAMES` rated games in that variant and
speed; leaderboards list established ratings only.

The update is planned by `on_game_end`, whose statements the game store runs in the very transaction that
records the end of the game: the game's result and the ratings it moves are committed together or not at all.
Which games are rated is decided when they are created (`GameService.create`): games between two accounts,
with clocks or days per move (the "correspondence" speed), from the start position, that both sides
agreed to rate. An aborted game changes nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, select

from shashki.rules import Color, Outcome
from shashki.rules.game import ABORTED
from shashki.server.accounts import AccountService
from shashki.server.accounts.models import User
from shashki.server.errors import Invalid
from shashki.server.games.hooks import EndHook, EndWrite
from shashki.server.games.models import GameRecord
from shashki.server.ratings import glicko2
from shashki.server.ratings.models import PlayerRating, RatingHistory
from shashki.server.ratings.speed import SPEEDS, speed_of
from shashki.server.storage import Database
from shashki.server.storage.direct import Insert, Row, Update, Write

PROVISIONAL_GAMES = 10
RATINGS = cast(Table, PlayerRating.__table__)
HISTORY = cast(Table, RatingHistory.__table__)
TAU = glicko2.DEFAULT_TAU


def rating_json(row: PlayerRating | None, variant: str, speed: str) -> dict:
    """How a rating is shown: rounded, with its deviation, games and whether it is provisional."""
    if row is None:
        return {
            "variant": variant,
            "speed": speed,
            "rating": round(glicko2.DEFAULT_RATING),
            "deviation": round(glicko2.DEFAULT_DEVIATION),
            "volatility": glicko2.DEFAULT_VOLATILITY,
            "games": 0,
            "provisional": True,
        }
    return {
        "variant": variant,
        "speed": speed,
        "rating": round(row.rating),
        "deviation": round(row.deviation),
        "volatility": round(row.volatility, 6),
        "games": row.games,
        "provisional": row.games < PROVISIONAL_GAMES,
    }


def check_speed(speed: str) -> str:
    if speed not in SPEEDS:
        raise Invalid("bad_speed", f"Speeds are {', '.join(SPEEDS)}.")
    return speed


class RatingService:
    def __init__(self, db: Database, accounts: AccountService | None = None, *, tau: float = TAU) -> None:
        self.db = db
        self.accounts = accounts or AccountService(db)
        self.tau = tau

    # -- the update, inside the game service's transaction ----------------------------------------------

    @property
    def end_hook(self) -> EndHook:
        """What the game store writes with the end of a game that `rates` (the others end like a move:
        most casual games touch no rating)."""
        return EndHook(applies=self.rates, plan=self.on_game_end)

    @staticmethod
    def rates(record: GameRecord, outcome: Outcome) -> bool:
        """Whether a game ending with `outcome` moves ratings (an aborted game does not)."""
        return not (
            outcome.reason == ABORTED
            or not record.rated
            or record.white_id is None
            or record.black_id is None
            or (record.clock_initial_ms is None and record.days_per_move is None)
        )

    async def on_game_end(self, record: GameRecord, outcome: Outcome, now: datetime) -> EndWrite:
        """The rating of a rated game that ends now with `outcome`: both players' ratings read, rated,
        and the statements that write them with the game's end (each rating a compare-and-set on its
        count of games, which every change of it moves: a rating changed since it was read refuses the
        write, and the game store plans the end again), with the game columns to record (the ratings
        before the game and their changes). An aborted game is not rated."""
        white_id, black_id = record.white_id, record.black_id
        if not self.rates(record, outcome) or white_id is None or black_id is None:
            return EndWrite([], {})
        # A correspondence game (days per move, no clock) is rated in the "correspondence" category.
        speed = speed_of(record.clock_initial_ms, record.clock_increment_ms)
        W, B = Color.WHITE, Color.BLACK
        players = {W: white_id, B: black_id}
        columns = ("id", "rating", "deviation", "volatility", "games")
        rows = {
            color: await self.db.direct.row(Row(RATINGS, columns, self._key(user_id, record.variant, speed)))
            for color, user_id in players.items()
        }
        g = glicko2
        default = g.Rating(g.DEFAULT_RATING, g.DEFAULT_DEVIATION, g.DEFAULT_VOLATILITY)
        before = {
            color: default if r is None else glicko2.Rating(r["rating"], r["deviation"], r["volatility"])
            for color, r in rows.items()
        }
        winner = outcome.winner
        white_score = 1.0 if winner is W else 0.0 if winner is B else 0.5
        after = {
            W: glicko2.rate(before[W], [(before[B], white_score)], tau=self.tau),
            B: glicko2.rate(before[B], [(before[W], 1 - white_score)], tau=self.tau),
        }
        ops: list[Write] = []
        # In the order of the players' ids: two ends of games between the same players (the colours
        # swapped) lock the two ratings in the same order, so that neither waits for the other
        # (PostgreSQL found a deadlock and failed one of them).
        for color, user_id in sorted(players.items(), key=lambda seat: seat[1]):
            new, row = after[color], rows[color]
            rated = {"rating": new.rating, "deviation": new.deviation, "volatility": new.volatility}
            if row is None:  # the first rated game in this variant and speed (unique: two at once collide)
                key = self._key(user_id, record.variant, speed)
                ops.append(Insert(RATINGS, {**key, **rated, "games": 1, "updated_at": now}))
            else:
                changed = {**rated, "games": row["games"] + 1, "updated_at": now}
                ops.append(Update(RATINGS, changed, {"id": row["id"], "games": row["games"]}))
            history = {"user_id": user_id, "variant": record.variant, "speed": speed, "game_id": record.id}
            ops.append(Insert(HISTORY, {**history, **rated, "recorded_at": now}))
        recorded = {
            f"{color.value}_{field}": value  # the columns white_rating, black_rating_diff, ...
            for color in (W, B)
            for field, value in (
                ("rating", round(before[color].rating)),
                ("rating_diff", round(after[color].rating) - round(before[color].rating)),
                # provisional when it began: fewer than PROVISIONAL_GAMES rated games before it
                ("provisional", (rows[color] or {"games": 0})["games"] < PROVISIONAL_GAMES),
            )
        }
        return EndWrite(ops, recorded)

    @staticmethod
    def _key(user_id: int, variant: str, speed: str) -> dict[str, Any]:
        return {"user_id": user_id, "variant": variant, "speed": speed}

    # -- reading ----------------------------------------------------------------------------------

    async def of_user(self, user_id: int) -> list[dict]:
        """Every rating the player has, best first within each variant."""
        async with self.db.session() as s:
            rows = list(await s.scalars(select(PlayerRating).where(PlayerRating.user_id == user_id)))
        rows.sort(key=lambda r: (r.variant, SPEEDS.index(r.speed) if r.speed in SPEEDS else 99))
        return [rating_json(r, r.variant, r.speed) for r in rows]

    async def for_players(self, user_ids: list[int | None], variant: str, speed: str) -> dict[int, dict]:
        """The ratings of some players in one variant and speed (defaults for those without one)."""
        ids = [i for i in user_ids if i is not None]
        rows: dict[int, PlayerRating] = {}
        if ids:
            async with self.db.session() as s:
                rows = {
                    r.user_id: r
                    for r in await s.scalars(
                        select(PlayerRating).where(
                            PlayerRating.user_id.in_(ids),
                            PlayerRating.variant == variant,
                            PlayerRating.speed == speed,
                        )
                    )
                }
        return {i: rating_json(rows.get(i), variant, speed) for i in ids}

    async def leaderboard(self, variant: str, speed: str, *, limit: int = 100) -> list[dict]:
        """The best established (not provisional) ratings of one variant and speed, of open accounts (a
        closed one keeps its ratings, as its games, but is ranked no more)."""
        check_speed(speed)
        async with self.db.session() as s:
            rows = list(
                await s.scalars(
                    select(PlayerRating)
                    .join(User, User.id == PlayerRating.user_id)
                    .where(
                        PlayerRating.variant == variant,
                        PlayerRating.speed == speed,
                        PlayerRating.games >= PROVISIONAL_GAMES,
                        User.closed_at.is_(None),
                    )
                    .order_by(PlayerRating.rating.desc(), PlayerRating.id)
                    .limit(limit)
                )
            )
        users = await self.accounts.users_by_id({row.user_id for row in rows})
        return [
            {
                "rank": rank,
                "user": {
                    "id": row.user_id,
                    "username": users[row.user_id].username,
                    "bot": users[row.user_id].is_bot,
                },
                **rating_json(row, variant, speed),
            }
            for rank, row in enumerate(rows, 1)
        ]

    async def history(
        self, user_id: int, *, variant: str | None = None, speed: str | None = None
    ) -> list[dict]:
        """The player's rating after each rated game, oldest first, grouped by variant and speed."""
        query = select(RatingHistory).where(RatingHistory.user_id == user_id)
        if variant:
            query = query.where(RatingHistory.variant == variant)
        if speed:
            query = query.where(RatingHistory.speed == check_speed(speed))
        async with self.db.session() as s:
            rows = list(await s.scalars(query.order_by(RatingHistory.id)))
        groups: dict[tuple[str, str], list[dict]] = {}
        for row in rows:
            groups.setdefault((row.variant, row.speed), []).append(
                {
                    "game_id": row.game_id,
                    "at": row.recorded_at.isoformat(),
                    "rating": round(row.rating),
                    "deviation": round(row.deviation),
                }
            )
        return [{"variant": v, "speed": sp, "points": points} for (v, sp), points in groups.items()]
