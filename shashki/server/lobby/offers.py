"""What the lobby's offers are made of: clocks (`TimeControl`), the quick-pairing presets, colour choices
and the reasons a challenge may be declined (lichess's names, so that bots written for it understand
them). The lobby's HTTP bodies, the lidraughts adapter and `/api/meta` read them from here.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Protocol

from shashki.rules import DEFAULT_VARIANT_KEY, Color
from shashki.server.accounts.models import User
from shashki.server.errors import Forbidden, Invalid
from shashki.server.games.terms import GameTerms

COLORS = ("white", "black", "random")
# Why a challenge was declined (the names lichess uses, so bots written for it understand them).
DECLINE_REASONS = {
    "generic": "I'm not accepting challenges at the moment.",
    "later": "This is not the right time for me, please ask again later.",
    "too_fast": "This time control is too fast for me, please challenge again with a slower game.",
    "too_slow": "This time control is too slow for me, please challenge again with a faster game.",
    "time_control": "I'm not accepting challenges with this time control.",
    "rated": "Please send me a rated challenge instead.",
    "casual": "Please send me a casual challenge instead.",
    "variant": "I'm not willing to play this variant right now.",
    "no_bot": "I'm not accepting challenges from bots.",
    "only_bot": "I'm only accepting challenges from bots.",
}


@dataclass(frozen=True)
class TimeControl:
    """Minutes on each clock and seconds added per move; `None` minutes is a game without clocks."""

    minutes: float | None
    increment: int = 0

    def __post_init__(self) -> None:
        if self.minutes is not None and not 0 < self.minutes <= 180:
            raise Invalid("bad_time_control", "Minutes per side are more than 0 and at most 180.")
        if not 0 <= self.increment <= 180:
            raise Invalid("bad_time_control", "The increment is 0 to 180 seconds.")

    @property
    def initial_ms(self) -> int | None:
        return None if self.minutes is None else round(self.minutes * 60_000)

    @property
    def increment_ms(self) -> int:
        return 0 if self.minutes is None else self.increment * 1000

    @classmethod
    def from_ms(cls, initial_ms: int | None, increment_ms: int) -> TimeControl:
        return cls(None if initial_ms is None else initial_ms / 60_000, increment_ms // 1000)

    def json(self) -> dict | None:
        return None if self.minutes is None else {"minutes": self.minutes, "increment": self.increment}

    def terms(
        self,
        variant: str = DEFAULT_VARIANT_KEY,
        double_diagonal: bool = False,
        rated: bool = False,
        initial_fen: str | None = None,
    ) -> GameTerms:
        """The terms of a game on this clock."""
        return GameTerms(variant, double_diagonal, self.initial_ms, self.increment_ms, rated, initial_fen)


# The shortest clock a seek, a challenge (the Bot API's too) or a game against the computer may have:
# lidraughts' shortest initial time is a quarter of a minute (its time controls start at ¼ min; lichess's
# ultra-bullet is the same). Shorter clocks are games lost on time by the network alone. The server's
# figure is `SHASHKI_MIN_CLOCK_SECONDS`.
MIN_CLOCK_SECONDS = 15.0


def check_clock(terms: GameTerms, min_clock_ms: int) -> GameTerms:
    """`terms`, or Invalid when their clock is shorter than the minimum.

    >>> check_clock(GameTerms(clock_initial_ms=1), 15_000)
    Traceback (most recent call last):
    ...
    shashki.server.errors.Invalid: A clock has at least 15 s a side (this one has 0.001 s).
    """
    initial = terms.clock_initial_ms
    if initial is not None and initial < min_clock_ms:
        raise Invalid(
            "clock_too_short",
            f"A clock has at least {min_clock_ms / 1000:g} s a side (this one has {initial / 1000:g} s).",
        )
    return terms


QUICK_PAIRING = {
    name: TimeControl(int(name.split("+")[0]), int(name.split("+")[1]))
    for name in ("1+0", "3+0", "3+2", "5+0", "5+3", "10+0", "15+15")
}


def check_color(color: str) -> str:
    if color not in COLORS:
        raise Invalid("bad_color", "The colour is white, black or random.")
    return color


def seats(first_id: int | None, first_color: str, second_id: int | None) -> tuple[int | None, int | None]:
    """(white, black) for a player who asked for `first_color` and their opponent. A "random" colour is
    drawn from the system's randomness (`secrets`), not the `random` module's shared state, which nothing
    outside can then steer or read back."""
    color = secrets.choice((Color.WHITE, Color.BLACK)) if first_color == "random" else Color(first_color)
    return (first_id, second_id) if color is Color.WHITE else (second_id, first_id)


def colors_fit(a: str, b: str) -> bool:
    return a == "random" or b == "random" or a != b


class Blocks(Protocol):
    """What the lobby asks of the players' blocks (`shashki.server.social`): a challenge across a block is
    refused, and seeks across one are neither shown nor paired."""

    async def refuse_challenge(self, challenger: User, dest: User) -> None:
        """Raise Forbidden when a block stands between the challenger and the player challenged."""

    async def hidden_from(self, user_id: int) -> set[int]:
        """The accounts whose seeks `user_id` neither sees nor is paired with."""


async def refuse_blocked(blocks: Blocks | None, challenger: User, dest: User) -> None:
    """A challenge to a player who blocks the challenger (or whom the challenger blocks) is refused."""
    if blocks is not None:
        await blocks.refuse_challenge(challenger, dest)


async def refuse_across_a_block(blocks: Blocks | None, taker: User, offerer_id: int) -> None:
    """An offer made to anyone or before a block (a challenge, a challenge's link) is not taken across a
    block either way: Forbidden."""
    if offerer_id in await hidden_seekers(blocks, taker.id):
        blocked = "A block stands between you and this player: no game between you."
        raise Forbidden("challenge_refused", blocked)


async def hidden_seekers(blocks: Blocks | None, user_id: int | None) -> set[int]:
    """The seekers hidden from `user_id` (none for a visitor, or without blocks)."""
    if blocks is None or user_id is None:
        return set()
    return await blocks.hidden_from(user_id)
