"""Engine jobs on `shashki worker` processes, through Redis streams (issue 11, item 4).

Without Redis the server runs the engine in its own process pool (`shashki.engine.AsyncEngine`). With
`REDIS_URL` it puts each job on a Redis stream instead, and `shashki worker` processes on any machine
take them (a consumer group: each job goes to one worker):

- **priorities**: one stream per priority (`PLAY` for a game's move, `ANALYSIS` after it: a game's
  review and the analysis board's lines); a worker always takes from the most urgent stream that has a job;
- **kinds**: "play" (a move), "analyse" (every iteration's line), "lines" (the best `count` moves with
  their lines, multi-PV: the analysis board, server/analysis/lines.py);
- **nothing lost, a live worker's job never run again**: a job stays in the group's pending list until its
  worker acknowledges it with its result; a worker that dies leaves it there, under its name (XPENDING).
  Each worker beats every `heartbeat_seconds` (2) in the sorted set `workers`; once a worker's heartbeat is
  `dead_after` old (three beats) another worker claims its jobs (XCLAIM) and runs them again, and takes it
  out of the group (XGROUP DELCONSUMER) once it holds none. A job of a worker that beats is never taken from
  it, however long it runs; only a worker never seen in the heartbeats loses its jobs by their idle time,
  `claim_after` (300 s, a last resort). A worker stopped while it holds jobs marks its heartbeat dead; one
  that failed a job tries it again itself;
- **deduplicated**: a job given a `key` (e.g. one game's analysis) is queued once while it is pending;
  every caller with that key waits for the one result;
- **results**: the worker stores the result under the job's key (with an expiry) and publishes a nudge;
  the caller, subscribed before it queued the job, reads it — and reads it anyway at each timeout, so a
  lost nudge only delays it;
- **one connection**: the nudges come on the process's one pub/sub connection (`redisbus.RedisBus`, shared
  with the event bus when the app hands it over; one of the engine's own otherwise), never one per job;
- **a job that always fails** is not run forever: a worker that finds it delivered `max_deliveries` times
  (failing each time, or its workers dying) moves it to the dead-letter stream (`jobs:dead`) and answers
  its server with the failure;
- **fallback**: when no worker has shown a heartbeat for `alive_seconds`, a job is not answered in its
  deadline or was given up, or Redis fails (then for `outage_seconds` without asking it again), the server
  runs it in its own pool: a game never waits on a missing worker or Redis. A worker rides out Redis's
  outages too, trying again with growing waits (`Outage`), and makes its groups again when a restarted
  Redis lost them.

The workers' side is `shashki.server.worker`; this module is the queue's protocol (streams, jobs and
results as JSON) and the server's side (`QueuedEngine`, `QueueDepth`).

Jobs are JSON (variant, FEN, history of position hashes, limits; moves as the squares of their path,
resolved back with the one resolver `Position.move_by_path`), never pickles: a worker trusts nothing it
reads from Redis beyond the rules' checks.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from dataclasses import asdict
from typing import Any

from redis.exceptions import RedisError

from shashki.engine.engine import PlayResult, game_counts, split_game
from shashki.engine.pool import AsyncEngine
from shashki.engine.search import CountStates, Limit, Line
from shashki.rules.game import Game
from shashki.rules.position import Move, Position
from shashki.rules.variant import DrawRule, get_variant
from shashki.server.events import Subscription
from shashki.server.redisbus import RedisBus

log = logging.getLogger("shashki.jobs")

PLAY, ANALYSIS = 0, 1  # priorities, most urgent first
PRIORITIES = (PLAY, ANALYSIS)
PRIORITY_NAMES = {PLAY: "play", ANALYSIS: "analysis"}  # as the metrics label them
GROUP = "workers"
DEAD = "jobs:dead"  # the stream of the jobs given up (after the prefix)

# Redis failed (down, restarting, the network, a replica not yet promoted): a job runs here instead, a worker
# waits and tries again. OSError covers the sockets' own errors, asyncio's TimeoutError among them.
REDIS_FAILED = (RedisError, OSError)


class Outage:
    """Redis failing, as one loop sees it: a warning when it starts and a line when it ends (not one per
    try), and the growing waits between tries meanwhile."""

    WAITS = (0.1, 0.25, 0.5, 1.0, 2.0)  # seconds, the last one repeated

    def __init__(self, what: str) -> None:
        self.what = what
        self.failures = 0

    def failed(self, error: BaseException) -> float:
        """Count a failure: the seconds to wait before the next try."""
        if not self.failures:
            log.warning("%s: redis failed (%s: %s); trying again", self.what, type(error).__name__, error)
        self.failures += 1
        return self.WAITS[min(self.failures, len(self.WAITS)) - 1]

    def passed(self) -> None:
        if self.failures:
            log.info("%s: redis answers again (after %d failed tries)", self.what, self.failures)
        self.failures = 0


def stream_key(prefix: str, priority: int) -> str:
    """The Redis stream of the jobs of one priority."""
    return f"{prefix}jobs:{priority}"


# -- the job's JSON ---------------------------------------------------------------------------------


def encode_job(
    kind: str, position: Position, history: list[int], limit: Limit | None, level: int | None,
    count: int | None = None, counts: CountStates | None = None,
) -> dict:
    variant = position.variant
    extra: dict = {"count": count} if count is not None else {}
    if counts:  # the game's draw counts (Game.count_states), for Russian's endgame tables
        extra["counts"] = {rule.value: list(state) for rule, state in counts.items()}
    return extra | {
        "kind": kind,
        "variant": variant.key,
        "double_diagonal": variant.double_diagonal,
        "fen": position.fen(),
        "history": history,
        "limit": asdict(limit) if limit is not None else None,
        "level": level,
    }


def decode_job(job: dict) -> tuple[str, Position, list[int], Limit | None, int | None]:
    variant = get_variant(job["variant"], double_diagonal=bool(job.get("double_diagonal")))
    position = Position.from_fen(job["fen"], variant)
    limit = Limit(**job["limit"]) if job.get("limit") is not None else None
    return job["kind"], position, [int(h) for h in job.get("history", [])], limit, job.get("level")


def decode_counts(job: dict) -> CountStates | None:
    """The game's draw counts a job carries, or None (they start at its position)."""
    counts = job.get("counts")
    if not counts:
        return None
    return {DrawRule(rule): (int(state[0]), int(state[1])) for rule, state in counts.items()}


