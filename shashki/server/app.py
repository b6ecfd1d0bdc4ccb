"""The ASGI application: services wired together, routes mounted, and `run()` for `shashki serve`.

>>> app = create_app(Settings(data_dir=Path("/tmp/shashki-doctest")))
>>> print(*(path for path in sorted(app.openapi()["paths"]) if path.startswith("/ws")), sep="\\n")
/ws/analysis
/ws/games/{game_id}
/ws/lobby
/ws/simuls/{simul_id}
/ws/tournaments/{tournament_id}
"""

from __future__ import annotations

import contextlib
import gc
import logging
import logging.config
from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import Depends, FastAPI

from shashki.server import gauges
from shashki.server.accounts import AccountService
from shashki.server.accounts.preferences import PreferenceService
from shashki.server.accounts.security import AccountSecurity
from shashki.server.analysis import AnalysisService
from shashki.server.chat import ChatService
from shashki.server.config import Settings, SettingsError
from shashki.server.explorer import ExplorerService
from shashki.server.games.computer import make_opponent
from shashki.server.games.rematch import RematchService
from shashki.server.games.service import GameService
from shashki.server.history import HistoryService
from shashki.server.http import (
    accounts,
    analysis,
    chat,
    edge,
    errors,
    explorer,
    exports,
    games,
    live,
    lobby,
    meta,
    notifications,
    ops,
    pages,
    players,
    preferences,
    puzzles,
    rematch,
    reviews,
    simuls,
    social,
    tournaments,
    validation,
)
from shashki.server.http.now_playing import LIMIT as NOW_PLAYING
from shashki.server.http.now_playing import NowPlaying
from shashki.server.http.openapi import document_websockets
from shashki.server.lidraughts import routes as lidraughts_routes
from shashki.server.lidraughts.api import BotApi
from shashki.server.lobby import LobbyService
from shashki.server.logs import logging_config
from shashki.server.metrics import Sampler, mark_dead
from shashki.server.notifications import NotificationService
from shashki.server.puzzles.service import PuzzleService
from shashki.server.ratings import RatingService
from shashki.server.redisbus import RedisBus, make_bus
from shashki.server.reviews import ReviewService
from shashki.server.simuls import SimulService
from shashki.server.social import SocialService
from shashki.server.storage import Database
from shashki.server.tournaments.director import Director
from shashki.server.tournaments.lease import Lease
from shashki.server.tournaments.live import TournamentFeed
from shashki.server.tournaments.results import Results
from shashki.server.tournaments.schedule import Schedule
from shashki.server.tournaments.service import TournamentService

if TYPE_CHECKING:
    pass

