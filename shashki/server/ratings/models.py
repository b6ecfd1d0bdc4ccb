"""The ratings' tables: each player's Glicko-2 rating per variant and speed, and its history."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from shashki.server.storage.base import Base, UtcDateTime


class PlayerRating(Base):
    """A player's Glicko-2 rating in one variant at one speed (`shashki.server.ratings`)."""

    __tablename__ = "ratings"
    __table_args__ = (
        UniqueConstraint("user_id", "variant", "speed", name="uq_ratings_user_id_variant_speed"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    variant: Mapped[str] = mapped_column(String(40))
    speed: Mapped[str] = mapped_column(String(12))
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())


Index("ix_ratings_board", PlayerRating.variant, PlayerRating.speed, PlayerRating.rating)


class RatingHistory(Base):
    """A player's rating after each rated game, for the profile's history."""

    __tablename__ = "rating_history"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    variant: Mapped[str] = mapped_column(String(40))
    speed: Mapped[str] = mapped_column(String(12))
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    recorded_at: Mapped[datetime] = mapped_column(UtcDateTime())


Index("ix_rating_history_player", RatingHistory.user_id, RatingHistory.variant, RatingHistory.speed)
