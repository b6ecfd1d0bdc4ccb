"""`shashki worker`: the worker's side of the engine job queue (`shashki.server.jobs`, whose docstring
says how jobs, priorities, results and re-deliveries go): takes jobs from the Redis streams, most urgent
first, runs them on its own engine pool, stores each result and acknowledges the job only then.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
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

# A dead worker taken out of the group once it holds no job (XGROUP DELCONSUMER would drop the pending
# entries of one that was not dead after all and took a job meanwhile: checked in the same atomic step).
FORGET_CONSUMER = """
if #redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', 1, ARGV[2]) == 0 then
  return redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
end
return -1
"""


class Worker:
    """`shashki worker`: takes jobs from the streams, most urgent first, runs them on its own engine
    pool (`processes` at a time), stores each result, and acknowledges the job only then.

    A pending job no worker is running is claimed and run again: one held by a worker whose heartbeat is
    older than `dead_after` (a few heartbeats), at once; one of this worker's own that it does not run (it
    failed, or was left by a previous process of the same name), at once; one held by a worker never seen
    in the heartbeats, once idle `claim_after` (a last resort). A job of a worker that beats is never taken
    from it, however long it runs.

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
        claim_after: float = 300.0,
        heartbeat_seconds: float = 2.0,
        dead_after: float | None = None,
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
        # Three heartbeats missed: dead, its jobs taken over (the servers count a worker alive for 10 s).
        self.dead_after = dead_after if dead_after is not None else 3 * heartbeat_seconds
        self.result_seconds = result_seconds
        self.max_deliveries = max_deliveries
        self.engine = AsyncEngine(workers=processes)
        self.done = 0
        self.given_up = 0  # jobs moved to the dead-letter stream
        self._slots = asyncio.Semaphore(processes)
        self._tasks: set[asyncio.Task] = set()
        self._running: set[tuple[str, str]] = set()  # (stream, entry) of the jobs this worker runs
        self._outage = Outage(f"worker {self.name}")
        # Since when Redis has answered this worker (time.monotonic): after an outage the others' heartbeats
        # are stale because they could not beat either, so none is judged dead until they have had time to.
        self._answering_since = -math.inf
        self._forget = self._redis.register_script(FORGET_CONSUMER)

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
        """The most urgent job and how many times it has been delivered: first one that no worker runs
        (`_claim`), else a new one, by priority."""
        for priority in PRIORITIES:
            stream = self._stream(priority)
            claimed = await self._claim(stream)
            if claimed is not None:
                entry, fields, deliveries = claimed
                if deliveries > self.max_deliveries:  # its workers died on it each time
                    await self._give_up(stream, entry, fields, deliveries, "no worker finished it")
                    return None
                return stream, entry, fields, deliveries
            answer = await self._redis.xreadgroup(GROUP, self.name, {stream: ">"}, count=1)
            if answer:
                entry_id, fields = answer[0][1][0]
                return stream, entry_id.decode(), fields, 1
        return None

    async def _claim(self, stream: str) -> tuple[str, dict, int] | None:
        """A pending job of `stream` that no worker runs, claimed by this one, with its deliveries (this one
        counted): this worker's own that it does not run, a dead worker's (its heartbeat older than
        `dead_after`), or a job idle `claim_after` held by a worker never seen in the heartbeats."""
        summary = await self._redis.xpending(stream, GROUP)
        if not summary["pending"]:
            return None
        holders = [c["name"].decode() for c in summary["consumers"]]
        beats = await self._redis.zmscore(self.prefix + "workers", holders)
        dead_before = time.time() - self.dead_after
        judging = time.monotonic() - self._answering_since >= self.dead_after
        for holder, beat in zip(holders, beats, strict=True):
            if holder == self.name:
                idle, why = 0, "not run by this worker"  # it failed, or a previous process of this name died
            elif beat is None:
                idle, why = self.claim_after_ms, f"held by {holder}, never seen beating, idle too long"
            elif judging and beat < dead_before:
                idle, why = 0, f"held by {holder}, whose heartbeat stopped {time.time() - beat:.1f} s ago"
            else:
                continue  # a live worker's: running, however long it takes
            pending = await self._redis.xpending_range(
                stream, GROUP, "-", "+", self.processes + 1, consumername=holder, idle=idle or None
            )
            for entry in pending:
                entry_id = entry["message_id"].decode()
                if (stream, entry_id) in self._running:
                    continue
                # At least as idle as it was just now: none if another worker claimed it meanwhile.
                min_idle = max(1, int(entry["time_since_delivered"]))
                claimed = await self._redis.xclaim(stream, GROUP, self.name, min_idle, [entry_id])
                if not claimed:
                    continue
                _, fields = claimed[0]
                if holder != self.name:
                    await self._forget(keys=[stream], args=[GROUP, holder])
                log.info("claimed job %s (%s)", fields.get(b"id", b"?").decode(), why)
                return entry_id, fields, int(entry["times_delivered"]) + 1
        return None

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
        if self._outage.failures:
            self._answering_since = time.monotonic()
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
                self._running.add((job[0], job[1]))
                task = asyncio.create_task(self._run(*job))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        finally:
            beat.cancel()
            for task in list(self._tasks):
                with contextlib.suppress(BaseException):
                    await task
            with contextlib.suppress(Exception):
                await self._leave()
            await self.engine.close()
            await self._redis.aclose()

    async def _leave(self) -> None:
        """Out of the heartbeats: forgotten when it holds no job; marked dead long ago when it still holds
        some (cancelled, or failed and not tried again), so that another worker claims them at once."""
        held = [await self._forget(keys=[self._stream(p)], args=[GROUP, self.name]) for p in PRIORITIES]
        if -1 in held:
            await self._redis.zadd(self.prefix + "workers", {self.name: 0})
        else:
            await self._redis.zrem(self.prefix + "workers", self.name)

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
            self._running.discard((stream, entry_id))
            self._slots.release()

    async def _failed_last_time(self, stream: str, entry_id: str, fields: dict, deliveries: int,
                                error: Exception) -> None:
        log.error("job %s failed on its last delivery", entry_id, exc_info=error)
        try:
            await self._give_up(stream, entry_id, fields, deliveries, f"{type(error).__name__}: {error}")
        except Exception:
            log_failure(log, "job %s could not be given up; it stays pending", entry_id)
