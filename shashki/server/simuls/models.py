"""The simultaneous exhibitions' tables. The simul service owns them; no other domain reads them.

- `simuls`: one row per exhibition: its host, its terms (variant, clock, the host's extra time, the colour
  the host plays) and where it stands (`status`: created, started, finished, cancelled);
- `simul_players`: one row per player who asked to play the host: `accepted` once the host takes them,
  and `game_id`, their game, set in the game's own transaction (compare-and-set on NULL: one game each,
  whatever a restart or a second process tries).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from shashki.server.storage.base import Base, UtcDateTime


class Simul(Base):
    __tablename__ = "simuls"

    id: Mapped[str] = mapped_column(String(12), primary_key=True)
    name: Mapped[str] = mapped_column(String(60))
    host_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    variant: Mapped[str] = mapped_column(String(40))
    clock_initial_ms: Mapped[int] = mapped_column(BigInteger)
    clock_increment_ms: Mapped[int] = mapped_column(BigInteger, default=0)
    host_extra_ms: Mapped[int] = mapped_column(BigInteger, default=0)  # added to the host's clock only
    host_color: Mapped[str] = mapped_column(String(8))  # white | black | random (drawn for each game)
    text: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(12))  # created | started | finished | cancelled
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


# The lists (waiting, playing, the last finished) read each status in order, not every simul ever held.
Index("ix_simuls_status", Simul.status, Simul.created_at)
# A host hosts one simul at a time: two announced at once cannot both be stored.
_HOSTING = Simul.status.in_(("created", "started"))
Index("uq_simuls_hosting", Simul.host_id, unique=True, sqlite_where=_HOSTING, postgresql_where=_HOSTING)


class SimulPlayer(Base):
    __tablename__ = "simul_players"

    simul_id: Mapped[str] = mapped_column(ForeignKey("simuls.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    accepted: Mapped[bool] = mapped_column(Boolean, default=False)
    joined_at: Mapped[datetime] = mapped_column(UtcDateTime())
    game_id: Mapped[str | None] = mapped_column(String(12), nullable=True, unique=True)
    color: Mapped[str | None] = mapped_column(String(8), nullable=True)  # the colour the player plays
    # How the player's game ended, for the player: won | lost | drawn | aborted (recorded once).
    outcome: Mapped[str | None] = mapped_column(String(8), nullable=True)
