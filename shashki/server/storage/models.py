"""The tables, as SQLAlchemy 2 declarative models. The schema itself is made by the Alembic migrations in
`storage/migrations` (run at start); keep both in step — `tests/server/test_storage.py` checks they agree.

Times are stored as UTC-aware datetimes; clock readings as integer milliseconds.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class UtcDateTime(TypeDecorator):
    """A timezone-aware UTC datetime on every backend (SQLite keeps no zone: it is put back on read)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetime: store UTC-aware datetimes")
        return value

    def process_result_value(self, value, dialect):
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(30))
    # Usernames are unique regardless of case; this is the lower-cased form.
    username_key: Mapped[str] = mapped_column(String(30), unique=True)
    password_hash: Mapped[str] = mapped_column(Text)
    is_bot: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class Session(Base):
    """A browser session: the cookie holds the token, the table its SHA-256 (a stolen table opens nothing)."""

    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())


class ApiToken(Base):
    """A personal API token (`Authorization: Bearer`), stored as its SHA-256, with space-separated scopes."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    description: Mapped[str] = mapped_column(String(100), default="")
    scopes: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class Seek(Base):
    """An open offer to play anyone; `clock_initial_ms` NULL means no clock."""

    __tablename__ = "seeks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    variant: Mapped[str] = mapped_column(String(40))
    double_diagonal: Mapped[bool] = mapped_column(Boolean, default=False)
    clock_initial_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    clock_increment_ms: Mapped[int] = mapped_column(BigInteger, default=0)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    color: Mapped[str] = mapped_column(String(8))  # white / black / random
    status: Mapped[str] = mapped_column(String(12), index=True)  # open / matched / cancelled
    game_id: Mapped[str | None] = mapped_column(String(12), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class Challenge(Base):
    """An offer to play one named player."""

    __tablename__ = "challenges"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    challenger_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    dest_user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    variant: Mapped[str] = mapped_column(String(40))
    double_diagonal: Mapped[bool] = mapped_column(Boolean, default=False)
    clock_initial_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    clock_increment_ms: Mapped[int] = mapped_column(BigInteger, default=0)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    color: Mapped[str] = mapped_column(String(8))
    # A game from a set-up position (FEN); NULL starts from the variant's start position.
    initial_fen: Mapped[str | None] = mapped_column(Text, nullable=True)
    status: Mapped[str] = mapped_column(String(12), index=True)  # pending / accepted / declined / cancelled
    decline_reason: Mapped[str | None] = mapped_column(String(20), nullable=True)
    game_id: Mapped[str | None] = mapped_column(String(12), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class GameRecord(Base):
    """One game. The position is not stored: it is rebuilt by replaying `moves` through the rules.

    Clocks are the remaining times at `turn_started_at`, when the side to move began thinking; the time
    on the running clock is derived from the current time, so a restart loses nothing. `version` counts
    every change of state: it numbers the events and guards concurrent writers (compare-and-set).
    A NULL player id is the computer, playing at `computer_level`.
    """

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(12), primary_key=True)
    variant: Mapped[str] = mapped_column(String(40))
    double_diagonal: Mapped[bool] = mapped_column(Boolean, default=False)
    white_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True, index=True)
    black_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True, index=True)
    computer_level: Mapped[int | None] = mapped_column(Integer, nullable=True)
    initial_fen: Mapped[str | None] = mapped_column(Text, nullable=True)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    clock_initial_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    clock_increment_ms: Mapped[int] = mapped_column(BigInteger, default=0)
    white_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    black_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    turn_started_at: Mapped[datetime] = mapped_column(UtcDateTime())
    ply: Mapped[int] = mapped_column(Integer, default=0)
    version: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(12), index=True)  # started / finished / aborted
    draw_offer: Mapped[str | None] = mapped_column(String(8), nullable=True)  # colour of the offering side
    result: Mapped[str | None] = mapped_column(String(8), nullable=True)
    winner: Mapped[str | None] = mapped_column(String(8), nullable=True)
    reason: Mapped[str | None] = mapped_column(String(40), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    # A rated game's players' ratings before it and their changes, written when it ends (0002).
    white_rating: Mapped[int | None] = mapped_column(Integer, nullable=True)
    black_rating: Mapped[int | None] = mapped_column(Integer, nullable=True)
    white_rating_diff: Mapped[int | None] = mapped_column(Integer, nullable=True)
    black_rating_diff: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # After the game: the colour of the player offering a rematch, then the rematch game's id (0002).
    rematch_offer: Mapped[str | None] = mapped_column(String(8), nullable=True)
    rematch_id: Mapped[str | None] = mapped_column(String(12), nullable=True)


class MoveRecord(Base):
    """One applied move. (game_id, ply) is unique: two submissions for the same ply cannot both land."""

    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "ply", name="uq_moves_game_id_ply"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    ply: Mapped[int] = mapped_column(Integer)
    notation: Mapped[str] = mapped_column(String(200))
    # Clock of the side that moved, after the move and its increment (NULL without a clock).
    clock_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    played_at: Mapped[datetime] = mapped_column(UtcDateTime())


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


def utcnow() -> datetime:
    """Now, as stored: UTC, timezone-aware."""
    return datetime.now(UTC)
