"""The analysis board's engine lines on the job queue (issue 14, point 1): with Redis the lines are
`shashki worker` jobs below a game's move, streamed deeper in steps as before; without a worker, without
Redis, or with Redis configured but unreachable, the board's own processes think."""

from __future__ import annotations

import asyncio
import os
import time
import uuid

import pytest

from shashki.engine import AsyncEngine, Limit
from shashki.rules import Game
from shashki.server.analysis import AnalysisService
from shashki.server.jobs import ANALYSIS, PLAY, QueuedEngine, decode_job, encode_job
from shashki.server.worker import Worker

from .helpers import free_port

REDIS_URL = os.environ.get("SHASHKI_TEST_REDIS_URL")


def test_a_lines_job_carries_its_count_and_keeps_the_job_shape():
    game = Game("russian")
    job = encode_job("lines", game.position, [], Limit(depth=3, time=0.5), None, 3)
    assert job["count"] == 3
    assert decode_job(job) == ("lines", game.position, [], Limit(depth=3, time=0.5), None)
    assert "count" not in encode_job("play", game.position, [], None, 2)


def test_the_board_uses_the_queue_only_when_redis_is_configured():
    async def main():
        local = AnalysisService(workers=1)
        queued = AnalysisService(workers=1, queue_url="redis://127.0.0.1:9/0")  # never connected to
        try:
            return type(local.engine), type(queued.engine)
        finally:
            await local.close()
            await queued.close()

    assert asyncio.run(main()) == (AsyncEngine, QueuedEngine)


def test_with_redis_unreachable_the_boards_own_processes_think():
    game = Game("russian")
    game.play("c3-d4")

    async def main():
        service = AnalysisService(workers=1, queue_url=f"redis://127.0.0.1:{free_port()}/0")  # nothing there
        engine = service.engine
        assert isinstance(engine, QueuedEngine)
        steps = 0
        ask = engine.lines

        async def counted(*args, **kwargs):
            nonlocal steps
            steps += 1
            return await ask(*args, **kwargs)

        engine.lines = counted  # type: ignore[method-assign]
        try:
            reports = [r async for r in service.lines(game, 2, 0.5)]
            return reports, steps, engine.fallbacks
        finally:
            await service.close()

    reports, steps, fallbacks = asyncio.run(main())
    legal = {m.notation(game.variant) for m in game.legal_moves()}
    assert reports and reports[-1]["done"]
    assert all(len(r["lines"]) == 2 and {line["move"] for line in r["lines"]} <= legal for r in reports)
    # every step thought here (a step that does not complete its depth is tried again without a report)
    assert steps >= len(reports) and fallbacks == steps


if not REDIS_URL:
    if os.environ.get("CI"):
        raise RuntimeError("CI runs the Redis tests: start the services with scripts/test-services.sh")
    pytest.skip('no Redis: run `eval "$(scripts/test-services.sh start)"`', allow_module_level=True)


def private_url(db: int) -> str:
    base = REDIS_URL.rsplit("/", 1)[0]
    return f"{base}/{db}"


def fresh_prefix() -> str:
    return f"test-{uuid.uuid4().hex[:8]}:"


def test_the_boards_lines_are_thought_on_a_worker_deeper_in_steps():
    url, prefix = private_url(6), fresh_prefix()
    game = Game("russian")
    for move in ("c3-d4", "f6-g5", "g3-f4"):
        game.play(move)

    async def main():
        stop = asyncio.Event()
        worker = Worker(url, prefix=prefix, heartbeat_seconds=0.2)
        task = asyncio.create_task(worker.run(stop))
        service = AnalysisService(workers=1, queue_url=url)
        engine = service.engine
        assert isinstance(engine, QueuedEngine)
        engine.prefix = prefix
        try:
            async with asyncio.timeout(10):
                while not await engine.workers_alive():
                    await asyncio.sleep(0.05)
            reports = [r async for r in service.lines(game, 2, 3.0)]
            fallbacks = engine.fallbacks
        finally:
            stop.set()
            await task  # the worker's last job is counted once it has stopped
            await service.close()
        return reports, fallbacks, worker.done

    reports, fallbacks, done = asyncio.run(main())
    depths = [r["depth"] for r in reports]
    assert len(reports) >= 2 and depths == sorted(depths) and depths[-1] > depths[0]
    assert reports[-1]["done"] and all(not r["done"] for r in reports[:-1])
    legal = {m.notation(game.variant) for m in game.legal_moves()}
    assert all(len(r["lines"]) == 2 and {line["move"] for line in r["lines"]} <= legal for r in reports)
    assert fallbacks == 0 and done >= len(reports)  # each step a job on the worker


def test_the_boards_lines_wait_on_the_analysis_stream_below_a_games_move():
    url, prefix = private_url(7), fresh_prefix()

    async def main():
        engine = QueuedEngine(url, prefix=prefix, answer_seconds=30)
        redis = engine._redis
        await redis.zadd(prefix + "workers", {"pretend": time.time()})  # a worker that takes nothing
        job = asyncio.create_task(engine.lines(Game("russian"), Limit(depth=2, time=0.1), 2))
        try:
            async with asyncio.timeout(10):
                while not await redis.xlen(f"{prefix}jobs:{ANALYSIS}"):
                    await asyncio.sleep(0.05)
            queued = await redis.xrange(f"{prefix}jobs:{ANALYSIS}")
            return await redis.xlen(f"{prefix}jobs:{PLAY}"), queued
        finally:
            job.cancel()
            await asyncio.gather(job, return_exceptions=True)
            await engine.close()

    on_play, queued = asyncio.run(main())
    assert on_play == 0 and len(queued) == 1
    assert b'"kind": "lines"' in queued[0][1][b"job"] and b'"count": 2' in queued[0][1][b"job"]


def test_without_a_live_worker_the_boards_own_processes_think():
    url, prefix = private_url(8), fresh_prefix()

    async def main():
        engine = QueuedEngine(url, prefix=prefix)
        try:
            lines = await engine.lines(Game("international"), Limit(depth=2), 3)
            return lines, engine.fallbacks
        finally:
            await engine.close()

    lines, fallbacks = asyncio.run(main())
    assert fallbacks == 1 and len(lines) == 3 and all(line.depth == 2 for line in lines)
