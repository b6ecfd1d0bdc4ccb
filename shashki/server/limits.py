"""The one rate limiter of the server: named limits, each "at most `count` events per `seconds`" for one
key (an account id or a client address), with every figure in `limit_table` below.

A limit is a sliding window. In one process the windows live in memory (`RateLimiter`); when Redis is
configured they live in Redis (`RedisRateLimiter`, a sorted set per key, trimmed and counted by one Lua
script, so several server processes share the same counts). Both answer `await acquire(key, what)`, which
records the event or raises `RateLimited` with the seconds until the next one is allowed (sent to
clients as `Retry-After`, RFC 9110 §10.2.3).

>>> limiter = Limiter({"logins": Limit(2, 60.0)})
>>> import asyncio
>>> asyncio.run(limiter.hit("logins", "10.0.0.1", "login attempts"))
>>> asyncio.run(limiter.hit("logins", "10.0.0.1", "login attempts"))
>>> try:
...     asyncio.run(limiter.hit("logins", "10.0.0.1", "login attempts"))
... except RateLimited as e:
...     print(e.code, e.details["retry_after"])
rate_limited 60
"""

from __future__ import annotations

import secrets
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Protocol

from shashki.server.errors import RateLimited


@dataclass(frozen=True)
class Limit:
    """At most `count` events per `seconds` for each key."""

    count: int
    seconds: float

    @classmethod
    def parse(cls, text: str) -> Limit:
        """`"20/60"`: 20 events a minute. Settings and the environment write limits this way.

        >>> Limit.parse("20/60"), Limit.parse(" 5 / 0.5 ")
        (Limit(count=20, seconds=60.0), Limit(count=5, seconds=0.5))
        """
        count, _, seconds = text.partition("/")
        limit = cls(int(count), float(seconds))
        if limit.count < 1 or limit.seconds <= 0:
            raise ValueError(f"a limit is 'count/seconds' with both above zero, not {text!r}")
        return limit

    def __str__(self) -> str:
        return f"{self.count}/{self.seconds:g}"


def _retry(oldest: float, window: float, now: float) -> int:
    """Whole seconds until the oldest event leaves the window: at least 1 (Retry-After is an integer)."""
    return max(1, int(oldest + window - now) + 1)


def _refuse(what: str, retry: int) -> RateLimited:
    return RateLimited("rate_limited", f"Too many {what}; try again in {retry} s.", retry_after=retry)


class Window(Protocol):
    """The interface of a limit's store: record one event for `key`, or raise `RateLimited`."""

    async def acquire(self, key: str, what: str) -> None: ...


class RateLimiter:
    """At most `limit` events per `window` seconds for each key: a sliding window in this process.

    `hit` and `wait_time` are the synchronous forms, for a window kept by one caller (the pace of each
    WebSocket's messages, http/edge.py); `acquire` is the interface shared with the Redis window.
    """

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._hits: dict[str, deque[float]] = {}
        self._last_sweep = time.monotonic()

    def hit(self, key: str, what: str) -> None:
        now = time.monotonic()
        self._sweep(now)
        hits = self._hits.setdefault(key, deque())
        while hits and hits[0] <= now - self.window:
            hits.popleft()
        if len(hits) >= self.limit:
            raise _refuse(what, _retry(hits[0], self.window, now))
        hits.append(now)

    async def acquire(self, key: str, what: str) -> None:
        self.hit(key, what)

    def wait_time(self, key: str) -> float:
        """Seconds until `key` may have another event (0 when it may now); records nothing."""
        now = time.monotonic()
        hits = self._hits.get(key)
        if not hits or len(hits) < self.limit:
            return 0.0
        return max(0.0, hits[-self.limit] + self.window - now)

    def _sweep(self, now: float) -> None:
        """Forget keys whose events have all left the window: one-off addresses must not pile up."""
        if now - self._last_sweep < self.window:
            return
        self._last_sweep = now
        for key in [k for k, hits in self._hits.items() if not hits or hits[-1] <= now - self.window]:
            del self._hits[key]


