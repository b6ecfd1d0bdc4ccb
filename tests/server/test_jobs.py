"""Engine jobs through Redis to `shashki worker` processes (issue 11, item 4): the JSON of a job and of its
result, priorities, a dead worker's job run again, deduplication, the fallback to the server's own pool,
and the computer's moves of a real server thought on a worker."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
import uuid

import pytest

from shashki.engine import Engine, Limit
from shashki.rules import Game
from shashki.rules.position import Position
from shashki.rules.variant import get_variant
from shashki.server.jobs import (
    ANALYSIS,
    QueuedEngine,
    Worker,
    decode_job,
    decode_result,
    encode_job,
    encode_result,
)

from .helpers import Player, Server, eventually

REDIS_URL = os.environ.get("SHASHKI_TEST_REDIS_URL")


def random_game(variant: str, seed: int, plies: int) -> Game:
    rng = random.Random(seed)
    game = Game(variant)
    for _ in range(plies):
        if game.is_over:
            break
        game.play(rng.choice(game.legal_moves()))
    return game


@pytest.mark.parametrize("variant", ["russian_giveaway", "russian", "international", "brazilian", "english"])
def test_a_job_and_its_result_survive_json_exactly(variant):
    for seed in range(3):
        game = random_game(variant, seed, 20)
        position = game.positions[-1]
        history = [p.hash for p in game.positions[:-1]]
        job = encode_job("play", position, history, Limit(depth=3), 2)
        assert decode_job(job) == ("play", position, history, Limit(depth=3), 2)
        if game.is_over:
            continue
        played = Engine(level=None).play(position, Limit(depth=3), history)
        assert decode_result("play", position, encode_result("play", played)) == played
        lines = list(Engine(level=None).analyse(position, Limit(depth=3), history))
        assert decode_result("analyse", position, encode_result("analyse", lines)) == lines


def test_a_double_diagonal_variant_keeps_its_option():
    variant = get_variant("russian_giveaway", double_diagonal=True)
    position = Position.start(variant)
    _, back, *_ = decode_job(encode_job("play", position, [], None, None))
    assert back.variant == variant


if not REDIS_URL:
    if os.environ.get("CI"):
        raise RuntimeError("CI runs the Redis tests: start the services with scripts/test-services.sh")
    pytest.skip('no Redis: run `eval "$(scripts/test-services.sh start)"`', allow_module_level=True)


def private_url(db: int) -> str:
    """The test Redis, on a database of its own for one test (leftover jobs reach no other test)."""
    base = REDIS_URL.rsplit("/", 1)[0]
    return f"{base}/{db}"


def fresh_prefix() -> str:
    return f"test-{uuid.uuid4().hex[:8]}:"


async def _with_worker(url, prefix, body, **worker_options):
    stop = asyncio.Event()
    worker = Worker(url, prefix=prefix, heartbeat_seconds=0.2, **worker_options)
    task = asyncio.create_task(worker.run(stop))
    engine = QueuedEngine(url, prefix=prefix, answer_seconds=20)
    try:
        async with asyncio.timeout(10):
            while not await engine.workers_alive():  # its first heartbeat
                await asyncio.sleep(0.05)
        answer = await body(engine)
    finally:
        stop.set()
        await task
        await engine.close()
    return answer, worker.done


def test_a_computer_move_is_thought_on_a_worker_and_is_legal():
    game = random_game("russian_giveaway", 7, 10)

    async def body(engine):
        result = await engine.play(game, Limit(depth=4), level=3)
        return result, engine.fallbacks

    (result, fallbacks), done = asyncio.run(_with_worker(private_url(1), fresh_prefix(), body))
    assert result.move in game.legal_moves()
    assert (fallbacks, done) == (0, 1)


def test_without_a_live_worker_the_server_thinks_itself():
    game = random_game("russian", 3, 6)

    async def run():
        engine = QueuedEngine(private_url(2), prefix=fresh_prefix())
        try:
            result = await engine.play(game, Limit(depth=3), level=2)
            return result, engine.fallbacks
        finally:
            await engine.close()

    result, fallbacks = asyncio.run(run())
    assert result.move in game.legal_moves()
    assert fallbacks == 1


def test_a_games_move_is_taken_before_an_analysis_queued_earlier():
    url, prefix = private_url(3), fresh_prefix()
    game = random_game("russian_giveaway", 11, 12)
    finished: list[str] = []

    async def run():
        import redis.asyncio as redis

        r = redis.from_url(url)
        await r.zadd(prefix + "workers", {"not-yet": time.time()})  # looks alive: jobs are queued
        engine = QueuedEngine(url, prefix=prefix, answer_seconds=30)

        async def analysis():
            await engine.analyse(game, Limit(depth=3), priority=ANALYSIS)
            finished.append("analysis")

        async def move():
            await asyncio.sleep(0.2)  # queued after the analysis
            await engine.play(game, Limit(depth=3), level=2)
            finished.append("move")

        jobs = asyncio.gather(analysis(), move())
        await asyncio.sleep(0.6)
        assert await r.xlen(prefix + "jobs:0") == 1 and await r.xlen(prefix + "jobs:1") == 1
        stop = asyncio.Event()
        worker = Worker(url, prefix=prefix, processes=1, heartbeat_seconds=0.2)
        task = asyncio.create_task(worker.run(stop))
        await jobs
        stop.set()
        await task
        await engine.close()
        await r.aclose()
        return engine.fallbacks

    assert asyncio.run(run()) == 0
    assert finished == ["move", "analysis"]


def test_the_same_key_queues_one_job_and_everyone_gets_its_result():
    game = random_game("russian_giveaway", 5, 8)

    async def body(engine):
        return await asyncio.gather(*(engine.analyse(game, Limit(depth=4), key="game-x") for _ in range(3)))

    results, done = asyncio.run(_with_worker(private_url(4), fresh_prefix(), body))
    assert done == 1
    assert results[0] == results[1] == results[2]


CLI = "import sys; from shashki.cli import main; sys.exit(main())"


def worker_process(url: str, name: str, claim_after: float, log) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", CLI, "worker", "--redis", url, "--name", name, f"--claim-after={claim_after}"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )


@pytest.mark.slow
def test_a_job_of_a_worker_killed_while_thinking_is_run_by_another(tmp_path):
    url = private_url(5)
    game = random_game("russian_giveaway", 2, 6)

    async def run():
        import redis.asyncio as redis

        r = redis.from_url(url)
        await r.flushdb()
        log = open(tmp_path / "workers.log", "w")  # noqa: SIM115  (closed in the finally below)
        doomed = worker_process(url, "doomed", 1.0, log)
        engine = QueuedEngine(url, answer_seconds=60)
        try:
            while not await engine.workers_alive():
                await asyncio.sleep(0.1)
            job = asyncio.create_task(engine.play(game, Limit(time=20), level=None))
            # Killed once it holds the job (the group's pending list names it), mid-search.
            while not (await r.xpending(b"shashki:jobs:0", "workers"))["pending"]:
                await asyncio.sleep(0.05)
            doomed.send_signal(signal.SIGKILL)
            doomed.wait(10)
            rescuer = worker_process(url, "rescuer", 1.0, log)
            try:
                result = await asyncio.wait_for(job, 60)
            finally:
                rescuer.terminate()
                rescuer.wait(30)
            return result, engine.fallbacks
        finally:
            await engine.close()
            await r.aclose()
            log.close()

    result, fallbacks = asyncio.run(run())
    assert result.move in game.legal_moves()
    assert fallbacks == 0
    text = (tmp_path / "workers.log").read_text()
    assert "claimed job" in text and "done (play)" in text


@pytest.mark.slow
def test_a_server_with_redis_has_the_computer_think_on_a_worker(tmp_path):
    url = private_url(6)
    asyncio.run(_flush(url))
    server = Server(tmp_path, {"SHASHKI_ENGINE_UNTIMED_SECONDS": "0.2"})
    server.env["REDIS_URL"] = url
    server.start()
    with open(tmp_path / "worker.log", "w") as log:
        worker = worker_process(url, "w1", 30, log)
    try:
        assert eventually(lambda: asyncio.run(_alive(url)), bool, timeout=30)
        player = Player(server)
        r = player.post("/api/computer-games", {"level": 2, "color": "white"})
        assert r.status_code == 201, r.text
        game_id = r.json()["game"]["id"]
        ws = player.socket(game_id)
        assert ws.move("c3-d4")["type"] == "ack"
        state = ws.wait_state(lambda g: g["ply"] >= 2, timeout=30)
        assert state["ply"] >= 2
        ws.close()
        text = eventually(lambda: (tmp_path / "worker.log").read_text(), lambda t: "done (play)" in t)
        assert "done (play)" in text
    finally:
        worker.terminate()
        worker.wait(30)
        server.stop()


async def _flush(url: str) -> None:
    import redis.asyncio as redis

    r = redis.from_url(url)
    await r.flushdb()
    await r.aclose()


async def _alive(url: str) -> int:
    engine = QueuedEngine(url)
    try:
        return await engine.workers_alive()
    finally:
        await engine.close()
