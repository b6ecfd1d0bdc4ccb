"""Helpers of the server tests. A real server: `python -m shashki.server` on a free port of 127.0.0.1
in a subprocess (so that a test can kill it and start it again on the same data), with the waits of the
rules of play shortened through the environment. Clients: httpx (HTTP) and websockets, both synchronous.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

FAST = {
    "SHASHKI_DISCONNECT_CLAIM_SECONDS": "0.5",
    "SHASHKI_COMPUTER_DELAY_SECONDS": "0",
    "SHASHKI_LOGIN_ATTEMPTS": "1000",
    "SHASHKI_REGISTRATIONS": "1000",
    "SHASHKI_ARGON2_MEMORY_KIB": "1024",
    "SHASHKI_ARGON2_TIME_COST": "1",
    # One shared server serves every test from 127.0.0.1: limits per address and socket set wide.
    "SHASHKI_SOCKETS_PER_ADDRESS": "1000",
    "SHASHKI_LIMIT_SOCKET_MESSAGES": "1000/1",
    "SHASHKI_LIMIT_PUZZLE_MOVES": "10000/1",
    "SHASHKI_LIMIT_ANONYMOUS_SESSIONS": "10000/1",
    "SHASHKI_LIMIT_ANONYMOUS_GAMES": "10000/1",
    # Flag tests play 0.6 s clocks (0.01 minutes); the minimum stays above 1 ms to be tested here too.
    "SHASHKI_MIN_CLOCK_SECONDS": "0.5",
    # Computer analyses of games: a glance at each position is enough to test the flow.
    "SHASHKI_REVIEW_SECONDS_PER_MOVE": "0.02",
    # Analysis board searches of at most 3 s: generated requests (schemathesis) stay within their timeout.
    "SHASHKI_ANALYSIS_MAX_SECONDS": "3",
}
PASSWORD = "correct horse battery"


def database_url(database: str, tmp_path: Path) -> str:
    """A fresh SQLite file, or the shared PostgreSQL of `scripts/test-services.sh` (skipped without it):
    for tests parametrized over `["sqlite", "postgresql"]`."""
    if database == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}"
    url = os.environ.get("SHASHKI_TEST_DATABASE_URL")
    if not url:
        pytest.skip("needs SHASHKI_TEST_DATABASE_URL (scripts/test-services.sh)")
    return url


@contextlib.contextmanager
def fresh_database_url(database: str, tmp_path: Path) -> Iterator[str]:
    """A database of this test alone: a fresh SQLite file, or a new database on the PostgreSQL of
    `scripts/test-services.sh` (skipped without it), dropped afterwards — for what must start empty or
    at an older revision (the shared one is migrated and holds other tests' rows)."""
    if database == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}"
        return
    from sqlalchemy import text
    from sqlalchemy.engine import make_url
    from sqlalchemy.ext.asyncio import create_async_engine

    url = database_url(database, tmp_path)
    fresh = f"shashki_test_{uuid.uuid4().hex[:8]}"

    async def admin(statement: str) -> None:
        engine = create_async_engine(url, isolation_level="AUTOCOMMIT")
        async with engine.connect() as conn:
            await conn.execute(text(statement))
        await engine.dispose()

    asyncio.run(admin(f"CREATE DATABASE {fresh}"))
    try:
        yield make_url(url).set(database=fresh).render_as_string(False)
    finally:
        asyncio.run(admin(f"DROP DATABASE IF EXISTS {fresh} WITH (FORCE)"))


