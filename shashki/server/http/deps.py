"""Typed FastAPI dependencies: a route names the services it needs by type (`games: Games`), and FastAPI
hands it the ones the app built at start-up (`shashki.server.app`). They are coroutines although they
only read `app.state`: FastAPI runs a plain function dependency in its thread pool, a hop to a thread
and back on every request (issue 11). No route looks in `app.state` itself, so what a route depends on
is in its signature and checked by mypy.

They work for HTTP routes and WebSockets alike (`HTTPConnection` is the common base).

Who is asking is typed in `auth.py` the same way: `Player` (an account or an anonymous visitor allowed to
play, issue 16), `Visitor` (the same, reading), `Member` (an account only).
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from shashki.server.accounts import AccountService
from shashki.server.accounts.preferences import PreferenceService
from shashki.server.accounts.security import AccountSecurity
from shashki.server.analysis import AnalysisService
from shashki.server.chat import ChatService
from shashki.server.config import Settings
from shashki.server.events import EventBus
from shashki.server.explorer import ExplorerService
from shashki.server.games.rematch import RematchService
from shashki.server.games.service import GameService
from shashki.server.history import HistoryService
from shashki.server.http.now_playing import NowPlaying
from shashki.server.lidraughts.api import BotApi
from shashki.server.limits import Limiter
from shashki.server.lobby import LobbyService
from shashki.server.notifications import NotificationService
from shashki.server.public import PublicSettings
from shashki.server.puzzles.service import PuzzleService
from shashki.server.ratings import RatingService
from shashki.server.reviews import ReviewService
from shashki.server.simuls import SimulService
from shashki.server.social import SocialService
from shashki.server.storage import Database
from shashki.server.tournaments.service import TournamentService


def accounts_of(conn: HTTPConnection) -> AccountService:
    """The accounts service (the authentication dependencies call it directly too)."""
    return conn.app.state.accounts


async def _accounts(conn: HTTPConnection) -> AccountService:
    return accounts_of(conn)


async def _security(conn: HTTPConnection) -> AccountSecurity:
    return conn.app.state.security


async def _games(conn: HTTPConnection) -> GameService:
    return conn.app.state.games


async def _lobby(conn: HTTPConnection) -> LobbyService:
    return conn.app.state.lobby


async def _history(conn: HTTPConnection) -> HistoryService:
    return conn.app.state.history


async def _ratings(conn: HTTPConnection) -> RatingService:
    return conn.app.state.ratings


async def _chat(conn: HTTPConnection) -> ChatService:
    return conn.app.state.chat


async def _rematch(conn: HTTPConnection) -> RematchService:
    return conn.app.state.rematch


async def _bus(conn: HTTPConnection) -> EventBus:
    return conn.app.state.bus


async def _settings(conn: HTTPConnection) -> Settings:
    return conn.app.state.settings


async def _public(conn: HTTPConnection) -> PublicSettings:
    return conn.app.state.public


async def _limits(conn: HTTPConnection) -> Limiter:
    return conn.app.state.limits


async def _bots(conn: HTTPConnection) -> BotApi:
    return conn.app.state.bots


async def _notifications(conn: HTTPConnection) -> NotificationService:
    return conn.app.state.notifications


async def _reviews(conn: HTTPConnection) -> ReviewService:
    return conn.app.state.reviews


async def _explorer(conn: HTTPConnection) -> ExplorerService:
    return conn.app.state.explorer
async def _analysis(conn: HTTPConnection) -> AnalysisService:
    return conn.app.state.analysis
async def _tournaments(conn: HTTPConnection) -> TournamentService:
    return conn.app.state.tournaments
async def _simuls(conn: HTTPConnection) -> SimulService:
    return conn.app.state.simuls


async def _social(conn: HTTPConnection) -> SocialService:
    return conn.app.state.social


async def _puzzles(conn: HTTPConnection) -> PuzzleService:
    return conn.app.state.puzzles


async def _watching(conn: HTTPConnection) -> NowPlaying:
    return conn.app.state.now_playing


async def _database(conn: HTTPConnection) -> Database:
    return conn.app.state.db


async def _stopping(conn: HTTPConnection) -> asyncio.Event:
    """Set once the process begins to stop (app.py): the API's streams end then."""
    stopping = getattr(conn.app.state, "stopping", None)
    return stopping if stopping is not None else asyncio.Event()


async def _draining(conn: HTTPConnection) -> bool:
    """Whether the server is shutting down (set by the application's lifespan)."""
    return bool(getattr(conn.app.state, "draining", False))
async def _preferences(conn: HTTPConnection) -> PreferenceService:
    return conn.app.state.preferences


Accounts = Annotated[AccountService, Depends(_accounts)]
Security = Annotated[AccountSecurity, Depends(_security)]
Games = Annotated[GameService, Depends(_games)]
Lobby = Annotated[LobbyService, Depends(_lobby)]
History = Annotated[HistoryService, Depends(_history)]
Ratings = Annotated[RatingService, Depends(_ratings)]
Chat = Annotated[ChatService, Depends(_chat)]
Rematch = Annotated[RematchService, Depends(_rematch)]
Bus = Annotated[EventBus, Depends(_bus)]
AppSettings = Annotated[Settings, Depends(_settings)]
Public = Annotated[PublicSettings, Depends(_public)]
Limits = Annotated[Limiter, Depends(_limits)]
Bots = Annotated[BotApi, Depends(_bots)]
Analysis = Annotated[AnalysisService, Depends(_analysis)]
Watching = Annotated[NowPlaying, Depends(_watching)]
Notifications = Annotated[NotificationService, Depends(_notifications)]
Explorer = Annotated[ExplorerService, Depends(_explorer)]
Reviews = Annotated[ReviewService, Depends(_reviews)]
Db = Annotated[Database, Depends(_database)]
Draining = Annotated[bool, Depends(_draining)]
Stopping = Annotated[asyncio.Event, Depends(_stopping)]
Preferences = Annotated[PreferenceService, Depends(_preferences)]
Tournaments = Annotated[TournamentService, Depends(_tournaments)]
Simuls = Annotated[SimulService, Depends(_simuls)]
Social = Annotated[SocialService, Depends(_social)]
Puzzles = Annotated[PuzzleService, Depends(_puzzles)]