def _moves_json(moves: tuple[Move, ...]) -> list[dict]:
    return [{"path": list(m.path), "captured": list(m.captured)} for m in moves]


def _moves_back(position: Position, moves: list[dict]) -> tuple[Move, ...]:
    """The moves of a line, each resolved on the position it is played from."""
    resolved = []
    for m in moves:
        move = position.move_by_path(m["path"], m["captured"] or None)
        resolved.append(move)
        position = position.play(move)
    return tuple(resolved)


def encode_result(kind: str, result: PlayResult | list[Line]) -> dict:
    if kind == "play":
        assert isinstance(result, PlayResult)
        fields = asdict(result) | {"move": _moves_json((result.move,)) if result.move else [],
                                   "pv": _moves_json(result.pv)}
        return fields
    assert isinstance(result, list)
    return {"lines": [asdict(line) | {"pv": _moves_json(line.pv)} for line in result]}


def decode_result(kind: str, position: Position, data: dict) -> PlayResult | list[Line]:
    if kind == "play":
        move = _moves_back(position, data["move"])
        pv = _moves_back(position, data["pv"])
        return PlayResult(**(data | {"move": move[0] if move else None, "pv": pv}))
    return [Line(**(line | {"pv": _moves_back(position, line["pv"])})) for line in data["lines"]]


# -- the server's side ------------------------------------------------------------------------------


