"""Connections held open, counted per key across the server's processes: the lobby sockets of each account
(who is on the site), the Bot API's streams of each account (their caps, and whether a bot is online), and
the WebSockets of each client address (their cap).

In one process the counts live in memory (`Connections`). With Redis (`SharedConnections`) every
connection is a member of a sorted set per key (`shashki:connections:<kind>:<key>`), scored with the
moment it expires: the process holding it pushes that moment on every `beat_seconds` (one script call
for all its connections), and removes it when it closes. A process that dies stops pushing, so its
connections lapse after `ttl_seconds` instead of counting for ever. A count is the members not yet
expired (Redis's own clock, so that machines with skewed clocks agree); taking a connection under a cap
is one script (trim, count, add), so two processes cannot both take the last place.

Only opening and closing a connection, and the reads that ask (a following list, a bot's status), go to
Redis: nothing on the path of a move. When Redis cannot be reached, a connection is counted in this process
alone, as without Redis, rather than refused.

>>> import asyncio
>>> async def demo():
...     connections = Connections()
...     first = await connections.open("sockets", "10.0.0.1", limit=1)
...     second = await connections.open("sockets", "10.0.0.1", limit=1)
...     await connections.release("sockets", "10.0.0.1", first)
...     return first is not None, second, await connections.count("sockets", "10.0.0.1")
>>> asyncio.run(demo())
(True, None, 0)
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import uuid
from collections.abc import AsyncIterator, Iterable
from typing import Any

log = logging.getLogger("shashki.connections")

Key = tuple[str, str]  # (kind, key)

# KEYS[1]: one key's set; ARGV: the cap (0: none), the time to live (ms), the new member. Returns 1 when the
# member is added, 0 when the cap is reached. Expired members (a dead process's) are trimmed first.
_OPEN = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local limit = tonumber(ARGV[1])
if limit > 0 and redis.call('ZCARD', KEYS[1]) >= limit then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""
# KEYS: the sets of this process's connections; ARGV: the time to live (ms), then for each key the number
# of its members here and the members. Each member's expiry is pushed on (added again if Redis lost it),
# and each set outlives its members.
_BEAT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
local at = 2
for _, key in ipairs(KEYS) do
  local n = tonumber(ARGV[at])
  for i = 1, n do
    redis.call('ZADD', key, now + ttl, ARGV[at + i])
  end
  redis.call('PEXPIRE', key, ttl)
  at = at + n + 1
end
return 0
"""
# KEYS: sets; answers each one's members not yet expired.
_COUNT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local counts = {}
for i, key in ipairs(KEYS) do
  counts[i] = redis.call('ZCOUNT', key, '(' .. now, '+inf')
