"""`LoadRun`: the players of one load generator process, driven in phases by `clients` — their
accounts, their first games (the ramp), then the measured window, after which they stop and drain."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import http.cookiejar
import itertools
import re
import time
import uuid

from loadgen.players import Account, GameSession, Seat, Stats

PASSWORD = "load benchmark password"


class LoadRun:
    """Drives one app (one or several server processes) with `2 × games` scripted players (`games`: this
    process's share of `options.games`; `tag`: a prefix that makes its account names unique)."""

    def __init__(
        self, options, urls: list[str], checks: bool, progress=None, *, games: int | None = None,
        tag: str | None = None,
    ) -> None:  # fmt: skip
        self.options = options
        self.games = options.games if games is None else games
        self.urls = urls
        self.ws_urls = [u.replace("http://", "ws://") for u in urls]
        self.checks = checks
        self.stats = Stats()
        self.stopping = False
        self.watched: set[GameSession] = set()  # the games being played, for the stall finder and the end
        self.started_first = 0
        self.all_started = asyncio.Event()
        self.game_slots = asyncio.Semaphore(options.setup_concurrency)
        self.progress = progress
        self.tag = tag or uuid.uuid4().hex[:5]
        self.http = None
        self.accounts: list[Account] = []
        self.accounts_done = 0
        self.pairs: list[asyncio.Task] = []
        self.background: list[asyncio.Task] = []
        self.exits = contextlib.AsyncExitStack()

    async def request(self, method: str, server: int, path: str, expect: int, **kwargs) -> dict | None:
        try:
            r = await self.http.request(method, self.urls[server] + path, **kwargs)
        except Exception as error:
            self.stats.errors[f"HTTP {method} {route(path)}: {type(error).__name__}"] += 1
            return None
        if r.status_code != expect:
            self.stats.errors[f"HTTP {r.status_code} {method} {route(path)}"] += 1
            return None
        return r.json()

    async def account(self, index: int) -> Account | None:
        """Register, log in, and take a personal API token (`board:play`): the player's credentials."""
        name = f"L{self.tag}{index}"
        server = self.server_of(index)
        credentials = {"username": name, "password": PASSWORD}
        if await self.request("POST", server, "/api/auth/register", 201, json=credentials) is None:
            return None
        try:
            r = await self.http.post(self.urls[server] + "/api/auth/login", json=credentials)
        except Exception as error:
            self.stats.errors[f"HTTP POST /api/auth/login: {type(error).__name__}"] += 1
            return None
        if r.status_code != 200:
            self.stats.errors[f"HTTP {r.status_code} POST /api/auth/login"] += 1
            return None
        # The shared client keeps no cookies (see run()): the session goes in this request's header.
        session = "; ".join(f"{k}={v}" for k, v in r.cookies.items())
        headers = {"Cookie": session, "X-CSRF-Token": r.json()["csrf_token"]}
        body = {"scopes": ["board:play"], "description": "load"}
        token = await self.request("POST", server, "/api/account/tokens", 201, json=body, headers=headers)
        return None if token is None else Account(name, token["token"], server)

    def server_of(self, index: int) -> int:
        """Player 2k on process k mod N, its opponent 2k+1 on the next: every pair spans two processes."""
        return (index // 2 + index % 2) % len(self.urls)

    async def setup_accounts(self) -> list[Account]:
        slots = asyncio.Semaphore(self.options.setup_concurrency)

        async def one(i: int) -> Account | None:
            async with slots:
                account = await self.account(i)
            self.accounts_done += 1
            self.show()
            return account

        accounts = await asyncio.gather(*(one(i) for i in range(2 * self.games)))
        return [a for a in accounts if a is not None]

    async def create_game(self, white: Account, black: Account) -> str | None:
        terms = {"username": black.name, "color": "white", "variant": self.options.variant}
        if self.options.clock:
            minutes, increment = self.options.clock
            terms["time_control"] = {"minutes": minutes, "increment": increment}
        if self.options.rated:
            terms["rated"] = True  # each end moves both players' ratings (needs a clock)
        began = time.monotonic()
        async with self.game_slots:
            body = await self.request(
                "POST", white.server, "/api/challenges", 201, json=terms, headers=white.headers
            )
            if body is None:
                return None
            challenge = body["challenge"]["id"]
            body = await self.request(
                "POST", black.server, f"/api/challenges/{challenge}/accept", 200, headers=black.headers
            )
        if body is None:
            return None
        if self.stats.in_window(began):
            self.stats.game_setup_ms.append((time.monotonic() - began) * 1000)
        return body["game"]["id"]

    async def pair(self, a: Account, b: Account) -> None:
        first = True
        for number in itertools.count():
            if self.stopping:
                break
            white, black = (a, b) if number % 2 == 0 else (b, a)
            game_id = await self.create_game(white, black)
            if game_id is None:
                await asyncio.sleep(1)
                continue
            session = GameSession(game_id)
            seats = [Seat(self, session, white, "white"), Seat(self, session, black, "black")]
            try:
                await asyncio.gather(*(s.connect() for s in seats))
            except Exception as error:
                self.stats.errors[f"WebSocket connect failed: {type(error).__name__}"] += 1
                await self.close(session, seats)
                await asyncio.sleep(1)
                continue
            now = time.monotonic()
            self.stats.games_started_total += 1
            if self.stats.in_window(now):
                self.stats.games_started += 1
            if first:
                first = False
                self.started_first += 1
                if self.started_first == len(self.accounts) // 2:
                    self.all_started.set()
            for seat in seats:
                seat.task = asyncio.create_task(seat.read())
            await self.watch(session, seats)
            ended = all(s.game.is_over for s in seats)
            await self.close(session, seats)
            if ended and self.stats.in_window(time.monotonic()):
                self.stats.games_finished += 1

    async def watch(self, session: GameSession, seats: list[Seat]) -> None:
        """Until both players have seen the end, the run stops, or the game stalls. Woken by its players
        (`Seat.finish`), by the run's end, and by `find_stalls` (one task for every game: a timeout per
        game and per half second was a third of the load generator's CPU at 2,000 games)."""
        stall = self.options.stall_seconds + self.options.think[1]
        self.watched.add(session)
        try:
            while True:
                session.wake.clear()
                if all(s.done.is_set() for s in seats):
                    return
                if self.stopping:
                    deadline = time.monotonic() + self.options.drain
                    while any(s.pending for s in seats) and time.monotonic() < deadline:
                        await asyncio.sleep(0.05)
                    lost = sum(len(s.pending) for s in seats)
                    if lost:
                        self.stats.errors["moves never acknowledged"] += lost
                    return
                if time.monotonic() - session.progress > stall:
                    self.stats.errors[f"game stalled (no message for {stall:g} s)"] += 1
                    return
                await session.wake.wait()
        finally:
            self.watched.discard(session)

    async def find_stalls(self, every: float = 1.0) -> None:
        """Wake the watcher of each game silent for longer than a stall (it counts the stall)."""
        stall = self.options.stall_seconds + self.options.think[1]
        while True:
            await asyncio.sleep(every)
            now = time.monotonic()
            for session in list(self.watched):
                if now - session.progress > stall:
                    session.wake.set()

    async def close(self, session: GameSession, seats: list[Seat]) -> None:
        session.closing = True
        for seat in seats:
            if seat.ws is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(seat.ws.close(), 5)
            if seat.task is not None:
                seat.task.cancel()
                with contextlib.suppress(BaseException):
                    await seat.task

    def show(self) -> None:
        if self.progress is not None:
            self.progress(self)

    async def setup(self) -> None:
        """Phase 1: every player's account and token."""
        import httpx

        # Idle connections dropped before uvicorn's 5 s keep-alive ends: no request races the server's close.
        limits = httpx.Limits(
            max_connections=self.options.setup_concurrency * 2, max_keepalive_connections=64,
            keepalive_expiry=2,
        )  # fmt: skip
        self.http = await self.exits.enter_async_context(httpx.AsyncClient(timeout=120, limits=limits))
        # One client for every player: it must not carry one player's session cookie to another.
        self.http.cookies.jar.set_policy(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
        self.accounts = await self.setup_accounts()

    def start_games(self) -> None:
        """Phase 2: every pair starts playing; `all_started` is set when each has begun its first game."""
        # The generator's own garbage collector: the objects made so far are kept out of every
        # collection, and collections are rarer (as the server's, shashki/server/app.py): a full one
        # over thousands of sockets and rules games stopped this loop for hundreds of milliseconds,
        # which every latency measured would include.
        gc.freeze()
        gc.set_threshold(700, 10, 1000)
        self.pairs = [
            asyncio.create_task(self.pair(self.accounts[i], self.accounts[i + 1]))
            for i in range(0, len(self.accounts) - 1, 2)
        ]
        self.background.append(asyncio.create_task(self.probe_lag()))
        self.background.append(asyncio.create_task(self.find_stalls()))
        if not self.pairs:
            self.all_started.set()

    async def play(self, start: float, end: float) -> None:
        """Phase 3: the window from `start` to `end` (`time.monotonic()`, the same clock in every process
        of the machine); then the players stop, wait for their last acks and close."""
        stats = self.stats
        stats.window_start, stats.window_end = start, end
        while time.monotonic() < end:
            self.show()
            await asyncio.sleep(min(0.5, max(0.0, end - time.monotonic())))
        self.stopping = True
        for session in list(self.watched):
            session.wake.set()
        if not self.pairs:
            return
        _done, late = await asyncio.wait(self.pairs, timeout=self.options.drain + 15)
        for task in late:
            task.cancel()
        if late:
            stats.errors["pairs that did not stop in time"] += len(late)

    async def finish(self) -> None:
        for task in [*self.pairs, *self.background]:
            task.cancel()
        await self.exits.aclose()

    async def probe_lag(self, every: float = 0.05) -> None:
        """The load generator's own event-loop lag: how much later than asked a short sleep returns."""
        stats = self.stats
        while True:
            asked = time.monotonic()
            await asyncio.sleep(every)
            now = time.monotonic()
            if stats.in_window(asked):
                stats.client_lag_ms.append((now - asked - every) * 1000)


def route(path: str) -> str:
    return re.sub(r"/\d+(/|$)", r"/{id}\1", path)
