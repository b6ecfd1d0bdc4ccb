"""The timers that keep games moving on their own: the flag timer (a game ends on time even when nobody
acts), the first-move timer and the computer opponent (it moves when it is its turn). The game's owner
(games/owners.py: this process alone, or the holder of the game's lease when several processes serve
it) arms them after every change committed (`GameStore.add_listener`), and drops them (`drop`) when
another process takes the game; each works in tasks of its own, so that a commit never calls back into
itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from datetime import datetime, timedelta
from typing import Any

from shashki.rules import Color
from shashki.server.errors import UNAVAILABLE, log_failure
from shashki.server.games.actions import GameActions
from shashki.server.games.clock import CLOCK_STARTS_AT_PLY
from shashki.server.games.computer import Opponent
from shashki.server.games.live import LiveGame
from shashki.server.games.store import GameStore
from shashki.server.storage.base import utcnow

log = logging.getLogger(__name__)

ENGINE_RETRIES = 3  # a computer's move that failed otherwise than by an outage: tried again this often


def retry_after(failures: int) -> float:
    """The wait before a timer's or the computer's action is tried again after `failures` outages in a
    row (the database or Redis away): 0.5, 1, 2, 4, then 5 s. Until it succeeds, or the game is another
    process's (`drop`) or changes (the listener is told again): a flag check or a computer's move that met
    an outage was given up, and the game hung until someone read it (found by an audit)."""
    return min(5.0, 0.5 * 2**failures)


class Background:
    """Tasks started by listeners, cancelled together when the server stops."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task


