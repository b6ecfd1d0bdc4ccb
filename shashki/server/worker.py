"""`shashki worker`: the worker's side of the engine job queue (`shashki.server.jobs`, whose docstring
says how jobs, priorities, results and re-deliveries go): takes jobs from the Redis streams, most urgent
first, runs them on its own engine pool, stores each result and acknowledges the job only then.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import time
from typing import Any

from redis.exceptions import ResponseError

from shashki.engine.engine import PlayResult
from shashki.engine.pool import AsyncEngine
from shashki.engine.search import Line
from shashki.server.errors import log_failure
from shashki.server.jobs import (
    DEAD,
    GROUP,
    PRIORITIES,
    REDIS_FAILED,
    Outage,
    decode_counts,
    decode_job,
    encode_result,
    stream_key,
)

log = logging.getLogger("shashki.jobs")


class Worker:
    """`shashki worker`: takes jobs from the streams, most urgent first, runs them on its own engine
    pool (`processes` at a time), stores each result, and acknowledges the job only then.

    A job delivered `max_deliveries` times (it failed, or its workers died, each time) is given up: moved to
    the dead-letter stream and answered with the failure. Redis failing does not end the worker: it tries
    again with growing waits, and goes on when Redis answers."""

    def __init__(
        self,
        redis_url: str,
        *,
        processes: int = 1,
        name: str | None = None,
        prefix: str = "shashki:",
        claim_after: float = 30.0,
        heartbeat_seconds: float = 2.0,
        result_seconds: int = 600,
        max_deliveries: int = 3,
    ) -> None:
        import redis.asyncio as redis

        self._redis: Any = redis.from_url(redis_url, client_name="shashki-worker")
        self.name = name or f"{socket.gethostname()}-{os.getpid()}"
        self.prefix = prefix
        self.processes = processes
        self.claim_after_ms = int(claim_after * 1000)
        self.heartbeat_seconds = heartbeat_seconds
        self.result_seconds = result_seconds
        self.max_deliveries = max_deliveries
        self.engine = AsyncEngine(workers=processes)
        self.done = 0
        self.given_up = 0  # jobs moved to the dead-letter stream
        self._slots = asyncio.Semaphore(processes)
        self._tasks: set[asyncio.Task] = set()
        self._outage = Outage(f"worker {self.name}")

    def _stream(self, priority: int) -> str:
        return stream_key(self.prefix, priority)

    async def _groups(self) -> None:
        for priority in PRIORITIES:
            with contextlib.suppress(Exception):  # BUSYGROUP: made by another worker already
                await self._redis.xgroup_create(self._stream(priority), GROUP, id="0", mkstream=True)

    async def _heartbeat(self) -> None:
        outage = Outage(f"worker {self.name}'s heartbeat")
        while True:
            try:
                await self._redis.zadd(self.prefix + "workers", {self.name: time.time()})
                outage.passed()
                wait = self.heartbeat_seconds
            except REDIS_FAILED as error:
                wait = min(outage.failed(error), self.heartbeat_seconds)
            await asyncio.sleep(wait)

    async def _next(self) -> tuple[str, str, dict, int] | None:
        """The most urgent job and how many times it has been delivered: first one left idle by a dead
        worker, else a new one, by priority."""
        for priority in PRIORITIES:
            stream = self._stream(priority)
            _, claimed, *_ = await self._redis.xautoclaim(
                stream, GROUP, self.name, self.claim_after_ms, start_id="0-0", count=1
            )
            if claimed:
                entry_id, fields = claimed[0]
                entry = entry_id.decode()
                deliveries = await self._deliveries(stream, entry)
                if deliveries > self.max_deliveries:  # its workers died on it each time
                    await self._give_up(stream, entry, fields, deliveries, "no worker finished it")
                    return None
                log.info("claimed job %s left by a worker gone quiet", fields.get(b"id", b"?").decode())
                return stream, entry, fields, deliveries
            answer = await self._redis.xreadgroup(GROUP, self.name, {stream: ">"}, count=1)
            if answer:
                entry_id, fields = answer[0][1][0]
                return stream, entry_id.decode(), fields, 1
        return None

    async def _deliveries(self, stream: str, entry_id: str) -> int:
        """How many times a pending job has been delivered (XAUTOCLAIM counts its claim)."""
        pending = await self._redis.xpending_range(stream, GROUP, min=entry_id, max=entry_id, count=1)
        return int(pending[0]["times_delivered"]) if pending else 1

    async def _give_up(self, stream: str, entry_id: str, fields: dict, deliveries: int, why: str) -> None:
        """Move a job to the dead-letter stream, tell its waiting server it failed (it runs the job itself),
        and acknowledge it: it is delivered no more."""
        job_id = fields.get(b"id", b"").decode()
        log.error("job %s given up after %d deliveries (%s): moved to %s", job_id or entry_id, deliveries,
                  why, self.prefix + DEAD)
        dead = {**fields, b"stream": stream, b"deliveries": deliveries, b"error": why}
        await self._redis.xadd(self.prefix + DEAD, dead, maxlen=10_000, approximate=True)
        if job_id:
            failure = json.dumps({"failed": why})
            await self._redis.set(self.prefix + "result:" + job_id, failure, ex=self.result_seconds)
            await self._redis.publish(self.prefix + "done:" + job_id, "{}")
        await self._redis.xack(stream, GROUP, entry_id)
        await self._redis.xdel(stream, entry_id)
        self.given_up += 1

    async def _take(self) -> tuple[str, str, dict, int] | None:
        """`_next`, through Redis's failures: None after a failure, once its wait is over."""
        try:
            job = await self._next()
        except ResponseError as error:
            if not str(error).startswith("NOGROUP"):
                await asyncio.sleep(self._outage.failed(error))
                return None
            # A Redis restarted without its data lost the streams: make them and their groups again.
            log.warning("worker %s: the job streams are gone (Redis restarted?): made again", self.name)
            await self._groups()
            return None
        except REDIS_FAILED as error:
            await asyncio.sleep(self._outage.failed(error))
            return None
        self._outage.passed()
        return job

    async def run(self, stop: asyncio.Event | None = None) -> None:
        stop = stop or asyncio.Event()
        await self._groups()
        beat = asyncio.create_task(self._heartbeat())
        log.info("worker %s: %d engine process(es), waiting for jobs", self.name, self.processes)
        try:
            while not stop.is_set():
                await self._slots.acquire()
                job = await self._take()
                if job is None:
                    self._slots.release()
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(stop.wait(), 0.05)
                    continue
                task = asyncio.create_task(self._run(*job))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        finally:
            beat.cancel()
            for task in list(self._tasks):
                with contextlib.suppress(BaseException):
                    await task
            with contextlib.suppress(Exception):
                await self._redis.zrem(self.prefix + "workers", self.name)
            await self.engine.close()
            await self._redis.aclose()

    async def _run(self, stream: str, entry_id: str, fields: dict, deliveries: int) -> None:
        try:
            job_id = fields[b"id"].decode()
            job = json.loads(fields[b"job"])
            kind, position, history, limit, level = decode_job(job)
            counts = decode_counts(job)
            if kind == "play":
                result: PlayResult | list[Line] = await self.engine.play_from(position, history, limit, level,
                                                                              counts)
            elif kind == "lines":
                if limit is None:
                    raise ValueError("lines need a limit")
                count = max(1, min(int(job.get("count", 1)), 20))
                result = await self.engine.lines_from(position, history, limit, count, counts)
            else:
                if limit is None:
                    raise ValueError("an analysis needs a limit")
                result = await self.engine.analyse_from(position, history, limit, counts)
            data = json.dumps(encode_result(kind, result))
            await self._redis.set(self.prefix + "result:" + job_id, data, ex=self.result_seconds)
            await self._redis.publish(self.prefix + "done:" + job_id, "{}")
            await self._redis.xack(stream, GROUP, entry_id)
            await self._redis.xdel(stream, entry_id)
            self.done += 1
            log.info("job %s done (%s)", job_id, kind)
        except Exception as error:
            if deliveries < self.max_deliveries or isinstance(error, REDIS_FAILED):
                log_failure(log, "job %s failed (delivery %d); it stays pending for another try", entry_id,
                            deliveries)
            else:
                await self._failed_last_time(stream, entry_id, fields, deliveries, error)
        finally:
            self._slots.release()

    async def _failed_last_time(self, stream: str, entry_id: str, fields: dict, deliveries: int,
                                error: Exception) -> None:
        log.error("job %s failed on its last delivery", entry_id, exc_info=error)
        try:
            await self._give_up(stream, entry_id, fields, deliveries, f"{type(error).__name__}: {error}")
        except Exception:
            log_failure(log, "job %s could not be given up; it stays pending", entry_id)
