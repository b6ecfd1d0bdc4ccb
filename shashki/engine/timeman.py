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
