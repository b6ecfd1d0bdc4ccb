"""Speed categories of a time control, by lichess's (and lidraughts') estimated game duration:
the initial time plus forty increments, in seconds.

>>> [speed_of(m * 60_000, i * 1000) for m, i in [(1, 0), (2, 1), (3, 0), (5, 3), (10, 0), (15, 15), (30, 0)]]
['bullet', 'bullet', 'blitz', 'blitz', 'rapid', 'classical', 'classical']
>>> speed_of(None, 0)
'correspondence'
>>> SPEEDS[-1]
'correspondence'
"""

from __future__ import annotations

# Rated speed categories, fastest first, each with the estimated duration it stays below (seconds).
# lichess has an "ultraBullet" under 30 s too; here those games count as bullet.
LIMITS = (("bullet", 180), ("blitz", 480), ("rapid", 1500), ("classical", None))
# A game without clocks: lidraughts calls that speed "correspondence" (lichess too, for its unlimited
# games and its days-per-move games alike). Untimed games are never rated; days-per-move games are, in
# this category of their own (`GameTerms.days_per_move`).
UNTIMED = "correspondence"
SPEEDS = (*(name for name, _ in LIMITS), UNTIMED)


def estimated_seconds(initial_ms: int, increment_ms: int) -> float:
    return initial_ms / 1000 + 40 * increment_ms / 1000


def speed_of(initial_ms: int | None, increment_ms: int) -> str:
    if initial_ms is None:
        return UNTIMED
    seconds = estimated_seconds(initial_ms, increment_ms)
    for name, below in LIMITS:
        if below is None or seconds < below:
            return name
    raise AssertionError("unreachable")
