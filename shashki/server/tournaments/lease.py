"""One director per tournament, whatever the number of server processes (issue 13, point 7).

A lease is a row of `tournament_leases`: (tournament, owner, expires_at). A process directs a tournament
only while it holds the lease, and renews it on every tick; taking or renewing it is one compare-and-set
UPDATE (`WHERE owner = me OR expires_at < now`), or the INSERT of the first row, whose primary key lets only
one process win. A process that dies stops renewing: once the lease has expired, another takes it over.
This works on the database every process already shares — PostgreSQL, or one SQLite file — so it needs
neither Redis nor a session-bound PostgreSQL advisory lock (which a pooled connection would hold or lose
unpredictably). Clocks of different machines must agree within a small part of the lease (NTP).

Even a wrong lease could not pair anyone twice: the seats' primary key and the arena players' game column
refuse it in the database (`models.py`); the lease keeps processes from racing for nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import delete, or_, update
from sqlalchemy.exc import IntegrityError

from shashki.server.storage import Database, rows_changed
from shashki.server.storage.base import utcnow
from shashki.server.tournaments.models import TournamentLease


class Lease:
    def __init__(
        self,
        db: Database,
        *,
        seconds: float = 10.0,
        owner: str | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.db = db
        self.seconds = seconds
        self.owner = owner or secrets.token_hex(8)
        self.clock = clock
        self._until: dict[str, datetime] = {}  # the leases this owner holds, until when

    async def hold(self, tournament_id: str) -> bool:
        """Take or renew the lease of `tournament_id`; False while another owner's lease runs."""
        now = self.clock()
        held = self._until.get(tournament_id)
        if held is not None and now < held - timedelta(seconds=self.seconds / 2):
            return True  # renewed less than half a lease ago: nobody else can have it
        until = now + timedelta(seconds=self.seconds)
        self._until.pop(tournament_id, None)
        async with self.db.session() as s:
            done = await s.execute(
                update(TournamentLease)
                .where(
                    TournamentLease.tournament_id == tournament_id,
                    or_(TournamentLease.owner == self.owner, TournamentLease.expires_at < now),
                )
                .values(owner=self.owner, expires_at=until)
            )
            if rows_changed(done) == 1:
                await s.commit()
                self._until[tournament_id] = until
                return True
            s.add(TournamentLease(tournament_id=tournament_id, owner=self.owner, expires_at=until))
            try:
                await s.commit()
            except IntegrityError:
                await s.rollback()
                return False
            self._until[tournament_id] = until
            return True

    async def release(self, tournament_id: str) -> None:
        """Give the lease up (a finished tournament, a process stopping): another may take it at once."""
        self._until.pop(tournament_id, None)
        async with self.db.session() as s:
            await s.execute(
                delete(TournamentLease).where(
                    TournamentLease.tournament_id == tournament_id, TournamentLease.owner == self.owner
                )
            )
            await s.commit()
