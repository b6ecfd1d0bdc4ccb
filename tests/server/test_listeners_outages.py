"""A timer's or the computer's action that meets an outage (the database or Redis away) is tried again
until it succeeds (found by an audit: with PostgreSQL down for a few seconds, a flag that was due never
fell, and a computer that was to move never did, until someone happened to read the game)."""

from __future__ import annotations

import asyncio

from redis.exceptions import ConnectionError as RedisConnectionError
from sqlalchemy.exc import OperationalError

from shashki.server.games import listeners
from shashki.server.games.computer import RandomOpponent
from shashki.server.games.listeners import Background, FirstMoveTimer, FlagTimer
from shashki.server.games.service import GameService
from shashki.server.redisbus import make_bus

from .test_game_parts import _service


class Failing:
    """The actions of a timer, failing with an outage the first `outages` times."""

    def __init__(self, outages: int) -> None:
        self.outages = outages
        self.calls = 0

    async def _call(self) -> None:
        self.calls += 1
        if self.calls <= self.outages:
            raise OperationalError("SELECT 1", {}, ConnectionRefusedError("the database is down"))

    async def check_flag(self, game_id: str) -> None:
        await self._call()

    async def abort_unstarted(self, game_id: str, first_move_ms: int) -> None:
        await self._call()


def test_a_flag_check_and_a_first_move_abort_that_meet_an_outage_are_tried_again(monkeypatch):
    monkeypatch.setattr(listeners, "retry_after", lambda failures: 0.01)

    async def scenario():
        background = Background()
        flags, first = Failing(3), Failing(2)
        flag_timer = FlagTimer(flags, background)  # type: ignore[arg-type]
        first_timer = FirstMoveTimer(first, background, 1.0)  # type: ignore[arg-type]
        flag_timer._arm_in("g1", 0)
        first_timer._arm_in("g2", 0)
        for _ in range(200):
            if flags.calls > 3 and first.calls > 2:
                break
            await asyncio.sleep(0.01)
        held = (flag_timer.holds("g1"), "g2" in first_timer._timers)
        await background.close()
        return flags.calls, first.calls, held

    # Each tried until it got through, and not again after.
    assert asyncio.run(scenario()) == (4, 3, (False, False))


class FailsFirst(RandomOpponent):
    """A computer whose first thought fails with `error`, then moves."""

    def __init__(self, error: Exception) -> None:
        super().__init__(seed=5)
        self.error = error
        self.asked = 0

    async def choose(self, game, level, remaining_ms=None, increment_ms=0):
        self.asked += 1
        if self.asked == 1:
            raise self.error
        return await super().choose(game, level, remaining_ms, increment_ms)


def test_the_computer_moves_once_the_outage_that_met_its_move_has_passed(tmp_path, monkeypatch):
    monkeypatch.setattr(listeners, "retry_after", lambda failures: 0.01)
    engine = FailsFirst(RedisConnectionError("Redis is restarting"))  # its job queue away
    assert asyncio.run(_computer_game(tmp_path, engine, _until_answered)) == 2
    assert engine.asked == 2


async def _until_answered(games, game_id) -> int:
    """The game's ply once the computer has answered the first move (or after 3 s)."""
    for _ in range(300):
        if (await games.get_state(game_id))["ply"] == 2:
            break
        await asyncio.sleep(0.01)
    return (await games.get_state(game_id))["ply"]


class ThinksForever(RandomOpponent):
    """A computer that never finishes thinking, and says when its search is called off."""

    def __init__(self) -> None:
        super().__init__(seed=5)
        self.cancelled = asyncio.Event()

    async def choose(self, game, level, remaining_ms=None, increment_ms=0):
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


async def _computer_game(tmp_path, engine, play):
    db, first = await _service(tmp_path)
    await first.close()
    games = GameService(db, make_bus(None), engine=engine, computer_delay_seconds=0)
    try:
        live = await games.create(white_id=1, black_id=None, computer_level=1)
        await games.move(1, live.id, "c3-d4", ply=0)
        return await play(games, live.id)
    finally:
        await games.close()
        await db.close()


def test_a_computer_move_that_failed_is_tried_again(tmp_path, monkeypatch):
    """Found by an audit: a failure that was no outage (the engine's process pool broken) was logged
    and the turn given up: the game waited for a move that never came."""
    monkeypatch.setattr(listeners, "retry_after", lambda failures: 0.01)
    engine = FailsFirst(RuntimeError("A child process terminated abruptly"))  # its engine process lost
    assert asyncio.run(_computer_game(tmp_path, engine, _until_answered)) == 2
    assert engine.asked == 2


def test_a_search_nobody_wants_any_more_is_called_off(tmp_path):
    """The player resigns while the computer thinks: its search is cancelled, so that it leaves the
    engine's queue (found by an audit: takebacks and resignations left their searches running, and
    every other game's computer waited behind them)."""
    engine = ThinksForever()

    async def play(games, game_id):
        await asyncio.sleep(0.1)  # the computer is thinking
        assert not engine.cancelled.is_set()
        await games.resign(1, game_id)
        await asyncio.wait_for(engine.cancelled.wait(), 5)
        return True

    assert asyncio.run(_computer_game(tmp_path, engine, play))
