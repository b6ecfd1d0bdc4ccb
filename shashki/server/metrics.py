"""What the service measures of itself, for Prometheus (`GET /metrics`).

One registry per process; with several processes (`shashki serve --workers N`) each writes its samples
under `PROMETHEUS_MULTIPROC_DIR` and any of them answers `/metrics` with the sum (prometheus-client's
multiprocess mode), so a scrape through the shared port sees the whole server.

What is counted, and where:
- `shashki_moves_total` and `shashki_move_seconds`: every committed move, and the time from the request
  to the commit (what a player's acknowledgement waits on) — `GameService.move`;
- `shashki_http_request_seconds`: each HTTP request by route template (bounded labels), `http/ops.py`;
- gauges sampled every few seconds (`Sampler`): live games cached, WebSockets open, engine jobs in
  flight, database connections checked out, event-bus channels subscribed, the database pool
  (`shashki_db_pool` by state), and the engine job queue's depth by priority (`shashki_engine_queue`:
  jobs queued and jobs taken, read from the Redis streams of `jobs.py`, else the local pools').

A process that ends marks itself dead (`mark_dead`): the "live" gauges then leave the sum, so the
processes that `--workers N` restarts do not add up for ever. A process that dies without ending (killed,
crashed: uvicorn's supervisor starts another in its place and tells nobody) cannot; so every exposition
first takes out the live gauges of the processes that no longer exist (`forget_dead`). The directory is
one server's, on one machine: its files are named by pids of this machine's processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as _multiprocess

__all__ = [
    "CONTENT_TYPE_LATEST", "MOVES", "MOVES_BY", "MOVE_SECONDS", "REQUEST_SECONDS", "Sampler", "exposition",
    "forget_dead", "mark_dead",
]

# Acks are meant to come well under 100 ms (issue 11's goal): the buckets resolve that range finely.
_LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)

MOVES = Counter("shashki_moves", "Moves committed", ["by"])
# Each label's child made once, not looked up under the metric's lock at every move.
MOVES_BY = {by: MOVES.labels(by) for by in ("player", "computer")}
MOVE_SECONDS = Histogram(
    "shashki_move_seconds", "From a move's request to its commit", buckets=_LATENCY_BUCKETS
)
REQUEST_SECONDS = Histogram(
    "shashki_http_request_seconds",
    "HTTP requests by route template and status class",
    ["method", "route", "status"],
    buckets=_LATENCY_BUCKETS,
)
_GAUGES = {
    name: Gauge(f"shashki_{name}", text, multiprocess_mode="livesum")
    for name, text in {
        "live_games": "Games in play cached by this server",
        "websockets": "WebSockets open",
        "engine_jobs": "Engine jobs waiting or running (computer moves, analyses)",
        "db_connections": "Database connections checked out",
        "bus_channels": "Event-bus channels subscribed",
    }.items()
}
# Labelled gauges, whose sources give a value per tuple of labels.
_GAUGES["db_pool"] = Gauge(
    "shashki_db_pool",
    "The database pool: size (connections kept), open, overflow (open beyond the size), checked_out; "
    "on SQLite also write_waiting (write transactions queued for the single writer)",
    ["state"],
    multiprocess_mode="livesum",
)
# The Redis queue is one for every process: each reads the same depth, so the processes' maximum (not
# their sum) is the depth. (Without Redis there is one process: `--workers` needs Redis.)
_GAUGES["engine_queue"] = Gauge(
    "shashki_engine_queue",
    "Engine jobs by priority (play, analysis): queued (no worker or pool process has taken them yet) "
    "and taken (being worked on)",
    ["priority", "state"],
    multiprocess_mode="livemax",
)

Value = float | dict[tuple[str, ...], float]
Source = Callable[[], Value | Awaitable[Value]]


def exposition() -> bytes:
    """The text format for `/metrics`: this process's registry, or every process's sum."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        forget_dead(directory)
        registry = CollectorRegistry()
        _multiprocess.MultiProcessCollector(registry, path=directory)
        return generate_latest(registry)
    return generate_latest()


def mark_dead(pid: int | None = None) -> None:
    """Take process `pid`'s (default this one's) "live" gauges out of the multiprocess sum: called as a
    server process ends, else its last values (its games, its sockets) would count as long as the
    directory lasts. Nothing to do with one process (no `PROMETHEUS_MULTIPROC_DIR`)."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        _multiprocess.mark_process_dead(os.getpid() if pid is None else pid, directory)


def forget_dead(directory: str) -> list[int]:
    """Mark dead every process whose "live" gauges are in `directory` but which no longer runs (killed,
    crashed: it could not mark itself), so that its last games and sockets leave the sum; returns their
    pids. Its counters and histograms stay, as a clean end leaves them. A listing of the directory and a
    signal 0 per process: cheap beside the exposition's reading of every file."""
    pids = set()
    for path in Path(directory).glob("gauge_live*_*.db"):
        number = path.stem.rpartition("_")[2]
        if number.isdigit():
            pids.add(int(number))
    dead = sorted(pid for pid in pids if not _running(pid))
    for pid in dead:
        with contextlib.suppress(FileNotFoundError):  # another process's exposition was quicker
            _multiprocess.mark_process_dead(pid, directory)
    return dead


def _running(pid: int) -> bool:
    """Whether process `pid` exists on this machine and has not ended (a zombie, dead and not yet reaped
    by its parent, has ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] != b"Z"
    except (OSError, IndexError):  # no /proc (not Linux): existing is running
        return True


class Sampler:
    """Sets the gauges from their sources every `every` seconds while the server runs.

    Sampling (not counting at each change) keeps the hot paths free of bookkeeping; a gauge is at most
    `every` seconds old. A source gives a number, or a number for each tuple of its gauge's labels; it may
    be a coroutine (a Redis read), given `every` seconds to answer.
    """

    def __init__(self, sources: dict[str, Source], every: float = 5.0) -> None:
        unknown = set(sources) - set(_GAUGES)
        if unknown:
            raise ValueError(f"no such gauge: {sorted(unknown)}")
        self.sources = sources
        self.every = every
        self._task: asyncio.Task[None] | None = None

    async def sample(self) -> None:
        for name, source in self.sources.items():
            try:
                value = source()
                if inspect.isawaitable(value):
                    value = await asyncio.wait_for(value, self.every)
            except Exception:  # a source gone away (closing, Redis down) leaves its last value
                continue
            gauge = _GAUGES[name]
            if isinstance(value, dict):
                for labels, number in value.items():
                    gauge.labels(*labels).set(number)
            else:
                gauge.set(value)

    async def _run(self) -> None:
        while True:
            await self.sample()
            await asyncio.sleep(self.every)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
