"""An engine job carries the game's draw counts (Russian's endgame tables are believed only within them),
through the JSON a `shashki worker` receives and through the server's own process pool."""

from __future__ import annotations

import asyncio

from shashki.engine import Limit
from shashki.engine.alphabeta import WIN_BOUND
from shashki.engine.pool import AsyncEngine
from shashki.engine.tablebase import default_tablebase
from shashki.rules import Game
from shashki.rules.variant import DrawRule
from shashki.server.jobs import decode_counts, encode_job


def counted_game() -> Game:
    """Three kings against a king, won in the tables, after twelve plies of the 15 moves FMJD-64 7.2.4
    allows, each side keeping the end as far as it can without repeating a position: too late to win."""
    table = default_tablebase("russian")
    game = Game("russian", "W:WKa1,Kc1,Ke1:BKd8")
    seen = {game.position}
    for _ in range(12):
        pos = game.position
        result = table.probe(pos)[0]

        def far(move, pos=pos, result=result) -> int:
            child_result, child_plies = table.probe(pos.play(move))
            return child_plies if child_result == -result else -1000

        move = max((m for m in pos.legal_moves() if pos.play(m) not in seen), key=far)
        game.play(move)
        seen.add(game.position)
    count, limit = game.count_states[DrawRule.KINGS_3_VS_1_15]
    assert table.probe(game.position)[1] > limit - count
    return game


def test_a_job_carries_the_games_draw_counts():
    game = counted_game()
    job = encode_job("play", game.position, [], Limit(depth=3), None, counts=game.count_states)
    assert decode_counts(job) == game.count_states and len(game.count_states) == 3
    assert decode_counts(encode_job("play", game.position, [], None, None)) is None


def test_the_process_pool_searches_with_the_games_counts():
    game = counted_game()

    async def scores() -> tuple[int, int]:
        async with AsyncEngine(workers=1) as engine:
            with_counts = await engine.play(game, Limit(depth=6))
            bare = await engine.play(game.position, Limit(depth=6))
            return with_counts.score, bare.score

    with_counts, bare = asyncio.run(scores())
    assert bare >= WIN_BOUND > with_counts
