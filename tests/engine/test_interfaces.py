"""Levels, the time manager, the process-pool wrapper and the Hub protocol."""

from __future__ import annotations

import asyncio
import io
import os
import stat
import sys
import time as time_module
from pathlib import Path

import pytest

from shashki.engine import LEVEL_SETTINGS, LEVELS, AsyncEngine, Engine, Limit, level_setting, time_for_move
from shashki.engine.hub import (
    HubSession,
    hub_move,
    hub_position,
    parse_hub_move,
    parse_hub_position,
    run,
)
from shashki.rules import Game, Position, get_variant


def test_levels_one_to_eight_are_documented_settings():
    assert sorted(LEVEL_SETTINGS) == list(range(1, 9))
    assert level_setting(1).blunder > 0 and level_setting(1).depth == 1
    assert level_setting(8).full_strength and level_setting(8).depth is None
    depths = [level_setting(n).depth or 99 for n in range(1, 9)]
    assert depths == sorted(depths)
    with pytest.raises(ValueError):
        level_setting(9)


def test_the_levels_a_game_may_ask_for_are_those_with_a_setting():
    assert list(LEVELS) == sorted(LEVEL_SETTINGS)
    assert (LEVELS.start, LEVELS.stop - 1) == (1, 8)  # what the lobby's refusal message quotes


@pytest.mark.parametrize("level", range(1, 9))
def test_every_level_plays_a_legal_move(level):
    game = Game("russian-giveaway")
    engine = Engine(level=level, seed=3)
    for _ in range(4):
        result = engine.play(game, Limit(time=0.2))
        assert result.move in game.position.legal_moves()
        game.play(result.move)


def test_a_level_with_a_seed_is_reproducible():
    pos = Position.start(get_variant("russian-giveaway"))
    first = [Engine(level=2, seed=11).play(pos).move for _ in range(3)]
    again = [Engine(level=2, seed=11).play(pos).move for _ in range(3)]
    assert first == again


def test_time_manager_spends_a_share_of_the_clock_plus_the_increment():
    assert 1.5 < time_for_move(60, 0) < 2.5
    assert time_for_move(60, 2) > time_for_move(60, 0)
    assert time_for_move(1, 0) <= 0.25
    assert time_for_move(10, 0, moves_to_go=1) > 5
    assert time_for_move(0, 0) > 0


def test_pool_wrapper_returns_a_legal_move_without_blocking_the_event_loop():
    async def main():
        game = Game("russian-giveaway")
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        async with AsyncEngine(workers=1) as engine:
            result = await engine.play(game, Limit(time=0.5))
            lines = await engine.analyse(game.position, Limit(depth=3))
        task.cancel()
        return game, result, lines, ticks

    game, result, lines, ticks = asyncio.run(main())
    assert result.move in game.position.legal_moves()
    assert [line.depth for line in lines] == [1, 2, 3]
    assert ticks >= 10  # the loop kept running while the worker thought


def test_a_pool_whose_worker_died_is_made_again_and_the_job_sent_again():
    """A worker killed (out of memory, by hand, its code replaced under it) breaks a process pool for
    good: found by an audit, the computer then never moved again until the server restarted."""
    import os
    import signal

    game = Game(get_variant("russian-giveaway"))

    async def main():
        async with AsyncEngine(workers=1) as engine:
            first = await engine.play(game, Limit(depth=2))
            for pid in list(engine._executor._processes):
                os.kill(pid, signal.SIGKILL)
            await asyncio.sleep(0.5)
            second = await engine.play(game, Limit(depth=2))
            return first, second, engine.restarts

    first, second, restarts = asyncio.run(main())
    assert first.move in game.position.legal_moves() and second.move in game.position.legal_moves()
    assert restarts == 1


def test_the_most_urgent_job_is_sent_first_and_a_cancelled_one_never_reaches_the_pool():
    """A timed game's move with the shortest budget goes first, an untimed one last; a job called off
    while it waits is never run (found by an audit: a 15+0 game's move waited behind two long
    searches and lost on time)."""
    import time

    async def main():
        async with AsyncEngine(workers=1) as engine:
            await engine._run(time.time)  # the process started
            busy = asyncio.ensure_future(engine._run(time.sleep, 0.6))
            await asyncio.sleep(0.1)
            late = asyncio.ensure_future(engine._run(time.time))  # untimed: sent first, run last
            slow = asyncio.ensure_future(engine._run(time.time, urgency=5.0))
            gone = asyncio.ensure_future(engine._run(time.sleep, 5, urgency=0.1))
            urgent = asyncio.ensure_future(engine._run(time.time, urgency=1.0))
            await asyncio.sleep(0.1)
            gone.cancel()
            await busy
            ends = [("late", await late), ("slow", await slow), ("urgent", await urgent)]
            order = sorted(ends, key=lambda end: end[1])
            started = time.monotonic()
            await engine._run(time.time)  # nothing left behind: the process is free at once
            return [name for name, _ in order], gone.cancelled(), time.monotonic() - started, engine.pending

    order, cancelled, wait, pending = asyncio.run(main())
    assert order == ["urgent", "slow", "late"]
    assert cancelled and wait < 2 and pending == 0  # the five-second job never ran