class FlagTimer:
    """Arms a timer for the moment the running clock of each live game runs out; when it fires, the game
    is checked (under its lock, brought up to date) and ends on time if the clock has indeed run out.

    A correspondence game's deadline is days away: no timer is held for it until it comes within
    `horizon_seconds`. Until then the deadline lives in the database only (`move_deadline_at`, indexed),
    and `sweep` — every half horizon, and once when the server starts — arms the timers of the games
    whose deadlines come within the horizon. So a server holds timers for the next hour's deadlines, not
    for every correspondence game, and a restart loses none (the deadline is read back from the record).
    """

    def __init__(
        self, actions: GameActions, background: Background, *, horizon_seconds: float = 3600.0
    ) -> None:
        self.actions = actions
        self.background = background
        self.horizon_seconds = horizon_seconds
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._failures: dict[str, int] = {}  # outages met in a row by a game's check

    def __call__(self, live: LiveGame) -> None:
        timer = self._timers.pop(live.id, None)
        if timer is not None:
            timer.cancel()
        self._failures.pop(live.id, None)
        if not live.is_live:
            return
        deadline = live.deadline()
        if deadline is not None:
            self.arm(live.id, deadline)
            return
        clock = live.clock()
        if clock is None or not clock.running:
            return
        delay = clock.mover_left(utcnow()) / 1000 + 0.005
        self._arm_in(live.id, delay)

    def arm(self, game_id: str, deadline: datetime) -> None:
        """Arm the check of a correspondence game for its deadline, if it falls within the horizon."""
        delay = (deadline - utcnow()).total_seconds()
        if delay <= self.horizon_seconds:
            self._arm_in(game_id, max(0.0, delay) + 0.005)

    def _arm_in(self, game_id: str, delay: float) -> None:
        old = self._timers.pop(game_id, None)
        if old is not None:
            old.cancel()
        self._timers[game_id] = asyncio.get_running_loop().call_later(delay, self._fire, game_id)

    async def sweep(self) -> int:
        """Arm the timers of the correspondence games whose deadlines come within the horizon (read
        from the database: this process may never have loaded them). Returns how many are armed."""
        until = utcnow() + timedelta(seconds=self.horizon_seconds)
        due = await self.actions.store.queries.deadlines_before(until)
        for game_id, deadline in due:
            if game_id not in self._timers:
                self.arm(game_id, deadline)
        return len(due)

    async def sweep_forever(self) -> None:
        while True:
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log_failure(log, "the correspondence deadlines could not be read")
            await asyncio.sleep(self.horizon_seconds / 2)

    def drop(self, game_id: str) -> None:
        """Hold no timer for the game (another process owns it now)."""
        timer = self._timers.pop(game_id, None)
        if timer is not None:
            timer.cancel()
        self._failures.pop(game_id, None)

    @property
    def armed(self) -> int:
        """How many timers this process holds."""
        return len(self._timers)

    def holds(self, game_id: str) -> bool:
        """Whether a timer is armed for the game here."""
        return game_id in self._timers

    def _fire(self, game_id: str) -> None:
        self._timers.pop(game_id, None)
        self.background.spawn(self._check(game_id))

    async def _check(self, game_id: str) -> None:
        try:
            await self.actions.check_flag(game_id)
            self._failures.pop(game_id, None)
        except UNAVAILABLE:
            log_failure(log, "the flag check of game %s failed; tried again", game_id)
            if game_id not in self._timers:  # not armed again meanwhile (a change, a drop)
                failures = self._failures.get(game_id, 0)
                self._failures[game_id] = failures + 1
                self._arm_in(game_id, retry_after(failures))
        except Exception:
            log_failure(log, "the flag check of game %s failed", game_id)

    def close(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()


class FirstMoveTimer:
    """Aborts a game with a clock whose side to move has not made its first move within `seconds` of its
    turn starting: armed when the game starts, after the first move (for the other side's first move),
    and again when the server resumes the game (its turn restarted then). lichess aborts such games
    (after some 15-35 s); the time is `SHASHKI_FIRST_MOVE_SECONDS`. Games without a clock are left alone:
    there is no hurry in them, and either player may abort them before each side has moved.
    """

    def __init__(self, actions: GameActions, background: Background, seconds: float) -> None:
        self.actions = actions
        self.background = background
        self.first_move_ms = int(seconds * 1000)
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._failures: dict[str, int] = {}

    def __call__(self, live: LiveGame) -> None:
        timer = self._timers.pop(live.id, None)
        if timer is not None:
            timer.cancel()
        self._failures.pop(live.id, None)
        r = live.record
        if self.first_move_ms <= 0 or not live.is_live or r.ply >= CLOCK_STARTS_AT_PLY:
            return
        if r.clock_initial_ms is None:
            return
        waited_ms = (utcnow() - r.turn_started_at).total_seconds() * 1000
        delay = max(0.0, (self.first_move_ms - waited_ms) / 1000) + 0.005
        self._arm_in(live.id, delay)

    def _arm_in(self, game_id: str, delay: float) -> None:
        self._timers[game_id] = asyncio.get_running_loop().call_later(delay, self._fire, game_id)

    def _fire(self, game_id: str) -> None:
        self._timers.pop(game_id, None)
        self.background.spawn(self._abort(game_id))

    def drop(self, game_id: str) -> None:
        """Hold no timer for the game (another process owns it now)."""
        timer = self._timers.pop(game_id, None)
        if timer is not None:
            timer.cancel()
        self._failures.pop(game_id, None)

    async def _abort(self, game_id: str) -> None:
        try:
            await self.actions.abort_unstarted(game_id, self.first_move_ms)
            self._failures.pop(game_id, None)
        except UNAVAILABLE:
            log_failure(log, "the first-move timer of game %s failed; tried again", game_id)
            if game_id not in self._timers:
                failures = self._failures.get(game_id, 0)
                self._failures[game_id] = failures + 1
                self._arm_in(game_id, retry_after(failures))
        except Exception:
            log_failure(log, "the first-move timer of game %s failed", game_id)

    def close(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()


# In a timed game the computer's pause before it thinks is at most this share of its clock: the pause
# runs on its clock, and a fixed one would flag it in the fastest games (found by an audit).
DELAY_SHARE = 1 / 100


def _turn(live: LiveGame) -> tuple[int, int]:
    return live.record.ply, live.record.takebacks


class ComputerTurns:
    """Lets the computer move when it is its turn, after `delay` seconds (less on a short clock:
    `DELAY_SHARE`). The engine thinks without holding the game's lock, so that the person can still
    resign or claim meanwhile; its move is applied only if no move has been played since, the game goes
    on, and it is still wanted here (`drop`: the game is another process's now). One turn per ply of a
    game: told again of the same position — a draw offer it declined, a chat setting — it does not think
    again (a declined offer restarted its search, found by an audit). A ply is told apart from the same
    ply before a takeback (`takebacks`), whose search's move is never played in the position after."""

    def __init__(
        self,
        store: GameStore,
        actions: GameActions,
        engine: Opponent,
        background: Background,
        *,
        delay: float = 0.3,
    ) -> None:
        self.store = store
        self.actions = actions
        self.engine = engine
        self.background = background
        self.delay = delay
        # The turn of each game at which the computer is to move: its ply and the plies taken back.
        self._turns: dict[str, tuple[int, int]] = {}
        # The engine's search of each game's turn while it runs: cancelled when the turn passes (a
        # takeback, a resignation), so that a search nobody wants leaves the engine's queue (found by an
        # audit: thirty takebacks queued thirty searches, and everyone's computer waited behind them).
        self._thinking: dict[str, tuple[tuple[int, int], asyncio.Future]] = {}

    def __call__(self, live: LiveGame) -> None:
        turn = _turn(live)
        wanted = live.is_live and live.is_computer(live.to_move)
        thinking = self._thinking.get(live.id)
        if thinking is not None and (not wanted or thinking[0] != turn):
            del self._thinking[live.id]
            thinking[1].cancel()
        if not wanted:
            self._turns.pop(live.id, None)
        elif self._turns.get(live.id) != turn:
            self._turns[live.id] = turn
            self.background.spawn(self._move(live, turn))

    def drop(self, game_id: str) -> None:
        """Make no move in the game (another process owns it now)."""
        self._turns.pop(game_id, None)

    def _wanted(self, live: LiveGame, turn: tuple[int, int]) -> bool:
        return self._turns.get(live.id) == turn and _turn(live) == turn and live.is_live

    def pause(self, live: LiveGame) -> float:
        """The pause before the computer thinks: `delay`, and in a timed game at most `DELAY_SHARE` of
        the time left on its clock."""
        clock = live.clock()
        if clock is None:
            return self.delay
        white_ms, black_ms = clock.at(utcnow())
        left_ms = white_ms if live.to_move is Color.WHITE else black_ms
        return max(0.0, min(self.delay, left_ms / 1000 * DELAY_SHARE))

    async def _move(self, live: LiveGame, turn: tuple[int, int]) -> None:
        """The computer's move at `turn`, tried again after an outage for as long as the turn is wanted."""
        game_id = live.id
        failures = 0
        try:
            while True:
                try:
                    if failures:  # the copy may have been dropped with the failure: read afresh
                        live = await self.store.live(game_id)
                    await self._try_move(live, turn)
                    return
                except asyncio.CancelledError:
                    raise
                except Exception as error:
                    # An outage is waited out; any other failure (an engine process lost) is tried
                    # again a few times (found by an audit: one failure left the game without its move).
                    if not isinstance(error, UNAVAILABLE) and failures >= ENGINE_RETRIES:
                        raise
                    log_failure(log, "the computer failed to move in game %s; tried again", game_id)
                    if self._turns.get(game_id) != turn:
                        return
                    await asyncio.sleep(retry_after(failures))
                    failures += 1
        except asyncio.CancelledError:
            raise
        except Exception:
            log_failure(log, "the computer failed to move in game %s", game_id)
        finally:
            if self._turns.get(game_id) == turn:
                del self._turns[game_id]

    async def _try_move(self, live: LiveGame, turn: tuple[int, int]) -> None:
        await asyncio.sleep(self.pause(live))
        async with self.store.locked(live):
            if not self._wanted(live, turn):
                return
            await self.actions.flag_locked(live)
            if not live.is_live:
                return
            clock = live.clock()
            remaining_ms = None
            if clock is not None:
                white_ms, black_ms = clock.at(utcnow())
                remaining_ms = white_ms if live.to_move is Color.WHITE else black_ms
            increment_ms = live.record.clock_increment_ms or 0
            level = live.record.computer_level or 1
            game = live.rules
        thinking = asyncio.ensure_future(self.engine.choose(game, level, remaining_ms, increment_ms))
        self._thinking[live.id] = (turn, thinking)
        try:
            move = await thinking
        finally:
            if self._thinking.get(live.id, (None, None))[1] is thinking:
                del self._thinking[live.id]
        async with self.store.locked(live):
            if not self._wanted(live, turn):
                return
            await self.actions.flag_locked(live)
            if live.is_live and move is not None:
                # The move came back from another process: the rules take the position's own copy.
                await self.actions.play(live, move)
