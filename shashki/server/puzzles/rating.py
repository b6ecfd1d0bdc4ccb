"""Puzzle ratings: an attempt is a game between the player and the puzzle (Glicko-2, one rating period).

A solved puzzle is a win for the player and a loss for the puzzle; a wrong move the reverse. Both sides
are rated against the other as it stood before the attempt (`shashki.server.ratings.glicko2.rate`), so a
puzzle's rating finds its level as players of known strength attempt it. Puzzles and players start at
1500 with a deviation of 350, like players of games.
"""

from __future__ import annotations

from shashki.server.ratings.glicko2 import Rating, rate


def rate_attempt(player: Rating, puzzle: Rating, solved: bool) -> tuple[Rating, Rating]:
    """The player's and the puzzle's ratings after one attempt."""
    score = 1.0 if solved else 0.0
    return rate(player, [(puzzle, score)]), rate(puzzle, [(player, 1.0 - score)])
