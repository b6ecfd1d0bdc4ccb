"""The lobby: open seeks, quick pairing, challenges to a named player, games against the computer."""

from shashki.server.lobby.service import DECLINE_REASONS, QUICK_PAIRING, LobbyService, TimeControl

__all__ = ["DECLINE_REASONS", "QUICK_PAIRING", "LobbyService", "TimeControl"]
