"""The ASGI application: services wired together, routes mounted, and `run()` for `shashki serve`.

>>> app = create_app(Settings(data_dir=Path("/tmp/shashki-doctest")))
>>> sorted(r.path for r in app.routes if r.path.startswith("/ws"))
['/ws/games/{game_id}', '/ws/lobby']
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

from fastapi import Depends, FastAPI

from shashki.server.accounts import AccountService
from shashki.server.chat import ChatService
from shashki.server.config import Settings
from shashki.server.events import make_bus
from shashki.server.games.computer import make_opponent
from shashki.server.games.rematch import RematchService
from shashki.server.games.service import GameService
from shashki.server.history import HistoryService
from shashki.server.http import (
    accounts,
    chat,
    edge,
    errors,
    exports,
    games,
    live,
    lobby,
    meta,
    pages,
    players,
    rematch,
    social,
    validation,
)
from shashki.server.http.now_playing import LIMIT as NOW_PLAYING
from shashki.server.http.now_playing import NowPlaying
from shashki.server.lidraughts import routes as lidraughts_routes
from shashki.server.lidraughts.api import BotApi
from shashki.server.lobby import LobbyService
from shashki.server.ratings import RatingService
from shashki.server.social import SocialService
from shashki.server.storage import Database

log = logging.getLogger("shashki.server")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        db = await Database(settings.sqlalchemy_url).open()
        bus = make_bus(settings.redis_url)
        accounts_service = AccountService(
            db,
            session_days=settings.session_days,
            argon2_memory_kib=settings.argon2_memory_kib,
            argon2_time_cost=settings.argon2_time_cost,
            bus=bus,  # logouts and revocations are told to every process (accounts/revocation.py)
        )
        game_service = GameService(
            db,
            bus,
            disconnect_claim_seconds=settings.disconnect_claim_seconds,
            max_lag_compensation_ms=settings.max_lag_compensation_ms,
            computer_delay_seconds=settings.computer_delay_seconds,
            first_move_seconds=settings.first_move_seconds,
            engine=make_opponent(settings.engine, settings.engine_workers, settings.engine_untimed_seconds),
            accounts=accounts_service,
        )
        app.state.settings = settings
        app.state.db = db
        app.state.bus = bus
        app.state.accounts = accounts_service
        # An account may become a bot only before it has played: the games say whether it has.
        accounts_service.games_played = game_service.games_played
        app.state.games = game_service
        app.state.lobby = LobbyService(
            db, bus, game_service, accounts_service, min_clock_seconds=settings.min_clock_seconds
        )
        # Ratings move inside the transaction that records a rated game's end.
        app.state.ratings = RatingService(db, accounts_service)
        game_service.end_hooks.append(app.state.ratings.on_game_end)
        app.state.history = HistoryService(db, game_service, app.state.ratings, accounts_service)
        history = app.state.history
        # The games being played now, pushed down this process's lobby sockets (http/now_playing.py).
        app.state.now_playing = NowPlaying(lambda: history.now_playing(limit=NOW_PLAYING))
        app.state.chat = ChatService(
            db,
            bus,
            game_service,
            accounts_service,
            limits=app.state.limits,  # its "chat" limit: chat_lines per chat_window_seconds
        )
        app.state.rematch = RematchService(game_service, bus)
        # Follows and blocks: the lobby refuses challenges and hides seeks across a block, the chat
        # refuses lines, and the followers of a game's players are told it started.
        app.state.social = SocialService(db, bus, game_service, accounts_service)
        app.state.lobby.blocks = app.state.social
        app.state.chat.blocks = app.state.social.blocks
        app.state.rematch.blocks = app.state.social.blocks
        game_service.store.add_listener(app.state.social.on_game_change)
        app.state.bots = BotApi(
            bus,
            game_service,
            app.state.lobby,
            app.state.ratings,
            app.state.chat,
            app.state.rematch,
            app.state.accounts,
            keepalive_seconds=settings.stream_keepalive_seconds,
            event_streams=settings.event_streams,
            game_streams=settings.game_streams,
        )
        resumed = await game_service.resume()
        log.info("shashki server ready: %d live games resumed", resumed)
        try:
            yield
        finally:
            await app.state.social.close()
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
        dependencies=[Depends(validation.bounded_inputs)],  # every path and query parameter bounded
    )
    errors.install(app)
    edge.install(app, settings)  # proxies, security headers, body and socket limits, the rate limiter

    @app.get("/health", tags=["service"], summary="Answers once the server serves")
    async def health() -> dict:
        return {"status": "ok"}

    # `exports` before the routers with /api/games/{id}/...: its /api/games/user/{name} must match first;
    # the lidraughts routes before `players`: /api/users/status is not a player called "status".
    routers = (accounts, lobby, exports, games, live, lidraughts_routes, players, chat, rematch, social, meta)
    for module in routers:
        app.include_router(module.router)
    pages.install(app)  # the browser client (shashki/web): its pages and static files
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

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend the schema


def run(
    host: str = "127.0.0.1",
    port: int = 8000,
    data: str | Path | None = None,
    trusted_proxies: str | None = None,
) -> None:
    """Serve until interrupted: SQLite under `data` or `DATABASE_URL`, events in process or `REDIS_URL`.

    `trusted_proxies` (else `SHASHKI_TRUSTED_PROXIES`): the proxies whose forwarded headers are believed.
    """
    import uvicorn

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = Settings.from_env(data)
    if trusted_proxies is not None:
        settings.public.trusted_proxies = trusted_proxies
    uvicorn.run(
        create_app(settings),
        host=host,
        port=port,
        log_level="info",
        # Forwarded headers are read by the application (http/edge.py), from the configured proxies only:
        # uvicorn's own reading would believe 127.0.0.1 by default.
        proxy_headers=False,
        ws_max_size=settings.public.max_body_bytes,  # a frame larger than a request body is refused too
        ws_ping_interval=20,
        ws_ping_timeout=20,
    )
