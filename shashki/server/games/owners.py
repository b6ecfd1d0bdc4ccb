"""One owner per live game when several server processes share Redis: the one process whose timers (the
flag, the first move, the computer's turn) stand for the game, whichever process commits its changes.

Ownership is a lease in Redis (`shashki:owner:<game>` = the process, expiring after `lease_seconds`):
- a game nobody holds is taken (SET NX) by the first process to commit a change of it — the one that
  created it, as a rule — or, at start, by the process that resumes it; the lease then stays with its
  holder while the players act through any process;
- the owner arms the game's timers (`Timers`) after every change: its own commits, and those of the
  other processes as it hears them (`heard`; games/follow.py: the change applied to its copy, or the copy
  read again when a change was missed). A process that commits a change of a game another one holds
  arms nothing and asks Redis nothing: a move costs no round trip, and no timer is left on a process
  that does not hold the lease (where it would die with that process, the lease living on elsewhere);
- each owner renews its leases every third of the lease; one it finds taken by another is dropped, and
  its timers with it;
- a process that stops cleanly hands its games over (`hand_over`): it drops their timers, releases their
  leases and says so on the event bus (`HANDOVER`, one message per batch of games on the process's one
  pub/sub connection); every other process hears it at once and tries to claim each game (SET NX: one
  wins), reads it afresh and arms its timers — the same taking over as the sweep's, without waiting for it;
- every process sweeps the games in play every `sweep_seconds`: a game whose lease has lapsed — its
  owner died, or stopped and its hand-over was not heard — is claimed by one process (SET NX), read
  afresh, and its timers armed, so its flag falls on time and the computer moves even though nobody acts
  in it; the sweep also tells the process which games the others hold;
- at start a process restarts the clocks only of the games nobody owns (those whose owner is gone with
  the downtime), not of the games other processes are serving.
In one process (no Redis) every game is this process's and none of this is needed (`LocalOwners`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from shashki.server.errors import NotFound, log_failure

if TYPE_CHECKING:
    from shashki.server.events import EventBus, Subscription
    from shashki.server.games.live import LiveGame
    from shashki.server.games.store import GameStore

log = logging.getLogger("shashki.owners")

# Renew each of these keys' expiry if it still names this process; answer the indexes of those that
# do not (lost to another process, or lapsed).
_RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  if redis.call('get', key) == ARGV[1] then
    redis.call('pexpire', key, ARGV[2])
  else
    table.insert(lost, i)
  end
end
return lost
"""
# Delete each of these keys if it still names this process; answer how many were.
_RELEASE = """
local released = 0
for _, key in ipairs(KEYS) do
  if redis.call('get', key) == ARGV[1] then
    released = released + redis.call('del', key)
  end
end
return released
"""
# The event bus's channel on which a process stopping cleanly names the games whose leases it released.
HANDOVER = "owners:released"
HANDOVER_BATCH = 500  # games named in one message
TAKEN_AT_ONCE = 8  # games handed over being claimed and read at once


class Timers(Protocol):
    """What keeps a game moving on its own (games/listeners.py): armed for the game as it stands after
    each change, dropped when the game becomes another process's."""

    def __call__(self, live: LiveGame) -> None: ...

    def drop(self, game_id: str) -> None: ...


def _arm(timers: Sequence[Timers], live: LiveGame) -> None:
    for timer in timers:
        try:
            timer(live)
        except Exception:
            log_failure(log, "a timer of game %s failed", live.id)


class LocalOwners:
    """One process: it owns every game, and arms the timers after each change (all of them its own)."""

    def __init__(self, timers: Sequence[Timers]) -> None:
        self.timers = timers
        self._armed: set[str] = set()
        self._closed = False  # stopping: no more timers armed

    def __call__(self, live: LiveGame) -> None:
        if not self._closed:
            _arm(self.timers, live)
            (self._armed.add if live.is_live else self._armed.discard)(live.id)

    def held(self, game_ids: list[str]) -> list[str]:
        """The games among `game_ids` (in play, cached) whose timers this process runs: all of them."""
        return game_ids

    async def claim(self, game_id: str) -> bool:
        return True

    async def start(self) -> None:
        pass

    async def hand_over(self) -> int:
        """Stop arming timers and drop those armed: nobody's clock falls while the process stops (no
        other process takes the games: they resume at the next start). Returns 0: none handed over."""
        self._closed = True
        for game_id in sorted(self._armed):
            for timer in self.timers:
                timer.drop(game_id)
        self._armed.clear()
        return 0

    async def close(self) -> None:
        pass


