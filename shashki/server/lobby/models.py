"""The lobby's tables: open seeks and challenges to a named player."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from shashki.server.storage.base import Base, UtcDateTime


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
    # A correspondence seek: days per move (`clock_initial_ms` is then NULL) (0003_corr).
    days_per_move: Mapped[int | None] = mapped_column(Integer, nullable=True)
    color: Mapped[str] = mapped_column(String(8))  # white / black / random
    status: Mapped[str] = mapped_column(String(12), index=True)  # open / matched / cancelled
    game_id: Mapped[str | None] = mapped_column(String(12), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    # Whether its player had a page of the site open when it was made (0014): such a seek with a clock
    # leaves with them (lobby/seeks.py `withdraw_when_gone`, `sweep_left`); an API client's stays.
    page_held: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")


class Challenge(Base):
    """An offer to play one named player, or an open challenge behind a link (`link`, issue 16: "play
    with a friend"), which has no `dest_user_id` until someone opening the link takes the seat."""

    __tablename__ = "challenges"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    challenger_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    dest_user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True, nullable=True
    )
    variant: Mapped[str] = mapped_column(String(40))
    double_diagonal: Mapped[bool] = mapped_column(Boolean, default=False)
    clock_initial_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    clock_increment_ms: Mapped[int] = mapped_column(BigInteger, default=0)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    # A correspondence challenge: days per move (`clock_initial_ms` is then NULL) (0003_corr).
    days_per_move: Mapped[int | None] = mapped_column(Integer, nullable=True)
    color: Mapped[str] = mapped_column(String(8))
    # A game from a set-up position (FEN); NULL starts from the variant's start position.
    initial_fen: Mapped[str | None] = mapped_column(Text, nullable=True)
    status: Mapped[str] = mapped_column(String(12), index=True)  # pending / accepted / declined / cancelled
    decline_reason: Mapped[str | None] = mapped_column(String(20), nullable=True)
    game_id: Mapped[str | None] = mapped_column(String(12), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    # The secret of an open challenge's link, /challenge/<link> (unguessable, unlike the sequential id);
    # NULL for a challenge to a named player (0003_anon).
    link: Mapped[str | None] = mapped_column(String(16), nullable=True, unique=True)
