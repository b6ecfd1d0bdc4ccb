"""The puzzles' tables: the puzzles with their Glicko-2 ratings, the index the next puzzle is drawn from
and the counts the themes page shows (both kept as puzzles are added and rated: `draw.py`), the
players' puzzle ratings per variant, every attempt of a member, and the daily puzzle of each variant."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from shashki.server.storage.base import Base, UtcDateTime


class PuzzleRow(Base):
    """One puzzle: its start (the solver to move), its solution (JSON list of moves in the variant's
    notation, solver first), its themes (`,a,b,`: one LIKE finds a theme) and its rating."""

    __tablename__ = "puzzles"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    variant: Mapped[str] = mapped_column(String(40))
    fen: Mapped[str] = mapped_column(String(400))
    solution: Mapped[str] = mapped_column(Text)
    themes: Mapped[str] = mapped_column(String(200))
    verified: Mapped[str] = mapped_column(String(12))
    game_id: Mapped[str | None] = mapped_column(String(12), nullable=True)
    ply: Mapped[int | None] = mapped_column(Integer, nullable=True)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    plays: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


Index("ix_puzzles_variant_rating", PuzzleRow.variant, PuzzleRow.rating)


class PuzzleTheme(Base):
    """Where the draw finds a puzzle: a row per puzzle and theme, and one more under `any`, with the
    puzzle's rating band (moved with its rating), read in id order within a variant, theme and band
    (`ix_puzzle_themes_draw`) as far as a draw needs, never counted or sorted (puzzles/draw.py)."""

    __tablename__ = "puzzle_themes"

    puzzle_id: Mapped[str] = mapped_column(ForeignKey("puzzles.id", ondelete="CASCADE"), primary_key=True)
    theme: Mapped[str] = mapped_column(String(40), primary_key=True)
    variant: Mapped[str] = mapped_column(String(40))
    band: Mapped[int] = mapped_column(Integer)


Index(
    "ix_puzzle_themes_draw", PuzzleTheme.variant, PuzzleTheme.theme, PuzzleTheme.band, PuzzleTheme.puzzle_id
)


class PuzzleCount(Base):
    """How many puzzles of a variant and theme (`any`: all of them) stand in a rating band, kept with
    the puzzles and their ratings."""

    __tablename__ = "puzzle_counts"

    variant: Mapped[str] = mapped_column(String(40), primary_key=True)
    theme: Mapped[str] = mapped_column(String(40), primary_key=True)
    band: Mapped[int] = mapped_column(Integer, primary_key=True)
    count: Mapped[int] = mapped_column(Integer)


class PuzzleRating(Base):
    """A player's puzzle rating in one variant (Glicko-2), with their counts."""

    __tablename__ = "puzzle_ratings"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    variant: Mapped[str] = mapped_column(String(40), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    solved: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())


class PuzzleAttempt(Base):
    """A member's attempt at a puzzle, ended by a wrong move or the solution's last move. Only the first
    attempt at a puzzle is rated (`rated`); the ratings before and after are the player's."""

    __tablename__ = "puzzle_attempts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    puzzle_id: Mapped[str] = mapped_column(ForeignKey("puzzles.id", ondelete="CASCADE"))
    variant: Mapped[str] = mapped_column(String(40))
    solved: Mapped[bool] = mapped_column(Boolean)
    rated: Mapped[bool] = mapped_column(Boolean)
    at: Mapped[datetime] = mapped_column(UtcDateTime())
    rating_before: Mapped[float] = mapped_column(Float)
    rating_after: Mapped[float] = mapped_column(Float)


Index("ix_puzzle_attempts_user_at", PuzzleAttempt.user_id, PuzzleAttempt.at)
Index("ix_puzzle_attempts_user_puzzle", PuzzleAttempt.user_id, PuzzleAttempt.puzzle_id)


class PuzzleDaily(Base):
    """The daily puzzle of a variant on a UTC day (`day`: YYYY-MM-DD)."""

    __tablename__ = "puzzle_daily"

    variant: Mapped[str] = mapped_column(String(40), primary_key=True)
    day: Mapped[str] = mapped_column(String(10), primary_key=True)
    puzzle_id: Mapped[str] = mapped_column(ForeignKey("puzzles.id", ondelete="CASCADE"))
