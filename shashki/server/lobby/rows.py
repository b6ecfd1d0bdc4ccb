"""A challenge's row on the direct path (storage/direct.py), without an ORM session: read when it is
answered (every game started by a challenge reads it), and settled by a compare-and-set on its status
(issue 11: a session per statement was most of a game's start). The seeks' and challenges' tables, for
the claims a new game makes on them (`games.statements.Claim`).
"""

from __future__ import annotations

from typing import cast

from sqlalchemy import Table

from shashki.server.lobby.models import Challenge, Seek
from shashki.server.storage import Database
from shashki.server.storage.base import detached
from shashki.server.storage.direct import Refused, Row, Update

CHALLENGES = cast(Table, Challenge.__table__)
SEEKS = cast(Table, Seek.__table__)
COLUMNS = tuple(column.key for column in CHALLENGES.columns)


async def challenge_row(db: Database, challenge_id: int) -> Challenge | None:
    """The challenge, whatever its status (None if there is no such one): a detached `Challenge`, as a
    closed session leaves it."""
    found = await db.direct.row(Row(CHALLENGES, COLUMNS, {"id": challenge_id}))
    if found is None:
        return None
    return detached(Challenge, found)


async def settle(db: Database, challenge_id: int, status: str, reason: str | None = None) -> bool:
    """Mark a pending challenge `status` (declined, cancelled); False if it was answered already."""
    values = {"status": status, "decline_reason": reason}
    change = Update(CHALLENGES, values, {"id": challenge_id, "status": "pending"})
    try:
        await db.direct.write(change)
    except Refused:
        return False
    return True
