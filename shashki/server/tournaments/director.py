"""The director: the one actor that starts, pairs and finishes each tournament (issue 13, points 1-3, 7).

Every server process runs one `Director` loop. On each tick (and at once when woken: a game ended, a
player joined), for each tournament not finished, it takes or renews that tournament's lease
(`lease.py`); only the holder acts, so several processes pair nobody twice, and a dead holder's
tournaments are taken over once its lease expires.

- Arena: starts at `starts_at`; each tick pairs the players waiting (`arena_pairing.pair_wave`: not
  paused, not withdrawn, not in a game, past their rejoin delay) — a player whose game ends waits for the
  next tick or wake-up, i.e. is re-paired at once; pairing stops at `ends_at`; the games still running
  then count when they end (issue 13), and the arena finishes when the last one has.
- Swiss: round after round: once every game of the round is over, the next round is paired
  (`swiss.pair_round`) and stored whole (pairings, seats, the bye) in one transaction with the round
  number (compare-and-set), then its games are created; a restart creates the games still missing. It
  finishes after the last round, or when nobody can be paired any more. A player who did not start their
  game lost it by forfeit and was withdrawn with it (`results.py`): the next rounds leave them out.
- Round robin: the same, the rounds taken from the Berger tables (`roundrobin.round_robin_rounds`) of the
  players at the start, in rating order; a game against a player who withdrew is won by forfeit (between
  two who both withdrew, lost by both: 0 points each).

Every game is created by `GameService.create` with the tournament's `GameTerms`, and its pairing (arena:
its seats and the players' game column) is written in the same transaction (`within`), so a game exists
exactly when its pairing does. What each pairing writes is `pairings.py`; this module decides when.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from shashki.server.errors import ServiceError, log_failure
from shashki.server.games.models import GameStatus
from shashki.server.games.service import AlsoWrite
from shashki.server.games.terms import GameTerms
from shashki.server.storage import rows_changed
from shashki.server.storage.base import utcnow
from shashki.server.tournaments.arena_pairing import Waiting, pair_wave, rejoin_delay
from shashki.server.tournaments.lease import Lease
from shashki.server.tournaments.models import Tournament, TournamentPairing, TournamentPlayer
from shashki.server.tournaments.pairings import arena_pairing, round_game, store_round
from shashki.server.tournaments.results import Results
from shashki.server.tournaments.roundrobin import round_robin_rounds
from shashki.server.tournaments.service import TournamentService
from shashki.server.tournaments.state import (
    ABORTED,
    ARENA,
    CREATED,
    FINISHED,
    PENDING,
    PLAYING,
    ROUNDROBIN,
    STARTED,
    UNFINISHED,
    Snapshot,
)
from shashki.server.tournaments.swiss import pair_round

log = logging.getLogger(__name__)
# After a tick, the director waits this long at least before the next, so that the games ending together
# are paired in one wave (lila pairs an arena every few seconds; here at once, give or take this).
BATCH_SECONDS = 0.25
CREATE_AT_ONCE = 8
RECONCILE_EVERY = 5  # ticks between the checks of games that ended unrecorded (a process died meanwhile)


class Director:
    def __init__(
        self,
        service: TournamentService,
        results: Results,
        lease: Lease,
        *,
        tick: float = 1.0,
        clock: Callable[[], datetime] = utcnow,
        schedule=None,
    ) -> None:
        self.service = service
        self.results = results
        self.lease = lease
        self.tick = tick
        self.clock = clock
        self.schedule = schedule  # schedule.Schedule: tournaments created ahead by the server
        self.rng = random.Random()
        self._task: asyncio.Task | None = None
        self._ticks = 0

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task

    async def _run(self) -> None:
        wake = self.service.feed.wake
        while True:
            try:
                await self.run_once()
            except Exception:
                log_failure(log, "the tournament director's tick failed")
            await asyncio.sleep(min(BATCH_SECONDS, self.tick))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), self.tick)
            wake.clear()

    async def run_once(self) -> None:
        """One tick: the schedule, then every tournament this process holds the lease of."""
        self._ticks += 1
        if self.schedule is not None:
            await self.schedule.create_due(self.service, self.clock())
        async with self.service.db.session() as s:
            ids = list(await s.scalars(select(Tournament.id).where(Tournament.status.in_(UNFINISHED))))
        for tournament_id in ids:
            if await self.lease.hold(tournament_id):
                await self.direct(tournament_id)

    async def direct(self, tournament_id: str) -> None:
        snap = await self.service.snapshot(tournament_id)
        t = snap.tournament
        now = self.clock()
        if self._ticks % RECONCILE_EVERY == 0 or t.status == STARTED and t.ends_at and now >= t.ends_at:
            await self._reconcile(snap)
        if t.status == CREATED and now >= t.starts_at:
            await self._start(snap)
            snap = await self.service.snapshot(tournament_id)
        if snap.tournament.status != STARTED:
            return
        if t.system == ARENA:
            await self._arena(snap, now)
        else:
            await self._rounds(snap)

    async def _reconcile(self, snap: Snapshot) -> None:
        for p in snap.pairings:
            if p.status == PLAYING and p.game_id:
                record = await self.service.games.record(p.game_id)
                if record.status != GameStatus.STARTED:
                    await self.results.record(snap.id, record)

    async def _set(self, snap: Snapshot, **values) -> bool:
        """Compare-and-set the tournament's status and round as this snapshot read them."""
        t = snap.tournament
        async with self.service.db.session() as s:
            done = await s.execute(
                update(Tournament)
                .where(Tournament.id == t.id, Tournament.status == t.status, Tournament.round == t.round)
                .values(**values)
            )
            await s.commit()
        return rows_changed(done) == 1

    async def _start(self, snap: Snapshot) -> None:
        t = snap.tournament
        values: dict = {"status": STARTED}
        if t.system == ROUNDROBIN:
            values["rounds"] = len(self._berger(snap))
        if t.system != ARENA and len(snap.active()) < 2:
            values = {"status": FINISHED, "finished_at": self.clock()}  # nobody to play: over at once
        if t.system == ROUNDROBIN:
            # Who withdrew before the start never was in the table: their entries go, so that the Berger
            # table of the players at the start is the table of every entry from now on.
            async with self.service.db.session() as s:
                await s.execute(
                    delete(TournamentPlayer).where(
                        TournamentPlayer.tournament_id == t.id, TournamentPlayer.withdrawn.is_(True)
                    )
                )
                await s.commit()
        if await self._set(snap, **values):
            self.service.feed.changed(t.id)
            await self.service.feed.lobby()

    async def _finish(self, snap: Snapshot) -> None:
        if await self._set(snap, status=FINISHED, finished_at=self.clock()):
            await self.lease.release(snap.id)
            self.service.feed.changed(snap.id)
            await self.service.feed.lobby()

    # -- arenas ---------------------------------------------------------------------------------------

    async def _arena(self, snap: Snapshot, now: datetime) -> None:
        t = snap.tournament
        if t.ends_at is not None and now >= t.ends_at:
            if not snap.running():
                await self._finish(snap)
            return
        stamp = now.timestamp()
        waiting = []
        for p in snap.active():
            if p.game_id is not None or p.waiting_since is None:
                continue
            pauses = [float(x) for x in p.pause_times.split()]
            if rejoin_delay(pauses, stamp, t.clock_initial_ms // 1000, t.clock_increment_ms // 1000) > 0:
                continue
            waiting.append(Waiting(p.user_id, p.waiting_since.timestamp()))
        if len(waiting) < 2:
            return
        # A player in a game with a clock elsewhere (another tournament's, a game of the lobby) waits for its
        # end: never two games at once (lila pairs only those waiting on the arena's page).
        busy = await self.service.games.queries.in_play_of_players({w.player for w in waiting}, clocked=True)
        waiting = [w for w in waiting if w.player not in busy]
        if len(waiting) < 2:
            return
        ranked = snap.arena_ranking()
        pairs = pair_wave(
            waiting,
            ranked,
            snap.arena_games(finished_only=False),
            recently_started=not snap.games(),
            active_players=len(snap.active()),
            rng=self.rng,
        )
        if not pairs:
            return
        # The wave's number is written with each of its games (below), not in a transaction of its own: a
        # pairing waits for no more writes than its game's. Two directors pairing the same wave would
        # collide on the seats' primary key; the lease keeps them from trying.
        wave = t.round + 1
        await self._together(self._arena_game(snap, wave, white, black) for white, black in pairs)

    async def _arena_game(self, snap: Snapshot, wave: int, white: int, black: int) -> None:
        await self._create(snap, white, black, arena_pairing(snap, wave, white, black, self.clock()))

    async def _together(self, creations) -> None:
        """Create a wave's or a round's games `CREATE_AT_ONCE` at a time: the inserts take turns on the
        database, the rest of each (loading the game, telling its players) overlaps."""
        gate = asyncio.Semaphore(CREATE_AT_ONCE)

        async def one(creation) -> None:
            async with gate:
                await creation

        await asyncio.gather(*(one(c) for c in creations))

    async def _create(self, snap: Snapshot, white: int, black: int, within: AlsoWrite) -> None:
        t = snap.tournament
        terms = GameTerms(t.variant, False, t.clock_initial_ms, t.clock_increment_ms, t.rated)
        try:
            live = await self.service.games.create(white_id=white, black_id=black, terms=terms, within=within)
        except (ServiceError, IntegrityError) as error:
            log.info("tournament %s: no game %s v %s (%s)", t.id, white, black, error)
            return
        await self.service.feed.paired(t.id, live.id, [white, black])
        self.service.feed.changed(t.id)

    # -- Swiss events and round robins ------------------------------------------------------------------

    def _berger(self, snap: Snapshot):
        order = sorted((p for p in snap.players if not p.withdrawn), key=lambda p: (-p.rating, p.id))
        return round_robin_rounds([p.user_id for p in order], snap.tournament.double)

    async def _rounds(self, snap: Snapshot) -> None:
        t = snap.tournament
        current = snap.round_pairings(t.round)
        pending = [p for p in current if p.status == PENDING]
        await self._together(self._round_game(snap, p) for p in pending)
        if any(p.status in (PENDING, PLAYING) for p in current) or pending:
            return
        if t.round >= (t.rounds or 0):
            await self._finish(snap)
            return
        number = t.round + 1
        if t.system == ROUNDROBIN:
            table = self._berger_fixed(snap)
            if number > len(table):
                await self._finish(snap)
                return
            games, bye = table[number - 1].pairings, table[number - 1].bye
        else:
            paired = pair_round(snap.swiss_players(), snap.swiss_games(), snap.byes(), number)
            games, bye = paired.pairings, paired.bye
            if not games:
                await self._finish(snap)  # nobody can be paired without a repeat: as lichess, it ends
                return
        if await store_round(self.service.db, snap, number, games, bye, self.clock()):
            self.service.feed.changed(t.id)
            await self._rounds(await self.service.snapshot(t.id))

    def _berger_fixed(self, snap: Snapshot):
        """The Berger tables of every entry: the players at the start (`_start` removed the ones who had
        withdrawn before it; nobody joins after it), so later withdrawals do not reshuffle the table."""
        order = sorted(snap.players, key=lambda p: (-p.rating, p.id))
        return round_robin_rounds([p.user_id for p in order], snap.tournament.double)

    async def _round_game(self, snap: Snapshot, pairing: TournamentPairing) -> None:
        assert pairing.black_id is not None
        await self._create(snap, pairing.white_id, pairing.black_id, round_game(pairing))


__all__ = ["ABORTED", "Director"]