log = logging.getLogger("shashki.server")
# The cyclic garbage collector once the server runs (issue 11). Every collection stops the event loop for
# as long as it walks its generations: a full one over the server's some 350,000 tracked objects (the
# rules' and views' caches, the ORM's mappers) took 300-500 ms, five or six a minute with Python's
# thresholds (700, 10, 10). What exists at start-up is frozen out of every collection (`gc.freeze`), and
# full collections are a hundred times rarer; the young generations keep Python's thresholds, because a
# pause grows with them: at (10_000, 10, 50) the middle generation's took 130-160 ms, every few seconds
# under 2,000 games (at most 24 ms with these, measured with a `gc.callbacks` timer).
GC_THRESHOLDS = (700, 10, 1000)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        db = await Database(settings.sqlalchemy_url).open()
        bus = make_bus(settings.redis_url)
        # The engine jobs' nudges come on the bus's one pub/sub connection (jobs.py), not one of their own.
        queue_bus = bus if isinstance(bus, RedisBus) else None
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
            game_lease_seconds=settings.game_lease_seconds,
            engine=make_opponent(
                settings.engine,
                settings.engine_workers,
                settings.engine_untimed_seconds,
                queue_url=settings.redis_url if settings.engine_queue == "auto" else None,
                queue_bus=queue_bus,
            ),
            accounts=accounts_service,
        )
        app.state.settings = settings
        app.state.db = db
        app.state.bus = bus
        app.state.accounts = accounts_service
        app.state.preferences = PreferenceService(db)  # the pages' looks per account (issue 16)
        # An account may become a bot only before it has played: the games say whether it has.
        accounts_service.games_played = game_service.games_played
        app.state.games = game_service
        # The account's password, sessions and closing (accounts/security.py): an account closes only
        # once its games are over; what it offered and entered is withdrawn with it (below).
        app.state.security = AccountSecurity(accounts_service)
        app.state.security.games_in_play = game_service.queries.in_play_of_player
        app.state.security.abort_game = game_service.abort
        app.state.lobby = LobbyService(
            db, bus, game_service, accounts_service, min_clock_seconds=settings.min_clock_seconds
        )
        # Ratings move inside the transaction that records a rated game's end.
        app.state.ratings = RatingService(db, accounts_service)
        game_service.end_hooks.append(app.state.ratings.end_hook)
        # Computer analyses of finished games, on the engine's job queue (workers) or a pool of their own.
        app.state.reviews = ReviewService(
            db,
            game_service.queries,
            analysis_engine(settings, queue_bus),
            seconds_per_move=settings.review_seconds_per_move,
            # several processes: one runs each review, claimed in the table and swept for when it dies
            shared=bool(settings.redis_url),
            claim_seconds=settings.review_claim_seconds,
        )
        if settings.review_rated_games:
            game_service.store.add_listener(app.state.reviews.on_game_change)
        # The opening explorer counts each game as it finishes (a listener of the games store).
        app.state.explorer = ExplorerService(db)
        game_service.store.add_listener(app.state.explorer)
        # Puzzles: the default variant's starter set is stored in the background (the others on first use).
        app.state.puzzles = PuzzleService(db)
        app.state.puzzles.start()
        app.state.history = HistoryService(db, game_service, app.state.ratings, accounts_service)
        app.state.history.analysis_comments = app.state.reviews.comments  # the PDN carries the analysis
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
        # Anonymous players chat only in games begun from a challenge link (chat/service.py).
        app.state.chat.friends = app.state.lobby.links.is_link_game
        app.state.rematch = RematchService(game_service, bus)
        # Notifications inside the site: correspondence turns and ends (a games listener), challenges.
        app.state.notifications = NotificationService(db, bus)
        app.state.notifications.present = game_service.presence.connected
        game_service.store.add_listener(app.state.notifications.game_changed)
        app.state.lobby.challenge_hooks.append(app.state.notifications.challenged)
        app.state.lobby.settled_hooks.append(app.state.notifications.challenge_settled)
        app.state.lobby.ratings_of = app.state.ratings.for_players  # the seeks listed with ratings
        # Follows and blocks: the lobby refuses challenges and hides seeks across a block, the chat
        # refuses lines, and the followers of a game's players are told it started.
        # Who is on the site: their lobby sockets, counted across the processes (connections.py).
        app.state.social = SocialService(db, bus, game_service, accounts_service, app.state.connections)
        app.state.lobby.blocks = app.state.lobby.links.blocks = app.state.social
        app.state.lobby.here = app.state.social.online.here  # a page's seek leaves with its player
        app.state.social.block_hooks.append(app.state.lobby.settle_between)
        app.state.chat.blocks = app.state.social.blocks
        app.state.rematch.blocks = app.state.social.blocks
        app.state.rematch.closed = app.state.security.is_closed
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
            redis_url=settings.redis_url,
            connections=app.state.connections,
        )
        app.state.analysis = AnalysisService(
            settings.analysis_workers, settings.analysis_max_seconds, settings.analysis_max_lines,
            # the board's lines on the workers' queue when there is one (below a game's move)
            queue_url=settings.redis_url if settings.engine_queue == "auto" else None,
            queue_bus=queue_bus,
        )
        # Tournaments: their service, the games store's listener that records results, and this
        # process's director (it directs the tournaments whose lease it holds: tournaments/director.py).
        feed = TournamentFeed(bus)
        app.state.tournaments = TournamentService(
            db,
            game_service,
            accounts_service,
            app.state.ratings,
            feed,
            min_clock_ms=round(settings.min_clock_seconds * 1000),
        )
        # Simuls: a host plays many players at once (simuls/: its listener follows their games).
        app.state.simuls = SimulService(
            db,
            game_service,
            accounts_service,
            bus,
            app.state.social.blocked_between,
            min_clock_ms=round(settings.min_clock_seconds * 1000),
        )
        app.state.security.closing_hooks += [
            app.state.lobby.withdraw_offers_of,
            app.state.tournaments.withdraw_everywhere,
            app.state.simuls.withdraw_everywhere,
        ]
        tournament_results = Results(db, feed)
        game_service.store.add_listener(tournament_results)
        director = Director(
            app.state.tournaments,
            tournament_results,
            Lease(db, seconds=settings.tournament_lease_seconds),
            tick=settings.tournament_tick_seconds,
            schedule=Schedule.from_setting(settings.tournament_schedule),
        )
        resumed = await game_service.resume()
        await app.state.simuls.resume()
        await app.state.reviews.resume()
        app.state.reviews.start()
        director.start()
        app.state.lobby.start(settings.seek_left_seconds)
        log.info("shashki server ready: %d live games resumed", resumed)
        sampled = gauges.ServerGauges(settings, app.state, db, bus, game_service)
        sampler = Sampler(sampled.sources())
        sampler.start()
        app.state.draining = False
        finish_stop = ops.stop_on_signal(app.state, settings.drain_seconds, game_service.stop)
        gc.freeze()  # the start-up's objects (live for good) out of every collection
        gc.set_threshold(*GC_THRESHOLDS)
        try:
            yield
        finally:
            # Shutting down: uvicorn has stopped taking connections and closed the sockets (code 1012,
            # "service restart": clients reconnect, to another process behind the proxy); readiness now
            # fails; the games this process owns had their clocks stopped and were handed over as the
            # stop began (with several processes another takes each at once, timers and all:
            # games/owners.py); then the timers and the engine stop.
            # Every move was committed before it was acknowledged, so the games resume in whichever
            # process next loads them.
            await finish_stop()
            await game_service.stop()  # once: nothing more when the signal began it
            await sampler.close()
            await app.state.bots.jumps.close()
            await app.state.reviews.close()
            await director.close()
            await tournament_results.close()
            await app.state.simuls.close()
            await app.state.lobby.close()
            await feed.close()
            await app.state.social.close()
            await game_service.close()
            await app.state.explorer.close()
            await app.state.puzzles.close()
            await app.state.notifications.close()
            await app.state.analysis.close()
            await bus.close()
            await db.close()
            await sampled.close()
            # This process's live gauges out of the other processes' sum (`--workers N`): it serves no
            # more games nor sockets, and a process restarted in its place has another pid.
            mark_dead()

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

    # Routes are matched in order, one regular expression each: the game and lobby sockets and the
    # challenges (every game's start) first, 40 us sooner a socket than behind 200 others (issue 11).
    # `exports` before the routers with /api/games/{id}/...: its /api/games/user/{name} must match first;
    # the lidraughts routes before `players`: /api/users/status is not a player called "status".
    routers = (
        live, lobby, accounts, exports, games, lidraughts_routes, players, chat, rematch, social, meta, ops,
        explorer, reviews, analysis, tournaments, simuls, puzzles,
    )
    for module in (*routers, notifications):
        app.include_router(module.router)
    app.add_middleware(ops.RequestTiming)
    app.include_router(preferences.router)  # the pages' looks per account (issue 16)
    pages.install(app)  # the browser client (shashki/web): its pages and static files
    document_websockets(app)
    return app


