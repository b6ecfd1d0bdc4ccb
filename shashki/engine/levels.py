"""Playing levels 1-8 for people: a documented setting, not a hidden constant.

| level | depth | time per move | noise (±, hundredths of a man) | blunder chance | book | plays like |
|------:|------:|--------------:|-------------------------------:|---------------:|------|------------|
| 1 | 1 | -      | 150 | 25% | -        | a beginner: looks one move ahead, often plays a random move |
| 2 | 2 | -      | 100 | 15% | -        | a novice |
| 3 | 3 | -      |  60 |  8% | weighted | a casual player |
| 4 | 4 | -      |  40 |  4% | weighted | a club beginner |
| 5 | 5 | -      |  20 |  2% | weighted | a club player |
| 6 | 6 | 0.1 s  |  10 |  0% | weighted | a strong club player |
| 7 | 10 | 0.15 s |  0 |  0% | weighted | an expert |
| 8 | - | the time given | 0 | 0% | best   | the full engine |

- *depth*: the nominal search depth (forced captures are always searched out, whatever the depth).
- *noise*: at levels with noise, every legal move is scored at the level's depth and a uniform random
  amount up to ± noise is added to each score before the best is taken: close moves are mixed up, clear
  differences are not.
- *blunder chance*: the probability of playing a uniformly random legal move instead (a missed tactic).
- *time*: a cap on the thinking time per move (the game clock's share still applies when smaller).
- *book*: in a position of the variant's opening book (`shashki.engine.book`), the move is taken from
  it without a search: "weighted" picks among the book's moves at random in proportion to how often the
  engine's self-play chose them (a different opening each game), "best" takes the best-scored one. Levels
  1 and 2 play without it: their own noise and blunders are their variety, and book openings would make
  a beginner's opponent play its first moves like an expert.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    level: int
    depth: int | None
    time: float | None
    noise: int
    blunder: float
    book: str | None = None  # "weighted", "best" or None (no book)

    @property
    def full_strength(self) -> bool:
        return self.noise == 0 and self.blunder == 0.0


LEVEL_SETTINGS: dict[int, Level] = {
    1: Level(1, depth=1, time=None, noise=150, blunder=0.25),
    2: Level(2, depth=2, time=None, noise=100, blunder=0.15),
    3: Level(3, depth=3, time=None, noise=60, blunder=0.08, book="weighted"),
    4: Level(4, depth=4, time=None, noise=40, blunder=0.04, book="weighted"),
    5: Level(5, depth=5, time=None, noise=20, blunder=0.02, book="weighted"),
    6: Level(6, depth=6, time=0.1, noise=10, blunder=0.0, book="weighted"),
    7: Level(7, depth=10, time=0.15, noise=0, blunder=0.0, book="weighted"),
    8: Level(8, depth=None, time=None, noise=0, blunder=0.0, book="best"),
}


# The levels a game against the computer may ask for: the one list (the server's lobby checks a
# requested level against it).
LEVELS = range(min(LEVEL_SETTINGS), max(LEVEL_SETTINGS) + 1)


def level_setting(level: int) -> Level:
    """The setting of a level 1-8 (ValueError otherwise)."""
    try:
        return LEVEL_SETTINGS[int(level)]
    except (KeyError, ValueError, TypeError):
        raise ValueError(f"level must be 1 to 8, not {level!r}") from None
