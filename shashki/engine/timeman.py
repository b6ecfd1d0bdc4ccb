"""The time manager: how much of a game clock to spend on one move.

A game of draughts lasts some 40-60 moves a side; with `moves_to_go` unknown we plan for
`EXPECTED_MOVES_LEFT` more, spend that share of the remaining time plus most of the increment, and never
more than `MAX_SHARE` of what is left (a reserve against a long game), nor less than `MIN_TIME`.

>>> round(time_for_move(60.0, 0.0), 2)
2.0
>>> round(time_for_move(60.0, 2.0), 2)
3.6
>>> time_for_move(0.05, 0.0) == MIN_TIME
True
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

EXPECTED_MOVES_LEFT = 30
INCREMENT_SHARE = 0.8
MAX_SHARE = 0.25
MIN_TIME = 0.01
SAFETY = 0.05  # seconds kept back for the move to travel and the clock to be pressed


def time_for_move(remaining: float, increment: float = 0.0, moves_to_go: int | None = None) -> float:
    """Seconds to think about this move, given the time left on the clock and the increment per move."""
    remaining = max(0.0, remaining - SAFETY)
    moves = max(1, moves_to_go) if moves_to_go else EXPECTED_MOVES_LEFT
    share = remaining / moves + INCREMENT_SHARE * increment
    cap = remaining * (MAX_SHARE if moves > 1 else 0.9)
    return max(MIN_TIME, min(share, cap))


class PonderClock:
    """The clock of a search started while pondering (Hub protocol 2, `go ponder`: the opponent's
    expected move is already played on the board): the time for the move counts from `hit()`, when the
    opponent has played that move (`ponder-hit`), and not at all before, so the search goes on through
    the opponent's time. `hit` comes from another thread, before or during the search."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.hit_at: float | None = None
        self._on_hit: Callable[[float], None] | None = None

    def hit(self) -> None:
        with self._lock:
            if self.hit_at is None:
                self.hit_at = time.perf_counter()
                if self._on_hit is not None:
                    self._on_hit(self.hit_at)

    def attach(self, on_hit: Callable[[float], None] | None) -> float | None:
        """The search that runs on this clock: `on_hit(when)` is called at the hit (None: the search
        has ended). The hit's time when it has come already, else None."""
        with self._lock:
            self._on_hit = on_hit
            return self.hit_at
