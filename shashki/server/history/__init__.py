"""History: players' profiles and games, exports as PDN and JSON, the games being played now."""

from shashki.server.history.service import GameFilter, HistoryService

__all__ = ["GameFilter", "HistoryService"]
