"""The simul service: a host plays many players at once, as on lidraughts and lichess.

A host (an account, not a bot) announces a simul: its variant, its clock, the extra time the host's clock
starts with, the colour the host plays (`terms.py`). Players (accounts, not bots) ask to play; the host
accepts or turns them down, then starts it: one casual game against each accepted player, all at once,
those not accepted let go (`games.py`). The simul ends when its last game does; its games have no rematch.

It owns the simuls' tables (`models.py`) and asks the other domains through their services: games by
`GameService.create`, names from the accounts, blocks from the social domain. Every change is published on
`simul:<id>` (`{"type": "simul", "simul": S}`, S as `get` gives it) and each move of its games as
`{"type": "board", "board": B}`; `lobby` hears `{"type": "simuls"}` when the lists change.
"""

from __future__ import annotations

import logging
import secrets
import string
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from shashki.server.accounts import AccountService
from shashki.server.accounts.models import User
from shashki.server.accounts.names import refuse_the_servers_name
from shashki.server.errors import Conflict, Forbidden, NotFound
from shashki.server.events import EventBus
from shashki.server.games.service import GameService
from shashki.server.simuls.games import SimulGames
from shashki.server.simuls.models import Simul, SimulPlayer
from shashki.server.simuls.terms import (
    CANCELLED,
    CREATED,
    MAX_APPLICANTS,
    MAX_PLAYERS,
    STARTED,
    SimulTerms,
    may_take_part,
)
from shashki.server.simuls.views import SimulReads
from shashki.server.storage import Database, rows_changed
from shashki.server.storage.base import utcnow

log = logging.getLogger(__name__)

ID_ALPHABET = string.ascii_letters + string.digits
HOSTING = "You host a simul already: finish or cancel it first."

Blocked = Callable[[int, int], Awaitable[bool]]  # whether either of two accounts blocks the other