class GameOwners:
    def __init__(
        self,
        store: GameStore,
        redis: Any,
        timers: Sequence[Timers],
        *,
        lease_seconds: float = 10.0,
        sweep_seconds: float = 3.0,
        prefix: str = "shashki:owner:",
        bus: EventBus | None = None,
    ) -> None:
        self.store = store
        self.redis = redis
        self.timers = timers
        self.bus = bus  # where a hand-over is told and heard (`HANDOVER`); None: the sweeps alone
        self.me = uuid.uuid4().hex[:12]
        self.lease_ms = int(lease_seconds * 1000)
        self.sweep_seconds = sweep_seconds
        self.prefix = prefix
        self.owned: set[str] = set()
        # The games in play that another process held when last looked at (a claim refused, a sweep): a
        # change committed here arms nothing for them and asks Redis nothing.
        self.others: set[str] = set()
        self._claiming: set[str] = set()  # one claim on its way per game
        self._waking: set[str] = set()  # owned games being read again after a change missed
        self._taking: set[str] = set()  # games being taken over (a sweep, a hand-over heard)
        self.taken_over = 0  # games claimed from a lapsed or released lease (tests, logs)
        self.handed_over = 0  # games this process released as it stopped (tests, logs)
        self._closed = False  # handed over: no more claims, no more timers armed
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._tasks: set[asyncio.Task] = set()
        self._loops: list[asyncio.Task] = []
        self._subscribed: contextlib.AsyncExitStack | None = None

    def _key(self, game_id: str) -> str:
        return self.prefix + game_id

    # -- the store's listeners: a change committed here, one committed elsewhere -----------------------

    def __call__(self, live: LiveGame) -> None:
        """After a change this process committed: the owner arms the timers; a game nobody is known to
        hold is claimed (and served if taken); a game another process holds is left to it, which hears
        the change. Once handed over, nothing: the others take the game (heard, or at their sweep)."""
        if self._closed:
            return
        if live.id in self.owned or not live.is_live:
            self.others.discard(live.id)
            self._serve(live)
        elif live.id not in self.others and live.id not in self._claiming:
            self._claiming.add(live.id)
            self._spawn(self._take(live))

    def heard(self, live: LiveGame, applied: bool) -> None:
        """After a change another process committed reached this process's copy (`applied`), or was
        missed (then the copy is read again first): the owner arms its timers for the game as it is now."""
        if self._closed:
            return
        if live.id not in self.owned:
            if applied and not live.is_live:
                self.others.discard(live.id)
        elif applied:
            self._serve(live)
        elif live.id not in self._waking:
            self._spawn(self._wake(live.id))

    def _serve(self, live: LiveGame) -> None:
        """Arm the timers for the game as it stands; an ended game's lease is let go (they disarm)."""
        if not live.is_live and live.id in self.owned:
            self.owned.discard(live.id)
            self._spawn(self._let_go(live.id))
        _arm(self.timers, live)

    def _lost(self, game_id: str) -> None:
        """The game is another process's now (or nobody's, until a sweep claims it): its timers go."""
        self.owned.discard(game_id)
        self.others.add(game_id)
        for timer in self.timers:
            timer.drop(game_id)

    def _spawn(self, coroutine) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _take(self, live: LiveGame) -> None:
        try:
            mine = await self.claim(live.id)
        finally:
            self._claiming.discard(live.id)
        if mine:
            self._serve(live)  # as it stands now: it may have changed, or ended, meanwhile

    async def _wake(self, game_id: str) -> LiveGame | None:
        """Bring an owned game up to date (loaded again if it left the cache) and arm its timers."""
        self._waking.add(game_id)
        try:
            live = await self.store.live(game_id)
            # Brought up to date under its lock (the last owner may have written since we cached it):
            # not dropped from the cache, which would turn a change committing now on this very copy
            # into a state without legal moves (seen under load on PostgreSQL + Redis).
            async with self.store.locked(live):
                pass
        except NotFound:
            self.owned.discard(game_id)
            return None
        except Exception:
            log_failure(log, "game %s could not be read again for its timers", game_id)
            return None
        finally:
            self._waking.discard(game_id)
        if game_id in self.owned:
            self._serve(live)
        return live

    async def _let_go(self, game_id: str) -> None:
        with contextlib.suppress(Exception):
            await self._release(keys=[self._key(game_id)], args=[self.me])

    async def _take_over(self, game_id: str) -> bool:
        """Claim a game whose lease lapsed or was released, read it afresh and arm its timers; whether
        this process took it (not if it holds it already, is taking it, or another process won it)."""
        if self._closed or game_id in self.owned or game_id in self._taking:
            return False
        self._taking.add(game_id)
        try:
            if not await self.claim(game_id):
                return False
            if await self._wake(game_id) is None:
                return False
        finally:
            self._taking.discard(game_id)
        self.taken_over += 1
        return True

    async def claim(self, game_id: str) -> bool:
        """Take the game if nobody owns it (or we do)."""
        key = self._key(game_id)
        try:
            taken = await self.redis.set(key, self.me, px=self.lease_ms, nx=True)
            owner = None if taken else await self.redis.get(key)
        except Exception as e:  # Redis away: act as the owner (two timers beat none; commits are CAS)
            log.warning("lease of game %s not checked (%s): serving it", game_id, e)
            return True
        if taken or (owner is not None and owner.decode() == self.me):
            self.owned.add(game_id)
            self.others.discard(game_id)
            return True
        self.others.add(game_id)
        return False

    # -- the loops -----------------------------------------------------------------------------------

    async def start(self) -> None:
        self._loops = [asyncio.create_task(self._renewing()), asyncio.create_task(self._sweeping())]
        if self.bus is not None:
            # Subscribed as the start ends: a hand-over told from then on is heard (one missed: the sweep).
            self._subscribed = contextlib.AsyncExitStack()
            handovers = await self._subscribed.enter_async_context(self.bus.subscribe(HANDOVER))
            self._loops.append(asyncio.create_task(self._hearing(handovers)))

    async def _renewing(self) -> None:
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            ids = sorted(self.owned)
            if not ids:
                continue
            try:
                lost = await self._renew(keys=[self._key(i) for i in ids], args=[self.me, self.lease_ms])
            except Exception as e:
                log.warning("leases not renewed: %s", e)
                continue
            for index in lost:
                self._lost(ids[int(index) - 1])

    async def _sweeping(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_seconds)
            try:
                await self.sweep()
            except Exception as e:
                log.warning("sweep of the games in play failed: %s", e)

    async def sweep(self) -> int:
        """Claim and wake every game in play whose lease has lapsed; returns how many were taken. The
        games the others hold are noted (`others`), the games no longer in play forgotten."""
        ids = await self.store.queries.started_ids()
        owners = await self.redis.mget([self._key(i) for i in ids]) if ids else []
        held = {game_id for game_id, owner in zip(ids, owners, strict=True) if owner is not None}
        self.others = held - self.owned
        taken = 0
        for game_id in ids:
            if game_id not in held and await self._take_over(game_id):
                log.info("took over game %s (its owner's lease lapsed)", game_id)
                taken += 1
        return taken

    # -- a clean stop: the games handed over at once -------------------------------------------------

    async def _hearing(self, handovers: Subscription) -> None:
        """Take the games another process released as it stopped (one claimant wins each). A message
        lost (Redis reconnecting) leaves its games to the sweep."""
        while True:
            event = await handovers.get()
            games = event.get("games")
            if event.get("type") != "released" or event.get("by") == self.me or not isinstance(games, list):
                continue
            try:
                await self._take_handed_over([g for g in games if isinstance(g, str)], str(event.get("by")))
            except Exception:
                log_failure(log, "games handed over by %s not taken (the sweep will)", event.get("by"))

    async def _take_handed_over(self, game_ids: list[str], by: str) -> int:
        slots = asyncio.Semaphore(TAKEN_AT_ONCE)

        async def take(game_id: str) -> bool:
            async with slots:
                return await self._take_over(game_id)

        taken = sum(await asyncio.gather(*(take(game_id) for game_id in game_ids)))
        if taken:
            log.info("took over %d of %d games handed over by %s", taken, len(game_ids), by)
        return taken

    def held(self, game_ids: list[str]) -> list[str]:
        """The games among `game_ids` whose lease this process holds (their timers run here)."""
        return [game_id for game_id in game_ids if game_id in self.owned]

    async def hand_over(self) -> int:
        """Stop owning games, and let the others take them at once: the loops stop, the timers of every
        game held are dropped, the leases released (one round trip) and the games named on `HANDOVER`.
        Returns how many were handed over. Called once as the process stops; `close` calls it too."""
        if self._closed:
            return 0
        self._closed = True
        for task in self._loops:
            task.cancel()
        for task in self._loops:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._subscribed is not None:
            with contextlib.suppress(Exception):
                await self._subscribed.aclose()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        ids = sorted(self.owned)
        self.owned.clear()
        for game_id in ids:
            for timer in self.timers:
                timer.drop(game_id)
        if not ids:
            return 0
        try:
            await self._release(keys=[self._key(i) for i in ids], args=[self.me])
        except Exception as e:  # the leases lapse by themselves; the others' sweeps take the games then
            log.warning("leases of %d games not released (%s): taken over once they lapse", len(ids), e)
            return 0
        self.handed_over = len(ids)
        if self.bus is not None:
            for start in range(0, len(ids), HANDOVER_BATCH):
                batch = ids[start : start + HANDOVER_BATCH]
                try:
                    await self.bus.publish(HANDOVER, {"type": "released", "by": self.me, "games": batch})
                except Exception as e:  # released all the same: the others' sweeps take them
                    log.warning("hand-over of %d games not told (%s): left to the sweeps", len(batch), e)
        log.info("handed over %d games (leases released)", len(ids))
        return len(ids)

    async def close(self) -> None:
        await self.hand_over()
