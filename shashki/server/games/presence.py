"""Presence: who of each game's players has a live connection, how many watch, and since when a player
has been gone (which is what a claim of victory by abandonment waits on).

Kept in this process: with several server processes behind a load balancer, a player's connections
should go to one process per game (or presence should move to Redis).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from shashki.rules import Color
from shashki.server.games.clock import elapsed_ms
from shashki.server.storage.base import utcnow

SPECTATORS = "spectator"  # the watchers of a game: counted like a seat, never a player

Seat = Color | str  # a colour, or SPECTATORS


def _key(seat: Seat) -> str:
    return seat.value if isinstance(seat, Color) else seat


class Presence:
    def __init__(self) -> None:
        self.started_at = utcnow()
        self._connections: dict[tuple[str, str], int] = {}
        self._left_at: dict[tuple[str, str], datetime] = {}

    def joined(self, game_id: str, seat: Seat) -> None:
        key = (game_id, _key(seat))
        self._connections[key] = self._connections.get(key, 0) + 1

    def left(self, game_id: str, seat: Seat) -> None:
        key = (game_id, _key(seat))
        self._connections[key] = max(0, self._connections.get(key, 0) - 1)
        if not self._connections[key]:
            self._left_at[key] = utcnow()

    def connected(self, game_id: str, seat: Seat) -> bool:
        return self._connections.get((game_id, _key(seat)), 0) > 0

    def count(self, game_id: str, seat: Seat) -> int:
        """Live connections of one side (or of the spectators) to a game."""
        return self._connections.get((game_id, _key(seat)), 0)

    def gone_ms(self, game_id: str, color: Color, game_created: datetime, now: datetime) -> int:
        """How long this player has had no connection (0 while connected); a player never seen counts from
        the later of the game's creation and this process's start.
        """
        if self.connected(game_id, color):
            return 0
        since = self._left_at.get((game_id, color.value)) or max(game_created, self.started_at)
        return elapsed_ms(since, now)

    def as_json(self, game_id: str) -> dict[str, Any]:
        """The `presence` message of the game's live channel."""
        return {
            "type": "presence",
            "white": self.connected(game_id, Color.WHITE),
            "black": self.connected(game_id, Color.BLACK),
            "spectators": self.count(game_id, SPECTATORS),
        }