class SimulService:
    def __init__(
        self,
        db: Database,
        games: GameService,
        accounts: AccountService,
        bus: EventBus,
        blocked: Blocked | None = None,
        *,
        min_clock_ms: int = 15_000,
    ) -> None:
        self.db = db
        self.min_clock_ms = min_clock_ms
        self.accounts = accounts
        self.bus = bus
        self.blocked = blocked
        self.reads = SimulReads(db, games, accounts)
        self.games = SimulGames(db, games, bus, self._changed)

    async def list(self) -> dict[str, list[dict[str, Any]]]:
        return await self.reads.list()

    async def get(self, simul_id: str) -> dict[str, Any]:
        return await self.reads.get(simul_id)

    async def resume(self) -> int:
        return await self.games.resume()

    # -- the host's and the players' actions ------------------------------------------------------------

    async def create(self, host: User, terms: SimulTerms) -> dict[str, Any]:
        may_take_part(host)
        terms = terms.checked(self.min_clock_ms)
        refuse_the_servers_name(terms.name, "simuls")
        now = utcnow()
        simul = Simul(
            id="".join(secrets.choice(ID_ALPHABET) for _ in range(8)),
            name=terms.name,
            host_id=host.id,
            variant=terms.variant,
            clock_initial_ms=terms.clock_initial_ms,
            clock_increment_ms=terms.clock_increment_ms,
            host_extra_ms=terms.host_extra_ms,
            host_color=terms.host_color,
            text=terms.text,
            status=CREATED,
            created_at=now,
        )
        async with self.db.session() as s:
            hosting = await s.scalar(
                select(Simul.id)
                .where(Simul.host_id == host.id, Simul.status.in_((CREATED, STARTED)))
                .limit(1)
            )
            if hosting is not None:
                raise Conflict("simul_exists", HOSTING, simul=hosting)
            s.add(simul)
            try:
                await s.commit()
            except IntegrityError:  # another announced at the same moment (`uq_simuls_hosting`)
                raise Conflict("simul_exists", HOSTING) from None
        await self._changed(simul.id, lobby=True)
        return await self.get(simul.id)

    async def join(self, user: User, simul_id: str) -> dict[str, Any]:
        """Ask to play the host; the host accepts or turns the request down."""
        may_take_part(user)
        simul = await self.reads.simul(simul_id)
        _not_started(simul)
        if simul.host_id == user.id:
            raise Conflict("own_simul", "The host plays every game already.")
        if self.blocked is not None and await self.blocked(simul.host_id, user.id):
            raise Forbidden("blocked", "You cannot play this host.")
        async with self.db.session() as s:
            await _taken(s, simul_id)
            if await s.get(SimulPlayer, (simul_id, user.id)) is not None:
                return await self.get(simul_id)  # asked already: nothing more to do
            if await _count(s, simul_id) >= MAX_APPLICANTS:
                raise Conflict("simul_full", "This simul has as many players as it takes.")
            s.add(SimulPlayer(simul_id=simul_id, user_id=user.id, accepted=False, joined_at=utcnow()))
            await s.commit()
        await self._changed(simul_id, lobby=True)
        return await self.get(simul_id)

    async def withdraw(self, user: User, simul_id: str) -> dict[str, Any]:
        """Take back one's request, before the simul starts (a game once started is resigned instead)."""
        async with self.db.session() as s:
            await _taken(s, simul_id)
            done = await s.execute(
                delete(SimulPlayer).where(SimulPlayer.simul_id == simul_id, SimulPlayer.user_id == user.id)
            )
            await s.commit()
        if rows_changed(done) != 1:
            raise Conflict("not_entered", "You have not asked to play this simul.")
        await self._changed(simul_id, lobby=True)
        return await self.get(simul_id)

    async def accept(self, host: User, simul_id: str, username: str, accepted: bool = True) -> dict[str, Any]:
        """The host takes a player (`accepted`) or puts them back among those waiting for an answer."""
        await self._hosted(host, simul_id)
        player = await self._player_named(simul_id, username)
        async with self.db.session() as s:
            await _taken(s, simul_id)
            if accepted and await _count(s, simul_id, accepted=True) >= MAX_PLAYERS:
                raise Conflict("simul_full", f"A simul has at most {MAX_PLAYERS} games.")
            done = await s.execute(
                update(SimulPlayer)
                .where(SimulPlayer.simul_id == simul_id, SimulPlayer.user_id == player.user_id)
                .values(accepted=accepted)
            )
            await s.commit()
        if rows_changed(done) != 1:  # withdrew meanwhile
            raise NotFound("no_such_player", f"{username!r} has not asked to play this simul.")
        await self._changed(simul_id)
        return await self.get(simul_id)

    async def remove(self, host: User, simul_id: str, username: str) -> dict[str, Any]:
        """The host turns a player's request down."""
        await self._hosted(host, simul_id)
        player = await self._player_named(simul_id, username)
        async with self.db.session() as s:
            await _taken(s, simul_id)
            await s.execute(
                delete(SimulPlayer).where(
                    SimulPlayer.simul_id == simul_id, SimulPlayer.user_id == player.user_id
                )
            )
            await s.commit()
        await self._changed(simul_id, lobby=True)
        return await self.get(simul_id)

    async def cancel(self, host: User, simul_id: str) -> dict[str, Any]:
        """The host calls the simul off before it starts."""
        await self._hosted(host, simul_id)
        async with self.db.session() as s:
            await _taken(s, simul_id, CANCELLED)
            await s.commit()
        await self._changed(simul_id, lobby=True)
        return await self.get(simul_id)

    async def start(self, host: User, simul_id: str) -> dict[str, Any]:
        """Start: one game against each accepted player, at once; those not accepted are let go."""
        await self._hosted(host, simul_id)
        async with self.db.session() as s:
            await _taken(s, simul_id, STARTED)
            if not await _count(s, simul_id, accepted=True):
                await s.rollback()
                raise Conflict("no_players", "Accept at least one player first.")
            await s.execute(
                delete(SimulPlayer).where(SimulPlayer.simul_id == simul_id, SimulPlayer.accepted.is_(False))
            )
            await s.commit()
        await self.games.make(await self.reads.simul(simul_id))
        await self._changed(simul_id, lobby=True)
        return await self.get(simul_id)

    async def withdraw_everywhere(self, user: User) -> None:
        """An account closing (a closing hook, accounts/security.py, told the account): its requests
        withdrawn and the simuls it hosts, not yet started, cancelled."""
        user_id = user.id
        async with self.db.session() as s:
            hosted = list(await s.scalars(
                select(Simul.id).where(Simul.host_id == user_id, Simul.status == CREATED)
            ))  # fmt: skip
            entered = list(await s.scalars(
                select(SimulPlayer.simul_id)
                .join(Simul, Simul.id == SimulPlayer.simul_id)
                .where(SimulPlayer.user_id == user_id, Simul.status == CREATED)
            ))  # fmt: skip
            if hosted:
                await s.execute(
                    update(Simul)
                    .where(Simul.id.in_(hosted), Simul.status == CREATED)
                    .values(status=CANCELLED, finished_at=utcnow())
                )
            if entered:
                await s.execute(
                    delete(SimulPlayer).where(
                        SimulPlayer.user_id == user_id, SimulPlayer.simul_id.in_(entered),
                        SimulPlayer.game_id.is_(None),
                    )
                )  # fmt: skip
            await s.commit()
        for simul_id in {*hosted, *entered}:
            await self._changed(simul_id, lobby=True)


    # -- helpers ---------------------------------------------------------------------------------------

    async def _hosted(self, host: User, simul_id: str) -> Simul:
        simul = await self.reads.simul(simul_id)
        if simul.host_id != host.id:
            raise Forbidden("not_your_simul", "Only the simul's host may do that.")
        return simul

    async def _player_named(self, simul_id: str, username: str) -> SimulPlayer:
        user = next(iter(await self.accounts.users_by_name([username])), None)
        async with self.db.reading() as s:
            player = None if user is None else await s.get(SimulPlayer, (simul_id, user.id))
        if player is None:
            raise NotFound("no_such_player", f"{username!r} has not asked to play this simul.")
        return player

    async def _changed(self, simul_id: str, lobby: bool = False) -> None:
        """Publish the simul as it now stands (and nudge the lobby's list). A failed publish loses nothing:
        the next change, or a refetch, shows what is stored."""
        try:
            await self.bus.publish(f"simul:{simul_id}", {"type": "simul", "simul": await self.get(simul_id)})
            if lobby:
                await self.bus.publish("lobby", {"type": "simuls"})
        except Exception as error:
            log.warning("publishing simul %s failed: %s", simul_id, error)

    async def close(self) -> None:
        await self.games.close()


