"""Typed FastAPI dependencies: a route names the services it needs by type (`games: Games`), and FastAPI
hands it the ones the app built at start-up (`shashki.server.app`). No route looks in `app.state` itself,
so what a route depends on is in its signature and checked by mypy.

They work for HTTP routes and WebSockets alike (`HTTPConnection` is the common base).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from shashki.server.accounts import AccountService
from shashki.server.chat import ChatService
from shashki.server.config import Settings
from shashki.server.events import EventBus
from shashki.server.games.rematch import RematchService
from shashki.server.games.service import GameService
from shashki.server.history import HistoryService
from shashki.server.http.now_playing import NowPlaying
from shashki.server.lidraughts.api import BotApi
from shashki.server.limits import Limiter
from shashki.server.lobby import LobbyService
from shashki.server.public import PublicSettings
from shashki.server.ratings import RatingService
from shashki.server.social import SocialService


def accounts_of(conn: HTTPConnection) -> AccountService:
    """The accounts service (the authentication dependencies call it directly too)."""
    return conn.app.state.accounts


def _games(conn: HTTPConnection) -> GameService:
    return conn.app.state.games


def _lobby(conn: HTTPConnection) -> LobbyService:
    return conn.app.state.lobby


def _history(conn: HTTPConnection) -> HistoryService:
    return conn.app.state.history


def _ratings(conn: HTTPConnection) -> RatingService:
    return conn.app.state.ratings


def _chat(conn: HTTPConnection) -> ChatService:
    return conn.app.state.chat


def _rematch(conn: HTTPConnection) -> RematchService:
    return conn.app.state.rematch


def _bus(conn: HTTPConnection) -> EventBus:
    return conn.app.state.bus


def _settings(conn: HTTPConnection) -> Settings:
    return conn.app.state.settings


def _public(conn: HTTPConnection) -> PublicSettings:
    return conn.app.state.public


def _limits(conn: HTTPConnection) -> Limiter:
    return conn.app.state.limits


def _bots(conn: HTTPConnection) -> BotApi:
    return conn.app.state.bots


def _social(conn: HTTPConnection) -> SocialService:
    return conn.app.state.social


def _watching(conn: HTTPConnection) -> NowPlaying:
    return conn.app.state.now_playing


Accounts = Annotated[AccountService, Depends(accounts_of)]
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
Watching = Annotated[NowPlaying, Depends(_watching)]
Social = Annotated[SocialService, Depends(_social)]
