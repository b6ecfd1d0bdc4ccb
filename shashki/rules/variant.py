"""Variants: each one frozen set of named rule parameters.

A variant is configured, not subclassed: the move generator, the game and the notation read these
parameters and nothing else. This module knows no position: `shashki.rules.position` builds on it
(`Position.start(variant)` is a variant's start position). Each parameter cites the article of the
official rules it implements:

- RU: the Russian draughts code (Правила игры в шашки, 2004 edition) for Russian and its giveaway form;
  FMJD-64 7.2.x for the draw rules of Russian, as RULES.md §4 gives them;
- CBD: the Brazilian confederation's Regras Oficiais do Jogo de Damas (item 16, the draw rule of
  Brazilian; FMJD's Brazilian section, brazil.fmjd.org, gives the same text);
- FMJD: the official FMJD rules of international draughts (Brazilian takes its capture rules to 8×8);
- FID: the Italian federation's Regolamento tecnico, Capo I;
- ACF: the American Checker Federation / WCDF rules of checkers (English draughts);
- APCA: the American Pool Checkers Association's tournament rules of play;
- RULES.md, our specification, which decides wherever these are silent or disagree.

>>> get_variant("poddavki").key
'russian-giveaway'
>>> get_variant("international").board.size
10
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property

from shashki.rules.board import BoardGeometry, geometry
from shashki.rules.errors import RulesError


class Precedence(Enum):
    """Which capture sequences a player may choose from."""

    FREE = "free"  # any complete sequence (RULES.md §2.7; APCA 20)
    QUANTITY = "quantity"  # the most pieces, a king counting one (FMJD 4.13; RULES.md §4)
    ITALIAN = "italian"  # FID 6.1-6.10: most pieces, then with a king, most kings, a king met first


class PromotionInCapture(Enum):
    """What happens to a man that reaches the far row in the middle of a capture."""

    CONTINUE_AS_KING = "continue-as-king"  # RU 1.5.15: crowned at once, goes on as a king
    CONTINUE_AS_MAN = "continue-as-man"  # FMJD: passes as a man, crowned only if it ends there
    STOP = "stop"  # English, Italian (RULES.md §4): the move ends, the man is crowned


class Result(Enum):
    """What a side to move with no legal move gets."""

    NORMAL = "normal"  # it loses (RULES.md §3)
    GIVEAWAY = "giveaway"  # it wins (RULES.md §3: poddavki, antidraughts)


class Color(Enum):
    WHITE = "white"
    BLACK = "black"

    @property
    def other(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE


class DrawRule(Enum):
    """The automatic draw rules a game applies (see shashki.rules.game for their counters)."""

    THREEFOLD = "threefold-repetition"  # FMJD-64 7.2.3, FMJD 6.1, ACF 1.32.1, APCA 26, RULES.md §3, §4
    KINGS_3_VS_1_15 = "three-kings-vs-king"  # FMJD-64 7.2.4: 3+ kings v a lone king, 15 moves
    KING_MOVES_15 = "fifteen-king-moves"  # FMJD-64 7.2.5: 15 moves each of king moves only
    NO_PROGRESS_30_60 = "no-capture-no-promotion"  # FMJD-64 7.2.6: 30 moves (4-5 pieces), 60 (6-7)
    LONG_DIAGONAL_5 = "long-diagonal-ending"  # FMJD-64 7.2.7: 3 pieces (with a king) v king on a1-h8
    SMALL_ENDING_5 = "small-ending"  # FMJD-64 7.2.8: 2 pieces or a king v a lone king, 5 moves
    KING_MOVES_20 = "twenty-king-moves"  # CBD item 16: 20 moves each of king moves only (Brazilian)
    KING_MOVES_25 = "twenty-five-king-moves"  # FMJD 6.2: 25 moves each of king moves only
    ENDING_16 = "sixteen-move-ending"  # FMJD 6.3: 3 pieces (with a king) v a lone king, 16 moves
    ENDING_5 = "five-move-ending"  # FMJD 6.4: 2 pieces (with a king) or a king v a lone king, 5 moves
    FORTY_MOVES = "forty-moves"  # ACF 1.32.2, RULES.md §4: 40 moves each, no man move, no capture
    KINGS_3_VS_1_13 = "three-kings-vs-king-13"  # APCA 26, RULES.md §4: 3 kings v 1 king, 13 moves
    DOUBLE_DIAGONAL = "double-diagonal-kings"  # RULES.md §3 option of russian-giveaway


@dataclass(frozen=True)
class Variant:
    """One variant's rules. Immutable and hashable; compare variants by `key`."""

    key: str
    name: str
    # 8×8 with 12 men a side, or 10×10 with 20 (FMJD 2.1; RULES.md §1, §4).
    board_size: int
    # The Italian board is turned so that each player's near right corner is dark, a1 light (FID 2.3).
    mirrored: bool
    # White moves first in Russian, Brazilian, International and Italian (FID 3.4); Black in English
    # and Pool (RULES.md §4, which corrects older pages on Italian).
    first_player: Color
    # Men capture backward as well as forward (RU 1.5.3, FMJD 4.1, APCA 13); forward only in English
    # (ACF 1.18) and Italian (FID 5.3a).
    men_capture_backward: bool
    # Kings move and capture at any distance (RU 1.4.5, FMJD 3.9, APCA 15); one square in English
    # (ACF 1.17) and Italian (FID 4.7).
    flying_kings: bool
    # Free choice among complete sequences (RULES.md §2.7; APCA 20), the most pieces (FMJD 4.13, and
    # Brazilian, RULES.md §4), or the Italian order (FID 6.1-6.10).
    precedence: Precedence
    # A man reaching the far row mid-capture: crowned and goes on as a king (RU 1.5.15); goes on as a
    # man, crowned only if it ends there (FMJD; Brazilian and Pool, RULES.md §4); the move ends and it
    # is crowned (English, Italian; RULES.md §4).
    promotion_in_capture: PromotionInCapture
    # Men may capture kings, except in Italian (FID 5.3b).
    men_capture_kings: bool
    # No legal move: the side loses (normal) or wins (giveaway, RULES.md §3).
    result: Result
    # The automatic draw rules, in the order they are checked (each after the win).
    draw_rules: tuple[DrawRule, ...]
    # PDN GameType (RULES.md §5).
    game_type: int
    # Notation: algebraic squares (a1-h8) or numbers (1-32, 1-50), and the capture separator.
    algebraic: bool
    capture_separator: str
    # Options a game may switch on (RULES.md §3: the double-diagonal draw of russian-giveaway).
    options: frozenset[str] = field(default_factory=frozenset)
    double_diagonal: bool = False
    aliases: tuple[str, ...] = ()

    @cached_property
    def board(self) -> BoardGeometry:
        return geometry(self.board_size, self.mirrored)

    def __hash__(self) -> int:
        return hash((self.key, self.double_diagonal))

    @property
    def giveaway(self) -> bool:
        return self.result is Result.GIVEAWAY

    @property
    def men_per_side(self) -> int:
        return 20 if self.board_size == 10 else 12

    @cached_property
    def active_draw_rules(self) -> tuple[DrawRule, ...]:
        rules = self.draw_rules
        if self.double_diagonal:
            rules = rules + (DrawRule.DOUBLE_DIAGONAL,)
        return rules

    def with_options(self, *, double_diagonal: bool = False) -> Variant:
        """This variant with a game option switched on; UnavailableOption ("bad_option") for an option it
        does not offer. The one check of which variant offers which option: `get_variant(key,
        double_diagonal=...)` comes here, and so may the server's checks of a seek or a game.

        >>> get_variant("poddavki").with_options(double_diagonal=True).double_diagonal
        True
        >>> get_variant("russian").with_options(double_diagonal=True)
        Traceback (most recent call last):
        ...
        shashki.rules.variant.UnavailableOption: The double-diagonal option belongs to Russian giveaway.
        """
        if double_diagonal and "double-diagonal" not in self.options:
            raise UnavailableOption("double-diagonal")
        if double_diagonal == self.double_diagonal:
            return self
        return replace(self, double_diagonal=double_diagonal)

    def __repr__(self) -> str:
        extra = " double-diagonal" if self.double_diagonal else ""
        return f"<Variant {self.key}{extra}>"

    def __reduce__(self):
        # Pickle by key (the engine's process pool sends positions between processes).
        return (_variant_by_key, (self.key, self.double_diagonal))


