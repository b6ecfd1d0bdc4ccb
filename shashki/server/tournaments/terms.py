"""What a tournament is asked to be, checked: `TournamentTerms.checked` refuses, with a clear code and
message, every request the service must not store (issue 13, point 4: any registered player creates them,
with a name, variant, clock, start time, duration or rounds, rated or not, an optional password, an
optional minimum rating or number of games)."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from shashki.server.errors import Invalid
from shashki.server.games.terms import GameTerms
from shashki.server.tournaments.state import ARENA, ROUNDROBIN, SWISS, SYSTEMS

NAME_LENGTH = (2, 40)
DEFAULT_DELAY = timedelta(minutes=2)  # the contract: starts_at null = in 2 minutes
LATEST_START = timedelta(days=31)
START_SLACK = timedelta(seconds=60)  # "now" sent by a client whose clock is a little behind
ARENA_MINUTES = (1, 720)  # lichess: 20 min to 12 h; a one-minute arena is kept for clubs' blitz and tests
SWISS_ROUNDS = (1, 50)  # lichess: 3 to 100
ROUND_ROBIN_PLAYERS = 20  # Berger tables of clubs and matches: beyond it, a Swiss
MAX_INITIAL_SECONDS = 3 * 3600
MAX_INCREMENT_SECONDS = 180
MAX_PASSWORD = 60


def password_digest(tournament_id: str, password: str) -> str:
    """A private tournament's password, stored as a keyed SHA-256 (a short shared secret, not an account's
    password: the table must not show it, argon2's cost is not needed)."""
    return hmac.new(tournament_id.encode(), password.encode(), hashlib.sha256).hexdigest()


def password_matches(tournament_id: str, stored: str, given: str | None) -> bool:
    return hmac.compare_digest(stored, password_digest(tournament_id, given or ""))


@dataclass(frozen=True)
class TournamentTerms:
    name: str
    system: str
    variant: str
    initial_seconds: float
    increment_seconds: float
    starts_at: datetime | None = None
    minutes: int | None = None
    rounds: int | None = None
    double: bool = False
    rated: bool = True
    password: str | None = None
    min_rating: int | None = None
    min_games: int | None = None
    max_players: int | None = None

    @property
    def game_terms(self) -> GameTerms:
        return GameTerms(
            self.variant,
            False,
            round(self.initial_seconds * 1000),
            round(self.increment_seconds * 1000),
            self.rated,
        )

    def checked(self, now: datetime, min_clock_ms: int) -> TournamentTerms:
        name = " ".join((self.name or "").split())
        if not NAME_LENGTH[0] <= len(name) <= NAME_LENGTH[1] or not name.isprintable():
            raise Invalid(
                "bad_name",
                f"A tournament's name has {NAME_LENGTH[0]} to {NAME_LENGTH[1]} printable characters.",
            )
        if self.system not in SYSTEMS:
            raise Invalid("bad_system", "A tournament is an arena, a swiss or a roundrobin.")
        variant = self.game_terms.checked().variant  # unknown_variant
        if not 0 < self.initial_seconds <= MAX_INITIAL_SECONDS or self.initial_seconds * 1000 < min_clock_ms:
            raise Invalid(
                "clock_too_short" if self.initial_seconds * 1000 < min_clock_ms else "bad_clock",
                f"A tournament clock has {min_clock_ms / 1000:g} s to {MAX_INITIAL_SECONDS} s a side.",
            )
        if not 0 <= self.increment_seconds <= MAX_INCREMENT_SECONDS:
            raise Invalid("bad_clock", f"The increment is 0 to {MAX_INCREMENT_SECONDS} s.")
        starts_at = self.starts_at or now + DEFAULT_DELAY
        if starts_at.tzinfo is None:
            raise Invalid("bad_start", "Give the start time in UTC (ISO 8601 with Z or +00:00).")
        if starts_at < now - START_SLACK:
            raise Invalid("start_in_past", "The start time has passed.")
        if starts_at > now + LATEST_START:
            raise Invalid("start_too_far", f"A tournament starts within {LATEST_START.days} days.")
        starts_at = max(starts_at.astimezone(UTC), now)  # stored in UTC (SQLite keeps no zone)
        minutes, rounds, max_players = self.minutes, self.rounds, self.max_players
        if self.system == ARENA:
            if minutes is None or not ARENA_MINUTES[0] <= minutes <= ARENA_MINUTES[1]:
                low, high = ARENA_MINUTES
                raise Invalid("bad_duration", f"An arena lasts {low} to {high} minutes.")
            rounds = None
        elif self.system == SWISS:
            if rounds is None or not SWISS_ROUNDS[0] <= rounds <= SWISS_ROUNDS[1]:
                low, high = SWISS_ROUNDS
                raise Invalid("bad_rounds", f"A Swiss event has {low} to {high} rounds.")
            minutes = None
        else:
            minutes, rounds = None, None  # the Berger tables decide, once the players are known
            # 0 is no size: refused below, as for the other systems, not taken as "the default".
            if max_players is not None and max_players > ROUND_ROBIN_PLAYERS:  # said, not cut silently
                raise Invalid(
                    "bad_max_players",
                    f"A round robin has at most {ROUND_ROBIN_PLAYERS} players: hold a Swiss event for more.",
                )
            max_players = ROUND_ROBIN_PLAYERS if max_players is None else max_players
        if max_players is not None and not 2 <= max_players <= 10_000:
            raise Invalid("bad_max_players", "At most 2 to 10,000 players.")
        if self.password is not None and not 1 <= len(self.password) <= MAX_PASSWORD:
            raise Invalid("bad_password", f"A tournament password has 1 to {MAX_PASSWORD} characters.")
        if self.min_rating is not None and not 0 <= self.min_rating <= 4000:
            raise Invalid("bad_condition", "The minimum rating is 0 to 4000.")
        if self.min_games is not None and not 0 <= self.min_games <= 10_000:
            raise Invalid("bad_condition", "The minimum number of games is 0 to 10,000.")
        return replace(
            self,
            name=name,
            variant=variant,
            starts_at=starts_at,
            minutes=minutes,
            rounds=rounds,
            max_players=max_players,
            double=self.double and self.system == ROUNDROBIN,
        )
