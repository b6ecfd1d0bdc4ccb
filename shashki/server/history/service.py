"""Players' profiles and games: what they played, how it went, and the games as PDN or JSON.

Games are public, as on lichess and lidraughts: anyone may read a game, a player's list of games and
their export. A profile shows only public data (name, bot or not, ratings, counts); an account's
tokens, sessions and pending challenges are its owner's alone and appear in no profile.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from shashki.rules import Color
from shashki.server.accounts import AccountService
from shashki.server.accounts.models import User
from shashki.server.errors import Invalid, NotFound
from shashki.server.games.models import GameRecord
from shashki.server.games.queries import Cursor, PlayerGames, Result
from shashki.server.games.service import GameService
from shashki.server.history.export import game_json, pdn, with_clocks
from shashki.server.lidraughts import variant_key
from shashki.server.ratings import RatingService
from shashki.server.ratings.service import check_speed
from shashki.server.ratings.speed import LIMITS as SPEED_LIMITS
from shashki.server.ratings.speed import UNTIMED, speed_of
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
    """Which of a player's games: by variant, speed, rated or casual, colour, opponent, result, and when
    they began (`since` included, `before` not)."""

    variant: str | None = None
    speed: str | None = None  # a speed, or several with commas (lidraughts' perfType): any of them
    rated: bool | None = None
    color: str | None = None
    vs: str | None = None
    result: str | None = None
    finished_only: bool = False
    since: datetime | None = None
    before: datetime | None = None

    def __post_init__(self) -> None:
        if self.variant:
            object.__setattr__(self, "variant", variant_key(self.variant))
        if self.speed:
            for speed in self.speeds:
                check_speed(speed)
        if self.color not in (None, "white", "black"):
            raise Invalid("bad_color", "The colour is white or black.")
        if self.result not in (None, *RESULTS):
            raise Invalid("bad_result", f"Results are {', '.join(RESULTS)}.")


    @property
    def speeds(self) -> tuple[str, ...]:
        """The speeds asked for (none: any speed)."""
        return tuple(dict.fromkeys(s.strip() for s in self.speed.split(","))) if self.speed else ()


def estimated_ms(speed: str) -> tuple[int, int | None]:
    """The estimated durations (initial + 40 increments, ms) of one timed speed, as ratings.speed has it:
    from the faster speed's limit (included) to this one's (excluded; None for the slowest)."""
    low, high = 0, None
    for name, below in SPEED_LIMITS:
        high = None if below is None else below * 1000
        if name == speed:
            break
        low = high or 0
    return low, high


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
        # The computer's analysis of a game as PDN comments by ply (reviews.ReviewService.comments), set
        # by the app: a game's PDN carries its analysis once there is one.
        self.analysis_comments: Callable[[str], Awaitable[dict[int, str] | None]] | None = None

    async def player(self, username: str) -> User:
        """The account of `username`, or NotFound."""
        user = await self.accounts.user_by_name(username)
        if user is None:
            raise NotFound("no_such_user", f"There is no player {username!r}.")
        return user

    # -- profiles ---------------------------------------------------------------------------------

    async def profile(self, username: str) -> dict:
        user = await self.player(username)
        counts = await self.games.queries.counts_of_player(user.id)
        playing = await self.games.queries.in_play_of_player(user.id)
        return {
            "user": {
                "id": user.id,
                "username": user.username,
                "bot": user.is_bot,
                "created_at": user.created_at.isoformat(),
                # Closed by its owner (accounts/security.py): the profile and finished games stay.
                "closed": user.closed,
            },
            "ratings": await self.ratings.of_user(user.id),
            "rating_history": await self.ratings.history(user.id),
            "count": dict(
                zip(
                    COUNTS,
                    (counts.total, counts.rated, counts.win, counts.loss, counts.draw, counts.playing),
                    strict=True,
                )
            ),
            "playing": playing,
        }

    # -- lists of games ---------------------------------------------------------------------------

    async def _selection(self, user: User, f: GameFilter, *, with_aborted: bool = True) -> PlayerGames:
        """The filter in the games domain's terms: accounts by id, the speed as estimated durations."""
        vs = await self.player(f.vs) if f.vs else None
        return PlayerGames(
            user_id=user.id,
            color=Color(f.color) if f.color else None,
            variant=f.variant,
            rated=f.rated,
            estimated_ms=tuple(estimated_ms(speed) for speed in f.speeds if speed != UNTIMED),
            untimed=UNTIMED in f.speeds,
            opponent_id=vs.id if vs is not None else None,
            result=cast(Result | None, f.result),  # one of RESULTS: GameFilter checked it
            finished_only=f.finished_only,
            with_aborted=with_aborted,
            since=f.since,
            before=f.before,
        )

    async def games_page(self, username: str, f: GameFilter, *, page: int = 1, per_page: int = 20) -> dict:
        """One page of a player's games, newest first, as lidraughts' GameJson with their moves."""
        if page < 1 or not 1 <= per_page <= MAX_PER_PAGE:
            raise Invalid("bad_page", f"Pages count from 1, with 1 to {MAX_PER_PAGE} games each.")
        user = await self.player(username)
        found = await self.games.queries.page_of_player(
            await self._selection(user, f), page=page, per_page=per_page
        )
        games = [game_json(r, moves, users) for r, moves, users in await self._with_moves(found.records)]
        return {
            "games": games,
            "page": page,
            "per_page": per_page,
            "total": found.total,
            "pages": (found.total + per_page - 1) // per_page,
        }

    async def _with_moves(self, records: list[GameRecord]) -> list[tuple[GameRecord, list[str], dict]]:
        """The records with their moves and players, in two queries."""
        if not records:
            return []
        user_ids = {i for r in records for i in (r.white_id, r.black_id) if i is not None}
        moves = await self.games.queries.moves_of([r.id for r in records])
        users = await self.accounts.users_by_id(user_ids)
        return [(r, moves[r.id], users) for r in records]

    # -- exports ----------------------------------------------------------------------------------

    async def one(self, game_id: str) -> tuple[GameRecord, list[str], dict]:
        record = await self.games.queries.stored(game_id)
        if record is None:
            raise NotFound("no_such_game", f"There is no game {game_id!r}.")
        return (await self._with_moves([record]))[0]

    async def pdn(self, game_id: str, *, site: str, clocks: bool = True) -> str:
        """The game as PDN, with the computer's analysis as comments if it has one, and each move's clock
        (`[%clk H:MM:SS]`, lichess's `clocks`, on by default for one game) in a game with a clock."""
        record, moves, users = await self.one(game_id)
        comments = await self.analysis_comments(game_id) if self.analysis_comments else None
        if clocks and record.clock_initial_ms is not None:
            comments = with_clocks((await self.clocks_of([game_id]))[game_id], comments)
        return pdn(record, moves, users, site=f"{site}/game/{record.id}", comments=comments)

    async def clocks_of(self, game_ids: list[str]) -> dict[str, list[int | None]]:
        """The clock each move of the games left its player, in the order played (None: no clock)."""
        return await self.games.queries.moves_of(game_ids, "clock_ms")

    async def json(self, game_id: str) -> dict:
        record, moves, users = await self.one(game_id)
        return game_json(record, moves, users)

    async def export(
        self, username: str, f: GameFilter, *, fmt: str, site: str, limit: int | None = None,
        moves: bool = True, tags: bool = True, clocks: bool = False,
    ) -> AsyncIterator[str]:
        """A player's games, newest first, as PDN texts or NDJSON lines, read in batches as they are sent;
        as lidraughts has them, `moves=False` leaves the moves out (a PDN keeps its result), `tags=False`
        a PDN's tags, and `clocks=True` adds each move's clock to a PDN (off by default, as lichess's).

        The checks (the player exists, the filter) are made before the first chunk, so that an error is
        still an HTTP error; the games follow in batches of `EXPORT_BATCH`.
        """
        user = await self.player(username)
        selection = await self._selection(user, f, with_aborted=False)

        async def chunks() -> AsyncIterator[str]:
            sent = 0
            last: Cursor | None = None
            while limit is None or sent < limit:
                size = EXPORT_BATCH if limit is None else min(EXPORT_BATCH, limit - sent)
                records = await self.games.queries.newest_of_player(selection, limit=size, after=last)
                if not records:
                    return
                timed = [r.id for r in records if r.clock_initial_ms is not None]
                times = await self.clocks_of(timed) if clocks and fmt == "pdn" and timed else {}
                for record, notations, users in await self._with_moves(records):
                    if fmt == "pdn":
                        comments = with_clocks(times[record.id], None) if record.id in times else None
                        where = f"{site}/game/{record.id}"
                        text = pdn(record, notations, users, site=where, comments=comments)
                        yield _parts(text, moves=moves, tags=tags) + "\n"
                    else:
                        shown = game_json(record, notations if moves else None, users)
                        yield json.dumps(shown, separators=(",", ":")) + "\n"
                sent += len(records)
                last = (records[-1].created_at, records[-1].id)

        return chunks()

    # -- games being played now -------------------------------------------------------------------

    async def now_playing(self, *, variant: str | None = None, limit: int = 30, clocked: bool = False
                          ) -> list[dict]:
        """Games in progress (`clocked`: with a clock only), those with the latest moves first, as their
        live states."""
        ids = await self.games.queries.now_playing(
            variant=variant_key(variant) if variant else None, limit=limit, clocked=clocked
        )
        out = []
        for game_id in ids:
            entry = await self.playing(game_id)
            if entry is not None:
                out.append(entry)
        return out

    async def playing(self, game_id: str) -> dict | None:
        """A game in progress as the lists of games in play show it (None once it is over): its state's
        parts, its speed, and when its last move was played (`moved_at`, TV's freshness)."""
        live = await self.games.live(game_id)
        state = self.games.state(live)
        if state["status"] != "started":
            return None
        clocks = state["clocks"] or {"initial_ms": None, "increment_ms": 0}
        return (
            {key: state[key] for key in NOW_PLAYING_KEYS}
            | {"clocks": state["clocks"], "speed": speed_of(clocks["initial_ms"], clocks["increment_ms"])}
            | {"correspondence": state["correspondence"]}  # days per move, for the lists' labels
            | {"moved_at": live.record.turn_started_at.isoformat()}
        )


def _parts(text: str, *, moves: bool, tags: bool) -> str:
    """A game's PDN with its moves (but the result that ends them) or its tags left out."""
    head, _, movetext = text.partition("\n\n")
    if not moves:
        movetext = movetext.split()[-1] + "\n"
    return movetext if not tags else f"{head}\n\n{movetext}"