FMJD64_DRAWS = (
    DrawRule.THREEFOLD,
    DrawRule.KINGS_3_VS_1_15,
    DrawRule.KING_MOVES_15,
    DrawRule.NO_PROGRESS_30_60,
    DrawRule.LONG_DIAGONAL_5,
    DrawRule.SMALL_ENDING_5,
)

_BASE: tuple[Variant, ...] = (
    Variant(
        key="russian",
        name="Russian draughts",
        board_size=8,
        mirrored=False,
        first_player=Color.WHITE,
        men_capture_backward=True,
        flying_kings=True,
        precedence=Precedence.FREE,
        promotion_in_capture=PromotionInCapture.CONTINUE_AS_KING,
        men_capture_kings=True,
        result=Result.NORMAL,
        draw_rules=FMJD64_DRAWS,
        game_type=25,
        algebraic=True,
        capture_separator=":",
    ),
    Variant(
        key="brazilian",
        name="Brazilian draughts",
        board_size=8,
        mirrored=False,
        first_player=Color.WHITE,
        men_capture_backward=True,
        flying_kings=True,
        precedence=Precedence.QUANTITY,
        promotion_in_capture=PromotionInCapture.CONTINUE_AS_MAN,
        men_capture_kings=True,
        result=Result.NORMAL,
        # RULES.md §4: threefold repetition, and the Brazilian confederation's (CBD, Regras Oficiais,
        # item 16) 20 successive king moves without a capture or a man move. The CBD text has no
        # endgame counts, so FMJD-64's 7.2.4-7.2.8 do not apply: the national federation decides.
        draw_rules=(DrawRule.THREEFOLD, DrawRule.KING_MOVES_20),
        game_type=26,
        algebraic=True,
        capture_separator="x",
    ),
    Variant(
        key="international",
        name="International draughts",
        board_size=10,
        mirrored=False,
        first_player=Color.WHITE,
        men_capture_backward=True,
        flying_kings=True,
        precedence=Precedence.QUANTITY,
        promotion_in_capture=PromotionInCapture.CONTINUE_AS_MAN,
        men_capture_kings=True,
        result=Result.NORMAL,
        draw_rules=(DrawRule.THREEFOLD, DrawRule.KING_MOVES_25, DrawRule.ENDING_16, DrawRule.ENDING_5),
        game_type=20,
        algebraic=False,
        capture_separator="x",
    ),
    Variant(
        key="english",
        name="English draughts (checkers)",
        board_size=8,
        mirrored=False,
        first_player=Color.BLACK,
        men_capture_backward=False,
        flying_kings=False,
        precedence=Precedence.FREE,
        promotion_in_capture=PromotionInCapture.STOP,
        men_capture_kings=True,
        result=Result.NORMAL,
        draw_rules=(DrawRule.THREEFOLD, DrawRule.FORTY_MOVES),
        game_type=21,
        algebraic=False,
        capture_separator="x",
    ),
    Variant(
        key="italian",
        name="Italian draughts",
        board_size=8,
        mirrored=True,
        first_player=Color.WHITE,
        men_capture_backward=False,
        flying_kings=False,
        precedence=Precedence.ITALIAN,
        promotion_in_capture=PromotionInCapture.STOP,
        men_capture_kings=False,
        result=Result.NORMAL,
        draw_rules=(DrawRule.THREEFOLD,),
        game_type=22,
        algebraic=False,
        capture_separator="x",
    ),
    Variant(
        key="pool",
        name="Pool checkers",
        board_size=8,
        mirrored=False,
        first_player=Color.BLACK,
        men_capture_backward=True,
        flying_kings=True,
        precedence=Precedence.FREE,
        promotion_in_capture=PromotionInCapture.CONTINUE_AS_MAN,
        men_capture_kings=True,
        result=Result.NORMAL,
        draw_rules=(DrawRule.THREEFOLD, DrawRule.KINGS_3_VS_1_13),
        game_type=23,
        algebraic=False,
        capture_separator="x",
    ),
)


