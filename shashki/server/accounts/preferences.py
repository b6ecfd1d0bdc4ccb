"""How an account wants the pages to look: a light or dark theme (or the system's), a board style and a
piece style (issue 16, point 5: "a light and a dark theme, two board styles and two piece styles, saved per
account").

The choices are closed lists: the browser client draws exactly these (shashki/web/style.css), so a value
outside them is refused rather than stored. Visitors without an account keep theirs in the browser's
localStorage (shashki/web/js/looks.js); this is the same record for accounts, so that it follows them to
another browser.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from shashki.server.accounts.models import Preferences as PreferencesRow
from shashki.server.errors import Invalid
from shashki.server.storage import Database
from shashki.server.storage.base import utcnow

# "auto" follows the system (the browser's prefers-color-scheme), as lichess does by default.
THEMES = ("auto", "light", "dark")
BOARDS = ("wood", "marine")  # classic brown wood; flat green and blue
PIECES = ("ringed", "flat")  # men with a carved ring (3D look); plain flat discs


@dataclass(frozen=True)
class Looks:
    theme: str = "auto"
    board: str = "wood"
    pieces: str = "ringed"

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


CHOICES = {"theme": THEMES, "board": BOARDS, "pieces": PIECES}


def checked(changes: dict[str, str | None], base: Looks) -> Looks:
    """`base` with `changes` applied (a missing or null field keeps its value); unknown values are refused."""
    values = base.as_dict()
    for name, value in changes.items():
        if value is None:
            continue
        if value not in CHOICES[name]:
            raise Invalid("bad_preference", f"{name} must be one of: {', '.join(CHOICES[name])}.")
        values[name] = value
    return Looks(**values)


class PreferenceService:
    """Reads and writes the `account_preferences` rows (owned by the accounts domain)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, user_id: int) -> Looks:
        async with self.db.session() as s:
            row = await s.get(PreferencesRow, user_id)
            if row is None:
                return Looks()
            return Looks(theme=row.theme, board=row.board, pieces=row.pieces)

    async def update(self, user_id: int, changes: dict[str, str | None]) -> Looks:
        """Apply `changes` to the account's looks and store them whole; returns what is stored."""
        async with self.db.session() as s:
            row = await s.get(PreferencesRow, user_id)
            base = Looks() if row is None else Looks(theme=row.theme, board=row.board, pieces=row.pieces)
            looks = checked(changes, base)
            if row is None:
                row = PreferencesRow(user_id=user_id, updated_at=utcnow(), **looks.as_dict())
                s.add(row)
            else:
                row.theme, row.board, row.pieces = looks.theme, looks.board, looks.pieces
                row.updated_at = utcnow()
            await s.commit()
        return looks
