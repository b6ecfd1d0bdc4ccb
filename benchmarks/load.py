"""Server load: scripted players over the real game WebSocket, against Shashki and a bare baseline (issue 11).

    python benchmarks/load.py [--games 250] [--think 1-3] [--duration 60] [--target both]
                              [--database-url URL --redis-url URL] [--processes 1,2] [--json out.json]

What it does, for each app under test (`--target`: the bare baseline, then Shashki with each count of
`--processes`), in subprocesses of its own on free loopback ports with a temporary data directory:

1. Setup (not measured): `2 × --games` accounts through the HTTP API (register, log in, a personal API token
   with the `board:play` scope; the server is started with the settings that lift the registration limit and
   cheapen argon2, as tests/server/helpers.py does).
2. Every pair of players creates a game by challenge and accept (`--variant`, no clock unless `--clock`),
   both open `/ws/games/{id}` and play random legal moves: each player keeps its own `shashki.rules.Game`,
   brought up to date from the moves the server sends, picks a random legal move after a think time drawn
   from `--think`, and sends `{"type": "move", "move", "ply", "id"}`. Against Shashki every state received
   (a whole one, or one made by a patch of the state before) is checked against the player's own game
   (position, legal moves, end of game): a difference is an error.
   When a game ends both players close their sockets and the pair starts another game.
3. The measured window opens once every pair has started its first game and lasts `--duration` seconds;
   then players stop moving, wait for their last acks and close. Figures cover moves sent in the window:
   moves/s (acks received per second), ack latency (send → `ack`), delivery latency (the mover's send →
   the opponent receiving the state with that move), errors by kind (server `error` messages, HTTP
   failures, closed sockets, moves never acknowledged, games that stalled, states that disagree with the
   rules), the server's CPU (cores used during the window, child processes included) and peak memory, and
   the load generator's own CPU (near 100% means the client, not the server, was the limit).

The baseline (`--serve-baseline`, started by this script) is the least a durable game server must do per
move: a FastAPI + uvicorn app that, for each move, runs one SQLite INSERT and commit (WAL, synchronous=NORMAL,
as Shashki's SQLite), sends an ack to the mover and a ~2 KB JSON state to the opponent. It speaks the subset
of Shashki's protocol the load generator uses (accounts, tokens, challenges, game sockets) and checks no
rules: its players know the end of a game from their own rules game.

PostgreSQL + Redis: `--database-url` and `--redis-url` (e.g. from `scripts/test-services.sh start`, whose
PostgreSQL runs with fsync=off: say so next to figures). A fresh database is created on that server for each
run and dropped afterwards. `--processes 1,2` runs Shashki once with one process and once with two on
different ports sharing the database and Redis, each pair's two players on different processes.

After each Shashki run the server is started once more on the data the run left (games cut off mid-play
included) and the time to answer /health is compared with the fresh start (the goal that start-up does not
grow with the history). The goals of issue 11 are printed next to the figures with whether each is met.
Runs only against 127.0.0.1, and stops by itself (`--duration`, `--ramp-timeout`, `--drain`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import http.cookiejar
import itertools
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

# Module level: FastAPI resolves the baseline's annotations (strings, by the __future__ import) here.
from fastapi import FastAPI, Request, Response, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PASSWORD = "load benchmark password"
# The settings a benchmark needs (names from shashki/server/config.py): many accounts from one address,
# cheap password hashing (setup is not what is measured), and no challenge limit for the Bot API.
SERVER_ENV = {
    "SHASHKI_REGISTRATIONS": "1000000",
    "SHASHKI_LOGIN_ATTEMPTS": "1000000",
    "SHASHKI_ARGON2_MEMORY_KIB": "1024",
    "SHASHKI_ARGON2_TIME_COST": "1",
    "SHASHKI_CHALLENGES_PER_MINUTE": "1000000",
    "SHASHKI_API_REQUESTS_PER_MINUTE": "1000000",
    "SHASHKI_SOCKETS_PER_ADDRESS": "1000000",  # every player connects from 127.0.0.1
    # Players without think time send faster than a person may: the per-socket allowance would hold their
    # moves back, and the run would measure the limit rather than the server.
    "SHASHKI_LIMIT_SOCKET_MESSAGES": "1000000/1",
}
STATE_PADDING = 2048  # bytes of the baseline's state message, about Shashki's state early in a game
SLOW_ACK_MS = 100.0

GOALS = (
    ("sqlite-half", "1 process on SQLite reaches at least half the bare baseline's moves/s (same run)"),
    ("sqlite-2000", "1 process on SQLite holds 2,000 human-paced games with ack p99 < 100 ms"),
    ("pg-2000", "PostgreSQL + Redis: 2,000 sockets on one process without an error"),
    ("startup", "start-up time does not grow with the history (restart after the run ≤ 2 × fresh + 1 s)"),
    ("scale", "two processes carry clearly more than one (≥ 1.25 × its moves/s)"),
)


# ------------------------------------------------------------------------------------------------------
# Processes under test


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """One server on a free loopback port, its output in `log`, measured with psutil."""

    def __init__(self, command: list[str], env: dict[str, str], log: Path) -> None:
        self.command = command
        self.env = env
        self.log = log
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.peak_rss = 0
        self.start_seconds = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 120) -> ServerProcess:
        import httpx

        began = time.monotonic()
        with open(self.log, "a") as log:
            self.process = subprocess.Popen(
                [*self.command, "--port", str(self.port)], env=self.env, stdout=log, stderr=subprocess.STDOUT
            )
        while time.monotonic() - began < timeout:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.command} died at start:\n{tail(self.log)}")
            try:
                if httpx.get(self.url + "/health", timeout=1).status_code == 200:
                    self.start_seconds = time.monotonic() - began
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.command} did not answer /health within {timeout} s:\n{tail(self.log)}")

    def processes(self):
        import psutil

        try:
            main = psutil.Process(self.process.pid)
            return [main, *main.children(recursive=True)]
        except psutil.Error:
            return []

    def cpu_seconds(self) -> float:
        import psutil

        total = 0.0
        for p in self.processes():
            with contextlib.suppress(psutil.Error):
                t = p.cpu_times()
                total += t.user + t.system
        return total

    def sample_memory(self) -> None:
        import psutil

        rss = 0
        for p in self.processes():
            with contextlib.suppress(psutil.Error):
                rss += p.memory_info().rss
        self.peak_rss = max(self.peak_rss, rss)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def server_log_problems(path: Path) -> int:
    """Tracebacks and ERROR lines the server logged (500s and crashed tasks show up here)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return 0
    return len(re.findall(r"^Traceback|\bERROR\b", text, re.MULTILINE))