def _not_started(simul: Simul) -> None:
    """Conflict unless the simul still waits for its start (players ask, the host answers)."""
    if simul.status == CANCELLED:
        raise Conflict("simul_cancelled", "The host called this simul off.")
    if simul.status != CREATED:
        raise Conflict("simul_started", "This simul has started: its games are being played.")


async def _taken(s: AsyncSession, simul_id: str, status: str = CREATED) -> None:
    """The simul's row taken for this transaction while it waits for its start (set to `status`: the
    start, the cancellation, or unchanged), or Conflict / NotFound with the reason. Taking the row first
    (a row lock on PostgreSQL, the one writer on SQLite) makes the entries, the host's answers and the
    start one at a time: no answer lands after the start, and no count passes its limit (found by an
    audit: a player put back as the simul started was left without a game, and the simul never ended)."""
    values: dict[str, Any] = {"status": status}
    if status == STARTED:
        values["started_at"] = utcnow()
    elif status == CANCELLED:
        values["finished_at"] = utcnow()
    done = await s.execute(update(Simul).where(Simul.id == simul_id, Simul.status == CREATED).values(values))
    if rows_changed(done) != 1:
        simul = await s.get(Simul, simul_id)
        if simul is None:
            raise NotFound("no_such_simul", f"There is no simul {simul_id!r}.")
        _not_started(simul)


async def _count(s: AsyncSession, simul_id: str, *, accepted: bool | None = None) -> int:
    """How many players asked to play the simul (or how many of them are accepted)."""
    query = select(func.count()).select_from(SimulPlayer).where(SimulPlayer.simul_id == simul_id)
    if accepted is not None:
        query = query.where(SimulPlayer.accepted.is_(accepted))
    return await s.scalar(query) or 0