def analysis_engine(settings: Settings, bus: RedisBus | None = None):
    """The engine for analyses: `shashki worker` processes through Redis when configured (the server's
    own pool standing in; the jobs on `bus`'s connections), else a pool of its own beside the computer
    opponent's."""
    from shashki.engine import AsyncEngine

    local = AsyncEngine(workers=settings.engine_workers)
    if settings.redis_url and settings.engine_queue == "auto":
        from shashki.server.jobs import QueuedEngine

        return QueuedEngine(settings.redis_url, local, bus=bus)
    return local


def run(
    host: str = "127.0.0.1",
    port: int = 8000,
    data: str | Path | None = None,
    trusted_proxies: str | None = None,
    workers: int = 1,
) -> None:
    """Serve until interrupted: SQLite under `data` or `DATABASE_URL`, events in process or `REDIS_URL`.

    `trusted_proxies` (else `SHASHKI_TRUSTED_PROXIES`): the proxies whose forwarded headers are believed.
    `workers` > 1 runs that many processes on the one port (uvicorn's supervisor, which restarts a process
    that dies); any of them serves any game, so they need `REDIS_URL` for the events between them, and
    they add up their metrics in a shared directory.
    """
    import os
    import tempfile

    import uvicorn

    from shashki.server.http.deflate import DeflateProtocol

    if data:
        os.environ["SHASHKI_DATA"] = str(data)  # the workers read their settings from the environment
    if trusted_proxies is not None:
        os.environ["SHASHKI_TRUSTED_PROXIES"] = trusted_proxies
    settings = Settings.from_env()
    config = logging_config(settings.log_format, settings.access_log)
    logging.config.dictConfig(config)
    if workers > 1:
        if not settings.redis_url:
            raise SettingsError(
                f"--workers {workers} needs REDIS_URL: the processes tell each other of every move and "
                "every seek through Redis. Set REDIS_URL (and DATABASE_URL for PostgreSQL), or run one "
                "process."
            )
        os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="shashki-metrics-"))
    uvicorn.run(
        "shashki.server.app:create_app" if workers > 1 else create_app(settings),
        factory=workers > 1,
        workers=workers if workers > 1 else None,
        host=host,
        port=port,
        log_config=config,
        access_log=settings.access_log,
        # Forwarded headers are read by the application (http/edge.py), from the configured proxies only:
        # uvicorn's own reading would believe 127.0.0.1 by default.
        proxy_headers=False,
        ws=DeflateProtocol,  # small messages uncompressed (http/deflate.py)
        ws_max_size=settings.public.max_body_bytes,  # a frame larger than a request body is refused too
        ws_ping_interval=20,
        ws_ping_timeout=20,
        timeout_graceful_shutdown=max(1, round(settings.shutdown_seconds)),
    )
