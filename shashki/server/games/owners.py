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
- every process sweeps the games in play every `sweep_seconds`: a game whose lease has lapsed — its
  owner died, or stopped — is claimed by one process (SET NX), read afresh, and its timers armed, so its
  flag falls on time and the computer moves even though nobody acts in it; the sweep also tells the
  process which games the others hold;
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
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"


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

    def __call__(self, live: LiveGame) -> None:
        _arm(self.timers, live)

    async def claim(self, game_id: str) -> bool:
        return True

    async def start(self) -> None:
        pass

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
    ) -> None:
        self.store = store
        self.redis = redis
        self.timers = timers
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
        self.taken_over = 0  # games claimed from a lapsed lease (tests, logs)
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._tasks: set[asyncio.Task] = set()
        self._loops: list[asyncio.Task] = []

    def _key(self, game_id: str) -> str:
        return self.prefix + game_id

    # -- the store's listeners: a change committed here, one committed elsewhere -----------------------

    def __call__(self, live: LiveGame) -> None:
        """After a change this process committed: the owner arms the timers; a game nobody is known to
        hold is claimed (and served if taken); a game another process holds is left to it, which hears
        the change."""
        if live.id in self.owned or not live.is_live:
            self.others.discard(live.id)
            self._serve(live)
        elif live.id not in self.others and live.id not in self._claiming:
            self._claiming.add(live.id)
            self._spawn(self._take(live))

    def heard(self, live: LiveGame, applied: bool) -> None:
        """After a change another process committed reached this process's copy (`applied`), or was
        missed (then the copy is read again first): the owner arms its timers for the game as it is now."""
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
            if game_id in held or not await self.claim(game_id):
                continue
            if await self._wake(game_id) is None:
                continue
            log.info("took over game %s (its owner's lease lapsed)", game_id)
            taken += 1
            self.taken_over += 1
        return taken

    async def close(self) -> None:
        for task in self._loops:
            task.cancel()
        for task in self._loops:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        # Leaving: our games are free for the others' next sweep at once.
        for game_id in list(self.owned):
            await self._let_go(game_id)
        self.owned.clear()
