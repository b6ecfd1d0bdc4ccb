"""Fischer clocks kept from stored timestamps.

The database holds each side's remaining time as it stood when the side to move began thinking
(`turn_started_at`); the running clock is that minus the time since. Nothing ticks in memory, so a restart
loses no time and several server processes agree. As on most servers, the clocks start once each side has
made its first move (until then a game can be aborted instead).

>>> from datetime import datetime, timedelta, UTC
>>> t0 = datetime(2025, 1, 1, tzinfo=UTC)
>>> c = ClockReading(60_000, 60_000, running=True, white_to_move=True, since=t0)
>>> c.at(t0 + timedelta(seconds=2.5))
(57500, 60000)
>>> c.after_move(t0 + timedelta(seconds=2.5), increment_ms=2000, lag_ms=0, max_lag_ms=500)
(59500, 60000)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

# Before this many plies have been played, no time runs (each side's first move is free).
CLOCK_STARTS_AT_PLY = 2


def elapsed_ms(since: datetime, now: datetime) -> int:
    return max(0, int((now - since).total_seconds() * 1000))


@dataclass(frozen=True)
class ClockReading:
    white_ms: int
    black_ms: int
    running: bool
    white_to_move: bool
    since: datetime

    def at(self, now: datetime) -> tuple[int, int]:
        """Both clocks at `now`, never below zero."""
        white, black = self.white_ms, self.black_ms
        if self.running:
            if self.white_to_move:
                white -= elapsed_ms(self.since, now)
            else:
                black -= elapsed_ms(self.since, now)
        return max(0, white), max(0, black)

    def mover_left(self, now: datetime) -> int:
        white, black = self.at(now)
        return white if self.white_to_move else black

    def flagged(self, now: datetime) -> bool:
        return self.running and self.mover_left(now) <= 0

    def after_move(
        self, now: datetime, *, increment_ms: int, lag_ms: int, max_lag_ms: int
    ) -> tuple[int, int]:
        """Both clocks once the side to move has moved at `now`: its thinking time, less the network delay
        the client reported (at most `max_lag_ms`), is charged and the increment added.
        """
        if not self.running:
            return self.white_ms, self.black_ms
        spent = elapsed_ms(self.since, now)
        spent -= min(max(0, lag_ms), max_lag_ms, spent)
        if self.white_to_move:
            return self.white_ms - spent + increment_ms, self.black_ms
        return self.white_ms, self.black_ms - spent + increment_ms
