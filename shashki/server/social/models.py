"""The social tables: who follows whom, and who blocks whom. Both are one row per ordered pair."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index
from sqlalchemy.orm import Mapped, mapped_column

from shashki.server.storage.base import Base, UtcDateTime


class Follow(Base):
    """`follower_id` follows `followed_id`: sees them on their own profile's "following" list and is told
    when they start a game. Following is public to the follower alone (no list of followers is shown)."""

    __tablename__ = "follows"

    follower_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    followed_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


Index("ix_follows_followed", Follow.followed_id)


class Block(Base):
    """`blocker_id` blocks `blocked_id`: no challenges, no chat, no seeks between them. Private: only the
    blocker ever reads the row (lichess keeps blocks private the same way)."""

    __tablename__ = "blocks"

    blocker_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    blocked_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


Index("ix_blocks_blocked", Block.blocked_id)
