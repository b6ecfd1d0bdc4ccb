"""A process whose cached game another process has moved on catches up by the moves since (issue 11), not
by loading and replaying the whole game: the two processes' games agree move after move, the catching
up reads only the moves after its own, and an end decided off the board by the other process (a
resignation) is taken up too."""

from __future__ import annotations

import asyncio
import random

from sqlalchemy import event

from shashki.server.games.computer import RandomOpponent
from shashki.server.games.service import GameService
from shashki.server.redisbus import make_bus
from shashki.server.storage import Database

from .test_game_parts import _service


def _as_if_shared(games: GameService) -> None:
    """Two services on one database stand for two processes: their bus says other processes exist, so
    each checks the game's version before acting (as with Redis)."""
    games.store.bus.shared = True  # type: ignore[misc]


async def _two_processes(tmp_path) -> tuple[Database, GameService, GameService]:
    """Two game services on one database, standing for two processes (`_as_if_shared`)."""
    db, one = await _service(tmp_path)
    other = GameService(db, make_bus(None), engine=RandomOpponent(seed=1), computer_delay_seconds=0)
    for games in (one, other):
        _as_if_shared(games)
    return db, one, other


def test_a_game_moved_on_by_another_process_is_caught_up_with_the_moves_since(tmp_path):
    rng = random.Random(3)

    async def scenario():
        db, one, other = await _two_processes(tmp_path)
        live = await one.create(white_id=1, black_id=2)
        await other.store.live(live.id)  # both processes hold the game
        seen: list[str] = []
        event.listen(db.engine.sync_engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
        states = []
        state = one.state(live)
        for ply in range(24):
            mover = (one, other)[ply % 2]  # the players' sockets are on different processes
            if state["status"] != "started":
                break
            user = 1 if state["side_to_move"] == "white" else 2
            move = rng.choice(state["legal_moves"])["move"]
            state = await mover.move(user, live.id, move, ply=ply)  # the state the other process publishes
            states.append(state)
        ended = await one.resign(2, live.id)
        last = await other.get_state(live.id)  # the other process takes the resignation up
        cached = (one.store.cached, other.store.cached)  # and no longer keeps the finished game
        reads = [" ".join(s.split()) for s in seen if "FROM moves" in s]
        for games in (one, other):
            await games.close()
        await db.close()
        return states, ended, last, reads, cached

    states, ended, last, reads, cached = asyncio.run(scenario())
    assert len(states) >= 8 and [s["ply"] for s in states] == list(range(1, len(states) + 1))
    assert states[-1]["moves"] == [s["moves"][-1] for s in states]  # each process saw every move
    # Each catching up read the moves from its own ply on (never the whole game: no read without a ply).
    assert reads and all("moves.ply >=" in r for r in reads[: len(states) - 1])
    assert ended["status"] != "started" and ended["winner"] == "white"
    assert cached == (0, 0)
    assert (last["status"], last["winner"], last["moves"]) == (ended["status"], "white", states[-1]["moves"])


def test_a_game_taken_back_by_another_process_is_loaded_afresh_even_at_the_ply_it_had(tmp_path):
    """A takeback made elsewhere and moves played after it, back to the ply this process's copy had: the
    copy's moves no longer lead to the stored ones, and the count of takebacks says so (games/takeback.py),
    so the game is loaded afresh, not caught up with "no move since"."""

    async def scenario():
        db, one, other = await _two_processes(tmp_path)
        live = await one.create(white_id=1, black_id=2)
        await one.move(1, live.id, "c3-d4", ply=0)
        await one.move(2, live.id, "f6-g5", ply=1)
        await other.store.live(live.id)
        await other.offer_takeback(1, live.id)  # White, to move, asks for two plies back
        await other.accept_takeback(2, live.id)
        await other.move(1, live.id, "a3-b4", ply=0)
        there = await other.move(2, live.id, "h6-g5", ply=1)
        here = await one.get_state(live.id)
        # The next move is made here, on the game as stored.
        after = await one.move(1, live.id, "b4-a5", ply=2)
        for games in (one, other):
            await games.close()
        await db.close()
        return there, here, after

    there, here, after = asyncio.run(scenario())
    assert there["moves"] == here["moves"] == ["a3-b4", "h6-g5"]
    assert here["fen"] == there["fen"]
    assert after["moves"] == ["a3-b4", "h6-g5", "b4-a5"]