def counts_kept(path: Path) -> tuple[dict, dict]:
    """The players' counts of games a SQLite database keeps (games/tally.py), and those its games give."""
    from sqlalchemy import select

    from shashki.server.games import tally
    from shashki.server.games.models import PlayerTally
    from shashki.server.storage import Database

    async def read() -> tuple[dict, dict]:
        db = Database(f"sqlite+aiosqlite:///{path}")
        try:
            async with db.session() as s:
                rows = await s.scalars(select(PlayerTally))
                stored = {row.user_id: {k: getattr(row, k) for k in tally.COUNTS} for row in rows}
                return stored, await tally.recounted(s)
        finally:
            await db.close()

    return asyncio.run(read())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, data: Path, env: dict[str, str] | None = None) -> None:
        self.data = data
        self.env = {**os.environ, **FAST, **(env or {})}
        self.env.pop("DATABASE_URL", None)
        self.env.pop("REDIS_URL", None)
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.log = data / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> Server:
        self.data.mkdir(parents=True, exist_ok=True)
        with open(self.log, "a") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "shashki.server", "--port", str(self.port), "--data", str(self.data)],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 60  # a loaded machine can take long to import and migrate
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server died at start:\n{self.log.read_text()}")
            try:
                if httpx.get(self.url + "/health", timeout=0.5).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"the server did not answer /health:\n{self.log.read_text()}")

    def kill(self) -> None:
        """Kill the process at once, as a crash would (no shutdown hooks run)."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def eventually(action, accept, timeout: float = 5, pause: float = 0.05):
    """Repeat `action` until `accept(result)`, for waits that depend on the server's own clock."""
    deadline = time.monotonic() + timeout
    while True:
        result = action()
        if accept(result) or time.monotonic() > deadline:
            return result
        time.sleep(pause)


class Player:
    """An account logged in through the browser flow: session cookie plus the CSRF header."""

    def __init__(self, server: Server, name: str | None = None, *, bot: bool = False) -> None:
        self.server = server
        self.name = name or f"p_{uuid.uuid4().hex[:12]}"
        self.http = httpx.Client(base_url=server.url, timeout=10)
        account = {"username": self.name, "password": PASSWORD, "bot": bot}
        r = self.http.post("/api/auth/register", json=account)
        assert r.status_code == 201, r.text
        self.id = r.json()["user"]["id"]
        self.login()

    def login(self) -> None:
        r = self.http.post("/api/auth/login", json={"username": self.name, "password": PASSWORD})
        assert r.status_code == 200, r.text
        self.csrf = r.json()["csrf_token"]
        self.http.headers["X-CSRF-Token"] = self.csrf

    def post(self, path: str, body: dict | None = None) -> httpx.Response:
        return self.http.post(path, json=body or {})

    def token(self, *scopes: str) -> str:
        r = self.post("/api/account/tokens", {"scopes": list(scopes), "description": "tests"})
        assert r.status_code == 201, r.text
        return r.json()["token"]

    def socket(self, game_id: str) -> GameSocket:
        return GameSocket(self.server, game_id, cookie=self.http.cookies.get("shashki_session"))

    def challenge(self, other: Player, **terms) -> dict:
        """A game between self and other, self with `color` (default white), by challenge and accept."""
        terms.setdefault("color", "white")
        r = self.post("/api/challenges", {"username": other.name, **terms})
        assert r.status_code == 201, r.text
        r = other.post(f"/api/challenges/{r.json()['challenge']['id']}/accept")
        assert r.status_code == 200, r.text
        return r.json()["game"]

    def close(self) -> None:
        self.http.close()


def apply_patch(state: dict | None, seq: int, patch: dict) -> dict:
    """The state a game socket's patch makes of the state held (at `seq`): it must follow that state."""
    assert state is not None and patch["from"] == seq == state["seq"], (seq, patch)
    assert "moves" not in patch["set"], patch  # the moves only as those added
    return {**state, **patch["set"], "moves": state["moves"] + patch["append"]}


def first_moves(game_id: str, *players: Player) -> dict:
    """Each side's first move (the first legal one listed), made by whichever of `players` is to move: from
    then on a resignation or a draw is a result (before it the game is aborted instead). The game after."""
    game = players[0].http.get(f"/api/games/{game_id}").json()["game"]
    while game["ply"] < 2:
        mover = next(p for p in players if p.id == (game[game["side_to_move"]] or {}).get("id"))
        move = {"move": game["legal_moves"][0]["move"], "ply": game["ply"]}
        r = mover.post(f"/api/games/{game_id}/move", move)
        assert r.status_code == 200, r.text
        game = r.json()["game"]
    return game


