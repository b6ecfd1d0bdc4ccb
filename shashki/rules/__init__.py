"""The rules of draughts: pure game logic, no I/O.

>>> from shashki.rules import Game
>>> game = Game("russian-giveaway")
>>> game.play("c3-d4").notation(game.variant)
'c3-d4'
"""

from shashki.rules.errors import FenError, IllegalMove, PdnError, RulesError
from shashki.rules.game import Game, Outcome
from shashki.rules.position import Move, Position
from shashki.rules.variant import (
    DEFAULT_VARIANT_KEY,
    VARIANTS,
    Color,
    DrawRule,
    Precedence,
    PromotionInCapture,
    Result,
    UnavailableOption,
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
    "UnavailableOption",
    "UnknownVariant",
    "Variant",
    "get_variant",
]

