"""What a simul is played on and where it stands: the host's terms (`SimulTerms`, checked before anything is
stored), the statuses, the limits, and who may take part."""

from __future__ import annotations

from dataclasses import dataclass

from shashki.server.accounts.models import User
from shashki.server.errors import Forbidden, Invalid
from shashki.server.games.terms import GameTerms
from shashki.server.simuls.models import Simul

CREATED, STARTED, FINISHED, CANCELLED = "created", "started", "finished", "cancelled"
HOST_COLORS = ("white", "black", "random")
MAX_PLAYERS = 50  # games a host plays at once (accepted players)
MAX_APPLICANTS = 100  # players waiting for the host's answer
MAX_EXTRA_MINUTES = 60  # the host's extra time
MAX_CLOCK_MS = 180 * 60_000
MAX_INCREMENT_MS = 180_000


@dataclass(frozen=True)
class SimulTerms:
    """What a host announces."""

    name: str
    variant: str
    clock_initial_ms: int
    clock_increment_ms: int
    host_extra_ms: int = 0
    host_color: str = "white"
    text: str = ""

    def checked(self, min_clock_ms: int) -> SimulTerms:
        """These terms made canonical (the name's spaces, the variant's key), or Invalid with the reason;
        the clock has at least `min_clock_ms` a side (`SHASHKI_MIN_CLOCK_SECONDS`), as every game's."""
        name = " ".join(self.name.split())
        if not 2 <= len(name) <= 60 or not name.isprintable():  # no controls, no invisible or bidi marks
            raise Invalid("bad_name", "A simul's name has 2 to 60 printable characters.")
        if not min_clock_ms <= self.clock_initial_ms <= MAX_CLOCK_MS:
            raise Invalid(
                "clock_too_short" if self.clock_initial_ms < min_clock_ms else "bad_clock",
                f"A simul's clock has {min_clock_ms / 1000:g} s to {MAX_CLOCK_MS // 60_000} minutes a side.",
            )
        if not 0 <= self.clock_increment_ms <= MAX_INCREMENT_MS:
            raise Invalid("bad_clock", f"The increment is 0 to {MAX_INCREMENT_MS // 1000} seconds.")
        variant = self.game_terms().variant  # Invalid for a variant we do not have
        if self.host_color not in HOST_COLORS:
            raise Invalid("bad_color", "The host plays white, black or random.")
        if not 0 <= self.host_extra_ms <= MAX_EXTRA_MINUTES * 60_000:
            raise Invalid("bad_extra_time", f"The host's extra time is 0 to {MAX_EXTRA_MINUTES} minutes.")
        if len(self.text) > 2000 or not all(c.isprintable() or c in "\n\t" for c in self.text):
            raise Invalid("bad_text", "A simul's description has at most 2,000 printable characters.")
        return SimulTerms(
            name, variant, self.clock_initial_ms, self.clock_increment_ms, self.host_extra_ms,
            self.host_color, self.text.strip(),
        )  # fmt: skip

    def game_terms(self) -> GameTerms:
        """The terms of each game: casual, on the simul's clock (the host's extra time is added at the
        start, `GameService.create`'s `more_time`)."""
        return GameTerms(
            self.variant,
            clock_initial_ms=self.clock_initial_ms,
            clock_increment_ms=self.clock_increment_ms,
            rated=False,
        ).checked()

    @staticmethod
    def of(simul: Simul) -> SimulTerms:
        return SimulTerms(
            simul.name, simul.variant, simul.clock_initial_ms, simul.clock_increment_ms, simul.host_extra_ms,
            simul.host_color, simul.text,
        )  # fmt: skip


def may_take_part(user: User) -> None:
    """Hosts and players are accounts, never bots (as lichess keeps bots out of simuls)."""
    if user.anonymous:
        raise Forbidden("account_required", "Simuls are for accounts: register or log in.")
    if user.is_bot:
        raise Forbidden("bot_account", "Bots do not play simuls.")