def tree_of(nodes: list[dict]) -> dict:
    """An imported game's `nodes` (pre-order, each naming its parent's index) as a nested tree: each node
    with its `children`, the main continuation first. The root."""
    made = [dict(node, children=[]) for node in nodes]
    for node in made:
        if node["parent"] is not None:
            made[node["parent"]]["children"].append(node)
    return made[0]


async def first_moves_in(games, game_id: str, white_id: int, black_id: int) -> None:
    """`first_moves` through a game service in this process: c3-d4 and f6-g5, legal in every 8×8 variant
    from its start."""
    await games.move(white_id, game_id, "c3-d4", ply=0)
    await games.move(black_id, game_id, "f6-g5", ply=1)


class GameSocket:
    """A WebSocket on one game, keeping the latest state it was sent."""

    def __init__(self, server: Server, game_id: str, *, cookie: str | None = None, token: str | None = None):
        headers = {}
        if cookie:
            headers["Cookie"] = f"shashki_session={cookie}"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        # Entered as a context manager (closed in close()): websockets warns about bare connect() calls.
        # No keepalive pings: a test never idles for 20 s, and the pinging thread of a socket a failed test
        # left open would draw from the global `random` (the ping's payload) while hypothesis runs.
        url = f"{server.ws_url}/ws/games/{game_id}"
        self.ws = connect(url, additional_headers=headers, open_timeout=5, ping_interval=None)
        self.ws.__enter__()
        self.state: dict | None = None
        self.seq = 0
        self.kinds: list[str] = []  # the type of every message received, as sent
        self._ids = itertools.count(1)
        first = self.receive()
        assert first["type"] == "state", first

    def receive(self, timeout: float = 5) -> dict:
        """The next message; a patch is checked to follow the state held, applied, and returned as the
        state it makes (`"patched": True`), so that tests read every change as a state."""
        message = json.loads(self.ws.recv(timeout=timeout))
        self.kinds.append(message.get("type"))
        if message.get("type") == "patch":
            game = apply_patch(self.state, self.seq, message)
            message = {"type": "state", "seq": message["seq"], "game": game, "patched": True}
        if message.get("type") == "state":
            self.state = message["game"]
            self.seq = message["seq"]
        return message

    def wait(self, predicate, timeout: float = 5) -> dict:
        """Read messages until one matches; the deadline keeps a broken server from hanging the test."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no matching message within {timeout} s; last state {self.state}")
            message = self.receive(left)
            if predicate(message):
                return message

    def wait_state(self, predicate, timeout: float = 5) -> dict:
        if self.state is not None and predicate(self.state):
            return self.state
        return self.wait(lambda m: m.get("type") == "state" and predicate(m["game"]), timeout)["game"]

    def send(self, message: dict) -> int:
        request_id = next(self._ids)
        self.ws.send(json.dumps({**message, "id": request_id}))
        return request_id

    def request(self, message: dict, timeout: float = 5) -> dict:
        """Send an action and return its answer: an ack or an error."""
        request_id = self.send(message)
        return self.wait(lambda m: m.get("id") == request_id and m.get("type") in ("ack", "error"), timeout)

    def move(self, move: str, **extra) -> dict:
        return self.request({"type": "move", "move": move, **extra})

    def close(self) -> None:
        self.ws.close()


class PrivateRedis:
    """A Redis of one test alone, on a free port, that the test may stop and start again (an outage, a
    restart: it keeps no data across one); `url` points at it whether it runs or not."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        """Start it and wait until it answers."""
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        command += ["--appendonly", "no"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()


def at_once(*calls):
    """Run the calls in threads released together (a barrier): requests sent at the same moment, as
    racing clients send them. Their results, in order."""
    start = threading.Barrier(len(calls))

    def run(call):
        start.wait()
        return call()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))
