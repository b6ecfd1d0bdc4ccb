"""The computer opponent.

`PlaceholderEngine` is a stand-in until the engine issue lands (shashki.engine with its asynchronous wrapper
and levels): it plays a uniformly random legal move at every level. It is named so in every game it plays
(`engine: "placeholder-random"`), so nobody mistakes it for the real engine.
"""

from __future__ import annotations

import random

ENGINE_NAME = "placeholder-random"
LEVELS = range(1, 9)


class PlaceholderEngine:
    """Plays a random legal move. Cheap enough to run on the event loop; the real engine will not be."""

    name = ENGINE_NAME

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    async def choose(self, position, level: int):
        moves = position.legal_moves()
        return self._random.choice(moves) if moves else None
