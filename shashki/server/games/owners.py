"""One owner per live game when several server processes share Redis: the process whose timers (the flag,
the first move, the computer's turn) stand for the game.

Ownership is a lease in Redis (`shashki:owner:<game>` = the process, expiring after `lease_seconds`):
- the process that commits a change takes the game (a listener of the store): it has the freshest state
  and has just armed the timers (one SET when it takes the game, not at every move: while it holds the
  game its renewals keep the lease, and a process whose lease another took learns it at its next renewal
  and takes the game again at its next commit);
- each owner renews its leases every third of the lease; a lease it finds taken by another is dropped;
- every process sweeps the games in play every `sweep_seconds`: a game whose lease has lapsed — its
  owner died, or stopped — is claimed by one process (SET NX), loaded afresh, and its listeners are told,
  so its flag falls on time and the computer moves even though nobody acts in it;
- at start a process restarts the clocks only of the games nobody owns (those whose owner is gone with
  the downtime), not of the games other processes are serving.
In one process (no Redis) every game is this process's and none of this is needed (`LocalOwners`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from typing import TYPE_CHECKING, Any

from shashki.server.errors import NotFound

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


class LocalOwners:
    """One process: it owns every game."""

    def __call__(self, live: LiveGame) -> None:
        pass

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
        *,
        lease_seconds: float = 10.0,
        sweep_seconds: float = 3.0,
        prefix: str = "shashki:owner:",
    ) -> None:
        self.store = store
        self.redis = redis
        self.me = uuid.uuid4().hex[:12]
        self.lease_ms = int(lease_seconds * 1000)
        self.sweep_seconds = sweep_seconds
        self.prefix = prefix
        self.owned: set[str] = set()
        self.taken_over = 0  # games claimed from a lapsed lease (tests, logs)
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._tasks: set[asyncio.Task] = set()
        self._loops: list[asyncio.Task] = []

    def _key(self, game_id: str) -> str:
        return self.prefix + game_id

    # -- the store's listener: a commit here makes the game ours -----------------------------------------

    def __call__(self, live: LiveGame) -> None:
        if live.is_live:
            if live.id not in self.owned:  # one SET per game taken, not one per move: renewals keep it
                self.owned.add(live.id)
                self._spawn(self._take(live.id))
        elif live.id in self.owned:
            self.owned.discard(live.id)
            self._spawn(self._let_go(live.id))

    def _spawn(self, coroutine) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _take(self, game_id: str) -> None:
        with contextlib.suppress(Exception):  # Redis away: the lease is set again at the next commit
            await self.redis.set(self._key(game_id), self.me, px=self.lease_ms)

    async def _let_go(self, game_id: str) -> None:
        with contextlib.suppress(Exception):
            await self._release(keys=[self._key(game_id)], args=[self.me])

    async def claim(self, game_id: str) -> bool:
        """Take the game if nobody owns it (or we do)."""
        key = self._key(game_id)
        try:
            if await self.redis.set(key, self.me, px=self.lease_ms, nx=True):
                self.owned.add(game_id)
                return True
            owner = await self.redis.get(key)
        except Exception as e:  # Redis away: act as the owner (two timers beat none; commits are CAS)
            log.warning("lease of game %s not checked (%s): serving it", game_id, e)
            return True
        return owner is not None and owner.decode() == self.me

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
                self.owned.discard(ids[int(index) - 1])

    async def _sweeping(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_seconds)
            try:
                await self.sweep()
            except Exception as e:
                log.warning("sweep of the games in play failed: %s", e)

    async def sweep(self) -> int:
        """Claim and wake every game in play whose lease has lapsed; returns how many were taken."""
        ids = await self.store.queries.started_ids()
        if not ids:
            return 0
        owners = await self.redis.mget([self._key(i) for i in ids])
        taken = 0
        for game_id, owner in zip(ids, owners, strict=True):
            if owner is not None or not await self.claim(game_id):
                continue
            try:
                live = await self.store.live(game_id)
                # Brought up to date under its lock (the last owner may have written since we cached it):
                # not dropped from the cache, which would turn a change committing now on this very copy
                # into a state without legal moves (seen under load on PostgreSQL + Redis).
                async with self.store.locked(live):
                    pass
            except NotFound:
                continue
            log.info("took over game %s (its owner's lease lapsed)", game_id)
            taken += 1
            self.taken_over += 1
            self.store.notify(live)  # the flag timer, the first-move timer, the computer
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