def _giveaway(base: Variant) -> Variant:
    # RULES.md §4: the same moves, the result reversed, threefold repetition the only automatic draw.
    key = f"{base.key}-giveaway"
    if base.key == "russian":
        return replace(
            base,
            key=key,
            name="Russian giveaway (poddavki)",
            result=Result.GIVEAWAY,
            draw_rules=(DrawRule.THREEFOLD,),  # RULES.md §3: no 15-king-move rule in giveaway
            options=frozenset({"double-diagonal"}),
            aliases=("giveaway", "poddavki"),
        )
    aliases = ("antidraughts",) if base.key == "international" else ()
    return replace(
        base,
        key=key,
        name=f"{base.name.split(' (')[0]} giveaway",
        result=Result.GIVEAWAY,
        draw_rules=(DrawRule.THREEFOLD,),
        aliases=aliases,
    )


VARIANTS: dict[str, Variant] = {}
for _base in _BASE:
    _g = _giveaway(_base)
    VARIANTS[_g.key] = _g
for _base in _BASE:
    VARIANTS[_base.key] = _base

# The default everywhere (RULES.md, ARCHITECTURE.md).
DEFAULT_VARIANT_KEY = "russian-giveaway"

_ALIASES: dict[str, str] = {alias: v.key for v in VARIANTS.values() for alias in v.aliases}