def test_a_pool_worker_keeps_each_variants_table_when_its_games_alternate():
    # What runs in a worker process, called here in this one: a game of Russian, then one of giveaway,
    # then Russian again, each with the engine (and the table) it had.
    from shashki.engine import pool

    pool._ENGINES.clear()
    russian = Position.start(get_variant("russian"))
    giveaway = Position.start(get_variant("russian-giveaway"))
    pool._play(russian, [], Limit(depth=5), None)
    table = pool._engine(None, russian).searcher.table
    stored = len(table)
    assert stored > 0
    pool._play(giveaway, [], Limit(depth=5), None)
    pool._play(giveaway, [], Limit(depth=5), 3)
    assert pool._engine(None, russian).searcher.table is table and len(table) >= stored
    assert pool._engine(None, giveaway) is not pool._engine(None, russian)
    for level in range(1, 9):  # beyond the engines kept, the least lately used go
        pool._engine(level, russian)
    assert len(pool._ENGINES) == pool._KEPT_ENGINES
    assert (None, "russian") not in pool._ENGINES
    pool._ENGINES.clear()


# ------------------------------------------------------------------------------------------------
# Hub protocol


@pytest.mark.parametrize("key", ["russian-giveaway", "international"])
def test_hub_positions_and_moves_round_trip(key):
    variant = get_variant(key)
    pos = Position.start(variant)
    assert parse_hub_position(hub_position(pos), variant) == pos
    for move in pos.legal_moves():
        assert parse_hub_move(pos, hub_move(move, variant)) is move


def test_hub_capture_move_lists_the_captured_squares():
    variant = get_variant("russian")
    pos = Position.from_fen("W:WKb2:Bb4,c3,b6,e7", variant)  # RULES.md §7, Turkish strike
    texts = sorted(hub_move(m, variant) for m in pos.legal_moves())
    # b2:d4:a7 takes c3 (22) and b6 (9); b2:f6:d8:a5 takes c3, e7 (7), b6: start, end, captured squares.
    assert texts == ["25x13x7x9x22", "25x5x9x22"]
    for move in pos.legal_moves():
        assert parse_hub_move(pos, hub_move(move, variant)) is move


def test_hub_session_answers_the_handshake_and_plays_a_move():
    out: list[str] = []
    session = HubSession(out.append)
    for line in ("hub", "init", "ping", "set-param name=variant value=russian-giveaway",
                 'pos moves="22-18"', "level depth=3", "go think"):
        session.handle(line)
    session.wait()
    assert out[0].startswith("id name=Shashki")
    assert out[1].startswith("param name=variant")
    assert out[2].startswith("param name=move-numbering")
    assert out[3] == "param name=giveaway value=false type=bool"
    assert out[4] == "param name=initial-time value=0 type=real"
    assert out[5:8] == ["wait", "ready", "pong"]
    assert any(line.startswith("info depth=3") for line in out)
    done = out[-1]
    assert done.startswith("done move=")
    pos = Position.start(get_variant("russian-giveaway"))
    pos = pos.play(parse_hub_move(pos, "22-18"))
    parse_hub_move(pos, done.split()[1].split("=")[1])  # a legal move of the position sent


def test_hub_unknown_command_is_an_error_not_a_crash():
    stdin = io.StringIO("hub\nfrobnicate\npos pos=Wxyz\nping\nquit\n")
    stdout = io.StringIO()
    run(stdin, stdout)
    lines = stdout.getvalue().splitlines()
    assert sum(line.startswith("error") for line in lines) == 2
    assert lines[-1] == "pong"


@pytest.fixture
def hub_command(tmp_path: Path) -> str:
    # pydraughts resolves the command's real path (a venv's python would lose its venv), so a script.
    script = tmp_path / "shashki-hub"
    root = Path(__file__).resolve().parents[2]
    script.write_text(f'#!/bin/sh\ncd "{root}"\nexec "{sys.executable}" -m shashki.engine.hub\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


@pytest.mark.parametrize(
    ("board_variant", "hub_variant"), [("standard", "normal"), ("antidraughts", "losing")]
)
def test_hub_session_with_pydraughts_plays_a_game(hub_command, board_variant, hub_variant):
    draughts = pytest.importorskip("draughts")
    from draughts.engine import HubEngine
    from draughts.engine import Limit as HubLimit

    engine = HubEngine([hub_command])
    try:
        assert engine.id["name"] == "Shashki"
        assert "normal" in engine.variants
        engine.setoption("variant", hub_variant)
        engine.init()
        engine.ping()
        board = draughts.Board(variant=board_variant)
        plies = 0
        while not board.is_over() and plies < 24:
            result = engine.play(board, HubLimit(nodes=400), ponder=False)
            legal = [m.hub_move for m in board.legal_moves()]
            assert result.move.hub_move in legal
            board.push(result.move)
            plies += 1
        assert plies == 24 or board.is_over()
        assert "depth" in engine.info
    finally:
        engine.quit()
        engine.p.wait(timeout=10)
    assert os.path.exists(hub_command)


def test_the_time_a_move_waited_before_its_search_comes_off_its_time():
    """A server's computer move may wait for an engine process behind other games' moves while its clock
    runs (found by an audit: the waits were charged on top of the thinking)."""
    from shashki.engine.engine import after_waiting
    from shashki.engine.timeman import MIN_TIME

    sent = Limit(time=0.5, sent_at=1000.0)
    assert after_waiting(sent, now=1000.2).time == pytest.approx(0.3)
    assert after_waiting(sent, now=1000.2).sent_at is None
    assert after_waiting(sent, now=1001.0).time == MIN_TIME  # waited longer than its time: a quick move
    assert after_waiting(sent, now=999.0).time == 0.5  # a clock read later than now counts as no wait
    assert after_waiting(Limit(time=0.5), now=1001.0).time == 0.5
    assert after_waiting(Limit(depth=3, sent_at=1000.0), now=1001.0) == Limit(depth=3, sent_at=1000.0)
    assert after_waiting(None) is None
    # Engine.play takes it so: a move sent long ago is chosen within a moment, not in its whole time.
    engine = Engine()
    result = engine.play(Game("international"), Limit(time=30.0, sent_at=time_module.time() - 60))
    assert result.move is not None and result.seconds < 5
