"""Live games: moves, clocks, draw offers, resignation, abort, time-outs and abandonment.

The server is the only authority. A move is checked and played by the rules `Game` (the one place that
decides how a game ends by the rules), committed to the database together with the clocks, and only then
acknowledged and published. Each game's state in memory is a cache rebuilt from the database (its record
and its moves replayed through the rules) whenever it is missing or found stale, which is how a restarted
server resumes every live game.

Writes are compare-and-set on the game's `version` (it numbers the events too) and a move row is unique per
(game, ply): of two submissions of the same ply — a double click, two tabs, two server processes — exactly
one is applied and the other gets a clear answer. Within one process a lock per game orders the writers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import string
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from shashki.rules import IllegalMove, RulesError, get_variant
from shashki.rules.notation import square_label
from shashki.server.errors import Conflict, Forbidden, Invalid, NotFound
from shashki.server.events import EventBus
from shashki.server.games.clock import CLOCK_STARTS_AT_PLY, ClockReading, elapsed_ms
from shashki.server.games.computer import EngineOpponent, RandomOpponent
from shashki.server.storage import Database
from shashki.server.storage.models import GameRecord, MoveRecord, User, utcnow

log = logging.getLogger(__name__)

WHITE, BLACK = "white", "black"
GAME_ID_ALPHABET = string.ascii_letters + string.digits


def other(color: str) -> str:
    return BLACK if color == WHITE else WHITE


def win_result(winner: str) -> str:
    return "1-0" if winner == WHITE else "0-1"


def _reason(reason) -> str:
    return getattr(reason, "value", reason)


def new_rules_game(variant_key: str, double_diagonal: bool, fen: str | None = None):
    from shashki.rules import Game

    return Game(get_variant(variant_key), fen, double_diagonal=double_diagonal)


@dataclass
class LiveGame:
    """A game in memory: its stored record (a detached copy), the rules game replayed from its moves, who
    plays it, and the lock that orders the writers of this process.
    """

    record: GameRecord
    rules: object  # shashki.rules.Game
    players: dict[str, dict]
    notations: list[str]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    flag_timer: asyncio.TimerHandle | None = None

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def side_to_move(self) -> str:
        return WHITE if self.rules.position.white_to_move else BLACK

    @property
    def is_live(self) -> bool:
        return self.record.status == "started"

    def color_of(self, user_id: int | None) -> str | None:
        if user_id is None:
            return None
        if self.record.white_id == user_id:
            return WHITE
        if self.record.black_id == user_id:
            return BLACK
        return None

    def is_computer(self, color: str) -> bool:
        return self.players[color].get("computer", False)

    def clock(self) -> ClockReading | None:
        r = self.record
        if r.clock_initial_ms is None:
            return None
        return ClockReading(
            r.white_ms,
            r.black_ms,
            running=self.is_live and r.ply >= CLOCK_STARTS_AT_PLY,
            white_to_move=self.rules.position.white_to_move,
            since=r.turn_started_at,
        )


class Presence:
    """Who of each game's players has a live connection, and since when the others have been gone.

    Kept in this process: with several server processes behind a load balancer, a player's connections
    should go to one process per game (or presence should move to Redis).
    """

    def __init__(self) -> None:
        self.started_at = utcnow()
        self._connections: dict[tuple[str, str], int] = {}
        self._left_at: dict[tuple[str, str], datetime] = {}

    def joined(self, game_id: str, color: str) -> None:
        key = (game_id, color)
        self._connections[key] = self._connections.get(key, 0) + 1

    def left(self, game_id: str, color: str) -> None:
        key = (game_id, color)
        self._connections[key] = max(0, self._connections.get(key, 0) - 1)
        if not self._connections[key]:
            self._left_at[key] = utcnow()

    def connected(self, game_id: str, color: str) -> bool:
        return self._connections.get((game_id, color), 0) > 0

    def count(self, game_id: str, color: str) -> int:
        """Live connections of one side (or of the spectators) to a game."""
        return self._connections.get((game_id, color), 0)

    def gone_ms(self, game_id: str, color: str, game_created: datetime, now: datetime) -> int:
        """How long this player has had no connection (0 while connected); a player never seen counts from
        the later of the game's creation and this process's start.
        """
        if self.connected(game_id, color):
            return 0
        since = self._left_at.get((game_id, color)) or max(game_created, self.started_at)
        return elapsed_ms(since, now)


class GameService:
    def __init__(
        self,
        db: Database,
        bus: EventBus,
        *,
        disconnect_claim_seconds: float = 30.0,
        max_lag_compensation_ms: int = 500,
        computer_delay_seconds: float = 0.3,
        engine: EngineOpponent | RandomOpponent | None = None,
    ) -> None:
        self.db = db
        self.bus = bus
        self.claim_after_ms = int(disconnect_claim_seconds * 1000)
        self.max_lag_ms = max_lag_compensation_ms
        self.computer_delay = computer_delay_seconds
        self.engine = engine or EngineOpponent()
        self.presence = Presence()
        self._live: dict[str, LiveGame] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task] = set()
        # Called inside the transaction that records a game's end, with the session, the game's record
        # (as it stood) and the changes; each returns more columns of the game to record (the ratings).
        self.end_hooks: list[Callable[[AsyncSession, GameRecord, dict], Awaitable[dict]]] = []

    # -- life cycle ---------------------------------------------------------------------------------

    async def resume(self) -> int:
        """Load every unfinished game: clocks go on, flags are checked, the computer moves when to move."""
        async with self.db.session() as s:
            ids = list(await s.scalars(select(GameRecord.id).where(GameRecord.status == "started")))
        for game_id in ids:
            live = await self.live(game_id)
            self._after_change(live)
        return len(ids)

    async def close(self) -> None:
        for live in self._live.values():
            if live.flag_timer:
                live.flag_timer.cancel()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        await self.engine.close()

    # -- creation and lookup ------------------------------------------------------------------------

    async def create(
        self,
        *,
        white_id: int | None,
        black_id: int | None,
        variant: str = "russian-giveaway",
        double_diagonal: bool = False,
        clock_initial_ms: int | None = None,
        clock_increment_ms: int = 0,
        rated: bool = False,
        computer_level: int | None = None,
        initial_fen: str | None = None,
    ) -> LiveGame:
        """Start a game between two accounts, or an account and the computer (the player id left None)."""
        key = get_variant(variant).key
        if double_diagonal and key != "russian-giveaway":
            raise Invalid("bad_option", "The double-diagonal option belongs to Russian giveaway.")
        try:
            first = new_rules_game(key, double_diagonal, initial_fen)
        except RulesError as e:
            raise Invalid(e.code, e.message) from None
        if first.is_over:
            raise Invalid("game_over", "That position has no game left to play.")
        now = utcnow()
        record = GameRecord(
            id="".join(secrets.choice(GAME_ID_ALPHABET) for _ in range(8)),
            variant=key,
            double_diagonal=double_diagonal,
            white_id=white_id,
            black_id=black_id,
            computer_level=computer_level,
            initial_fen=initial_fen,
            # Rated games are between two accounts, with clocks (a speed to rate), from the start position.
            rated=rated and computer_level is None and clock_initial_ms is not None and initial_fen is None,
            clock_initial_ms=clock_initial_ms,
            clock_increment_ms=clock_increment_ms if clock_initial_ms is not None else 0,
            white_ms=clock_initial_ms,
            black_ms=clock_initial_ms,
            turn_started_at=now,
            ply=0,
            version=1,
            status="started",
            created_at=now,
        )
        async with self.db.session() as s:
            s.add(record)
            await s.commit()
        live = await self.live(record.id)
        for user_id in (white_id, black_id):
            if user_id is not None:
                await self.bus.publish(f"user:{user_id}", {"type": "gameStart", "game": self.state(live)})
        self._after_change(live)
        return live

    async def live(self, game_id: str) -> LiveGame:
        live = self._live.get(game_id)
        if live is not None:
            return live
        lock = self._loading.setdefault(game_id, asyncio.Lock())
        async with lock:
            live = self._live.get(game_id)
            if live is None:
                live = await self._load(game_id)
                # Only games in play are kept: a finished one is read afresh when asked for, so the
                # cache does not grow with the history of every game looked at.
                if live.is_live:
                    self._live[game_id] = live
        if not live.is_live:
            self._loading.pop(game_id, None)
        return live

    async def _load(self, game_id: str) -> LiveGame:
        async with self.db.session() as s:
            record = await s.get(GameRecord, game_id)
            if record is None:
                raise NotFound("no_such_game", f"There is no game {game_id!r}.")
            moves = list(
                await s.scalars(
                    select(MoveRecord.notation).where(MoveRecord.game_id == game_id).order_by(MoveRecord.ply)
                )
            )
            ids = {i for i in (record.white_id, record.black_id) if i is not None}
            users = {u.id: u for u in await s.scalars(select(User).where(User.id.in_(ids)))} if ids else {}
        rules = new_rules_game(record.variant, record.double_diagonal, record.initial_fen)
        for notation in moves:
            rules.play(notation)

        def player(user_id: int | None) -> dict:
            if user_id is None:
                return {
                    "computer": True,
                    "level": record.computer_level,
                    "engine": self.engine.name,
                    "username": f"Computer (level {record.computer_level})",
                }
            user = users[user_id]
            return {"id": user.id, "username": user.username, "bot": user.is_bot}

        return LiveGame(
            record=record,
            rules=rules,
            notations=moves,
            players={WHITE: player(record.white_id), BLACK: player(record.black_id)},
        )

    async def _refresh(self, live: LiveGame) -> None:
        """Bring a cached game up to date if another process has changed it (called under its lock).

        With several server processes on one database (DATABASE_URL + REDIS_URL), any of them may have
        written the game since this one cached it; one indexed read of its version tells.
        """
        async with self.db.session() as s:
            version = await s.scalar(select(GameRecord.version).where(GameRecord.id == live.id))
        if version is None or version == live.record.version:
            return
        fresh = await self._load(live.id)
        live.record, live.rules = fresh.record, fresh.rules
        live.notations, live.players = fresh.notations, fresh.players

    def _forget(self, game_id: str) -> None:
        """Drop a cached game found stale; the next use loads it afresh from the database."""
        old = self._live.pop(game_id, None)
        if old is not None:
            old.record.status = "stale"  # waiters holding the old copy will not act on it
            if old.flag_timer:
                old.flag_timer.cancel()

    async def ongoing(self, user_id: int) -> list[dict]:
        async with self.db.session() as s:
            ids = list(
                await s.scalars(
                    select(GameRecord.id).where(
                        GameRecord.status == "started",
                        or_(GameRecord.white_id == user_id, GameRecord.black_id == user_id),
                    )
                )
            )
        return [self.state(await self.live(game_id)) for game_id in ids]

    # -- what clients see ---------------------------------------------------------------------------

    def state(self, live: LiveGame, now: datetime | None = None) -> dict:
        """The whole state of a game: every message carries it, so a client never computes rules itself."""
        now = now or utcnow()
        r = live.record
        variant = live.rules.variant
        position = live.rules.position
        clock = live.clock()
        clocks = None
        if clock is not None:
            white_ms, black_ms = clock.at(now)
            clocks = {
                "white_ms": white_ms,
                "black_ms": black_ms,
                "initial_ms": r.clock_initial_ms,
                "increment_ms": r.clock_increment_ms,
                "running": live.side_to_move if clock.running else None,
            }
        legal = []
        if live.is_live:
            legal = [
                {
                    "move": m.notation(variant),
                    "path": [square_label(variant, b) for b in m.path],
                    "captures": [square_label(variant, b) for b in m.captured],
                }
                for m in position.legal_moves()
            ]
        gone = None
        if live.is_live:
            mover = live.side_to_move
            if not live.is_computer(mover):
                gone = self.presence.gone_ms(r.id, mover, r.created_at, now) or None
        return {
            "id": r.id,
            "seq": r.version,
            "variant": r.variant,
            "double_diagonal": r.double_diagonal,
            "rated": r.rated,
            "status": r.status,
            "white": live.players[WHITE],
            "black": live.players[BLACK],
            "ply": r.ply,
            "side_to_move": live.side_to_move,
            "fen": position.fen(),
            "initial_fen": r.initial_fen,
            "moves": list(live.notations),
            "legal_moves": legal,
            "clocks": clocks,
            "draw_offer": r.draw_offer,
            "result": r.result,
            "winner": r.winner,
            "reason": r.reason,
            "mover_disconnected_ms": gone,
            "claim_victory_after_ms": self.claim_after_ms,
            "rating_diffs": (
                {"white": r.white_rating_diff, "black": r.black_rating_diff}
                if r.white_rating_diff is not None
                else None
            ),
            "rematch": {"offer": r.rematch_offer, "game_id": r.rematch_id},
        }

    async def get_state(self, game_id: str) -> dict:
        live = await self.live(game_id)
        async with live.lock:
            await self._refresh(live)
        await self._check_flag(live)
        return self.state(live)

    # -- player actions -----------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _seated(self, user_id: int, game_id: str, *, flag: bool = True):
        """A player's action on a live game: under the game's lock, brought up to date from the database,
        after the flag check (unless `flag` is False), refused if the game is over. Yields (game, colour)."""
        live = await self.live(game_id)
        color = self._seat(live, user_id)
        async with live.lock:
            await self._refresh(live)
            if flag:
                await self._check_flag_locked(live)
            self._require_live(live)
            yield live, color

    def _seat(self, live: LiveGame, user_id: int) -> str:
        color = live.color_of(user_id)
        if color is None:
            raise Forbidden("not_your_game", "You are not a player of this game.")
        return color

    def _require_live(self, live: LiveGame) -> None:
        if not live.is_live:
            raise Conflict("game_over", f"The game is over ({live.record.reason}).")

    async def move(
        self, user_id: int, game_id: str, text: str, *, ply: int | None = None, lag_ms: int = 0
    ) -> dict:
        """Play `text` for the user; `ply` (the number of plies before this move) guards against replays.

        Returns the new state once the move is committed. Refused moves change nothing.
        """
        async with self._seated(user_id, game_id) as (live, color):
            if ply is not None and ply != live.record.ply:
                if ply < live.record.ply:
                    raise Conflict(
                        "ply_already_played",
                        f"Ply {ply} has already been played; the game is at ply {live.record.ply}.",
                    )
                raise Invalid("bad_ply", f"The game is at ply {live.record.ply}, not {ply}.")
            if live.side_to_move != color:
                raise Conflict("not_your_turn", "It is not your turn.")
            try:
                move = live.rules.position.parse_move(str(text))
            except IllegalMove as e:
                raise Invalid(e.code, e.message, legal=e.legal) from None
            await self._apply(live, move, lag_ms)
        return self.state(live)

    async def _apply(self, live: LiveGame, move, lag_ms: int) -> None:
        r = live.record
        now = utcnow()
        color = live.side_to_move
        clock = live.clock()
        white_ms, black_ms = r.white_ms, r.black_ms
        if clock is not None:
            white_ms, black_ms = clock.after_move(
                now, increment_ms=r.clock_increment_ms, lag_ms=lag_ms, max_lag_ms=self.max_lag_ms
            )
        notation = move.notation(live.rules.variant)
        live.rules.play(move)
        changes = {"ply": r.ply + 1, "white_ms": white_ms, "black_ms": black_ms, "turn_started_at": now}
        # A draw offer lapses when the side it was made to moves instead of accepting it.
        if r.draw_offer == other(color):
            changes["draw_offer"] = None
        outcome = live.rules.outcome
        if outcome is not None:
            winner = outcome.winner.value if outcome.winner is not None else None
            reason = _reason(outcome.reason)
            changes.update(self._finished(result=outcome.result, winner=winner, reason=reason, now=now))
        row = MoveRecord(
            game_id=r.id,
            ply=r.ply,
            notation=notation,
            played_at=now,
            clock_ms=(white_ms if color == WHITE else black_ms) if clock is not None else None,
        )
        live.notations.append(notation)
        try:
            await self._commit(live, changes, row)
        except BaseException:
            # The rules game has been played forward: rebuild it from what the database holds.
            self._forget(live.id)
            raise

    async def offer_draw(self, user_id: int, game_id: str) -> dict:
        """Offer a draw; offering when the opponent already offered is accepting."""
        async with self._seated(user_id, game_id) as (live, color):
            offer = live.record.draw_offer
            if offer == other(color):
                await self._commit(live, self._finished(result="1/2-1/2", winner=None, reason="agreement"))
            elif offer is None:
                await self._commit(live, {"draw_offer": color})
                if live.is_computer(other(color)):
                    # The computer declines every draw offer.
                    await self._commit(live, {"draw_offer": None})
        return self.state(live)

    async def accept_draw(self, user_id: int, game_id: str) -> dict:
        async with self._seated(user_id, game_id) as (live, color):
            if live.record.draw_offer != other(color):
                raise Conflict("no_draw_offer", "Your opponent has not offered a draw.")
            await self._commit(live, self._finished(result="1/2-1/2", winner=None, reason="agreement"))
        return self.state(live)

    async def decline_draw(self, user_id: int, game_id: str) -> dict:
        async with self._seated(user_id, game_id, flag=False) as (live, color):
            if live.record.draw_offer != other(color):
                raise Conflict("no_draw_offer", "Your opponent has not offered a draw.")
            await self._commit(live, {"draw_offer": None})
        return self.state(live)

    async def resign(self, user_id: int, game_id: str) -> dict:
        async with self._seated(user_id, game_id) as (live, color):
            winner = other(color)
            await self._commit(
                live, self._finished(result=win_result(winner), winner=winner, reason="resignation")
            )
        return self.state(live)

    async def abort(self, user_id: int, game_id: str) -> dict:
        """Call the game off, which either player may do until each side has made a move."""
        async with self._seated(user_id, game_id, flag=False) as (live, _):
            if live.record.ply >= 2:
                raise Conflict("too_late_to_abort", "Both sides have moved: resign or offer a draw instead.")
            await self._commit(
                live, self._finished(result=None, winner=None, reason="aborted", status="aborted")
            )
        return self.state(live)

    async def claim_victory(self, user_id: int, game_id: str) -> dict:
        """Win a game whose opponent has been disconnected for the claim delay while it is their turn."""
        async with self._seated(user_id, game_id) as (live, color):
            opponent = other(color)
            if live.side_to_move != opponent or live.is_computer(opponent):
                raise Conflict(
                    "cannot_claim", "You can claim victory only while your absent opponent is to move."
                )
            gone = self.presence.gone_ms(live.id, opponent, live.record.created_at, utcnow())
            if gone < self.claim_after_ms:
                left = (self.claim_after_ms - gone + 999) // 1000 if gone else None
                message = (
                    f"Your opponent has been gone {gone / 1000:.1f} s; you can claim in {left} s."
                    if gone
                    else "Your opponent is connected."
                )
                raise Conflict("cannot_claim", message)
            await self._commit(
                live, self._finished(result=win_result(color), winner=color, reason="abandonment")
            )
        return self.state(live)

    async def check_flag(self, game_id: str) -> dict:
        live = await self.live(game_id)
        await self._check_flag(live)
        return self.state(live)

    # -- presence (called by the live channel) --------------------------------------------------------

    async def player_joined(self, game_id: str, user_id: int) -> None:
        live = await self.live(game_id)
        color = live.color_of(user_id)
        if color:
            self.presence.joined(game_id, color)

    async def player_left(self, game_id: str, user_id: int) -> None:
        live = await self.live(game_id)
        color = live.color_of(user_id)
        if color:
            self.presence.left(game_id, color)

    # -- internals ----------------------------------------------------------------------------------

    def _finished(
        self,
        *,
        result: str | None,
        winner: str | None,
        reason: str,
        now: datetime | None = None,
        status: str = "finished",
    ) -> dict:
        return {
            "status": status,
            "result": result,
            "winner": winner,
            "reason": reason,
            "draw_offer": None,
            "finished_at": now or utcnow(),
        }

    async def _commit(self, live: LiveGame, changes: dict, move: MoveRecord | None = None) -> None:
        """Write `changes` (and the move) if nobody changed the game since we read it; then publish."""
        r = live.record
        changes = {**changes, "version": r.version + 1}
        ending = r.status == "started" and changes.get("status", "started") != "started"
        if ending and r.clock_initial_ms:
            # Freeze the clocks where they stood when the game ended.
            clock = live.clock()
            if clock is not None and "turn_started_at" not in changes:
                white_ms, black_ms = clock.at(changes["finished_at"])
                changes.update(white_ms=white_ms, black_ms=black_ms)
        async with self.db.session() as s:
            try:
                done = await s.execute(
                    update(GameRecord)
                    .where(GameRecord.id == r.id, GameRecord.version == r.version)
                    .values(**changes)
                )
                if done.rowcount != 1:
                    raise IntegrityError("version", None, Exception("stale version"))
                if move is not None:
                    s.add(move)
                if ending:
                    # The ratings move in the same transaction that records the end.
                    for hook in self.end_hooks:
                        extra = await hook(s, r, changes)
                        if extra:
                            await s.execute(update(GameRecord).where(GameRecord.id == r.id).values(**extra))
                            changes.update(extra)
                await s.commit()
            except IntegrityError:
                await s.rollback()
                # Another writer (another process) got there first: our copy is stale.
                self._forget(r.id)
                raise Conflict(
                    "ply_already_played", "The game changed before this was applied; ask for its state."
                ) from None
        for name, value in changes.items():
            setattr(r, name, value)
        if "status" in changes and changes["status"] != "started" and live.rules.outcome is None:
            self._record_outcome(live)
        await self.bus.publish(f"game:{r.id}", {"type": "state", "seq": r.version, "game": self.state(live)})
        if "status" in changes and changes["status"] != "started":
            for user_id in (r.white_id, r.black_id):
                if user_id is not None:
                    await self.bus.publish(f"user:{user_id}", {"type": "gameFinish", "game": r.id})
        self._after_change(live)

    def _record_outcome(self, live: LiveGame) -> None:
        """Tell the rules game of an end decided off the board (resignation, time, agreement, ...)."""
        from shashki.rules import Color, Outcome

        r = live.record
        if r.status == "aborted":
            outcome = Outcome.aborted()
        elif r.winner:
            outcome = Outcome.win(Color(r.winner), r.reason)
        else:
            outcome = Outcome.draw(r.reason)
        live.rules.finish(outcome)

    def _after_change(self, live: LiveGame) -> None:
        """Arm the flag timer and let the computer move when it is its turn."""
        if live.flag_timer:
            live.flag_timer.cancel()
            live.flag_timer = None
        if not live.is_live:
            # A finished game leaves the cache; whoever asks again reads it from the database.
            if self._live.get(live.id) is live:
                del self._live[live.id]
            self._loading.pop(live.id, None)
            return
        clock = live.clock()
        if clock is not None and clock.running:
            delay = clock.mover_left(utcnow()) / 1000 + 0.005
            loop = asyncio.get_running_loop()
            live.flag_timer = loop.call_later(delay, lambda: self._spawn(self._check_flag(live)))
        if live.is_computer(live.side_to_move):
            self._spawn(self._computer_moves(live, live.record.version))

    def _spawn(self, coroutine) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _check_flag(self, live: LiveGame) -> None:
        async with live.lock:
            await self._refresh(live)
            await self._check_flag_locked(live)

    async def _check_flag_locked(self, live: LiveGame) -> None:
        clock = live.clock()
        if live.is_live and clock is not None and clock.flagged(utcnow()):
            winner = other(live.side_to_move)
            await self._commit(live, self._finished(result=win_result(winner), winner=winner, reason="time"))

    async def _computer_moves(self, live: LiveGame, version: int) -> None:
        """Let the engine move. It thinks without holding the game's lock, so that the person can still
        resign or claim meanwhile; its move is applied only if the game has not changed since."""
        try:
            await asyncio.sleep(self.computer_delay)
            async with live.lock:
                await self._refresh(live)
                if live.record.version != version or not live.is_live:
                    return
                await self._check_flag_locked(live)
                if not live.is_live:
                    return
                clock = live.clock()
                remaining_ms = increment_ms = None
                if clock is not None:
                    white_ms, black_ms = clock.at(utcnow())
                    remaining_ms = white_ms if live.side_to_move == WHITE else black_ms
                    increment_ms = live.record.clock_increment_ms or 0
                level = live.record.computer_level or 1
                game = live.rules
            move = await self.engine.choose(game, level, remaining_ms, increment_ms or 0)
            async with live.lock:
                await self._refresh(live)
                if live.record.version != version or not live.is_live:
                    return
                await self._check_flag_locked(live)
                if live.is_live and move is not None:
                    # The move came back from another process: take the position's own copy of it.
                    move = live.rules.position.parse_move(move.notation(live.rules.variant))
                    await self._apply(live, move, 0)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the computer failed to move in game %s", live.id)
