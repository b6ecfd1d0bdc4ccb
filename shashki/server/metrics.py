"""What the service measures of itself, for Prometheus (`GET /metrics`).

One registry per process; with several processes (`shashki serve --workers N`) each writes its samples
under `PROMETHEUS_MULTIPROC_DIR` and any of them answers `/metrics` with the sum (prometheus-client's
multiprocess mode), so a scrape through the shared port sees the whole server.

What is counted, and where:
- `shashki_moves_total` and `shashki_move_seconds`: every committed move, and the time from the request
  to the commit (what a player's acknowledgement waits on) — `GameService.move`;
- `shashki_http_request_seconds`: each HTTP request by route template (bounded labels), `http/ops.py`;
- gauges sampled every few seconds (`Sampler`): live games cached, WebSockets open, engine jobs in
  flight, database connections checked out, event-bus channels subscribed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable

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
    "CONTENT_TYPE_LATEST", "MOVES", "MOVES_BY", "MOVE_SECONDS", "REQUEST_SECONDS", "Sampler", "exposition"
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


def exposition() -> bytes:
    """The text format for `/metrics`: this process's registry, or every process's sum."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        registry = CollectorRegistry()
        _multiprocess.MultiProcessCollector(registry, path=directory)
        return generate_latest(registry)
    return generate_latest()


class Sampler:
    """Sets the gauges from their sources every `every` seconds while the server runs.

    Sampling (not counting at each change) keeps the hot paths free of bookkeeping; a gauge is at most
    `every` seconds old.
    """

    def __init__(self, sources: dict[str, Callable[[], float]], every: float = 5.0) -> None:
        unknown = set(sources) - set(_GAUGES)
        if unknown:
            raise ValueError(f"no such gauge: {sorted(unknown)}")
        self.sources = sources
        self.every = every
        self._task: asyncio.Task[None] | None = None

    def sample(self) -> None:
        for name, source in self.sources.items():
            with contextlib.suppress(Exception):  # a source gone away (closing) leaves its last value
                _GAUGES[name].set(source())

    async def _run(self) -> None:
        while True:
            self.sample()
            await asyncio.sleep(self.every)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
