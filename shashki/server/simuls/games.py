"""A simul's games: made when the host starts it (each player's row takes its game in the game's own
transaction, compare-and-set on NULL, so that a restart or a second process never makes a second one:
`resume` makes those still missing), followed as a listener of the games store (each move published as the
game's `board` on `simul:<id>`; an end records the player's outcome once, compare-and-set), and the simul
finished when its last game ends."""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from shashki.rules import Color
from shashki.server.errors import Conflict, ServiceError, log_failure
from shashki.server.events import EventBus
from shashki.server.games.listeners import Background
from shashki.server.games.live import LiveGame
from shashki.server.games.models import GameStatus
from shashki.server.games.service import AlsoWrite, GameService
from shashki.server.simuls.models import Simul, SimulPlayer
from shashki.server.simuls.terms import FINISHED, STARTED, SimulTerms
from shashki.server.simuls.views import board
from shashki.server.storage import Database, rows_changed
from shashki.server.storage.base import utcnow

log = logging.getLogger(__name__)

Changed = Callable[[str, bool], Awaitable[None]]  # a simul changed (its id; whether the lists did too)


class SimulGames:
    def __init__(self, db: Database, games: GameService, bus: EventBus, changed: Changed) -> None:
        self.db = db
        self.games = games
        self.bus = bus
        self.changed = changed
        self._background = Background()
        # This process's commits only: another process's commit is published and recorded by that
        # process's own listener.
        games.store.add_listener(self._committed)

    async def make(self, simul: Simul) -> int:
        """The games of the accepted players who have none yet; how many were made. A player who can play
        no game now (an account closed meanwhile) is let go, as if never accepted."""
        async with self.db.session() as s:
            # Nobody but the accepted has a place in a started simul (the start let the others go).
            await s.execute(
                delete(SimulPlayer).where(SimulPlayer.simul_id == simul.id, SimulPlayer.accepted.is_(False))
            )
            await s.commit()
            waiting = list(await s.scalars(
                select(SimulPlayer.user_id)
                .where(SimulPlayer.simul_id == simul.id, SimulPlayer.accepted, SimulPlayer.game_id.is_(None))
                .order_by(SimulPlayer.joined_at, SimulPlayer.user_id)
            ))  # fmt: skip
        terms = SimulTerms.of(simul).game_terms()
        made = 0
        for user_id in waiting:
            host = secrets.choice((Color.WHITE, Color.BLACK)) if simul.host_color == "random" else Color(
                simul.host_color
            )
            white, black = (simul.host_id, user_id) if host is Color.WHITE else (user_id, simul.host_id)
            try:
                await self.games.create(
                    white_id=white,
                    black_id=black,
                    terms=terms,
                    within=_seat(simul.id, user_id, host.other),
                    simul_id=simul.id,
                    more_time=(host, simul.host_extra_ms) if simul.host_extra_ms else None,
                )
                made += 1
            except Conflict as error:
                if error.code != "already_created":
                    await self._let_go(simul.id, user_id, error)
            except ServiceError as error:
                await self._let_go(simul.id, user_id, error)
        return made

    async def _let_go(self, simul_id: str, user_id: int, error: ServiceError) -> None:
        log.warning("simul %s: no game for player %s (%s)", simul_id, user_id, error)
        async with self.db.session() as s:
            await s.execute(
                delete(SimulPlayer).where(
                    SimulPlayer.simul_id == simul_id, SimulPlayer.user_id == user_id,
                    SimulPlayer.game_id.is_(None),
                )
            )  # fmt: skip
            await s.commit()

    async def resume(self) -> int:
        """At start: the games still missing in started simuls made (a process stopped while starting
        one), the ends no process recorded recorded, and a simul whose games all ended finished."""
        async with self.db.session() as s:
            started = list(await s.scalars(select(Simul).where(Simul.status == STARTED)))
        made = 0
        for simul in started:
            made += await self.make(simul)
            async with self.db.session() as s:
                unrecorded = [g for g in await s.scalars(
                    select(SimulPlayer.game_id).where(
                        SimulPlayer.simul_id == simul.id, SimulPlayer.outcome.is_(None),
                        SimulPlayer.game_id.is_not(None),
                    )
                ) if g is not None]  # fmt: skip
            for live in await self.games.store.live_many(unrecorded):
                if live.record.status != GameStatus.STARTED:
                    await self._record_end(live)
            await self._check_finished(simul.id)
        return made

    # -- the games store's listeners --------------------------------------------------------------------

    def _committed(self, live: LiveGame) -> None:
        """This process's commit of a game: a simul game's board published; its end recorded."""
        if live.record.simul_id is not None:
            self._background.spawn(self._game_changed(live))

    async def _game_changed(self, live: LiveGame) -> None:
        try:
            with contextlib.suppress(Exception):  # a board missed is shown by the next move or a refetch
                event = {"type": "board", "board": board(live)}
                await self.bus.publish(f"simul:{live.record.simul_id}", event)
            if live.record.status != GameStatus.STARTED:
                await self._record_end(live)
        except Exception:
            log_failure(log, "following game %s of simul %s", live.record.id, live.record.simul_id)

    async def _record_end(self, live: LiveGame) -> None:
        r = live.record
        async with self.db.session() as s:
            player = await s.scalar(select(SimulPlayer).where(SimulPlayer.game_id == r.id))
            if player is None or player.outcome is not None:
                return
            done = await s.execute(
                update(SimulPlayer)
                .where(SimulPlayer.game_id == r.id, SimulPlayer.outcome.is_(None))
                .values(outcome=_outcome(live, player.user_id))
            )
            await s.commit()
        if rows_changed(done) == 1:
            await self._check_finished(player.simul_id)
            await self.changed(player.simul_id, False)

    async def _check_finished(self, simul_id: str) -> None:
        """The simul is finished once every game of it has ended."""
        async with self.db.session() as s:
            playing = await s.scalar(
                select(SimulPlayer.user_id)
                .where(SimulPlayer.simul_id == simul_id, SimulPlayer.outcome.is_(None))
                .limit(1)
            )
            if playing is not None:
                return
            done = await s.execute(
                update(Simul)
                .where(Simul.id == simul_id, Simul.status == STARTED)
                .values(status=FINISHED, finished_at=utcnow())
            )
            await s.commit()
        if rows_changed(done) == 1:
            await self.changed(simul_id, True)

    async def close(self) -> None:
        await self._background.close()


def _outcome(live: LiveGame, user_id: int) -> str:
    """How the game ended for the player: won, lost, drawn, or aborted (counted for nobody)."""
    r = live.record
    if r.status == GameStatus.ABORTED:
        return "aborted"
    if r.winner is None:
        return "drawn"
    return "won" if r.winner is r.color_of(user_id) else "lost"


def _seat(simul_id: str, user_id: int, color: Color) -> AlsoWrite:
    """A player's game, for the game's transaction: taken only while the player has none (else Conflict
    `already_created`, and no game)."""

    async def within(s: AsyncSession, game_id: str) -> None:
        done = await s.execute(
            update(SimulPlayer)
            .where(
                SimulPlayer.simul_id == simul_id,
                SimulPlayer.user_id == user_id,
                SimulPlayer.accepted,
                SimulPlayer.game_id.is_(None),
            )
            .values(game_id=game_id, color=color.value)
        )
        if rows_changed(done) != 1:
            raise Conflict("already_created", "This player's game exists already.")

    return within
