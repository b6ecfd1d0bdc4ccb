"""The tournaments the server creates itself (issue 13, point 4), from `SHASHKI_TOURNAMENT_SCHEDULE`.

The setting is a list of entries separated by `;`, each

    <every> [<when>] <system> <variant> <minutes>+<increment> <length> [casual] [name="..."]

- every: `hourly`, `daily` or `weekly`; when: `:MM` for hourly (minutes past the hour, default `:00`),
  `HH:MM` for daily (UTC, default `00:00`), `DAY HH:MM` for weekly (`mon`..`sun`, default `mon 00:00`);
- system: `arena` or `swiss` (a round robin needs its players known in advance: people create those);
- variant: any variant key or alias (`russian-giveaway`, `poddavki`, `russian`, ...);
- clock: minutes + seconds of increment, as the lobby's presets (`3+2`, `0.5+0`);
- length: `45min` for an arena, `7rounds` for a Swiss event; `casual` makes it unrated.

For example: `hourly arena poddavki 3+2 45min; daily 18:00 swiss poddavki 5+3 7rounds;
weekly sun 16:00 arena russian 5+0 120min`.

Each slot is created ahead of its start (`AHEAD`) by whichever process's director gets there first: the slot's
`schedule_key` is unique in the table, so processes and restarts never make it twice.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from shashki.server.errors import Conflict, ServiceError
from shashki.server.tournaments.terms import TournamentTerms

EVERY = {"hourly": timedelta(hours=1), "daily": timedelta(days=1), "weekly": timedelta(weeks=1)}
AHEAD = {"hourly": timedelta(minutes=55), "daily": timedelta(hours=6), "weekly": timedelta(days=1)}
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_ENTRY = re.compile(
    r"(?P<every>hourly|daily|weekly)"
    r"(?:\s+(?P<day>mon|tue|wed|thu|fri|sat|sun))?"
    r"(?:\s+(?P<hour>\d{1,2})?:(?P<minute>\d{2}))?"
    r"\s+(?P<system>arena|swiss)\s+(?P<variant>[\w-]+)"
    r"\s+(?P<initial>\d+(?:\.\d+)?)\+(?P<increment>\d+)"
    r"\s+(?:(?P<minutes>\d+)min|(?P<rounds>\d+)rounds)"
    r"(?P<casual>\s+casual)?"
    r'(?:\s+name="(?P<name>[^"]{2,40})")?'
)


class ScheduleError(ValueError):
    """A schedule entry the server cannot read; the message quotes it."""


@dataclass(frozen=True)
class Entry:
    text: str
    every: str
    day: int  # weekly: 0 = Monday
    hour: int
    minute: int
    terms: TournamentTerms

    def slots(self, now: datetime) -> list[datetime]:
        """The starts of this entry from now until `AHEAD` from now."""
        if self.every == "hourly":
            first = now.replace(minute=self.minute, second=0, microsecond=0)
        else:
            first = now.replace(hour=self.hour, minute=self.minute, second=0, microsecond=0)
            if self.every == "weekly":
                first -= timedelta(days=(first.weekday() - self.day) % 7)
        while first < now:
            first += EVERY[self.every]
        out = []
        while first <= now + AHEAD[self.every]:
            out.append(first)
            first += EVERY[self.every]
        return out

    def key(self, slot: datetime) -> str:
        digest = hashlib.sha256(" ".join(self.text.split()).encode()).hexdigest()[:16]
        return f"{digest}@{slot:%Y-%m-%dT%H:%M}"


def parse(spec: str) -> list[Entry]:
    """The entries of a schedule (empty: none).

    >>> [e.every for e in parse("hourly arena poddavki 3+2 45min; daily 18:00 swiss russian 5+3 7rounds")]
    ['hourly', 'daily']
    >>> parse("yearly")
    Traceback (most recent call last):
    ...
    shashki.server.tournaments.schedule.ScheduleError: cannot read the schedule entry 'yearly'
    """
    entries = []
    for text in (part.strip() for part in spec.split(";")):
        if not text:
            continue
        m = _ENTRY.fullmatch(
            " ".join(text.split()).lower() if 'name="' not in text else " ".join(text.split())
        )
        if m is None:
            raise ScheduleError(f"cannot read the schedule entry {text!r}")
        g = m.groupdict()
        system = g["system"]
        minutes = int(g["minutes"]) if g["minutes"] else None
        rounds = int(g["rounds"]) if g["rounds"] else None
        if (system == "arena") != (minutes is not None):
            raise ScheduleError(f"an arena lasts N min, a swiss has N rounds: {text!r}")
        name = g["name"] or f"{g['every'].capitalize()} {g['variant']} {system}"
        terms = TournamentTerms(
            name,
            system,
            g["variant"],
            float(g["initial"]) * 60,
            float(g["increment"]),
            minutes=minutes,
            rounds=rounds,
            rated=not g["casual"],
        )
        entries.append(
            Entry(
                text,
                g["every"],
                DAYS.index(g["day"]) if g["day"] else 0,
                int(g["hour"] or 0),
                int(g["minute"] or 0),
                terms,
            )
        )
    return entries


class Schedule:
    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        self._made: set[str] = set()  # keys this process has seen exist (saves the insert's round trip)

    @classmethod
    def from_setting(cls, spec: str) -> Schedule:
        return cls(parse(spec))

    async def create_due(self, service, now: datetime) -> int:
        """Create every slot due within its lead time that does not exist yet; how many were made."""
        made = 0
        now = now.astimezone(UTC)
        for entry in self.entries:
            for slot in entry.slots(now):
                key = entry.key(slot)
                if key in self._made:
                    continue
                try:
                    await service.create(None, _at(entry.terms, slot), schedule_key=key, now=now)
                    made += 1
                except Conflict:
                    pass  # another process, or this one before a restart, made it
                except ServiceError as error:
                    raise ScheduleError(f"{entry.text!r}: {error.message}") from None
                self._made.add(key)
        return made


def _at(terms: TournamentTerms, slot: datetime) -> TournamentTerms:
    from dataclasses import replace

    return replace(terms, starts_at=slot)
