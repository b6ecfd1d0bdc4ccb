"""The ASGI application: services wired together, routes mounted, and `run()` for `shashki serve`.

>>> app = create_app(Settings(data_dir=Path("/tmp/shashki-doctest")))
>>> sorted(r.path for r in app.routes if r.path.startswith("/ws"))
['/ws/games/{game_id}', '/ws/lobby']
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

from fastapi import FastAPI

from shashki.server.accounts import AccountService
from shashki.server.config import Settings
from shashki.server.events import make_bus
from shashki.server.games.service import GameService
from shashki.server.http import accounts, errors, games, live, lobby
from shashki.server.lobby import LobbyService
from shashki.server.storage import Database

log = logging.getLogger("shashki.server")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        db = await Database(settings.sqlalchemy_url).open()
        bus = make_bus(settings.redis_url)
        game_service = GameService(
            db,
            bus,
            disconnect_claim_seconds=settings.disconnect_claim_seconds,
            max_lag_compensation_ms=settings.max_lag_compensation_ms,
            computer_delay_seconds=settings.computer_delay_seconds,
        )
        app.state.settings = settings
        app.state.db = db
        app.state.bus = bus
        app.state.accounts = AccountService(
            db,
            login_attempts=settings.login_attempts,
            registrations=settings.registrations,
            window_seconds=settings.rate_limit_window_seconds,
            session_days=settings.session_days,
            argon2_memory_kib=settings.argon2_memory_kib,
            argon2_time_cost=settings.argon2_time_cost,
        )
        app.state.games = game_service
        app.state.lobby = LobbyService(db, bus, game_service)
        resumed = await game_service.resume()
        log.info("shashki server ready: %d live games resumed", resumed)
        try:
            yield
        finally:
            await game_service.close()
            await bus.close()
            await db.close()

    app = FastAPI(
        title="Shashki",
        version="0.1.0",
        lifespan=lifespan,
        description="An online draughts server built around Russian giveaway draughts (poddavki). "
        'Errors are `{"error": {"code": ..., "message": ...}}`. Live channel: '
        "WebSockets `/ws/games/{id}` and `/ws/lobby` (see shashki/server/http/live.py).",
    )
    errors.install(app)

    @app.get("/health", tags=["service"], summary="Answers once the server serves")
    async def health() -> dict:
        return {"status": "ok"}

    for module in (accounts, lobby, games, live):
        app.include_router(module.router)
    document_websockets(app)
    return app


def document_websockets(app: FastAPI) -> None:
    """List the WebSocket endpoints in the OpenAPI description too (OpenAPI has no WebSocket operations:
    they are described as the GET that upgrades the connection).
    """
    sockets = {
        "/ws/games/{game_id}": "One game, live: numbered states, move acks, resync; players act, all watch",
        "/ws/lobby": "The lobby, live: open seeks; for a logged-in player, challenges and games starting",
    }
    default_openapi = app.openapi

    def openapi() -> dict:
        if app.openapi_schema:
            return app.openapi_schema
        schema = default_openapi()
        for path, summary in sockets.items():
            parameters = [{"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"}}]
            schema["paths"][path] = {
                "get": {
                    "tags": ["live"],
                    "summary": summary,
                    "description": live.__doc__,
                    "parameters": parameters if "{game_id}" in path else [],
                    "responses": {"101": {"description": "Switching to the WebSocket protocol"}},
                }
            }
        return schema

    app.openapi = openapi


def run(host: str = "127.0.0.1", port: int = 8000, data: str | Path | None = None) -> None:
    """Serve until interrupted: SQLite under `data` or `DATABASE_URL`, events in process or `REDIS_URL`."""
    import uvicorn

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    uvicorn.run(
        create_app(Settings.from_env(data)),
        host=host,
        port=port,
        log_level="info",
        ws_ping_interval=20,
        ws_ping_timeout=20,
    )