end
return counts
"""
BATCH = 200  # keys per script call


class Full(Exception):
    """The key holds as many connections of this kind as its cap allows."""


class Connections:
    """The connections held open in this process, per (kind, key)."""

    def __init__(self) -> None:
        self._held: dict[Key, set[str]] = {}
        self._serial = itertools.count(1)

    def _here(self, kind: str, key: object) -> int:
        return len(self._held.get((kind, str(key)), ()))

    def _add(self, kind: str, key: object, token: str) -> None:
        self._held.setdefault((kind, str(key)), set()).add(token)

    def _drop(self, kind: str, key: object, token: str) -> bool:
        held = self._held.get((kind, str(key)))
        if held is None or token not in held:
            return False
        held.discard(token)
        if not held:
            del self._held[(kind, str(key))]
        return True

    async def open(self, kind: str, key: object, limit: int = 0) -> str | None:
        """Count one more connection of `kind` for `key`: its token, or None when `limit` (if any) is
        reached."""
        if limit and await self.count(kind, key) >= limit:
            return None
        token = str(next(self._serial))
        self._add(kind, key, token)
        return token

    async def release(self, kind: str, key: object, token: str) -> None:
        self._drop(kind, key, token)

    async def count(self, kind: str, key: object) -> int:
        return self._here(kind, key)

    async def holding(self, kind: str, keys: Iterable[object]) -> set[str]:
        """Those of `keys` (as text) that hold at least one connection of `kind`."""
        return {str(key) for key in keys if self._here(kind, key)}

    @contextlib.asynccontextmanager
    async def held(self, kind: str, key: object, limit: int = 0) -> AsyncIterator[None]:
        """One connection for as long as the block runs; `Full` when `limit` is reached."""
        token = await self.open(kind, key, limit)
        if token is None:
            raise Full(kind)
        try:
            yield
        finally:
            await self.release(kind, key, token)

    async def start(self) -> None:
        """Nothing to keep alive in one process (`SharedConnections` beats)."""

    async def close(self) -> None:
        pass


class SharedConnections(Connections):
    """The same counts in Redis, shared by every process on it (see the module's docstring)."""

    def __init__(
        self,
        redis: Any,
        *,
        ttl_seconds: float = 15.0,
        beat_seconds: float = 5.0,
        prefix: str = "shashki:connections:",
    ) -> None:
        super().__init__()
        self.redis = redis
        self.me = uuid.uuid4().hex[:12]
        self.ttl_ms = int(ttl_seconds * 1000)
        self.beat_seconds = beat_seconds
        self.prefix = prefix
        self._open = redis.register_script(_OPEN)
        self._beat = redis.register_script(_BEAT)
        self._count = redis.register_script(_COUNT)
        self._released: list[tuple[str, str]] = []  # released during a beat: removed again after it
        self._beating = False
        self._runner: asyncio.Task | None = None

    def _name(self, kind: str, key: object) -> str:
        return f"{self.prefix}{kind}:{key}"

    async def open(self, kind: str, key: object, limit: int = 0) -> str | None:
        token = f"{self.me}:{next(self._serial)}"
        try:
            taken = await self._open(keys=[self._name(kind, key)], args=[limit, self.ttl_ms, token])
        except Exception as e:  # Redis away: counted here alone, as in one process
            log.warning("connections: %s not shared (%s)", kind, e)
            if limit and self._here(kind, key) >= limit:
                return None
        else:
            if not int(taken):
                return None
        self._add(kind, key, token)
        return token

    async def release(self, kind: str, key: object, token: str) -> None:
        if not self._drop(kind, key, token):
            return
        if self._beating:
            self._released.append((self._name(kind, key), token))
        try:
            await self.redis.zrem(self._name(kind, key), token)
        except Exception as e:  # it lapses by itself after the time to live
            log.debug("connections: %s not released (%s)", kind, e)

    async def count(self, kind: str, key: object) -> int:
        return (await self._counts(kind, [key]))[0]

    async def holding(self, kind: str, keys: Iterable[object]) -> set[str]:
        names = [str(key) for key in keys]
        return {key for key, n in zip(names, await self._counts(kind, names), strict=True) if n}

    async def _counts(self, kind: str, keys: list[Any]) -> list[int]:
        try:
            counts: list[int] = []
            for at in range(0, len(keys), BATCH):
                names = [self._name(kind, key) for key in keys[at : at + BATCH]]
                counts.extend(int(n) for n in await self._count(keys=names, args=[]))
            return counts
        except Exception as e:  # Redis away: this process's own
            log.warning("connections: %s counted here alone (%s)", kind, e)
            return [self._here(kind, key) for key in keys]

    # -- the heartbeat ---------------------------------------------------------------------------------

    async def start(self) -> None:
        self._runner = asyncio.create_task(self._keep_alive())

    async def _keep_alive(self) -> None:
        while True:
            await asyncio.sleep(self.beat_seconds)
            try:
                await self.beat()
            except Exception as e:  # the next beat tries again; meanwhile nothing lapses before its ttl
                log.warning("connections: heartbeat failed (%s)", e)

    async def beat(self) -> None:
        """Push on the expiry of every connection this process holds."""
        held = [(self._name(kind, key), sorted(tokens)) for (kind, key), tokens in self._held.items()]
        self._beating = True
        try:
            for at in range(0, len(held), BATCH):
                batch = held[at : at + BATCH]
                args: list[Any] = [self.ttl_ms]
                for _, tokens in batch:
                    args += [len(tokens), *tokens]
                await self._beat(keys=[name for name, _ in batch], args=args)
        finally:
            self._beating = False
            released, self._released = self._released, []
            for name, token in released:  # a release may have come before the beat re-added it
                with contextlib.suppress(Exception):
                    await self.redis.zrem(name, token)

    async def close(self) -> None:
        """Stop beating and remove this process's connections (uvicorn has closed them by now)."""
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner
        for (kind, key), tokens in list(self._held.items()):
            for token in list(tokens):
                await self.release(kind, key, token)


def make_connections(redis: Any | None) -> Connections:
    return SharedConnections(redis) if redis is not None else Connections()
