"""Operations: `/metrics` for Prometheus, liveness and readiness checks, and the timing of requests.

- `GET /health/live`: the process answers (its event loop turns) — restart it if this fails;
- `GET /health/ready`: it can serve — the database answers a query and the event bus (Redis, when
  configured) a ping, and it is not shutting down; 503 with the failing part otherwise, so that a proxy
  or an orchestrator sends it no new players meanwhile;
- `GET /metrics`: the text format of `shashki.server.metrics`.
`/health` stays as it was (answers once the server serves).

`drain_on_sigterm`: with `drain_seconds`, a SIGTERM first makes readiness fail while the server goes on
serving, and only then lets uvicorn shut it down (sockets closed with 1012, leases of games handed over);
with or without, the games' clocks stop and the API's streams end as uvicorn begins to (`on_stop`).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from types import FrameType
from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse
from sqlalchemy import text
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from shashki.server import metrics
from shashki.server.http.deps import Bus, Db, Draining

router = APIRouter(tags=["service"])

CHECK_SECONDS = 2.0  # a dependency slower than this is as good as down for a player waiting on it


@router.get("/health/live", summary="The process answers")
async def live() -> dict:
    return {"status": "ok"}


@router.get("/health/ready", summary="The server can serve: database and events answer, not draining")
async def ready(db: Db, bus: Bus, draining: Draining) -> JSONResponse:
    checks: dict[str, str] = {}
    if draining:
        checks["shutdown"] = "draining"
    try:
        async with asyncio.timeout(CHECK_SECONDS), db.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
        checks["database"] = "ok"
    except Exception as e:  # any failure is "not ready", named for the operator
        checks["database"] = f"failing: {type(e).__name__}"
    try:
        async with asyncio.timeout(CHECK_SECONDS):
            await bus.ping()
        checks["events"] = "ok"
    except Exception as e:
        checks["events"] = f"failing: {type(e).__name__}"
    ok = all(v == "ok" for k, v in checks.items() if k != "shutdown") and "shutdown" not in checks
    return JSONResponse({"status": "ok" if ok else "unavailable", "checks": checks}, 200 if ok else 503)


@router.get("/metrics", summary="Prometheus metrics (text format)", include_in_schema=False)
async def prometheus() -> Response:
    return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE_LATEST)


class RequestTiming:
    """Times each HTTP request into `shashki_http_request_seconds`, labelled by the route's template
    (`/api/games/{game_id}`, never the id itself: the label set stays bounded) and the status class."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        status = 500

        async def watched_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watched_send)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            if template != "/metrics":
                metrics.REQUEST_SECONDS.labels(scope["method"], template, f"{status // 100}xx").observe(
                    time.perf_counter() - started
                )


def drain_on_sigterm(
    state: Any, seconds: float, on_stop: Callable[[], None] | None = None
) -> Callable[[], None]:
    """Put a drain before uvicorn's handling of SIGTERM: with `seconds`, the first one sets
    `state.draining` (readiness fails) and hands the signal on to uvicorn's handler `seconds` later; a
    second SIGTERM, or SIGINT, is handed on at once. `on_stop()` is called as the signal is handed on,
    before uvicorn waits for the open requests and streams to end (the games' clocks stop then, and the
    streams end: `GameService.stop`). Installed from the lifespan's start-up (uvicorn has set its
    handlers by then); returns what puts uvicorn's handlers back. Nothing outside the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    loop = asyncio.get_running_loop()
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    pending: list[asyncio.TimerHandle] = []

    def hand_on(sig: int, frame: FrameType | None) -> None:
        if on_stop is not None:
            on_stop()
        handler = handlers[signal.Signals(sig)]
        if callable(handler):
            handler(sig, frame)

    def on_signal(sig: int, frame: FrameType | None) -> None:
        if seconds <= 0 or sig != signal.SIGTERM or getattr(state, "draining", False):
            for timer in pending:  # no (more) waiting
                timer.cancel()
            state.draining = True
            hand_on(sig, frame)
            return
        state.draining = True
        logging.getLogger("shashki.server").info(
            "SIGTERM: draining for %g s (readiness fails; still serving), then shutting down", seconds
        )
        pending.append(loop.call_later(seconds, hand_on, sig, None))

    installed = [sig for sig, handler in handlers.items() if callable(handler)]
    for sig in installed:
        signal.signal(sig, on_signal)

    def restore() -> None:
        for timer in pending:
            timer.cancel()
        for sig in installed:
            if signal.getsignal(sig) is on_signal:
                signal.signal(sig, handlers[sig])

    return restore


def stop_on_signal(
    state: Any, seconds: float, stop: Callable[[], Coroutine[Any, Any, object]]
) -> Callable[[], Awaitable[None]]:
    """As the stop begins (the signal handed on to uvicorn, after the drain: `drain_on_sigterm`), set
    `state.stopping` (the API's streams end at once rather than hold the stop) and begin `stop()` (the
    games' clocks stopped where they stand: `GameService.stop`), so that no flag falls while the process
    waits for its requests to end and nobody can reach it. Returns what the lifespan's end awaits: the
    signal handlers put back, `stopping` set, and the `stop()` begun finished."""
    state.stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    begun: list[asyncio.Task] = []

    def begin() -> None:
        if not state.stopping.is_set():
            state.stopping.set()
            begun.append(loop.create_task(stop()))

    def on_stop() -> None:  # in the signal handler: the work itself in the loop's next turn
        loop.call_soon_threadsafe(begin)

    undrain = drain_on_sigterm(state, seconds, on_stop)

    async def finish() -> None:
        state.draining = True
        state.stopping.set()
        undrain()
        for task in begun:
            await task

    return finish
