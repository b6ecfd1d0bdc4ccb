"""The terms of a game: what two players agree to play before it starts. One value for every place that
carries them — a seek, a challenge, a rematch, a game's record and the HTTP bodies that ask for them — so
they are checked in one place and compared as a whole.

>>> terms = GameTerms(variant="poddavki", clock_initial_ms=180_000, clock_increment_ms=2_000).checked()
>>> terms.variant, terms.is_timed
('russian-giveaway', True)
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
    increment), rated or casual, and the start position (None: the variant's own)."""

    variant: str = DEFAULT_VARIANT_KEY
    double_diagonal: bool = False
    clock_initial_ms: int | None = None
    clock_increment_ms: int = 0
    rated: bool = False
    initial_fen: str | None = None

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
        )

    def checked(self) -> GameTerms:
        """These terms with the variant's own key, or Invalid saying what is wrong with them."""
        try:
            variant = get_variant(self.variant, double_diagonal=self.double_diagonal)
        except UnknownVariant as e:
            raise Invalid("unknown_variant", str(e)) from None
        except UnavailableOption as e:  # the rules say which variant offers the option
            raise Invalid(e.code, e.message) from None
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
        return replace(
            self,
            variant=variant.key,
            clock_increment_ms=self.clock_increment_ms if self.clock_initial_ms is not None else 0,
        )

    @property
    def is_timed(self) -> bool:
        return self.clock_initial_ms is not None

    def columns(self, *, with_fen: bool = True) -> dict[str, Any]:
        """The columns that store these terms (a seek has no start position: `with_fen=False`)."""
        out: dict[str, Any] = {
            "variant": self.variant,
            "double_diagonal": self.double_diagonal,
            "clock_initial_ms": self.clock_initial_ms,
            "clock_increment_ms": self.clock_increment_ms,
            "rated": self.rated,
        }
        if with_fen:
            out["initial_fen"] = self.initial_fen
        return out