class QueuedEngine:
    """`AsyncEngine`'s interface (play, analyse, pending, close) over the Redis queue, falling back to
    `local` (the server's own pool) when no worker is alive, a job is not answered in time, or Redis fails.

    `bus` is the process's event bus on the same Redis: its client and its one pub/sub connection carry the
    jobs too (the app's engines all share it). Without it the engine makes a bus of its own, closed with it.
    """

    def __init__(
        self,
        redis_url: str,
        local: AsyncEngine | None = None,
        *,
        prefix: str = "shashki:",
        alive_seconds: float = 10.0,
        answer_seconds: float = 60.0,
        outage_seconds: float = 5.0,
        bus: RedisBus | None = None,
    ) -> None:
        self._owns_bus = bus is None
        if bus is None:
            bus = RedisBus(redis_url, prefix="", name="shashki-jobs")
        elif not prefix.startswith(bus.prefix):
            raise ValueError(f"the jobs' prefix {prefix!r} is not within the bus's {bus.prefix!r}")
        self._bus = bus
        self._redis: Any = bus.client  # redis-py's types: loose
        self._local = local
        self.prefix = prefix
        self.alive_seconds = alive_seconds
        self.answer_seconds = answer_seconds
        self.outage_seconds = outage_seconds
        self.pending = 0
        self.fallbacks = 0  # jobs run here (no worker, no answer, given up, Redis down): for tests and logs
        self._outage = Outage("engine jobs (run in this process meanwhile)")
        self._down_until = 0.0  # Redis failed: until then (time.monotonic) jobs run here without asking it

    def _local_engine(self) -> AsyncEngine:
        if self._local is None:
            self._local = AsyncEngine(workers=1)
        return self._local

    async def workers_alive(self) -> int:
        since = time.time() - self.alive_seconds
        return int(await self._redis.zcount(self.prefix + "workers", since, "+inf"))

    async def play(self, position_or_game: Position | Game, limit: Limit | None = None,
                   level: int | None = None, *, key: str | None = None) -> PlayResult:
        position, history = split_game(position_or_game)
        job = encode_job("play", position, history, limit, level, counts=game_counts(position_or_game))
        result = await self._submit(job, position, PLAY, key, self._deadline(limit))
        if result is None:
            return await self._local_engine().play(position_or_game, limit, level)
        assert isinstance(result, PlayResult)
        return result

    async def analyse(self, position_or_game: Position | Game, limit: Limit, *, key: str | None = None,
                      priority: int = ANALYSIS) -> list[Line]:
        position, history = split_game(position_or_game)
        job = encode_job("analyse", position, history, limit, None, counts=game_counts(position_or_game))
        result = await self._submit(job, position, priority, key, self._deadline(limit))
        if result is None:
            return await self._local_engine().analyse(position_or_game, limit)
        assert isinstance(result, list)
        return result

    async def lines(self, position_or_game: Position | Game, limit: Limit, count: int, *,
                    priority: int = ANALYSIS, answer_seconds: float | None = None) -> list[Line]:
        """The best `count` moves with their lines (multi-PV; `AsyncEngine.lines`), on a worker at
        `priority` (below a game's move by default), or here when no worker answers within the search's
        time and `answer_seconds` (default the engine's): a person at the board is waiting."""
        position, history = split_game(position_or_game)
        job = encode_job("lines", position, history, limit, None, count, game_counts(position_or_game))
        wait = answer_seconds if answer_seconds is not None else self.answer_seconds
        deadline = (limit.time or 0.0) * count + wait  # each of the `count` root searches has the time
        result = await self._submit(job, position, priority, None, deadline)
        if result is None:
            return await self._local_engine().lines(position_or_game, limit, count)
        assert isinstance(result, list)
        return result

    def _deadline(self, limit: Limit | None) -> float:
        thinking = limit.time if limit is not None and limit.time is not None else 0.0
        return thinking + self.answer_seconds

    async def _submit(self, job: dict, position: Position, priority: int, key: str | None,
                      deadline: float) -> PlayResult | list[Line] | None:
        """Queue the job (once per `key`) and wait for its result; None means: run it here instead."""
        self.pending += 1
        try:
            if time.monotonic() < self._down_until:  # Redis failed a moment ago: not waited on again yet
                self.fallbacks += 1
                return None
            try:
                if not await self.workers_alive():
                    self._outage.passed()
                    self.fallbacks += 1
                    return None
                job_id, data = await self._queue(job, priority, key, deadline)
                self._outage.passed()
            except REDIS_FAILED as error:
                self._outage.failed(error)
                self._down_until = time.monotonic() + self.outage_seconds
                self.fallbacks += 1
                return None
            if data is not None and "failed" not in data:
                return decode_result(job["kind"], position, data)
            if data is None:
                log.warning("engine job %s not answered in %.0f s: run here", job_id, deadline)
            else:
                log.warning("engine job %s given up by the workers (%s): run here", job_id, data["failed"])
            self.fallbacks += 1
            return None
        finally:
            self.pending -= 1

    async def _queue(self, job: dict, priority: int, key: str | None, deadline: float
                     ) -> tuple[str, dict | None]:
        """The job's id and its result's data (None: not answered in `deadline`), queued by the first caller
        with its `key`; the others wait for that one's result."""
        job_id, owner = uuid.uuid4().hex, True
        if key is not None:
            existing = await self._redis.set(
                self.prefix + "jobkey:" + key, job_id, nx=True, get=True, ex=int(deadline) + 60
            )
            if existing is not None:
                job_id, owner = existing.decode(), False
        async with self._bus.subscribe(self._done_channel(job_id)) as done:  # before the job: no nudge missed
            if owner:
                await self._redis.xadd(self._stream(priority), {"id": job_id, "job": json.dumps(job)})
            return job_id, await self._wait(done, job_id, deadline)

    def _stream(self, priority: int) -> str:
        return stream_key(self.prefix, priority)

    def _done_channel(self, job_id: str) -> str:
        """The channel of a job's nudge, named as the bus names it (within its prefix)."""
        return (self.prefix + "done:" + job_id)[len(self._bus.prefix) :]

    async def _wait(self, done: Subscription, job_id: str, deadline: float) -> dict | None:
        ends = time.monotonic() + deadline
        while (left := ends - time.monotonic()) > 0:
            raw = await self._redis.get(self.prefix + "result:" + job_id)
            if raw is not None:
                return json.loads(raw)
            with contextlib.suppress(TimeoutError):  # a lost nudge: the result is read again anyway
                await asyncio.wait_for(done.get(), min(1.0, left))
        return None

    async def close(self) -> None:
        if self._local is not None:
            await self._local.close()
        if self._owns_bus:
            await self._bus.close()


