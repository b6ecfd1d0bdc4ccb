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
>>> c.after_move(t0 + timedelta(seconds=2.5), increment_ms=2000, credit_ms=0)
(59500, 60000)

The network delay a client reports is credited from a quota, as lichess's lag tracker does: without one, a
client claiming the most delay on every move would think for free.

>>> quota = LagQuota.for_clock(15_000, 0)  # 0.21 s more a move, up to 1.47 s; 0.63 s to begin with
>>> [quota.take(500, most_ms=500, spent_ms=3000) for _ in range(4)]
[500, 340, 210, 210]
>>> quota.take(500, most_ms=500, spent_ms=100)  # never more than the move took
100
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

    def after_move(self, now: datetime, *, increment_ms: int, credit_ms: int) -> tuple[int, int]:
        """Both clocks once the side to move has moved at `now`: its thinking time, less the network delay
        credited to it (`LagQuota.take`), is charged and its increment added.
        """
        if not self.running:
            return self.white_ms, self.black_ms
        spent = elapsed_ms(self.since, now)
        spent -= min(max(0, credit_ms), spent)
        if self.white_to_move:
            return self.white_ms - spent + increment_ms, self.black_ms
        return self.white_ms, self.black_ms - spent + increment_ms


@dataclass
class LagQuota:
    """How much of the network delay its client reports a side may still be credited (lichess's
    `LagTracker`): a quota that each move fills by `gain_ms`, up to `most_ms`, and each credit empties.
    Kept with the game in memory (`LiveGame.lag_quota`): a restart or another process begins it afresh,
    which gives at most a few moves' credit more."""

    gain_ms: int
    left_ms: int
    most_ms: int

    @classmethod
    def for_clock(cls, initial_ms: int, increment_ms: int) -> LagQuota:
        """lichess's quota for a clock: 0.15 s a move and 4 ms more per second of the game's estimated
        length (its initial time and 40 increments), at most 1 s; three moves' worth to begin with and
        seven at the most. A 15 s game gets 0.21 s a move, 1+0 0.39 s, 3+0 0.87 s."""
        seconds = (initial_ms + 40 * increment_ms) / 1000
        gain = min(1000, 150 + int(seconds * 4))
        return cls(gain, 3 * gain, 7 * gain)

    def take(self, lag_ms: int, *, most_ms: int, spent_ms: int) -> int:
        """The credit of a move whose client reported `lag_ms` of delay: what the quota holds, at most the
        server's bound a move (`most_ms`) and the time the move took; the quota then grows by its gain.
        Taken only for a move that is played (`GameActions.play`)."""
        credit = max(0, min(lag_ms, most_ms, spent_ms, self.left_ms))
        self.left_ms = min(self.left_ms + self.gain_ms - credit, self.most_ms)
        return credit
