"""The statements of the per-move path, as `storage.direct` runs them (no ORM session): the
compare-and-set of a game's change with its move's row, the read of a game's version that tells
whether another process changed it (`GameStore`), and a new game's row with the rows it claims (a seek
matched, a challenge accepted) in one short transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Table

from shashki.server.errors import ServiceError
from shashki.server.games.models import GameRecord, MoveRecord
from shashki.server.storage.direct import Insert, Read, Update, new_row

GAMES = cast(Table, GameRecord.__table__)
MOVES = cast(Table, MoveRecord.__table__)


def change(game_id: str, version: int, changes: dict[str, Any], move: dict[str, Any] | None) -> list:
    """One change: the compare-and-set on the version the game was read at (`Refused` if another writer
    got there first), then the move's row (unique per game and ply: of two writers of the same ply one
    fails there, its transaction rolled back)."""
    ops: list[Update | Insert] = [Update(GAMES, changes, {"id": game_id, "version": version})]
    if move is not None:
        ops.append(Insert(MOVES, move))
    return ops


def version_of(game_id: str) -> Read:
    return Read(GAMES, "version", {"id": game_id})


@dataclass(frozen=True, slots=True)
class Claim:
    """A row a new game takes in the transaction that stores it (the seek it matches, the challenge it
    answers): the guarded update, and the error to answer when it changes no row (someone got there
    first; then no game is stored)."""

    update: Update
    refused: ServiceError | None = None


# What a new game claims, given its id (`GameStore.insert`).
Claims = Callable[[str], Sequence[Claim]]


def game_row(record: GameRecord) -> Insert:
    """The INSERT of a new game's row (`storage.direct.new_row`: every column, defaults set)."""
    return Insert(GAMES, new_row(record))