# KEYS[1]: the window's sorted set; ARGV: limit, window (ms), a unique member. Returns 0 when the event is
# recorded, else the milliseconds until the oldest event leaves the window. The server's own clock (TIME)
# keeps processes on machines with skewed clocks consistent.
_SLIDING_WINDOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(1, tonumber(oldest[2]) + window - now)
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 0
"""


class RedisRateLimiter:
    """The same sliding window, kept in Redis so that every server process counts the same events."""

    def __init__(self, redis, name: str, limit: int, window: float) -> None:
        self.redis = redis
        self.prefix = f"shashki:limit:{name}:"
        self.limit = limit
        self.window = window
        self._script = redis.register_script(_SLIDING_WINDOW)

    async def acquire(self, key: str, what: str) -> None:
        member = f"{time.time_ns()}-{secrets.token_hex(4)}"
        wait_ms = int(
            await self._script(keys=[self.prefix + key], args=[self.limit, int(self.window * 1000), member])
        )
        if wait_ms:
            raise _refuse(what, max(1, -(-wait_ms // 1000)))


class Limiter:
    """Every named limit of the server, in memory or (with `redis_url`) in Redis."""

    def __init__(self, table: dict[str, Limit], redis_url: str | None = None) -> None:
        self.table = dict(table)
        self._redis = None
        if redis_url:
            import redis.asyncio as aioredis

            self._redis = aioredis.from_url(redis_url)
        self._windows: dict[str, Window] = {}
        for name, limit in self.table.items():
            if self._redis is None:
                self._windows[name] = RateLimiter(limit.count, limit.seconds)
            else:
                self._windows[name] = RedisRateLimiter(self._redis, name, limit.count, limit.seconds)

    @property
    def redis(self) -> Any:
        """The Redis client (None without Redis), for the process's counts of connections (connections.py)."""
        return self._redis

    def window(self, name: str) -> Window:
        return self._windows[name]

    async def hit(self, name: str, key: str, what: str | None = None) -> None:
        """Record one event of limit `name` for `key`, or raise `RateLimited` (429 with Retry-After)."""
        await self._windows[name].acquire(key, what or name.replace("_", " "))

    async def close(self) -> None:
        if self._redis is not None:
            await self._redis.aclose()


def limit_table(settings) -> dict[str, Limit]:
    """Every rate limit, in one place (the README's "Running it in public" lists them).

    The first five keep the settings they always had (`SHASHKI_LOGIN_ATTEMPTS`, `SHASHKI_REGISTRATIONS`
    within `SHASHKI_RATE_LIMIT_WINDOW_SECONDS`, `SHASHKI_API_REQUESTS_PER_MINUTE`,
    `SHASHKI_CHALLENGES_PER_MINUTE`), and the chat's too; the others are `SHASHKI_LIMIT_<NAME>` =
    `count/seconds`.
    """
    window = settings.rate_limit_window_seconds
    return {
        # per client address
        "registrations": Limit(settings.registrations, window),
        "logins": Limit(settings.login_attempts, window),
        # per account
        "api_requests": Limit(settings.api_requests_per_minute, 60.0),
        "challenges": Limit(settings.challenges_per_minute, 60.0),
        # per account and game: lines written in its chat (`SHASHKI_CHAT_LINES` per
        # `SHASHKI_CHAT_WINDOW_SECONDS`)
        "chat": Limit(settings.chat_lines, settings.chat_window_seconds),
        # per account: guessing one account's password from many addresses
        "logins_per_account": settings.public.limit_logins_per_account,
        "seeks": settings.public.limit_seeks,
        "computer_games": settings.public.limit_computer_games,
        # per address: the opening explorer, open to visitors without an account
        "explorer": settings.public.limit_explorer,
        # per account: computer analyses of games (each a minute of engine time or so)
        "reviews": settings.public.limit_reviews,
        # per client address: anonymous visitors' sessions and the games they start
        "anonymous_sessions": settings.public.limit_anonymous_sessions,
        "anonymous_games": settings.public.limit_anonymous_games,
        # the analysis board: engine searches per address and per account, PDN imports per address
        "analyses": settings.public.limit_analyses,
        "analyses_per_account": settings.public.limit_analyses_per_account,
        "pdn_imports": settings.public.limit_pdn_imports,
        "tournaments": settings.public.limit_tournaments,
        "tournament_actions": settings.public.limit_tournament_actions,
        "simuls": settings.public.limit_simuls,
        "simul_actions": settings.public.limit_simul_actions,
        "puzzle_moves": settings.public.limit_puzzle_moves,  # per address: the puzzle trainer's moves
    }
