"""The reviews' table: one computer analysis per game, stored once and shown to everyone; the process
running it (`owner`) holds it until `claimed_until`, renewing the claim while it works (service.py)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from shashki.server.storage.base import Base, UtcDateTime


class GameReview(Base):
    __tablename__ = "game_reviews"

    game_id: Mapped[str] = mapped_column(String(12), primary_key=True)
    # queued, running, done, failed; indexed: the unfinished ones are read at every start and sweep, not
    # every review ever made (service.py).
    status: Mapped[str] = mapped_column(String(12), index=True)
    done_plies: Mapped[int] = mapped_column(Integer, default=0)
    total_plies: Mapped[int] = mapped_column(Integer, default=0)
    requested_by: Mapped[int | None] = mapped_column(Integer, nullable=True)
    requested_at: Mapped[datetime] = mapped_column(UtcDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    result: Mapped[str | None] = mapped_column(Text, nullable=True)  # JSON: evals, moves judged, accuracy
    owner: Mapped[str | None] = mapped_column(String(24), nullable=True)  # the process running it
    claimed_until: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
