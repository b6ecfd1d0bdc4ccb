"""The state of a game as its clients see it: built once per change (`build_view`), then turned into the
JSON the browser, the live channel and the Bot API read (`GameView.to_json`). Every message carries the
whole state, legal moves included, so that a client never computes rules itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from shashki.rules import Color, Position
from shashki.rules.notation import square_label
from shashki.server.games.live import LiveGame, Player
from shashki.server.games.models import GameStatus


@dataclass(frozen=True, slots=True)
class LegalMove:
    """A legal move: its notation, every square it lands on (start first), the squares it captures."""

    move: str
    path: tuple[str, ...]
    captures: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"move": self.move, "path": list(self.path), "captures": list(self.captures)}


def legal_moves_of(position: Position) -> tuple[LegalMove, ...]:
    """The legal moves of `position` as clients receive them (the game state, the analysis board)."""
    variant = position.variant
    return tuple(
        LegalMove(
            m.notation(variant),
            tuple(square_label(variant, b) for b in m.path),
            tuple(square_label(variant, b) for b in m.captured),
        )
        for m in position.legal_moves()
    )


@dataclass(frozen=True, slots=True)
class ClockView:
    white_ms: int
    black_ms: int
    initial_ms: int
    increment_ms: int
    running: Color | None  # the side whose clock runs

    def as_dict(self) -> dict[str, Any]:
        return {
            "white_ms": self.white_ms,
            "black_ms": self.black_ms,
            "initial_ms": self.initial_ms,
            "increment_ms": self.increment_ms,
            "running": None if self.running is None else self.running.value,
        }


@dataclass(frozen=True, slots=True)
class DaysView:
    """A correspondence game's time: days per move, and while it is played the side to move's deadline
    and the time left to it (the page counts down from `remaining_ms`; `deadline` is ISO 8601, UTC)."""

    days_per_move: int
    deadline: datetime | None
    remaining_ms: int | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "days_per_move": self.days_per_move,
            "deadline": None if self.deadline is None else self.deadline.isoformat(),
            "remaining_ms": self.remaining_ms,
        }


@dataclass(frozen=True, slots=True)
class GameView:
    id: str
    seq: int
    variant: str
    double_diagonal: bool
    rated: bool
    status: GameStatus
    white: Player
    black: Player
    ply: int
    side_to_move: Color
    fen: str
    initial_fen: str | None
    moves: tuple[str, ...]
    legal_moves: tuple[LegalMove, ...]
    clocks: ClockView | None
    draw_offer: Color | None
    result: str | None
    winner: Color | None
    reason: str | None
    mover_disconnected_ms: int | None
    claim_victory_after_ms: int
    rating_diffs: tuple[int, int | None] | None  # (white, black)
    rematch_offer: Color | None
    rematch_id: str | None
    correspondence: DaysView | None = None
    tournament: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "seq": self.seq,
            "variant": self.variant,
            "double_diagonal": self.double_diagonal,
            "rated": self.rated,
            "status": self.status.value,
            "white": self.white.as_dict(),
            "black": self.black.as_dict(),
            "ply": self.ply,
            "side_to_move": self.side_to_move.value,
            "fen": self.fen,
            "initial_fen": self.initial_fen,
            "moves": list(self.moves),
            "legal_moves": [m.as_dict() for m in self.legal_moves],
            "clocks": None if self.clocks is None else self.clocks.as_dict(),
            "draw_offer": _name(self.draw_offer),
            "result": self.result,
            "winner": _name(self.winner),
            "reason": self.reason,
            "mover_disconnected_ms": self.mover_disconnected_ms,
            "claim_victory_after_ms": self.claim_victory_after_ms,
            "rating_diffs": (
                None
                if self.rating_diffs is None
                else {"white": self.rating_diffs[0], "black": self.rating_diffs[1]}
            ),
            "rematch": {"offer": _name(self.rematch_offer), "game_id": self.rematch_id},
            "correspondence": None if self.correspondence is None else self.correspondence.as_dict(),
            "tournament": self.tournament,
        }


def _name(color: Color | None) -> str | None:
    return None if color is None else color.value


def build_view(live: LiveGame, now: datetime, *, gone_ms: int | None, claim_after_ms: int) -> GameView:
    """The state of `live` at `now`; `gone_ms` is how long the side to move has been disconnected."""
    r = live.record
    position = live.rules.position
    to_move = live.to_move
    clock = live.clock()
    clocks = None
    if clock is not None and r.clock_initial_ms is not None:
        white_ms, black_ms = clock.at(now)
        clocks = ClockView(
            white_ms, black_ms, r.clock_initial_ms, r.clock_increment_ms, to_move if clock.running else None
        )
    days = None
    if r.days_per_move is not None:
        deadline = live.deadline()
        remaining = None if deadline is None else max(0, int((deadline - now).total_seconds() * 1000))
        days = DaysView(r.days_per_move, deadline, remaining)
    legal = legal_moves_of(position) if live.is_live else ()
    return GameView(
        id=r.id,
        seq=r.version,
        variant=r.variant,
        double_diagonal=r.double_diagonal,
        rated=r.rated,
        status=GameStatus(r.status),
        white=live.players[Color.WHITE],
        black=live.players[Color.BLACK],
        ply=r.ply,
        side_to_move=to_move,
        fen=position.fen(),
        initial_fen=r.initial_fen,
        moves=tuple(live.notations),
        legal_moves=legal,
        clocks=clocks,
        draw_offer=r.draw_offer,
        result=r.result,
        winner=r.winner,
        reason=r.reason,
        mover_disconnected_ms=gone_ms if live.is_live else None,
        claim_victory_after_ms=claim_after_ms,
        rating_diffs=(
            (r.white_rating_diff, r.black_rating_diff) if r.white_rating_diff is not None else None
        ),
        rematch_offer=r.rematch_offer,
        rematch_id=r.rematch_id,
        correspondence=days,
        tournament=live.tournament,
    )
