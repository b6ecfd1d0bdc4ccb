"""The rules of draughts: pure game logic, no I/O.

>>> from shashki.rules import Game
>>> game = Game("russian-giveaway")
>>> game.play("c3-d4").notation(game.variant)
'c3-d4'
"""

from shashki.rules.errors import FenError, IllegalMove, PdnError, RulesError
from shashki.rules.position import Move, Position
from shashki.rules.variant import (
    DEFAULT_VARIANT_KEY,
    VARIANTS,
    Color,
    DrawRule,
    Precedence,
    PromotionInCapture,
    Result,
    UnknownVariant,
    Variant,
    get_variant,
)

__all__ = [
    "DEFAULT_VARIANT_KEY",
    "VARIANTS",
    "Color",
    "DrawRule",
    "FenError",
    "Game",
    "IllegalMove",
    "Move",
    "Outcome",
    "PdnError",
    "Position",
    "Precedence",
    "PromotionInCapture",
    "Result",
    "RulesError",
    "UnknownVariant",
    "Variant",
    "get_variant",
]


def __getattr__(name: str):
    # Game and Outcome live in shashki.rules.game, which imports this package's modules.
    if name in ("Game", "Outcome"):
        from shashki.rules import game

        return getattr(game, name)
    raise AttributeError(name)