# ------------------------------------------------------------------------------------------------------
# PostgreSQL: a fresh database per run


def database_with_name(url: str, name: str) -> str:
    base, _, _query = url.partition("?")
    head, _, _db = base.rpartition("/")
    return f"{head}/{name}"


async def postgres_admin(url: str, statement: str) -> None:
    import asyncpg

    plain = re.sub(r"^postgres(ql)?(\+asyncpg)?://", "postgresql://", url)
    conn = await asyncpg.connect(plain)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


# ------------------------------------------------------------------------------------------------------
# Measurements


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def lag_text(lag: dict | None) -> str:
    """p50/p99/max of a `summary`, in ms ("-" when not measured)."""
    if not lag or not lag["count"]:
        return "-"
    return "/".join(f"{lag[k]:.0f}" for k in ("p50", "p99", "max"))


def summary(values: list[float]) -> dict:
    return {
        "count": len(values),
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "p99": percentile(values, 99),
        "max": max(values) if values else None,
    }


@dataclass
class Stats:
    window_start: float | None = None
    window_end: float | None = None
    moves_sent: int = 0  # in the window
    moves_acked: int = 0  # acks received in the window
    moves_total: int = 0  # acks received at any time
    ack_ms: list[float] = field(default_factory=list)
    delivery_ms: list[float] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    games_started: int = 0
    games_finished: int = 0
    games_started_total: int = 0
    game_setup_ms: list[float] = field(default_factory=list)
    states_checked: int = 0
    bytes_received: int = 0  # the text of every message the players received in the window
    # How late this process's own event loop ran a timer in the window: the load generator's share of
    # every latency it measures (a reply waits in its socket until the loop reads it).
    client_lag_ms: list[float] = field(default_factory=list)

    def in_window(self, t: float) -> bool:
        return (
            self.window_start is not None
            and t >= self.window_start
            and (self.window_end is None or t <= self.window_end)
        )


# ------------------------------------------------------------------------------------------------------
# The load generator


@dataclass
class Account:
    name: str
    token: str
    server: int  # index of the server process this player talks to

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