class UnknownVariant(ValueError):
    """A variant key that names no variant."""

    code = "unknown_variant"

    def __init__(self, key: str) -> None:
        self.key = key
        known = ", ".join(VARIANTS)
        shown = key if len(key) <= 40 else key[:40] + "…"  # a page of text sent as a key is not echoed whole
        super().__init__(f"unknown variant {shown!r}; known variants: {known}")


class UnavailableOption(RulesError):
    """A game option asked of a variant that does not offer it (RULES.md §3: the double-diagonal draw
    belongs to Russian giveaway). A ValueError, as `RulesError` is; `code` is "bad_option"."""

    def __init__(self, option: str) -> None:
        offering = [v.name.split(" (")[0] for v in VARIANTS.values() if option in v.options]
        where = " and ".join(offering) if offering else "no variant"
        super().__init__("bad_option", f"The {option} option belongs to {where}.")
        self.option = option


def get_variant(key: str | Variant | None = None, *, double_diagonal: bool = False) -> Variant:
    """The variant named by key or alias (case and `_`/space insensitive); the default when None.

    UnknownVariant ("unknown_variant") for a name that is none of ours; UnavailableOption
    ("bad_option") for `double_diagonal` asked of a variant that does not offer it."""
    if isinstance(key, Variant):
        return key.with_options(double_diagonal=double_diagonal) if double_diagonal else key
    if key is None:
        key = DEFAULT_VARIANT_KEY
    norm = key.strip().lower().replace("_", "-").replace(" ", "-")
    norm = _ALIASES.get(norm, norm)
    try:
        variant = VARIANTS[norm]
    except KeyError:
        raise UnknownVariant(key) from None
    return variant.with_options(double_diagonal=double_diagonal)


def _variant_by_key(key: str, double_diagonal: bool) -> Variant:
    return get_variant(key, double_diagonal=double_diagonal)
