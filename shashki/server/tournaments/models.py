"""The tournaments' tables (issue 13). The tournament service owns them; no other domain reads them.

- `tournaments`: one row per event, its terms, conditions and where it stands (`status`, `round`);
  `schedule_key` is unique, so that a scheduled slot is created once across processes and restarts;
- `tournament_players`: one row per entrant, with the figures the standings show cached (`score`, `sheet`,
  `fire`, `berserks`, `colors`) and the arena's pairing state: `game_id` (the game in play: set in the
  transaction that creates the game, compare-and-set, so nobody is ever in two games of one arena) and
  `waiting_since`;
- `tournament_pairings`: every game and bye, stored before anyone is told of it; a Swiss or round-robin
  round is stored whole before its first game is created, so that a restart finishes pairing that round
  instead of pairing it again;
- `tournament_seats`: (tournament, round, player) is the primary key: nobody can be paired twice in one
  round, whatever two directors or a restart would try;
- `tournament_leases`: the director's lease of each tournament (`tournaments/lease.py`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from shashki.server.storage.base import Base, UtcDateTime


class Tournament(Base):
    __tablename__ = "tournaments"

    id: Mapped[str] = mapped_column(String(12), primary_key=True)
    name: Mapped[str] = mapped_column(String(60))
    system: Mapped[str] = mapped_column(String(12))  # arena | swiss | roundrobin
    variant: Mapped[str] = mapped_column(String(40))
    clock_initial_ms: Mapped[int] = mapped_column(BigInteger)
    clock_increment_ms: Mapped[int] = mapped_column(BigInteger, default=0)
    rated: Mapped[bool] = mapped_column(Boolean, default=True)
    status: Mapped[str] = mapped_column(String(12), index=True)  # created | started | finished
    starts_at: Mapped[datetime] = mapped_column(UtcDateTime())
    ends_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)  # arena
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    minutes: Mapped[int | None] = mapped_column(Integer, nullable=True)  # arena
    rounds: Mapped[int | None] = mapped_column(Integer, nullable=True)  # swiss; round robin once started
    double: Mapped[bool] = mapped_column(Boolean, default=False)  # round robin: each pair twice
    round: Mapped[int] = mapped_column(Integer, default=0)  # rounds paired so far (arena: waves)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    password_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    min_rating: Mapped[int | None] = mapped_column(Integer, nullable=True)
    min_games: Mapped[int | None] = mapped_column(Integer, nullable=True)
    max_players: Mapped[int | None] = mapped_column(Integer, nullable=True)
    schedule_key: Mapped[str | None] = mapped_column(String(80), unique=True, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


# The last finished ones (the list shows 20), read in that order rather than by sorting every tournament
# ever held.
Index("ix_tournaments_finished", Tournament.status, Tournament.finished_at)


class TournamentPlayer(Base):
    __tablename__ = "tournament_players"
    __table_args__ = (UniqueConstraint("tournament_id", "user_id", name="uq_tournament_players_entry"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    rating: Mapped[int] = mapped_column(Integer)  # when joining (round-robin order, Swiss pairing numbers)
    joined_at: Mapped[datetime] = mapped_column(UtcDateTime())
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    withdrawn: Mapped[bool] = mapped_column(Boolean, default=False)
    pause_times: Mapped[str] = mapped_column(Text, default="")  # arena: epoch seconds, space-separated
    waiting_since: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    game_id: Mapped[str | None] = mapped_column(String(12), nullable=True)  # arena: the game in play
    # Cached from the pure rules after every result (the standings read them; they are recomputed whole).
    score: Mapped[int] = mapped_column(Integer, default=0)  # arena points; Swiss/RR half points
    games: Mapped[int] = mapped_column(Integer, default=0)
    sheet: Mapped[str] = mapped_column(Text, default="")
    fire: Mapped[bool] = mapped_column(Boolean, default=False)
    berserks: Mapped[int] = mapped_column(Integer, default=0)
    colors: Mapped[str] = mapped_column(Text, default="")  # "wbw...": the colours played, in order


class TournamentPairing(Base):
    """A game of the tournament, or a bye (`bye` set, `black_id` NULL). `status`: pending (stored, its game
    not yet created), started, finished, aborted."""

    __tablename__ = "tournament_pairings"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), index=True)
    round: Mapped[int] = mapped_column(Integer)
    white_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    black_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=True)
    game_id: Mapped[str | None] = mapped_column(String(12), unique=True, nullable=True, index=True)
    bye: Mapped[str | None] = mapped_column(String(12), nullable=True)  # "pairing" | "late-join"
    status: Mapped[str] = mapped_column(String(12))
    winner: Mapped[str | None] = mapped_column(String(8), nullable=True)  # white | black | NULL (draw)
    result: Mapped[str | None] = mapped_column(String(8), nullable=True)
    plies: Mapped[int] = mapped_column(Integer, default=0)
    white_berserk: Mapped[bool] = mapped_column(Boolean, default=False)
    black_berserk: Mapped[bool] = mapped_column(Boolean, default=False)
    white_rating: Mapped[int] = mapped_column(Integer, default=1500)
    black_rating: Mapped[int] = mapped_column(Integer, default=1500)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class TournamentSeat(Base):
    """One player in one round: the primary key makes a second pairing of them in that round impossible."""

    __tablename__ = "tournament_seats"

    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    pairing_id: Mapped[int] = mapped_column(ForeignKey("tournament_pairings.id", ondelete="CASCADE"))


class TournamentLease(Base):
    """Who directs a tournament, until when (`tournaments/lease.py`)."""

    __tablename__ = "tournament_leases"

    tournament_id: Mapped[str] = mapped_column(String(12), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64))
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