class Seat:
    """One player in one game: its socket, its own rules game, its moves in flight."""

    def __init__(self, run: LoadRun, session: GameSession, account: Account, color: str) -> None:
        from shashki.rules import Game

        self.run = run
        self.session = session
        self.account = account
        self.color = color
        self.game = Game(run.options.variant)
        self.ws = None
        self.ids = itertools.count(1)
        self.pending: dict[int, tuple[int, float, object]] = {}  # id -> (ply, sent at, Move)
        self.scheduled_ply = -1
        self.done = asyncio.Event()
        self.task: asyncio.Task | None = None
        self.state: dict | None = None  # the last state received (a patch applies to it)

    @property
    def my_turn(self) -> bool:
        return not self.game.is_over and self.game.position.side_to_move.value == self.color

    async def connect(self) -> None:
        from websockets.asyncio.client import connect

        url = self.run.ws_urls[self.account.server] + f"/ws/games/{self.session.game_id}"
        self.ws = await connect(
            url,
            additional_headers=self.account.headers,
            open_timeout=60,
            ping_interval=None,
            max_size=2**22,
            compression=None if self.run.options.no_compression else "deflate",
        )

    async def read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        stats = self.run.stats
        try:
            async for raw in self.ws:
                now = time.monotonic()
                self.session.progress = now
                if stats.in_window(now):
                    stats.bytes_received += len(raw)
                message = json.loads(raw)
                kind = message.get("type")
                if kind == "state":
                    self.on_state(message["game"], now)
                elif kind == "patch":
                    self.on_patch(message, now)
                elif kind == "ack":
                    self.on_ack(message, now)
                elif kind == "error":
                    self.on_error(message)
        except ConnectionClosed as closed:
            if not self.done.is_set() and not self.session.closing:
                stats.errors[f"socket closed by the server ({closed.rcvd.code if closed.rcvd else '-'})"] += 1
        except Exception as error:  # a bug here must show in the figures, not hang the run
            stats.errors[f"client: {type(error).__name__}: {error}"[:120]] += 1
        finally:
            self.done.set()

    def on_patch(self, patch: dict, now: float) -> None:
        """What changed since the state held: it must follow that state (else an error, and a resync)."""
        held = self.state
        if held is None or held.get("seq") != patch.get("from"):
            self.run.stats.errors["a patch that does not follow the state held"] += 1
            asyncio.get_running_loop().create_task(self.ws.send(json.dumps({"type": "resync"})))
            return
        self.on_state({**held, **patch["set"], "moves": held["moves"] + patch["append"]}, now)

    def on_state(self, state: dict, now: float) -> None:
        from shashki.rules import IllegalMove

        self.state = state
        stats = self.run.stats
        session = self.session
        moves = state.get("moves") or []
        before = self.game.ply
        for text in moves[before:]:
            ply = self.game.ply
            try:
                self.game.play(text)
            except IllegalMove as error:
                stats.errors[f"server sent a move the rules refuse ({error.code})"] += 1
                self.done.set()
                return
            sent = session.sent.get(ply)
            # The opponent's move reaching me: its delivery latency.
            if sent is not None and ply % 2 != self.parity and stats.in_window(sent):
                stats.delivery_ms.append((now - sent) * 1000)
        if self.run.checks and state.get("ply") == self.game.ply:
            self.check(state)
        server_over = state.get("status", "started") != "started"
        if server_over or self.game.is_over:
            if self.run.checks and server_over != self.game.is_over:
                stats.errors["the end of the game differs from the rules"] += 1
            self.done.set()
            return
        self.maybe_move()

    @property
    def parity(self) -> int:
        """The parity of the plies this seat plays (white moves first in every variant measured here)."""
        first = self.game.start.side_to_move.value
        return 0 if first == self.color else 1

    def check(self, state: dict) -> None:
        """The server's state equals this player's own rules game: position, legal moves, end."""
        stats = self.run.stats
        stats.states_checked += 1
        position = self.game.position
        if state.get("fen") != position.fen():
            stats.errors["the server's position differs from the rules"] += 1
            return
        if state.get("status") == "started":
            variant = self.game.variant
            mine = sorted(m.notation(variant) for m in self.game.legal_moves())
            theirs = sorted(m["move"] for m in state.get("legal_moves", []))
            if mine != theirs:
                stats.errors["the server's legal moves differ from the rules"] += 1

    def maybe_move(self) -> None:
        if self.my_turn and self.scheduled_ply != self.game.ply and not self.run.stopping:
            self.scheduled_ply = self.game.ply
            asyncio.get_running_loop().create_task(self.move(self.game.ply))

    async def move(self, ply: int) -> None:
        low, high = self.run.options.think
        if high > 0:
            await asyncio.sleep(random.uniform(low, high))
        if self.run.stopping or self.game.ply != ply or not self.my_turn or self.done.is_set():
            return
        move = random.choice(self.game.legal_moves())
        request_id = next(self.ids)
        now = time.monotonic()
        self.session.sent[ply] = now
        self.pending[request_id] = (ply, now, move)
        stats = self.run.stats
        if stats.in_window(now):
            stats.moves_sent += 1
        text = move.notation(self.game.variant)
        try:
            await self.ws.send(json.dumps({"type": "move", "move": text, "ply": ply, "id": request_id}))
        except Exception as error:
            self.pending.pop(request_id, None)
            stats.errors[f"send failed: {type(error).__name__}"] += 1
            self.done.set()

    def on_ack(self, message: dict, now: float) -> None:
        entry = self.pending.pop(message.get("id"), None)
        if entry is None:
            return
        ply, sent, move = entry
        stats = self.run.stats
        stats.moves_total += 1
        if stats.in_window(sent):
            stats.ack_ms.append((now - sent) * 1000)
        if stats.in_window(now):
            stats.moves_acked += 1
        if self.game.ply == ply:  # the baseline sends the mover no state: the ack commits the move
            self.game.play(move)
            if self.game.is_over:
                self.done.set()

    def on_error(self, message: dict) -> None:
        error = message.get("error") or {}
        self.run.stats.errors[f"server error {error.get('code')}"] += 1
        entry = self.pending.pop(message.get("id"), None)
        if entry is not None:  # a refused move: ask for the state again and play from it
            self.scheduled_ply = -1
            asyncio.get_running_loop().create_task(self.ws.send(json.dumps({"type": "resync"})))


class GameSession:
    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.sent: dict[int, float] = {}  # ply -> when its move was sent
        self.progress = time.monotonic()
        self.closing = False