class QueueDepth:
    """The queue's depth by priority, read from Redis for the server's metrics (`shashki_engine_queue`):
    the jobs queued (no worker has taken them) and taken (a worker's, not acknowledged yet: running, or
    left by a dead worker until another claims them). A worker deletes each job it acknowledges, so a
    stream holds just these two kinds: queued = its length less the group's pending count."""

    def __init__(self, redis_url: str, *, prefix: str = "shashki:") -> None:
        import redis.asyncio as redis

        self._redis: Any = redis.from_url(redis_url, client_name="shashki-metrics")
        self.prefix = prefix

    async def read(self) -> dict[int, tuple[int, int]]:
        """(queued, taken) for each priority, in one round trip."""
        async with self._redis.pipeline(transaction=False) as pipe:
            for priority in PRIORITIES:
                pipe.xlen(stream_key(self.prefix, priority))
                pipe.xpending(stream_key(self.prefix, priority), GROUP)
            answers = await pipe.execute(raise_on_error=False)
        depth = {}
        for i, priority in enumerate(PRIORITIES):
            length, pending = answers[2 * i], answers[2 * i + 1]
            if isinstance(length, Exception):
                raise length
            # No group yet (no worker has ever started): nothing taken.
            taken = 0 if isinstance(pending, Exception) else int(pending["pending"])
            depth[priority] = (max(0, int(length) - taken), taken)
        return depth

    async def close(self) -> None:
        await self._redis.aclose()
