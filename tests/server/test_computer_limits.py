"""What one computer's move may take of the engine every game shares (found by an audit: on a 180+180
clock a level-8 move thought for the time manager's share, 500 s, and every other game's computer
waited behind it)."""

from __future__ import annotations

import asyncio

from shashki.engine import time_for_move
from shashki.rules import Game
from shashki.server.games.computer import MAX_MOVE_SECONDS, EngineOpponent


class Recorder:
    """An engine that records the limit it is asked to think within, and answers the first move."""

    def __init__(self) -> None:
        self.limits: list = []
        self.pending = 0

    async def play(self, game, limit, level=None):
        self.limits.append(limit)

        class Result:
            move = game.legal_moves()[0]

        return Result()


def test_a_timed_move_thinks_the_time_managers_share_but_never_longer_than_the_cap():
    opponent = EngineOpponent()
    engine = opponent._engine = Recorder()  # type: ignore[assignment]
    game = Game("russian")
    for minutes, increment in ((180, 180), (45, 45), (1, 0)):
        asyncio.run(opponent.choose(game, 8, minutes * 60_000, increment * 1000))
    long, medium, short = (limit.time for limit in engine.limits)
    assert time_for_move(180 * 60, 180) > MAX_MOVE_SECONDS and long == MAX_MOVE_SECONDS
    assert time_for_move(45 * 60, 45) > MAX_MOVE_SECONDS and medium == MAX_MOVE_SECONDS
    assert short == time_for_move(60, 0) < MAX_MOVE_SECONDS  # a short clock's share is kept
