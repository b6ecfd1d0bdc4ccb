"""The Bot and Board APIs, with lidraughts' routes, NDJSON streams and move strings."""

from shashki.server.bots.service import BotApi

__all__ = ["BotApi"]
