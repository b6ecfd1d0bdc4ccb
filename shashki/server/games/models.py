"""The games' tables, the status of a game, and the one mapping between a rules `Outcome` and the columns
that store it.

Colours and statuses are strings in the database only: the columns read and write `Color` and
`GameStatus` (`ColorColumn`, `StatusColumn`), so the rest of the server never compares colour names.
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from shashki.rules import Color, Outcome
from shashki.rules.game import ABORTED as ABORTED_REASON
from shashki.server.storage.base import Base, UtcDateTime


class GameStatus(enum.StrEnum):
    """Where a game stands: being played, ended (with a result), or called off (no result at all)."""

    STARTED = "started"
    FINISHED = "finished"
    ABORTED = "aborted"


class ColorColumn(TypeDecorator[Color]):
    """A `Color` stored as its name ("white", "black")."""

    impl = String(8)
    cache_ok = True

    def process_bind_param(self, value: Color | str | None, dialect: Dialect) -> str | None:
        return None if value is None else Color(value).value

    def process_result_value(self, value: Any, dialect: Dialect) -> Color | None:
        return None if value is None else Color(value)


class StatusColumn(TypeDecorator[GameStatus]):
    """A `GameStatus` stored as its name."""

    impl = String(12)
    cache_ok = True

    def process_bind_param(self, value: GameStatus | str | None, dialect: Dialect) -> str | None:
        return None if value is None else GameStatus(value).value

    def process_result_value(self, value: Any, dialect: Dialect) -> GameStatus | None:
        return None if value is None else GameStatus(value)


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
    white_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    black_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
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
    status: Mapped[GameStatus] = mapped_column(StatusColumn(), index=True)
    draw_offer: Mapped[Color | None] = mapped_column(ColorColumn(), nullable=True)  # the offering side
    result: Mapped[str | None] = mapped_column(String(8), nullable=True)
    winner: Mapped[Color | None] = mapped_column(ColorColumn(), nullable=True)
    reason: Mapped[str | None] = mapped_column(String(40), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    # A rated game's players' ratings before it and their changes, written when it ends (0002).
    white_rating: Mapped[int | None] = mapped_column(Integer, nullable=True)
    black_rating: Mapped[int | None] = mapped_column(Integer, nullable=True)
    white_rating_diff: Mapped[int | None] = mapped_column(Integer, nullable=True)
    black_rating_diff: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # After the game: the colour of the player offering a rematch, then the rematch game's id (0002).
    rematch_offer: Mapped[Color | None] = mapped_column(ColorColumn(), nullable=True)
    rematch_id: Mapped[str | None] = mapped_column(String(12), nullable=True)
    # A correspondence game: the days each move may take, and when the side to move's time runs out
    # (`turn_started_at` plus those days, written with every move: the flag timer and the "your turn"
    # list read it, indexed, so that no deadline lives only in memory) (0003_corr).
    days_per_move: Mapped[int | None] = mapped_column(Integer, nullable=True)
    move_deadline_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True, index=True)
    # Takebacks (games/takeback.py): the colour of the player asking to take their last move back, and
    # how many plies have been taken back in all, so that a copy of it that was not told knows its moves
    # no longer follow on from the stored ones; `ply + takebacks` numbers every ply ever made (0010).
    takeback_offer: Mapped[Color | None] = mapped_column(ColorColumn(), nullable=True)
    # The player whose request the opponent declined, who may ask again after the next move.
    takeback_declined: Mapped[Color | None] = mapped_column(ColorColumn(), nullable=True)
    takebacks: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # The simultaneous exhibition the game is played in, if any (`server/simuls`, 0011).
    simul_id: Mapped[str | None] = mapped_column(String(12), nullable=True)
    # Each side's own terms (0013): an arena's berserk (its clock halved, its increment gone), the ply of
    # its last draw offer (another only 20 plies later), and, in a rated game once it has ended, whether
    # its player's rating was provisional when it began (shown "1500?" with the ratings above).
    white_berserk: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    black_berserk: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    white_draw_ply: Mapped[int | None] = mapped_column(Integer, nullable=True)
    black_draw_ply: Mapped[int | None] = mapped_column(Integer, nullable=True)
    white_provisional: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    black_provisional: Mapped[bool | None] = mapped_column(Boolean, nullable=True)

    def player_id(self, color: Color) -> int | None:
        """The account playing `color` (None: the computer)."""
        return self.white_id if color is Color.WHITE else self.black_id

    def color_of(self, user_id: int | None) -> Color | None:
        """The colour `user_id` plays in this game, None for anyone else."""
        if user_id is None:
            return None
        if self.white_id == user_id:
            return Color.WHITE
        if self.black_id == user_id:
            return Color.BLACK
        return None


# Each seat's games newest first: a player's list of games and its exports read them in that order, as
# many as a page needs, instead of sorting every game of the player (games/queries.py `_newest`).
Index("ix_games_white_newest", GameRecord.white_id, GameRecord.created_at, GameRecord.id)
Index("ix_games_black_newest", GameRecord.black_id, GameRecord.created_at, GameRecord.id)
# Each seat's games by status: a player's games in play (the Bot API's list, "your turn", the profile)
# found at once, not among every game they played (0008).
Index("ix_games_white_status", GameRecord.white_id, GameRecord.status)
Index("ix_games_black_status", GameRecord.black_id, GameRecord.status)


class PlayerTally(Base):
    """A player's games counted, as a profile shows them: all of them (any status), those in play, the
    finished rated ones, and the finished ones won, lost and drawn. Kept in the transactions that start a
    game, end it and give a seat to another account (games/tally.py), so that a profile reads one row
    however many games the player has (0008)."""

    __tablename__ = "player_game_counts"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    games: Mapped[int] = mapped_column(Integer, default=0)
    playing: Mapped[int] = mapped_column(Integer, default=0)
    rated: Mapped[int] = mapped_column(Integer, default=0)
    won: Mapped[int] = mapped_column(Integer, default=0)
    lost: Mapped[int] = mapped_column(Integer, default=0)
    drawn: Mapped[int] = mapped_column(Integer, default=0)


class ServerHeartbeat(Base):
    """When the server process last said it was alive (one row: games/heartbeat.py), 0012."""

    __tablename__ = "server_heartbeat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    alive_at: Mapped[datetime] = mapped_column(UtcDateTime())


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


def outcome_columns(outcome: Outcome, at: datetime) -> dict[str, Any]:
    """The columns that record `outcome` as the end of a game at `at` (the one way an end is stored).

    An aborted game has no result (PDN's `*` is not stored); a reason the rules give as a draw rule is
    stored as the rule's name.
    """
    reason = str(getattr(outcome.reason, "value", outcome.reason))
    aborted = reason == ABORTED_REASON
    return {
        "status": GameStatus.ABORTED if aborted else GameStatus.FINISHED,
        "result": None if aborted else outcome.result,
        "winner": outcome.winner,
        "reason": reason,
        "finished_at": at,
    }


def stored_outcome(record: GameRecord) -> Outcome | None:
    """The `Outcome` a record's columns hold (None while the game is played): `outcome_columns` read back."""
    if record.status == GameStatus.STARTED:
        return None
    if record.status == GameStatus.ABORTED:
        return Outcome.aborted()
    if record.winner is not None:
        return Outcome.win(record.winner, record.reason or "unknown")
    return Outcome.draw(record.reason or "unknown")
