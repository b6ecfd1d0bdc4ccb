"""The chat's tables: the lines of each game's two rooms, and the players' choices about them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from shashki.server.storage.base import Base, UtcDateTime


class ChatLine(Base):
    """One line of a game's chat; `room` is "player" (the two players only) or "spectator"."""

    __tablename__ = "chat_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    room: Mapped[str] = mapped_column(String(10))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    text: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


Index("ix_chat_lines_game", ChatLine.game_id, ChatLine.id)


class ChatSetting(Base):
    """A player's choice about the spectators' chat of one of their games: show, hide or close."""

    __tablename__ = "chat_settings"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    spectators: Mapped[str] = mapped_column(String(8))
