"""The explorer's tables: one row per (variant, position, move) with the results of the games that
played that move there, and the games already counted (so that none is counted twice)."""

from __future__ import annotations

from sqlalchemy import BigInteger, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from shashki.server.storage.base import Base


class ExplorerMove(Base):
    """The games that played `move` from the position whose Zobrist hash is `position` (signed 64 bits)."""

    __tablename__ = "explorer_moves"

    variant: Mapped[str] = mapped_column(String(40), primary_key=True)
    position: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    move: Mapped[str] = mapped_column(String(200), primary_key=True)
    games: Mapped[int] = mapped_column(Integer, default=0)
    white: Mapped[int] = mapped_column(Integer, default=0)  # games White won
    draws: Mapped[int] = mapped_column(Integer, default=0)
    black: Mapped[int] = mapped_column(Integer, default=0)
    rated: Mapped[int] = mapped_column(Integer, default=0)  # rated games among them
    rating_sum: Mapped[int] = mapped_column(BigInteger, default=0)  # of both players' ratings, rated games


class ExplorerGame(Base):
    """A game already in the explorer (its primary key refuses a second count, from any process)."""

    __tablename__ = "explorer_games"

    game_id: Mapped[str] = mapped_column(String(12), primary_key=True)
