"""A game in memory: its stored record (a detached copy), the rules game replayed from its moves, and who
plays it. The games store keeps one per game in play (`shashki.server.games.store`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from shashki.rules import Color, Game
from shashki.server.games.clock import CLOCK_STARTS_AT_PLY, ClockReading, LagQuota
from shashki.server.games.models import GameRecord, GameStatus


@dataclass(frozen=True, slots=True)
class Player:
    """One side of a game: an account, or the computer (no id) at a level."""

    id: int | None
    username: str
    bot: bool = False
    level: int | None = None
    engine: str | None = None
    anonymous: bool = False  # an anonymous visitor, shown as "Anonymous" (issue 16)

    @classmethod
    def computer(cls, level: int | None, engine: str) -> Player:
        return cls(None, f"Computer (level {level})", level=level, engine=engine)

    @property
    def is_computer(self) -> bool:
        return self.id is None

    def as_dict(self) -> dict[str, Any]:
        if self.id is None:
            return {"computer": True, "level": self.level, "engine": self.engine, "username": self.username}
        if self.anonymous:
            return {"id": self.id, "username": self.username, "bot": False, "anonymous": True}
        return {"id": self.id, "username": self.username, "bot": self.bot}


DRAW_OFFER_EVERY = 20  # plies between two draw offers of one side (lichess's `playerHasOfferedDrawRecently`)


@dataclass(eq=False)
class LiveGame:
    record: GameRecord
    rules: Game
    players: dict[Color, Player]
    notations: list[str]
    # Orders this process's writers of the game.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # Set when the store drops this copy (another writer got there first, or a write failed half-way):
    # whoever still holds it reloads it from the database before acting on it.
    stale: bool = False
    # Whether the last `GameCache.refresh` trusted this copy without reading the stored version (several
    # processes, every change heard: games/follow.py); a refusal made on it is checked again.
    trusted: bool = False
    # The tournament the game belongs to, if any: asked of the tournaments when the game is loaded
    # (`GameStore.tournaments_of`), shown in the game's JSON for the "back to the tournament" link.
    tournament: str | None = None
    # The last state built of the game (`GameStore.view`: a `view.GameView`, a module that comes after this
    # one); when it is of the seq before a change, that change goes to the sockets holding it as a patch
    # (`view.state_patch`) instead of the whole state.
    shown: Any = field(default=None, repr=False)
    # Each side's credit for its client's network delay (`clock.LagQuota`), made at its first timed move.
    lag_quotas: dict[Color, LagQuota] = field(default_factory=dict, repr=False)

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def status(self) -> GameStatus:
        return self.record.status

    @property
    def is_live(self) -> bool:
        return not self.stale and self.record.status == GameStatus.STARTED

    @property
    def to_move(self) -> Color:
        return Color.WHITE if self.rules.position.white_to_move else Color.BLACK

    def seat(self, user_id: int | None) -> Color | None:
        """The colour `user_id` plays here (None for anyone else)."""
        return self.record.color_of(user_id)

    def is_computer(self, color: Color | str) -> bool:
        return self.players[Color(color)].is_computer

    # The colour names, for adapters that still speak strings (the lidraughts shapes): prefer `seat` and
    # `to_move`, which give `Color`.
    @property
    def side_to_move(self) -> str:
        return self.to_move.value

    def color_of(self, user_id: int | None) -> str | None:
        color = self.seat(user_id)
        return None if color is None else color.value

    @property
    def is_correspondence(self) -> bool:
        return self.record.days_per_move is not None

    def deadline(self) -> datetime | None:
        """When the side to move's days run out in a correspondence game in play (None otherwise): the
        stored deadline, so that a restart or another process reads the same one."""
        r = self.record
        if r.days_per_move is None or not self.is_live:
            return None
        return r.move_deadline_at or r.turn_started_at + timedelta(days=r.days_per_move)

    def clock(self) -> ClockReading | None:
        r = self.record
        if r.clock_initial_ms is None or r.white_ms is None or r.black_ms is None:
            return None
        return ClockReading(
            r.white_ms,
            r.black_ms,
            running=self.is_live and r.ply >= CLOCK_STARTS_AT_PLY,
            white_to_move=self.rules.position.white_to_move,
            since=r.turn_started_at,
        )

    def draw_again_at(self, color: Color) -> int | None:
        """The ply from which `color` may offer a draw again (None: it may now, or never offered): a side
        offers again only `DRAW_OFFER_EVERY` plies after its last offer (games/draws.py)."""
        offered = self.record.white_draw_ply if color is Color.WHITE else self.record.black_draw_ply
        if offered is None or self.record.ply >= offered + DRAW_OFFER_EVERY:
            return None
        return offered + DRAW_OFFER_EVERY

    def increment_ms(self, color: Color) -> int:
        """What a move adds to `color`'s clock: the game's increment, none for a side that went berserk."""
        r = self.record
        return 0 if (r.white_berserk if color is Color.WHITE else r.black_berserk) else r.clock_increment_ms

    def lag_quota(self, color: Color) -> LagQuota:
        quota = self.lag_quotas.get(color)
        if quota is None:
            r = self.record
            quota = self.lag_quotas[color] = LagQuota.for_clock(r.clock_initial_ms or 0, r.clock_increment_ms)
        return quota

    def turn_restarted(self, now: datetime, stood: datetime | None = None) -> dict[str, Any]:
        """The changes that begin the side to move's turn again at `now`, with a running clock charged up
        to `stood` (within this turn; none: not charged) and kept from there: a clean stop's (`stood` is
        now) and a start's after a crash (`stood` is when the server was last alive)."""
        changes: dict[str, Any] = {"turn_started_at": now}
        clock = self.clock()
        if stood is not None and clock is not None and clock.running:
            white, black = clock.at(min(max(stood, self.record.turn_started_at), now))
            changes |= {"white_ms": white, "black_ms": black}
        return changes