class LoadRun:
    """Drives one app (one or several server processes) with `2 × games` scripted players."""

    def __init__(self, options, urls: list[str], checks: bool, progress=None) -> None:
        self.options = options
        self.urls = urls
        self.ws_urls = [u.replace("http://", "ws://") for u in urls]
        self.checks = checks
        self.stats = Stats()
        self.stopping = False
        self.stop_event = asyncio.Event()
        self.started_first = 0
        self.all_started = asyncio.Event()
        self.game_slots = asyncio.Semaphore(options.setup_concurrency)
        self.progress = progress
        self.tag = uuid.uuid4().hex[:5]
        self.http = None

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
        done = 0

        async def one(i: int) -> Account | None:
            nonlocal done
            async with slots:
                account = await self.account(i)
            done += 1
            self.show(f"accounts {done}/{2 * self.options.games}")
            return account

        accounts = await asyncio.gather(*(one(i) for i in range(2 * self.options.games)))
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
        """Until both players have seen the end, the run stops, or the game stalls."""
        stall = self.options.stall_seconds + self.options.think[1]
        while not all(s.done.is_set() for s in seats):
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
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.stop_event.wait(), 0.5)

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

    def show(self, text: str) -> None:
        if self.progress is not None:
            self.progress(text, self.stats)

    async def run(self, servers: list[ServerProcess]) -> dict:
        import httpx
        import psutil

        options = self.options
        me = psutil.Process()
        began = time.monotonic()
        # Idle connections dropped before uvicorn's 5 s keep-alive ends: no request races the server's close.
        limits = httpx.Limits(
            max_connections=options.setup_concurrency * 2, max_keepalive_connections=64, keepalive_expiry=2
        )
        async with httpx.AsyncClient(timeout=120, limits=limits) as self.http:
            # One client for every player: it must not carry one player's session cookie to another.
            self.http.cookies.jar.set_policy(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
            self.accounts = await self.setup_accounts()
            setup_seconds = time.monotonic() - began
            if len(self.accounts) < 2:
                return {"error": "no accounts could be created", "errors": dict(self.stats.errors)}
            # The generator's own garbage collector: the objects made so far are kept out of every
            # collection, and collections are rarer (as the server's, shashki/server/app.py): a full one
            # over thousands of sockets and rules games stopped this loop for hundreds of milliseconds,
            # which every latency measured would include.
            gc.freeze()
            gc.set_threshold(700, 10, 1000)
            ramp_began = time.monotonic()
            self.show("starting games")
            pairs = [
                asyncio.create_task(self.pair(self.accounts[i], self.accounts[i + 1]))
                for i in range(0, len(self.accounts) - 1, 2)
            ]
            sampler = asyncio.create_task(self.sample(servers))
            lag_probe = asyncio.create_task(self.probe_lag())
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.all_started.wait(), options.ramp_timeout)
            ramp_seconds = time.monotonic() - ramp_began
            all_started = self.all_started.is_set()
            stats = self.stats
            stats.window_start = time.monotonic()
            cpu_server = sum(s.cpu_seconds() for s in servers)
            cpu_client = sum(me.cpu_times()[:2])
            while time.monotonic() - stats.window_start < options.duration:
                elapsed = time.monotonic() - stats.window_start
                self.show(f"measuring {elapsed:4.0f}/{options.duration:g} s")
                await asyncio.sleep(0.5)
            stats.window_end = time.monotonic()
            window = stats.window_end - stats.window_start
            cpu_server = sum(s.cpu_seconds() for s in servers) - cpu_server
            cpu_client = sum(me.cpu_times()[:2]) - cpu_client
            self.stopping = True
            self.stop_event.set()
            self.show("draining")
            done, late = await asyncio.wait(pairs, timeout=options.drain + 15)
            for task in late:
                task.cancel()
            if late:
                stats.errors["pairs that did not stop in time"] += len(late)
            sampler.cancel()
            lag_probe.cancel()
        return {
            "games": options.games,
            "players": len(self.accounts),
            "setup_seconds": round(setup_seconds, 2),
            "ramp_seconds": round(ramp_seconds, 2),
            "all_games_started": all_started,
            "window_seconds": round(window, 2),
            "moves_sent": stats.moves_sent,
            "moves_acked": stats.moves_acked,
            "moves_total": stats.moves_total,
            "moves_per_second": round(stats.moves_acked / window, 1),
            "ack_ms": summary(stats.ack_ms),
            "acks_over_100ms": sum(1 for v in stats.ack_ms if v > SLOW_ACK_MS),
            "delivery_ms": summary(stats.delivery_ms),
            "game_setup_ms": summary(stats.game_setup_ms),
            "games_started": stats.games_started,
            "games_finished": stats.games_finished,
            "games_started_total": stats.games_started_total,
            "states_checked": stats.states_checked,
            # What the players received (uncompressed) per move: both sides' states or patches, the ack.
            "bytes_per_move": round(stats.bytes_received / max(stats.moves_acked, 1)),
            "errors": dict(stats.errors),
            "error_count": sum(stats.errors.values()),
            "server_cpu_cores": round(cpu_server / window, 2),
            # What a move costs the server, whatever else shares the machine (moves acknowledged in the
            # window; game starts and ends included): the figure to compare across runs on a busy machine.
            "server_cpu_ms_per_move": round(1000 * cpu_server / max(stats.moves_acked, 1), 3),
            "server_peak_rss_mb": round(sum(s.peak_rss for s in servers) / 2**20, 1),
            "client_cpu_cores": round(cpu_client / window, 2),
            "client_lag_ms": summary(stats.client_lag_ms),
        }

    async def probe_lag(self, every: float = 0.05) -> None:
        """The load generator's own event-loop lag: how much later than asked a short sleep returns."""
        stats = self.stats
        while True:
            asked = time.monotonic()
            await asyncio.sleep(every)
            now = time.monotonic()
            if stats.in_window(asked):
                stats.client_lag_ms.append((now - asked - every) * 1000)

    async def sample(self, servers: list[ServerProcess]) -> None:
        while True:
            for server in servers:
                server.sample_memory()
            await asyncio.sleep(0.5)


