"""The notifications' table: what a player is told inside the site (no e-mail), read or not."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from shashki.server.storage.base import Base, UtcDateTime


class Notification(Base):
    """One notification of one account. `kind` says what happened (`yourTurn`, `gameEnd`, `challenge`),
    `subject` what it is about (a game's id, a challenge's id) and `ply` when in that game, so that the
    same news is stored once whichever process or listener tells it again (the unique key).
    `data` is a small JSON object the page shows (the opponent's name, the result).
    """

    __tablename__ = "notifications"
    __table_args__ = (UniqueConstraint("user_id", "kind", "subject", "ply", name="uq_notifications_once"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(20))
    subject: Mapped[str] = mapped_column(String(20))
    ply: Mapped[int] = mapped_column(Integer, default=0)
    data: Mapped[str] = mapped_column(Text, default="{}")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    read_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


Index("ix_notifications_user_unread", Notification.user_id, Notification.read_at)
# A player's newest first (the list), without sorting every notification the player ever had.
Index("ix_notifications_user_newest", Notification.user_id, Notification.id)
