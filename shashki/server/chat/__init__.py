"""Game chat: the players' room and the spectators' room, with limits and the players' choices."""

from shashki.server.chat.service import MAX_LENGTH, ROOMS, SPECTATOR_MODES, ChatService

__all__ = ["MAX_LENGTH", "ROOMS", "SPECTATOR_MODES", "ChatService"]
