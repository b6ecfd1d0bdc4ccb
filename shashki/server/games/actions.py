"""What players do in a game: move, resign, abort, give time (the draws and the claims on an opponent who
left are games/draws.py's, the takebacks games/takeback.py's); and the finisher, which ends a game with a
rules `Outcome` (the only way a game ends besides the rules' own end after a move). Each action runs
under the game's lock, on the game brought up to date from the database, after the flag check (a clock
that has run out ends the game first), and is committed by the store.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextvars import ContextVar
from datetime import timedelta
from typing import Any, TypeVar, cast

from shashki.rules import Color, IllegalMove, Move, Outcome
from shashki.rules.game import RESIGNATION, TIME
from shashki.server import metrics
from shashki.server.errors import Conflict, Forbidden, Invalid, ServiceError
from shashki.server.games.clock import CLOCK_STARTS_AT_PLY, elapsed_ms
from shashki.server.games.live import LiveGame
from shashki.server.games.store import GameStore, StaleCopy
from shashki.server.games.view import GameView, move_named
from shashki.server.storage.base import utcnow

# Set while an action is tried again after a refusal made on a copy trusted without reading (below).
_READ_FIRST: ContextVar[bool] = ContextVar("read_first", default=False)
# Whether each copy an action was decided on had been trusted without reading its stored version.
_TRUSTED: ContextVar[list[bool] | None] = ContextVar("trusted", default=None)

Action = TypeVar("Action", bound=Callable[..., Awaitable[Any]])

# What a player gives the opponent at a time, and the most a clock may hold from such gifts (3 hours).
MORE_TIME_MS = 15_000
MOST_TIME_MS = 3 * 3600 * 1000


def checked_again(action: Action) -> Action:
    """A player's action refused on a cached copy that was trusted without reading the stored version
    (several processes: `games/follow.py`), or refused by its commit's compare-and-set because another
    process changed the game between this one's read and its write (`StaleCopy`), is tried once more on
    the game read afresh: a change made elsewhere never turns a legal action into a refusal (not your
    turn, bad ply, game over, the game changed...), and two players offering each other a draw at the
    same moment agree. Any other refusal made after a read stands as it is."""

    @functools.wraps(action)
    async def checked(*args: Any, **kwargs: Any) -> Any:
        trusted: list[bool] = []
        token = _TRUSTED.set(trusted)
        try:
            return await action(*args, **kwargs)
        except ServiceError as refused:
            if not any(trusted) and not isinstance(refused, StaleCopy):
                raise
        finally:
            _TRUSTED.reset(token)
        again = _READ_FIRST.set(True)
        try:
            return await action(*args, **kwargs)
        finally:
            _READ_FIRST.reset(again)

    return cast(Action, checked)


class GameActions:
    def __init__(self, store: GameStore, *, max_lag_ms: int = 500) -> None:
        self.store = store
        self.max_lag_ms = max_lag_ms

    @contextlib.asynccontextmanager
    async def seated(
        self, user_id: int, game_id: str, *, flag: bool = True, ply: int | None = None
    ) -> AsyncIterator[tuple[LiveGame, Color]]:
        """A player's action on a live game: under the game's lock, brought up to date from the database,
        after the flag check (unless `flag` is False), refused if the game is over. A client that names
        a later ply than the cached copy's has seen a change this process has not: the stored version is
        read whatever the copy is thought to be (`GameCache.refresh`)."""
        live = await self.store.live(game_id)
        color = live.seat(user_id)
        if color is None:
            raise Forbidden("not_your_game", "You are not a player of this game.")
        read = _READ_FIRST.get() or (ply is not None and ply > live.record.ply)
        async with self.store.locked(live, read=read):
            trusted = _TRUSTED.get()
            if trusted is not None:
                trusted.append(live.trusted)
            if flag:
                await self.flag_locked(live)
            if not live.is_live:
                raise Conflict("game_over", f"The game is over ({live.record.reason}).")
            yield live, color

    # -- moves --------------------------------------------------------------------------------------

    @checked_again
    async def move(
        self, user_id: int, game_id: str, move: str | Move, *, ply: int | None = None, lag_ms: int = 0
    ) -> dict[str, Any]:
        """Play `move` (text in the variant's notation, or a rules Move) for the user; `ply` (the number of
        plies before this move) guards against replays. Returns the new state once the move is committed.
        Refused moves change nothing.
        """
        async with self.seated(user_id, game_id, ply=ply) as (live, color):
            if ply is not None and ply != live.record.ply:
                if ply < live.record.ply:
                    raise Conflict(
                        "ply_already_played",
                        f"Ply {ply} has already been played; the game is at ply {live.record.ply}.",
                    )
                raise Invalid("bad_ply", f"The game is at ply {live.record.ply}, not {ply}.")
            if live.to_move is not color:
                raise Conflict("not_your_turn", "It is not your turn.")
            view = await self.play(live, move if isinstance(move, Move) else str(move), lag_ms)
        return view.to_json()

    async def play(self, live: LiveGame, move: str | Move, lag_ms: int = 0) -> GameView:
        """Play a move of the side to move (under the lock): the rules check it, decide any end, and the
        store commits it with the clocks. IllegalMove from the rules becomes Invalid, changing nothing."""
        r = live.record
        now = utcnow()
        color = live.to_move
        clock = live.clock()  # the mover's, read before the move changes the side to move
        if isinstance(move, str):
            # The exact notation of a legal move resolves from the position's cached moves (games/view.py);
            # anything else goes to the rules' parser, which reads liberal notation and explains refusals.
            move = move_named(live.rules.position, move.strip()) or move
        try:
            played = live.rules.play(move)
        except IllegalMove as e:
            raise Invalid(e.code, e.message, legal=e.legal) from None
        notation = played.notation(live.rules.variant)
        white_ms, black_ms = r.white_ms, r.black_ms
        if clock is not None and clock.running:  # a legal move: its time charged, its delay credited
            spent = elapsed_ms(clock.since, now)
            credit = live.lag_quota(color).take(lag_ms, most_ms=self.max_lag_ms, spent_ms=spent)
            increment = live.increment_ms(color)
            white_ms, black_ms = clock.after_move(now, increment_ms=increment, credit_ms=credit)
        changes: dict[str, Any] = {
            "ply": r.ply + 1,
            "white_ms": white_ms,
            "black_ms": black_ms,
            "turn_started_at": now,
        }
        if r.days_per_move is not None:
            # Correspondence: the next move has the whole of its days again (lichess's days per turn).
            changes["move_deadline_at"] = now + timedelta(days=r.days_per_move)
        # A draw offer lapses when the side it was made to moves instead of accepting it, and with the
        # end of the game.
        if r.draw_offer is color.other or (r.draw_offer is not None and live.rules.outcome is not None):
            changes["draw_offer"] = None
        # A takeback asked for lapses with the next move, whoever makes it, and one declined may be asked
        # for again (games/takeback.py).
        if r.takeback_offer is not None:
            changes["takeback_offer"] = None
        if r.takeback_declined is not None:
            changes["takeback_declined"] = None
        row = {  # the columns of its row in `moves` (games/models.py MoveRecord)
            "game_id": r.id,
            "ply": r.ply,
            "notation": notation,
            "played_at": now,
            "clock_ms": (white_ms if color is Color.WHITE else black_ms) if clock is not None else None,
        }
        live.notations.append(notation)
        try:
            view = await self.store.commit(live, changes, row, outcome=live.rules.outcome)
        except BaseException:
            # The rules game has been played forward: rebuild it from what the database holds.
            self.store.forget(live.id)
            live.stale = True
            raise
        metrics.MOVES_BY["computer" if live.is_computer(color) else "player"].inc()
        return view

    # -- the end of a game --------------------------------------------------------------------------

    async def finish(self, live: LiveGame, outcome: Outcome) -> GameView:
        """End the game with `outcome` (under the lock); a standing draw offer or takeback request goes
        with it."""
        return await self.store.commit(live, {"draw_offer": None, "takeback_offer": None}, outcome=outcome)

    async def flag_locked(self, live: LiveGame) -> None:
        """End the game on time if the side to move's clock has run out, or its days in a correspondence
        game (under the lock). A correspondence game whose side to move has not made its first move in
        its days is aborted instead, as lichess does: nobody has played it yet."""
        now = utcnow()
        clock = live.clock()
        if live.is_live and clock is not None and clock.flagged(now):
            await self.finish(live, Outcome.win(live.to_move.other, TIME))
        deadline = live.deadline()
        if live.is_live and deadline is not None and now >= deadline:
            if live.record.ply < CLOCK_STARTS_AT_PLY:
                await self.finish(live, Outcome.aborted())
            else:
                await self.finish(live, Outcome.win(live.to_move.other, TIME))

    async def stop_clock(self, game_id: str) -> None:
        """A clean stop's: the clocks of a game with a running clock written as they stand now, the
        turn begun again from now (a side out of time loses first), so that the next start, which
        restarts the turn from the stored time (`GameStore.restart_turn`), charges nobody the time the
        server was down and gives nobody back the time already thought (lichess saves its clocks as it
        stops). A correspondence game keeps its stored deadline."""

        async def stop(live: LiveGame) -> None:
            await self.flag_locked(live)
            clock = live.clock()
            if live.is_live and clock is not None and clock.running:
                now = utcnow()
                await self.store.commit(live, live.turn_restarted(now, now))

        await self._timed(game_id, stop)

    async def check_flag(self, game_id: str) -> None:
        """The flag check on its own (the flag timer's): the game brought up to date, under its lock."""
        await self._timed(game_id, self.flag_locked)

    async def _timed(self, game_id: str, act: Callable[[LiveGame], Awaitable[None]]) -> None:
        """A timer's action (the flag, the first move's wait) under the game's lock. Refused by its commit
        because another process changed the game meanwhile (a move the timer's process had not heard of yet:
        `StaleCopy`), it is done once more on the game read afresh, which may not need it any more: the
        race the timers lose now and then, not a failure (found by an audit: logged with a traceback)."""
        for attempt in (1, 2):
            live = await self.store.live(game_id)
            try:
                async with self.store.locked(live, read=attempt > 1):
                    await act(live)
                return
            except StaleCopy:
                if attempt == 2:
                    raise

    # -- time given, resignation, abort --------------------------------------------------------------

    @checked_again
    async def give_time(self, user_id: int, game_id: str) -> dict[str, Any]:
        """Give the opponent `MORE_TIME_MS` on their clock (lichess's "Give 15 seconds"): in a game with a
        clock between two players, outside tournaments, whose end it must not decide."""
        async with self.seated(user_id, game_id) as (live, color):
            r = live.record
            opponent = color.other
            if live.clock() is None:
                raise Conflict("no_clock", "This game has no clock to give time on.")
            if live.tournament is not None or live.is_computer(opponent):
                raise Conflict("cannot_give_time", "Time is given only in a game between two players outside "
                               "tournaments.")  # fmt: skip
            column = "white_ms" if opponent is Color.WHITE else "black_ms"
            stored = getattr(r, column)
            if stored >= MOST_TIME_MS:
                raise Conflict("cannot_give_time", "Your opponent has plenty of time already.")
            view = await self.store.commit(live, {column: min(stored + MORE_TIME_MS, MOST_TIME_MS)})
        return view.to_json()

    async def halve_clock(self, game_id: str, color: Color) -> dict[str, Any]:
        """Halve `color`'s clock before that side's first move and take its increment away: an arena's
        berserk (lila `Berserk`; the tournaments decide who may). The clocks do not run before
        `CLOCK_STARTS_AT_PLY`, so the stored time is the whole of it. Done once however often it is
        asked, even by requests at the same time (the game's lock, and its flag)."""
        live = await self.store.live(game_id)
        async with self.store.locked(live):
            r = live.record
            if not live.is_live:
                raise Conflict("game_over", "The game is over.")
            first = live.rules.positions[0].side_to_move  # Black in English and Pool, or a set-up side
            if r.ply > (0 if color is first else 1):
                raise Conflict("already_moved", "Berserk is only possible before your first move.")
            current = getattr(r, f"{color.value}_ms")
            if current is None:
                raise Invalid("no_clock", "This game has no clock to halve.")
            if getattr(r, f"{color.value}_berserk"):
                return self.store.view(live).to_json()  # halved before
            view = await self.store.commit(
                live, {f"{color.value}_ms": current // 2, f"{color.value}_berserk": True}
            )
        return view.to_json()

    @checked_again
    async def resign(self, user_id: int, game_id: str) -> dict[str, Any]:
        """Resign; before each side has moved that is aborting the game, unrated, however it is asked (the
        site, the live channel, the Bot and Board APIs), as on lichess and lidraughts — except in a
        tournament's game, whose point a resignation gives the opponent whenever it comes."""
        async with self.seated(user_id, game_id) as (live, color):
            early = live.record.ply < CLOCK_STARTS_AT_PLY and live.tournament is None
            ending = Outcome.aborted() if early else Outcome.win(color.other, RESIGNATION)
            view = await self.finish(live, ending)
        return view.to_json()

    @checked_again
    async def abort(self, user_id: int, game_id: str) -> dict[str, Any]:
        """Call the game off, which either player may do until each side has made a move — except in a
        tournament's game, as on lichess: there a player resigns, and one who does not start loses by
        forfeit or is paused when the first-move timer aborts the game (`abort_unstarted`)."""
        async with self.seated(user_id, game_id, flag=False) as (live, _):
            if live.tournament is not None:
                raise Conflict(
                    "tournament_game",
                    "A tournament's game is not aborted: resign to give your opponent the point.",
                )
            if live.record.ply >= 2:
                raise Conflict("too_late_to_abort", "Both sides have moved: resign or offer a draw instead.")
            view = await self.finish(live, Outcome.aborted())
        return view.to_json()

    async def abort_unstarted(self, game_id: str, first_move_ms: int) -> None:
        """Abort a game in which the side to move has not made its first move within `first_move_ms`
        of its turn (the first-move timer's; lichess aborts such games too): a bot that crashed, a player
        who left, do not leave the game hanging. An aborted game is never rated."""

        async def abort_if_unstarted(live: LiveGame) -> None:
            r = live.record
            if not live.is_live or r.ply >= CLOCK_STARTS_AT_PLY:
                return
            waited = (utcnow() - r.turn_started_at).total_seconds() * 1000
            if waited >= first_move_ms:
                await self.finish(live, Outcome.aborted())

        await self._timed(game_id, abort_if_unstarted)