def route(path: str) -> str:
    return re.sub(r"/\d+(/|$)", r"/{id}\1", path)


# ------------------------------------------------------------------------------------------------------
# The bare baseline app


def baseline_app(data: Path):
    """FastAPI app doing per move one SQLite INSERT + commit, an ack, and a ~2 KB state to the opponent."""
    import sqlite3

    data.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(data / "baseline.sqlite3", isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE IF NOT EXISTS moves (game_id TEXT, ply INTEGER, notation TEXT, played_at REAL)")
    app = FastAPI()
    users: dict[str, int] = {}
    tokens: dict[str, str] = {}
    challenges: dict[int, tuple[str, str]] = {}
    games: dict[str, dict] = {}
    numbers = itertools.count(1)

    def user_of(request) -> str | None:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        return tokens.get(token)

    @app.get("/health")
    async def health() -> dict:
        return {"status": "ok"}

    @app.post("/api/auth/register", status_code=201)
    async def register(request: Request) -> dict:
        body = await request.json()
        users[body["username"]] = next(numbers)
        return {"user": {"id": users[body["username"]], "username": body["username"]}}

    @app.post("/api/auth/login")
    async def login(request: Request, response: Response) -> dict:
        body = await request.json()
        response.set_cookie("session", body["username"])
        return {"csrf_token": "x"}

    @app.post("/api/account/tokens", status_code=201)
    async def token(request: Request) -> dict:
        value = uuid.uuid4().hex
        tokens[value] = request.cookies["session"]
        return {"token": value}

    @app.post("/api/challenges", status_code=201)
    async def challenge(request: Request) -> dict:
        body = await request.json()
        number = next(numbers)
        challenges[number] = (user_of(request), body["username"])
        return {"challenge": {"id": number}}

    @app.post("/api/challenges/{number}/accept")
    async def accept(number: int, request: Request):
        white, black = challenges.pop(number)
        if user_of(request) != black:
            return JSONResponse({"error": {"code": "not_yours"}}, status_code=403)
        game_id = uuid.uuid4().hex[:8]
        games[game_id] = {"white": white, "black": black, "moves": [], "sockets": {}}
        return {"game": {"id": game_id}}

    def state(game_id: str, game: dict) -> str:
        body = {"id": game_id, "ply": len(game["moves"]), "status": "started", "moves": game["moves"]}
        text = json.dumps({"type": "state", "seq": len(game["moves"]) + 1, "game": body})
        padding = max(0, STATE_PADDING - len(text) - 16)
        body["padding"] = "." * padding
        return json.dumps({"type": "state", "seq": len(game["moves"]) + 1, "game": body})

    @app.websocket("/ws/games/{game_id}")
    async def game_socket(websocket: WebSocket, game_id: str) -> None:
        user = user_of(websocket)
        game = games.get(game_id)
        await websocket.accept()
        if game is None or user not in (game["white"], game["black"]):
            await websocket.close(code=4404)
            return
        color = "white" if user == game["white"] else "black"
        game["sockets"][color] = websocket
        await websocket.send_text(state(game_id, game))
        try:
            while True:
                message = await websocket.receive_json()
                if message.get("type") != "move":
                    continue
                ply = len(game["moves"])
                game["moves"].append(message["move"])
                db.execute(
                    "INSERT INTO moves (game_id, ply, notation, played_at) VALUES (?, ?, ?, ?)",
                    (game_id, ply, message["move"], time.time()),
                )
                db.commit()
                await websocket.send_text(
                    json.dumps({"type": "ack", "id": message.get("id"), "ply": ply + 1, "seq": ply + 2})
                )
                opponent = game["sockets"].get("black" if color == "white" else "white")
                if opponent is not None:
                    with contextlib.suppress(Exception):
                        await opponent.send_text(state(game_id, game))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            game["sockets"].pop(color, None)
            if not game["sockets"]:
                games.pop(game_id, None)

    return app


def serve_baseline(port: int, data: Path) -> None:
    import uvicorn

    uvicorn.run(
        baseline_app(data),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws_ping_interval=20,
        ws_ping_timeout=20,
    )


# ------------------------------------------------------------------------------------------------------
# Runs


@dataclass
class Target:
    label: str
    kind: str  # "baseline" | "shashki"
    processes: int = 1


async def measure(options, target: Target, console) -> dict:
    """Start the app, drive it, stop it; the result of one line of the report."""
    workdir = Path(tempfile.mkdtemp(prefix=f"shashki-load-{target.kind}-"))
    env = {**os.environ, **SERVER_ENV, "PYTHONUNBUFFERED": "1"}
    for name in ("DATABASE_URL", "REDIS_URL", "SHASHKI_DATA"):
        env.pop(name, None)
    database = None
    servers: list[ServerProcess] = []
    result: dict = {"label": target.label, "kind": target.kind, "processes": target.processes}
    try:
        if target.kind == "baseline":
            command = [
                sys.executable,
                str(Path(__file__).resolve()),
                "--serve-baseline",
                "--data",
                str(workdir),
            ]
            servers = [ServerProcess(command, env, workdir / "baseline.log")]
        else:
            if options.database_url:
                name = f"shashki_load_{uuid.uuid4().hex[:8]}"
                await postgres_admin(options.database_url, f'CREATE DATABASE "{name}"')
                database = name
                env["DATABASE_URL"] = database_with_name(options.database_url, name)
            if options.redis_url:
                env["REDIS_URL"] = options.redis_url
            command = [sys.executable, "-m", "shashki.server", "--data", str(workdir / "data")]
            servers = [
                ServerProcess(command, env, workdir / f"server{i}.log") for i in range(target.processes)
            ]
        for server in servers:  # one at a time: the first runs the migrations
            await asyncio.to_thread(server.start)
        result["start_seconds"] = round(max(s.start_seconds for s in servers), 2)
        progress = Progress(console, target.label)
        with progress:
            run = LoadRun(
                options, [s.url for s in servers], checks=target.kind == "shashki", progress=progress
            )
            result.update(await run.run(servers))
        for server in servers:
            server.stop()
        result["server_log_problems"] = sum(server_log_problems(s.log) for s in servers)
        if target.kind == "shashki" and options.restart_check:
            again = ServerProcess(command, env, workdir / "restart.log")
            await asyncio.to_thread(again.start)
            again.stop()
            result["restart_seconds"] = round(again.start_seconds, 2)
        if result.get("server_log_problems") and not options.keep:
            # What went wrong stays readable after the data directory is removed.
            logs = Path(tempfile.mkdtemp(prefix=f"shashki-load-logs-{target.kind}-"))
            for server in servers:
                shutil.copy(server.log, logs / server.log.name)
            result["logs"] = str(logs)
    finally:
        for server in servers:
            server.stop()
        if database:
            with contextlib.suppress(Exception):
                await postgres_admin(
                    options.database_url, f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'
                )
        if not options.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            result["workdir"] = str(workdir)
    return result


class Progress:
    """One live status line (rich) while a run goes: phase, moves/s so far, acks p99, errors."""

    def __init__(self, console, label: str) -> None:
        from rich.live import Live

        self.label = label
        self.live = Live(console=console, refresh_per_second=4, transient=True)
        self.last = (time.monotonic(), 0)
        self.rate = 0.0

    def __enter__(self):
        self.live.__enter__()
        return self

    def __exit__(self, *exc):
        return self.live.__exit__(*exc)

    def __call__(self, phase: str, stats: Stats) -> None:
        now = time.monotonic()
        then, count = self.last
        if now - then >= 1:
            self.rate = (stats.moves_total - count) / (now - then)
            self.last = (now, stats.moves_total)
        errors = sum(stats.errors.values())
        p99 = percentile(stats.ack_ms[-2000:], 99)
        self.live.update(
            f"[bold]{self.label}[/]  {phase}  games {stats.games_started_total}  moves {stats.moves_total}"
            f"  {self.rate:6.0f} moves/s  ack p99 {fmt(p99)} ms"
            f"  errors [{'red' if errors else 'green'}]{errors}[/]"
        )


def fmt(value, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


# ------------------------------------------------------------------------------------------------------
# Report


def goals(options, results: list[dict]) -> list[tuple[str, str, str]]:
    """(goal, verdict, evidence) for each goal of issue 11, judged from this run's results."""
    base = next((r for r in results if r["kind"] == "baseline" and "moves_per_second" in r), None)
    shashki = [r for r in results if r["kind"] == "shashki" and "moves_per_second" in r]
    one = next((r for r in shashki if r["processes"] == 1), None)
    many = max((r for r in shashki if r["processes"] > 1), key=lambda r: r["processes"], default=None)
    postgres = bool(options.database_url and options.redis_url)
    human = options.think[0] >= 1
    out = []
    for key, text in GOALS:
        verdict, evidence = "not measured", ""
        if key == "sqlite-half" and base and one and not postgres:
            ratio = one["moves_per_second"] / max(base["moves_per_second"], 1e-9)
            evidence = f"{one['moves_per_second']:g} vs {base['moves_per_second']:g} moves/s = {ratio:.2f}"
            if options.think[1] > 0:
                evidence += " (with think time both follow the players: judged with --think 0)"
            else:
                verdict = "met" if ratio >= 0.5 else "NOT met"
        elif key == "sqlite-2000" and one and not postgres:
            p99 = one["ack_ms"]["p99"]
            think = f"{options.think[0]:g}-{options.think[1]:g}"
            evidence = f"{options.games} games, think {think} s: ack p99 {fmt(p99)} ms"
            if options.games >= 2000 and human:
                verdict = (
                    "met" if p99 is not None and p99 < SLOW_ACK_MS and not one["error_count"] else "NOT met"
                )
            else:
                evidence += " (needs --games 2000 --think 1-3)"
        elif key == "pg-2000" and one and postgres:
            evidence = f"{2 * options.games} sockets: {one['error_count']} errors"
            if options.games >= 1000:
                verdict = "met" if not one["error_count"] else "NOT met"
            else:
                evidence += " (needs --games 1000)"
        elif key == "startup" and one and "restart_seconds" in one:
            limit = 2 * one["start_seconds"] + 1
            verdict = "met" if one["restart_seconds"] <= limit else "NOT met"
            evidence = (
                f"fresh {one['start_seconds']:g} s, after the run {one['restart_seconds']:g} s "
                f"({one['games_started_total']} games in the database)"
            )
        elif key == "scale" and one and many:
            ratio = many["moves_per_second"] / max(one["moves_per_second"], 1e-9)
            evidence = (
                f"{many['processes']} processes {many['moves_per_second']:g} vs 1 process "
                f"{one['moves_per_second']:g} moves/s = {ratio:.2f}"
            )
            if options.think[1] > 0:
                evidence += " (judged at saturation: --think 0)"
            else:
                verdict = "met" if ratio >= 1.25 else "NOT met"
        out.append((text, verdict, evidence))
    return out


def report(options, results: list[dict], console) -> None:
    from rich.table import Table

    setting = (
        f"{options.games} games, think {options.think[0]:g}-{options.think[1]:g} s, {options.variant}, "
        f"{'clock ' + '+'.join(f'{v:g}' for v in options.clock) if options.clock else 'no clock'}, "
        f"{'rated, ' if options.rated else ''}window {options.duration:g} s, "
        + ("PostgreSQL + Redis" if options.database_url else "SQLite, events in process")
        + f", {os.cpu_count()} cores"
    )
    table = Table(title=f"Server load: {setting}")
    for column in (
        "app",
        "moves/s",
        "× base",
        "ack p50/p95/p99/max ms",
        "acks >100 ms",
        "delivery p50/p95/p99/max ms",
        "games started/ended",
        "errors",
        "server CPU",
        "CPU ms/move",
        "server RSS MB",
        "client CPU",
    ):
        table.add_column(column, justify="left" if column == "app" else "right", no_wrap=True)
    base = next((r for r in results if r["kind"] == "baseline" and "moves_per_second" in r), None)
    for r in results:
        if "moves_per_second" not in r:
            table.add_row(r["label"], *["-"] * 6, r.get("error", "failed"), *["-"] * 4)
            continue
        ratio = (
            f"{r['moves_per_second'] / base['moves_per_second']:.2f}"
            if base and base["moves_per_second"]
            else "-"
        )
        latency = "/".join(fmt(r["ack_ms"][k]) for k in ("p50", "p95", "p99", "max"))
        delivery = "/".join(fmt(r["delivery_ms"][k]) for k in ("p50", "p95", "p99", "max"))
        errors = f"{r['error_count']:,}"
        table.add_row(
            r["label"],
            fmt(r["moves_per_second"], 1),
            ratio,
            latency,
            f"{r['acks_over_100ms']:,} of {r['ack_ms']['count']:,}",
            delivery,
            f"{r['games_started']}/{r['games_finished']}",
            errors,
            f"{r['server_cpu_cores'] * 100:.0f}%",
            fmt(r.get("server_cpu_ms_per_move"), 2),
            fmt(r["server_peak_rss_mb"]),
            f"{r['client_cpu_cores'] * 100:.0f}%",
        )
    console.print(table)
    for r in results:
        if "moves_per_second" in r:
            extra = f", restart {r['restart_seconds']:g} s" if "restart_seconds" in r else ""
            console.print(
                f"  {r['label']}: start {r.get('start_seconds', 0):g} s{extra}; setup of "
                f"{r['players']} accounts {r['setup_seconds']:g} s; every pair playing after "
                f"{r['ramp_seconds']:g} s{'' if r['all_games_started'] else ' (ramp timed out)'}; "
                f"game creation p50/p99 {fmt(r['game_setup_ms']['p50'])}/"
                f"{fmt(r['game_setup_ms']['p99'])} ms; "
                f"{r['states_checked']:,} states checked against the rules; "
                f"{r.get('bytes_per_move', 0):,} bytes received by the players a move; the load "
                f"generator's own event-loop lag p50/p99/max {lag_text(r.get('client_lag_ms'))} ms (part "
                "of every latency measured)"
            )
    for r in results:
        for kind, count in sorted(r.get("errors", {}).items()):
            console.print(f"  [red]{r['label']} error[/]: {kind}: {count:,}")
        if r.get("server_log_problems"):
            where = r.get("logs") or r.get("workdir")
            problems = r["server_log_problems"]
            console.print(f"  [red]{r['label']} server log[/]: {problems} tracebacks/ERROR lines in {where}")
    if any(r.get("client_cpu_cores", 0) > 0.9 for r in results):
        console.print("  [yellow]the load generator used ≥ 90% of a core: the client may be the limit[/]")
    if options.database_url:
        console.print(
            "  Server CPU and RSS count the server processes only, not PostgreSQL or Redis; the PostgreSQL"
            " of scripts/test-services.sh runs with fsync=off."
        )
    goal_table = Table(title="Goals of issue 11")
    for column in ("goal", "verdict", "this run"):
        goal_table.add_column(column)
    for text, verdict, evidence in goals(options, results):
        colour = {"met": "green", "NOT met": "red"}.get(verdict, "dim")
        goal_table.add_row(text, f"[{colour}]{verdict}[/]", evidence)
    console.print(goal_table)


def parse_think(text: str) -> tuple[float, float]:
    low, _, high = text.partition("-")
    low_s, high_s = float(low), float(high or low)
    if low_s < 0 or high_s < low_s:
        raise argparse.ArgumentTypeError("think time: SECONDS or LOW-HIGH, 0 ≤ LOW ≤ HIGH")
    return low_s, high_s


def parse_clock(text: str) -> tuple[float, int] | None:
    if text in ("", "none"):
        return None
    minutes, _, increment = text.partition("+")
    return float(minutes), int(increment or 0)


def parse_processes(text: str) -> list[int]:
    counts = [int(p) for p in text.split(",") if p.strip()]
    if not counts or any(c < 1 for c in counts):
        raise argparse.ArgumentTypeError("processes: a comma-separated list of counts ≥ 1")
    return counts


def loopback_only(url: str | None, option: str) -> None:
    if url and not re.search(r"@?(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(/|$)", url):
        raise SystemExit(f"{option}: this benchmark runs only against loopback services ({url})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="concurrent games (2 players each); default 50")
    parser.add_argument(
        "--think", type=parse_think, default=(1.0, 3.0), help="seconds, LOW-HIGH; default 1-3"
    )
    parser.add_argument("--duration", type=float, default=30, help="measured seconds; default 30")
    parser.add_argument("--variant", default="russian-giveaway")
    parser.add_argument("--clock", type=parse_clock, default=None, help="MINUTES+INCREMENT; default none")
    parser.add_argument("--rated", action="store_true", help="rated games (with --clock): ends move ratings")
    parser.add_argument("--target", choices=("both", "shashki", "baseline"), default="both")
    parser.add_argument(
        "--processes", type=parse_processes, default=[1], help="e.g. 1,2 (needs Redis for >1)"
    )
    parser.add_argument("--database-url", default=None, help="PostgreSQL server (a fresh database per run)")
    parser.add_argument("--redis-url", default=None)
    parser.add_argument("--setup-concurrency", type=int, default=16, help="HTTP requests in flight in setup")
    parser.add_argument("--ramp-timeout", type=float, default=180, help="longest wait for every first game")
    parser.add_argument("--drain", type=float, default=5, help="seconds to wait for the last acks")
    parser.add_argument("--stall-seconds", type=float, default=30, help="a game silent this long has stalled")
    parser.add_argument(
        "--no-compression", action="store_true", help="no permessage-deflate (browsers use it)"
    )
    parser.add_argument("--no-restart-check", dest="restart_check", action="store_false")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the temporary data directories and logs")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    parser.add_argument("--serve-baseline", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, default=None, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.serve_baseline:
        serve_baseline(options.port, options.data)
        return 0
    loopback_only(options.database_url, "--database-url")
    loopback_only(options.redis_url, "--redis-url")
    if max(options.processes) > 1 and not options.redis_url:
        parser.error("more than one process needs --redis-url (events between processes)")
    if max(options.processes) > 1 and not options.database_url:
        parser.error("more than one process needs --database-url (SQLite is one process's store)")
    if options.games < 1 or options.duration <= 0:
        parser.error("--games and --duration must be positive")
    if options.rated and not options.clock:
        parser.error("--rated needs --clock (a game without a clock is not rated): e.g. --clock 5+3")
    if options.seed is not None:
        random.seed(options.seed)
    with contextlib.suppress(ImportError, ValueError, OSError):  # sockets: 2 a player, client and server
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = 8 * options.games + 1024
        if soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want if hard < 0 else min(want, hard), hard))
    with contextlib.suppress(ImportError):  # the load generator's own loop as fast as the server's
        import uvloop

        uvloop.install()

    from rich.console import Console

    console = Console(stderr=True)
    out = Console(width=max(Console().width, 190))
    targets = []
    if options.target in ("both", "baseline"):
        targets.append(Target("bare baseline", "baseline"))
    if options.target in ("both", "shashki"):
        for count in options.processes:
            targets.append(Target(f"shashki ×{count}" if count > 1 else "shashki", "shashki", count))
    results = []
    for target in targets:
        try:
            results.append(asyncio.run(measure(options, target, console)))
        except Exception as error:  # report what ran; a server that fails to start is a finding
            results.append(
                {
                    "label": target.label,
                    "kind": target.kind,
                    "processes": target.processes,
                    "error": f"{type(error).__name__}: {str(error)[:300]}",
                }
            )
            console.print(f"[red]{target.label} failed:[/] {error}")
    report(options, results, out)
    if options.json:
        options.json.write_text(json.dumps({"options": describe(options), "results": results}, indent=1))
    return 0 if all("moves_per_second" in r for r in results) else 1


def describe(options) -> dict:
    return {
        "games": options.games,
        "think": list(options.think),
        "duration": options.duration,
        "variant": options.variant,
        "clock": list(options.clock) if options.clock else None,
        "rated": options.rated,
        "processes": options.processes,
        "database": "postgresql" if options.database_url else "sqlite",
        "redis": bool(options.redis_url),
        "cpu_count": os.cpu_count(),
    }


if __name__ == "__main__":
    sys.exit(main())
