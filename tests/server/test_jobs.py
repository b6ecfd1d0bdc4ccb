"""Engine jobs through Redis to `shashki worker` processes (issue 11, item 4): the JSON of a job and of its
result, priorities, a dead worker's job run again within a few heartbeats and a live one's never taken,
deduplication, the fallback to the server's own pool (Redis down included), a worker riding out a Redis
restart, one pub/sub connection for every waiting job, a job that always fails given up, and the computer's
moves of a real server thought on a worker."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
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
from shashki.server.games.computer import EngineOpponent
from shashki.server.jobs import (
    ANALYSIS,
    DEAD,
    GROUP,
    PLAY,
    QueuedEngine,
    decode_job,
    decode_result,
    encode_job,
    encode_result,
)
from shashki.server.redisbus import RedisBus
from shashki.server.worker import Worker

from .helpers import Player, Server, eventually, free_port

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


def test_with_redis_unreachable_the_server_thinks_itself_and_warns_once(caplog):
    game = random_game("russian", 4, 6)

    async def run():
        # Nothing listens there; asked again at every job (no pause after a failure), warned about once.
        engine = QueuedEngine(f"redis://127.0.0.1:{free_port()}/0", outage_seconds=0)
        try:
            move = await engine.play(game, Limit(depth=3), level=2)
            lines = await engine.lines(game, Limit(depth=2), 2)
            analysis = await engine.analyse(game, Limit(depth=2), key="game-y")
            return move, lines, analysis, engine.fallbacks
        finally:
            await engine.close()

    with caplog.at_level(logging.INFO, logger="shashki.jobs"):
        move, lines, analysis, fallbacks = asyncio.run(run())
    assert move.move in game.legal_moves()
    assert len(lines) == 2 and analysis[-1].depth == 2
    assert fallbacks == 3
    assert [r.levelno for r in caplog.records if "redis failed" in r.getMessage()] == [logging.WARNING]


def test_the_computer_opponent_moves_with_redis_unreachable():
    game = random_game("russian_giveaway", 6, 10)

    async def run():
        computer = EngineOpponent(untimed_seconds=0.1, queue_url=f"redis://127.0.0.1:{free_port()}/0")
        try:
            return await computer.choose(game, level=2)
        finally:
            await computer.close()

    assert asyncio.run(run()) in game.legal_moves()


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


def test_jobs_waiting_when_redis_dies_are_run_here_with_one_warning(private_redis, caplog):
    games = [random_game("russian_giveaway", seed, 8) for seed in (9, 10, 11)]

    async def run():
        engine = QueuedEngine(private_redis.url, answer_seconds=30)
        try:
            await engine._redis.zadd("shashki:workers", {"takes-nothing": time.time()})
            jobs = [asyncio.create_task(engine.play(game, Limit(depth=3), level=2)) for game in games]
            async with asyncio.timeout(10):
                while await engine._redis.xlen(f"shashki:jobs:{PLAY}") < len(games):  # queued: they wait
                    await asyncio.sleep(0.02)
            private_redis.stop()
            results = await asyncio.wait_for(asyncio.gather(*jobs), 20)  # well before their 30 s deadline
            return results, engine.fallbacks
        finally:
            await engine.close()

    with caplog.at_level(logging.INFO):
        results, fallbacks = asyncio.run(run())
    assert all(r.move in g.legal_moves() for r, g in zip(results, games, strict=True))
    assert fallbacks == len(games)
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.name for r in warnings if r.name == "shashki.jobs"] == ["shashki.jobs"]  # not one per job
    assert len(warnings) <= 2  # and the bus's reader saying its connection was lost


def test_a_worker_rides_out_a_redis_restart_and_takes_jobs_again(private_redis, caplog):
    game = random_game("russian", 8, 6)

    def failed(words: str) -> bool:
        return any(words in r.getMessage() for r in caplog.records)

    async def run():
        stop = asyncio.Event()
        worker = Worker(private_redis.url, name="survivor", heartbeat_seconds=0.1)
        task = asyncio.create_task(worker.run(stop))
        engine = QueuedEngine(private_redis.url, answer_seconds=20, alive_seconds=1)
        try:
            async with asyncio.timeout(10):
                while not await engine.workers_alive():
                    await asyncio.sleep(0.05)
            first = await engine.play(game, Limit(depth=2), level=2)
            # Down long enough for the worker's loop and heartbeat to fail, then back without the streams,
            # their group or the heartbeats: the worker makes them again and beats again.
            private_redis.stop()
            async with asyncio.timeout(20):
                while not (worker._outage.failures and failed("heartbeat: redis failed")):
                    await asyncio.sleep(0.02)
            private_redis.start()
            async with asyncio.timeout(10):
                while True:
                    with contextlib.suppress(Exception):  # the engine's pool reconnecting
                        if await engine.workers_alive():
                            break
                    await asyncio.sleep(0.05)
            second = await engine.play(game, Limit(depth=2), level=2)
            return first, second, engine.fallbacks, worker, task.done()
        finally:
            stop.set()
            await task  # the worker's last job is counted once it has stopped
            await engine.close()

    with caplog.at_level(logging.INFO, logger="shashki.jobs"):
        first, second, fallbacks, worker, ended = asyncio.run(run())
    assert first.move in game.legal_moves() and second.move in game.legal_moves()
    assert not ended and worker.done == 2 and fallbacks == 0
    messages = [r.getMessage() for r in caplog.records]
    assert any("the job streams are gone" in m for m in messages)
    assert any("heartbeat: redis answers again" in m for m in messages)
    assert sum(m.startswith("worker survivor: redis failed") for m in messages) == 1  # once per outage
    assert any(m.startswith("worker survivor: redis answers again") for m in messages)


async def _pubsub_connections(url: str, name: str) -> int:
    import redis.asyncio as redis

    admin = redis.from_url(url)
    try:
        return sum(1 for c in await admin.client_list() if c.get("name") == name and "P" in c["flags"])
    finally:
        await admin.aclose()


def test_the_jobs_waiting_in_a_process_share_its_one_pubsub_connection():
    url, prefix = private_url(9), fresh_prefix()
    name = f"jobs-test-{uuid.uuid4().hex[:8]}"
    games = [random_game("russian_giveaway", seed, 10) for seed in range(6)]

    async def run():
        bus = RedisBus(url, prefix=prefix, name=name)  # the app's bus: the computer's and reviews' engines
        engines = [QueuedEngine(url, prefix=prefix, bus=bus, answer_seconds=30) for _ in range(2)]
        await bus.client.zadd(prefix + "workers", {"not-yet": time.time()})
        jobs = [asyncio.create_task(engines[i % 2].play(g, Limit(depth=2))) for i, g in enumerate(games)]
        try:
            async with asyncio.timeout(10):
                while await bus.client.xlen(f"{prefix}jobs:{PLAY}") < len(games):
                    await asyncio.sleep(0.02)
            waiting = bus.channels, await _pubsub_connections(url, name)
            stop = asyncio.Event()
            worker = Worker(url, prefix=prefix, heartbeat_seconds=0.2)
            task = asyncio.create_task(worker.run(stop))
            results = await asyncio.wait_for(asyncio.gather(*jobs), 30)
            stop.set()
            await task
            return waiting, results, [e.fallbacks for e in engines]
        finally:
            for job in jobs:
                job.cancel()
            for engine in engines:
                await engine.close()
            await bus.close()

    (channels, connections), results, fallbacks = asyncio.run(run())
    assert channels == len(games) and connections == 1
    assert all(r.move in g.legal_moves() for r, g in zip(results, games, strict=True))  # each its own answer
    assert fallbacks == [0, 0]


def test_a_job_failing_on_every_delivery_is_given_up_and_run_here():
    url, prefix = private_url(10), fresh_prefix()
    game = random_game("russian", 12, 6)

    async def run():
        stop = asyncio.Event()
        worker = Worker(url, prefix=prefix, heartbeat_seconds=0.2, claim_after=0.1, max_deliveries=2)
        tries = []

        async def failing(*args):
            tries.append(args)
            raise RuntimeError("this job breaks the engine")

        worker.engine.play_from = failing
        task = asyncio.create_task(worker.run(stop))
        engine = QueuedEngine(url, prefix=prefix, answer_seconds=30)
        try:
            async with asyncio.timeout(10):
                while not await engine.workers_alive():
                    await asyncio.sleep(0.05)
            result = await asyncio.wait_for(engine.play(game, Limit(depth=2), level=2), 20)
            stop.set()
            await task  # its last job acknowledged
            stream = f"{prefix}jobs:{PLAY}"
            left = await engine._redis.xlen(stream), (await engine._redis.xpending(stream, GROUP))["pending"]
            dead = await engine._redis.xrange(prefix + DEAD)
            return result, engine.fallbacks, tries, worker, left, dead
        finally:
            stop.set()
            await task
            await engine.close()

    result, fallbacks, tries, worker, left, dead = asyncio.run(run())
    assert result.move in game.legal_moves() and fallbacks == 1  # the server thought itself, at once
    assert len(tries) == 2 and worker.given_up == 1 and left == (0, 0)
    assert len(dead) == 1
    fields = dead[0][1]
    assert fields[b"deliveries"] == b"2" and b"this job breaks the engine" in fields[b"error"]
    assert json.loads(fields[b"job"])["kind"] == "play"


def test_a_job_whose_workers_die_each_time_is_given_up_unrun():
    url, prefix = private_url(11), fresh_prefix()
    game = random_game("russian", 13, 6)
    stream = f"{prefix}jobs:{PLAY}"

    async def run():
        import redis.asyncio as redis

        r = redis.from_url(url)
        for priority in (PLAY, ANALYSIS):
            await r.xgroup_create(f"{prefix}jobs:{priority}", GROUP, id="0", mkstream=True)
        job = encode_job("play", game.position, [], Limit(depth=2), 2)
        entry = await r.xadd(stream, {"id": "doomed", "job": json.dumps(job)})
        # Taken three times by workers that died with it (XREADGROUP, then two claims).
        await r.xreadgroup(GROUP, "ghost", {stream: ">"}, count=1)
        for _ in range(2):
            await r.xclaim(stream, GROUP, "ghost", 0, [entry])
        stop = asyncio.Event()
        worker = Worker(url, prefix=prefix, heartbeat_seconds=0.2, claim_after=0.1, max_deliveries=3)
        task = asyncio.create_task(worker.run(stop))
        try:
            async with asyncio.timeout(10):
                while not await r.xlen(prefix + DEAD):
                    await asyncio.sleep(0.05)
            answer = json.loads(await r.get(prefix + "result:doomed"))
            return answer, worker.done, await r.xlen(stream), await r.xrange(prefix + DEAD)
        finally:
            stop.set()
            await task
            await r.aclose()

    answer, done, left, dead = asyncio.run(run())
    assert answer == {"failed": "no worker finished it"}
    assert done == 0 and left == 0
    assert dead[0][1][b"id"] == b"doomed" and dead[0][1][b"deliveries"] == b"4"


async def _started(worker: Worker, stop: asyncio.Event, r) -> asyncio.Task:
    """The worker running, once its first heartbeat is in."""
    task = asyncio.create_task(worker.run(stop))
    async with asyncio.timeout(10):
        while await r.zscore(worker.prefix + "workers", worker.name) is None:
            await asyncio.sleep(0.02)
    return task


def test_a_job_held_by_a_worker_whose_heartbeat_stopped_is_run_by_another_within_a_few_heartbeats(caplog):
    url, prefix = private_url(12), fresh_prefix()
    game = random_game("russian_giveaway", 14, 8)
    stream = f"{prefix}jobs:{PLAY}"

    async def run():
        import redis.asyncio as redis

        r = redis.from_url(url)
        engine = QueuedEngine(url, prefix=prefix, answer_seconds=60)
        stop = asyncio.Event()
        # A worker killed (SIGKILL) while thinking: it took the job, beat a last time, and fell silent.
        for priority in (PLAY, ANALYSIS):
            await r.xgroup_create(f"{prefix}jobs:{priority}", GROUP, id="0", mkstream=True)
        await r.zadd(prefix + "workers", {"killed": time.time()})
        job = asyncio.create_task(engine.play(game, Limit(depth=3), level=2))
        try:
            async with asyncio.timeout(10):
                while not await r.xlen(stream):
                    await asyncio.sleep(0.02)
            await r.xreadgroup(GROUP, "killed", {stream: ">"}, count=1)
            # The rescuer beats every 0.2 s: the killed worker is dead 0.6 s after its last heartbeat.
            rescuer = Worker(url, prefix=prefix, name="rescuer", heartbeat_seconds=0.2, claim_after=30)
            task = await _started(rescuer, stop, r)
            started = time.monotonic()
            result = await asyncio.wait_for(job, 10)
            took = time.monotonic() - started
            consumers = {c["name"] for c in await r.xinfo_consumers(stream, GROUP)}
            stop.set()
            await task
            return result, took, engine.fallbacks, rescuer.done, consumers
        finally:
            stop.set()
            job.cancel()
            await engine.close()
            await r.aclose()

    with caplog.at_level(logging.INFO, logger="shashki.jobs"):
        result, took, fallbacks, done, consumers = asyncio.run(run())
    assert result.move in game.legal_moves()
    assert (fallbacks, done) == (0, 1)
    assert took < 3, took  # a few heartbeats, not claim_after (30 s)
    assert b"killed" not in consumers  # the dead worker taken out of the group
    assert any("heartbeat stopped" in r.getMessage() for r in caplog.records)


def test_a_job_of_a_worker_cancelled_while_thinking_is_run_by_another_at_once():
    url, prefix = private_url(13), fresh_prefix()
    game = random_game("russian", 15, 6)

    async def run():
        import redis.asyncio as redis

        r = redis.from_url(url)
        engine = QueuedEngine(url, prefix=prefix, answer_seconds=60)
        doomed = Worker(url, prefix=prefix, name="doomed", heartbeat_seconds=0.2, claim_after=30)
        taken = asyncio.Event()

        async def stuck(*args):
            taken.set()
            await asyncio.Event().wait()  # thinks until cancelled, never acknowledging

        doomed.engine.play_from = stuck
        doomed_task = await _started(doomed, asyncio.Event(), r)
        job = asyncio.create_task(engine.play(game, Limit(depth=3), level=2))
        stop = asyncio.Event()
        try:
            await asyncio.wait_for(taken.wait(), 10)
            for running in list(doomed._tasks):
                running.cancel()
            doomed_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await doomed_task
            gone = await r.zscore(prefix + "workers", "doomed")
            rescuer = Worker(url, prefix=prefix, name="rescuer", heartbeat_seconds=0.2, claim_after=30)
            task = await _started(rescuer, stop, r)
            started = time.monotonic()
            result = await asyncio.wait_for(job, 10)
            took = time.monotonic() - started
            stop.set()
            await task
            return result, took, gone, engine.fallbacks, rescuer.done
        finally:
            stop.set()
            job.cancel()
            await engine.close()
            await r.aclose()

    result, took, gone, fallbacks, done = asyncio.run(run())
    assert result.move in game.legal_moves()
    assert gone == 0  # left holding a job: marked dead long ago, not forgotten
    assert (fallbacks, done) == (0, 1)
    assert took < 3, took  # well under claim_after (30 s)


def test_a_job_running_longer_than_claim_after_on_a_live_worker_is_run_once():
    url, prefix = private_url(14), fresh_prefix()
    game = random_game("russian_giveaway", 16, 8)
    runs: list[str] = []

    async def run():
        import redis.asyncio as redis

        r = redis.from_url(url)
        engine = QueuedEngine(url, prefix=prefix, answer_seconds=60)
        stop = asyncio.Event()
        workers = [Worker(url, prefix=prefix, name=n, heartbeat_seconds=0.1, claim_after=0.3) for n in "ab"]
        for worker in workers:
            thinks = worker.engine.play_from

            async def slowly(*args, worker=worker, thinks=thinks):
                runs.append(worker.name)
                await asyncio.sleep(2.0)  # longer than claim_after and many heartbeats
                return await thinks(*args)

            worker.engine.play_from = slowly
        tasks = [await _started(worker, stop, r) for worker in workers]
        try:
            result = await asyncio.wait_for(engine.play(game, Limit(depth=3), level=2), 20)
            await asyncio.sleep(0.5)  # a claim after the answer would still be counted
            return result, engine.fallbacks
        finally:
            stop.set()
            for task in tasks:
                await task
            await engine.close()
            await r.aclose()

    result, fallbacks = asyncio.run(run())
    assert result.move in game.legal_moves() and fallbacks == 0
    assert len(runs) == 1, runs  # never taken from the worker that was still beating


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
        doomed = worker_process(url, "doomed", 60, log)
        engine = QueuedEngine(url, answer_seconds=60)
        try:
            while not await engine.workers_alive():
                await asyncio.sleep(0.1)
            job = asyncio.create_task(engine.play(game, Limit(time=20), level=None))
            # Killed once it holds the job (the group's pending list names it), mid-search.
            while not (await r.xpending(b"shashki:jobs:0", "workers"))["pending"]:
                await asyncio.sleep(0.05)
            doomed.send_signal(signal.SIGKILL)
            killed = time.monotonic()
            doomed.wait(10)
            rescuer = worker_process(url, "rescuer", 60, log)
            try:
                async with asyncio.timeout(60):
                    while "claimed job" not in (tmp_path / "workers.log").read_text():
                        await asyncio.sleep(0.1)
                took = time.monotonic() - killed
                result = await asyncio.wait_for(job, 60)
            finally:
                rescuer.terminate()
                rescuer.wait(30)
            return result, took, engine.fallbacks
        finally:
            await engine.close()
            await r.aclose()
            log.close()

    result, took, fallbacks = asyncio.run(run())
    assert result.move in game.legal_moves()
    assert fallbacks == 0
    # Its heartbeat (every 2 s) is 3 beats old: claimed then, the rescuer's start included; not after 60 s.
    assert took < 15, took
    text = (tmp_path / "workers.log").read_text()
    assert "claimed job" in text and "heartbeat stopped" in text and "done (play)" in text


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
