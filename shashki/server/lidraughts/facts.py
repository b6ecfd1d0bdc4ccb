"""What the adapter reads of the games domain, read in one place.

`GameFacts` is a game's fixed terms and seats (from the games service's `LiveGame`), `StateView` a state
as the games service publishes it (its `state()` dict). Everything else in this package reads these two
typed values, so a change in the games domain's shapes changes the two functions below and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from shashki.rules import Game
from shashki.server.games.service import LiveGame

WHITE, BLACK = "white", "black"


def other(color: str) -> str:
    return BLACK if color == WHITE else WHITE


@dataclass(frozen=True)
class GameFacts:
    id: str
    variant: str
    double_diagonal: bool
    initial_fen: str | None
    clock_initial_ms: int | None
    clock_increment_ms: int
    rated: bool
    white_id: int | None
    black_id: int | None
    computer_level: int | None
    created_at: datetime
    status: str
    reason: str | None
    ply: int
    side_to_move: str
    days_per_move: int | None = None  # a correspondence game

    def seat(self, color: str) -> int | None:
        return self.white_id if color == WHITE else self.black_id

    def color_of(self, user_id: int) -> str | None:
        if self.white_id == user_id:
            return WHITE
        if self.black_id == user_id:
            return BLACK
        return None


def facts(live: LiveGame) -> GameFacts:
    r = live.record
    return GameFacts(
        id=r.id,
        variant=r.variant,
        double_diagonal=r.double_diagonal,
        initial_fen=r.initial_fen,
        clock_initial_ms=r.clock_initial_ms,
        clock_increment_ms=r.clock_increment_ms or 0,
        rated=r.rated,
        white_id=r.white_id,
        black_id=r.black_id,
        computer_level=r.computer_level,
        created_at=r.created_at,
        status=r.status,
        reason=r.reason,
        ply=r.ply,
        side_to_move=live.side_to_move,
        days_per_move=r.days_per_move,
    )


def rules_of(live: LiveGame) -> Game:
    """The rules game a live game is played on (typed `object` in the games service for now)."""
    rules = live.rules
    assert isinstance(rules, Game)
    return rules


@dataclass(frozen=True)
class Clocks:
    white_ms: int
    black_ms: int
    white_increment_ms: int  # none for a side that went berserk in an arena
    black_increment_ms: int


@dataclass(frozen=True)
class StateView:
    id: str
    seq: int
    status: str
    reason: str | None
    winner: str | None
    side_to_move: str
    fen: str
    moves: list[str]
    clocks: Clocks | None
    draw_offer: str | None
    rematch_id: str | None
    takeback_offer: str | None = None
    days_remaining_ms: int | None = None  # a correspondence game's time left to the side to move


def state_view(state: dict[str, Any]) -> StateView:
    clocks = state["clocks"]
    return StateView(
        id=state["id"],
        seq=state["seq"],
        status=state["status"],
        reason=state["reason"],
        winner=state["winner"],
        side_to_move=state["side_to_move"],
        fen=state["fen"],
        moves=list(state["moves"]),
        clocks=Clocks(
            clocks["white_ms"],
            clocks["black_ms"],
            *(0 if clocks["berserk"][side] else clocks["increment_ms"] for side in ("white", "black")),
        )
        if clocks
        else None,
        draw_offer=state["draw_offer"],
        takeback_offer=state.get("takeback_offer"),
        rematch_id=(state.get("rematch") or {}).get("game_id"),
        days_remaining_ms=(state.get("correspondence") or {}).get("remaining_ms"),
    )
