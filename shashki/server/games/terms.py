"""The terms of a game: what two players agree to play before it starts. One value for every place that
carries them — a seek, a challenge, a rematch, a game's record and the HTTP bodies that ask for them — so
they are checked in one place and compared as a whole.

>>> terms = GameTerms(variant="poddavki", clock_initial_ms=180_000, clock_increment_ms=2_000).checked()
>>> terms.variant, terms.is_timed
('russian-giveaway', True)
>>> GameTerms(days_per_move=3).checked().is_correspondence
True
>>> GameTerms(days_per_move=4).checked()
Traceback (most recent call last):
...
shashki.server.errors.Invalid: Days per move are 1, 2, 3, 5, 7 or 14.
>>> GameTerms(variant="russian", double_diagonal=True).checked()
Traceback (most recent call last):
...
shashki.server.errors.Invalid: The double-diagonal option belongs to Russian giveaway.
>>> GameTerms(initial_fen="W:W:B").checked()
Traceback (most recent call last):
...
shashki.server.errors.Invalid: The game is already over in that position: there is nothing to play.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol

from shashki.rules import (
    DEFAULT_VARIANT_KEY,
    Game,
    Position,
    RulesError,
    UnavailableOption,
    UnknownVariant,
    get_variant,
)
from shashki.server.errors import Invalid

# The days a correspondence player has for each move (lichess's and lidraughts' choices).
DAYS_PER_MOVE = (1, 2, 3, 5, 7, 14)


class HasTerms(Protocol):
    """A stored row that carries the terms (a seek, a challenge, a game)."""

    variant: str
    double_diagonal: bool
    clock_initial_ms: int | None
    clock_increment_ms: int
    rated: bool


@dataclass(frozen=True, slots=True)
class GameTerms:
    """Variant (a key or alias), its option, the clock (no clock when `clock_initial_ms` is None; Fischer
    increment), rated or casual, the start position (None: the variant's own), and for a correspondence
    game the days each move may take (`days_per_move`; the time resets after every move, as on lichess;
    a game has either a real-time clock or days per move, or neither: untimed)."""

    variant: str = DEFAULT_VARIANT_KEY
    double_diagonal: bool = False
    clock_initial_ms: int | None = None
    clock_increment_ms: int = 0
    rated: bool = False
    initial_fen: str | None = None
    days_per_move: int | None = None

    @classmethod
    def of(cls, row: HasTerms) -> GameTerms:
        """The terms a stored seek, challenge or game carries."""
        return cls(
            row.variant,
            row.double_diagonal,
            row.clock_initial_ms,
            row.clock_increment_ms,
            row.rated,
            getattr(row, "initial_fen", None),
            getattr(row, "days_per_move", None),
        )

    def checked(self) -> GameTerms:
        """These terms with the variant's own key, or Invalid saying what is wrong with them. They are
        rated only when the game can be: with a clock or days per move, from the start position; an
        untimed game and one from a set-up position are casual (as on lichess), and the seek or challenge
        made of these terms says so."""
        try:
            variant = get_variant(self.variant, double_diagonal=self.double_diagonal)
        except UnknownVariant as e:
            raise Invalid("unknown_variant", str(e)) from None
        except UnavailableOption as e:  # the rules say which variant offers the option
            raise Invalid(e.code, e.message) from None
        if self.days_per_move is not None:
            if self.days_per_move not in DAYS_PER_MOVE:
                raise Invalid("bad_days", "Days per move are 1, 2, 3, 5, 7 or 14.")
            if self.clock_initial_ms is not None:
                raise Invalid("bad_time_control", "A game has a clock or days per move, not both.")
        if self.initial_fen is not None:
            try:
                Position.from_fen(self.initial_fen, variant)
                first = Game(variant.key, self.initial_fen, double_diagonal=self.double_diagonal)
            except RulesError as e:
                raise Invalid(e.code, e.message) from None
            if first.is_over:
                # A game that would end before its first move (`W:W:B`, a side without a legal move): no
                # seek, challenge or game is made of it.
                raise Invalid(
                    "game_over", "The game is already over in that position: there is nothing to play."
                )
        timed = self.clock_initial_ms is not None or self.days_per_move is not None
        return replace(
            self,
            variant=variant.key,
            clock_increment_ms=self.clock_increment_ms if self.clock_initial_ms is not None else 0,
            rated=self.rated and timed and self.initial_fen is None,
        )

    @property
    def is_timed(self) -> bool:
        """A real-time clock (a correspondence game's days are not one)."""
        return self.clock_initial_ms is not None

    @property
    def is_correspondence(self) -> bool:
        return self.days_per_move is not None

    def columns(self, *, with_fen: bool = True) -> dict[str, Any]:
        """The columns that store these terms (a seek has no start position: `with_fen=False`)."""
        out: dict[str, Any] = {
            "variant": self.variant,
            "double_diagonal": self.double_diagonal,
            "clock_initial_ms": self.clock_initial_ms,
            "clock_increment_ms": self.clock_increment_ms,
            "rated": self.rated,
            "days_per_move": self.days_per_move,
        }
        if with_fen:
            out["initial_fen"] = self.initial_fen
        return out
