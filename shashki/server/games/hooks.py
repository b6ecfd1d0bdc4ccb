"""What other domains write with a game's end (the ratings): an `EndHook` plans its statements, an
`EndWrite`, which the games store runs in the end's own transaction on the direct path
(`GameStore.commit`); and what they do once a game has started (`StartHook`: the lobby's seeks)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from shashki.rules import Outcome
from shashki.server.games.models import GameRecord
from shashki.server.storage.direct import Write


@dataclass(frozen=True, slots=True)
class EndWrite:
    """What an end hook writes with a game's end: its statements, run in the end's transaction after the
    game's own, and more columns of the game to record."""

    ops: list[Write]
    columns: dict[str, Any]


@dataclass(frozen=True, slots=True)
class EndHook:
    """Another domain's write in the transaction that records a game's end (the ratings): `plan` is
    called with the game's record (as it stood), the outcome and its time, reads what it needs, and
    returns its `EndWrite`; only for the ends it `applies` to (record, outcome). The end and the hooks'
    statements are one transaction on the direct path: a hook's compare-and-set that loses (`Refused`:
    what it read changed before the write) or its insert of a row someone else just added
    (IntegrityError) has it planned again (each loss is another end committed: up to `END_ATTEMPTS`)."""

    applies: Callable[[GameRecord, Outcome], bool]
    plan: Callable[[GameRecord, Outcome, datetime], Awaitable[EndWrite]]


# Told of a game stored and announced, after its commit (`GameStore.insert`): the lobby withdraws the
# players' seeks with a clock. It changes nothing of the game.
StartHook = Callable[[GameRecord], Awaitable[None]]


# How often an end whose hooks lost their compare-and-set to a concurrent writer is planned again. Each
# loss is another end's write of the same row committed, so the ends of N games of one player at once
# need up to N attempts for the last of them (a bot's games, a tournament round ending together).
END_ATTEMPTS = 32
