"""The lobby: open seeks, quick pairing, challenges to a named player, games against the computer."""

from shashki.server.lobby.offers import DECLINE_REASONS, QUICK_PAIRING, TimeControl
from shashki.server.lobby.service import LobbyService

__all__ = ["DECLINE_REASONS", "QUICK_PAIRING", "LobbyService", "TimeControl"]
