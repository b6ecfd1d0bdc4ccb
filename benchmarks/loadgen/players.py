"""One scripted player (`Seat`) in one game (`GameSession`), and the figures the players collect (`Stats`).

A player keeps its own `shashki.rules.Game`, brought up to date from the moves the server sends, plays a
random legal move after a think time, and checks every state it receives against its own game."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import orjson

from shashki.rules import Move, Position

if TYPE_CHECKING:
    from loadgen.driver import LoadRun


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(values: list[float]) -> dict:
    return {
        "count": len(values),
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "p99": percentile(values, 99),
        "max": max(values) if values else None,
    }


COUNTS = ("moves_sent", "moves_acked", "moves_total", "games_started", "games_finished",
          "games_started_total", "states_checked", "bytes_received")  # fmt: skip
SAMPLES = ("ack_ms", "delivery_ms", "game_setup_ms", "client_lag_ms")


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

    @classmethod
    def combined(cls, parts: list[Stats]) -> Stats:
        """The figures of several load generator processes over one window, as one."""
        total = cls(window_start=parts[0].window_start, window_end=parts[0].window_end)
        for part in parts:
            for name in COUNTS:
                setattr(total, name, getattr(total, name) + getattr(part, name))
            for name in SAMPLES:
                getattr(total, name).extend(getattr(part, name))
            total.errors.update(part.errors)
        return total


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
                message = orjson.loads(raw)  # the stdlib's was 6% of the generator's CPU
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
            self.finish()

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
            # A move the rules know by this notation is played as that move; anything else goes through
            # the rules' parser, which says why it is refused.
            known = None if self.game.is_over else session.known(self.game.position).named.get(text)
            try:
                self.game.play(known if known is not None else text)
            except IllegalMove as error:
                stats.errors[f"server sent a move the rules refuse ({error.code})"] += 1
                self.finish()
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
            self.finish()
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
        known = self.session.known(self.game.position)
        if state.get("fen") != known.fen:
            stats.errors["the server's position differs from the rules"] += 1
            return
        if state.get("status") == "started":
            mine = [] if self.game.is_over else known.notations
            theirs = sorted(m["move"] for m in state.get("legal_moves", []))
            if mine != theirs:
                stats.errors["the server's legal moves differ from the rules"] += 1

    def finish(self) -> None:
        """This player has seen the end (or can go no further): its game's watcher is told."""
        self.done.set()
        self.session.wake.set()

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
            self.finish()

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
                self.finish()

    def on_error(self, message: dict) -> None:
        error = message.get("error") or {}
        self.run.stats.errors[f"server error {error.get('code')}"] += 1
        entry = self.pending.pop(message.get("id"), None)
        if entry is not None:  # a refused move: ask for the state again and play from it
            self.scheduled_ply = -1
            asyncio.get_running_loop().create_task(self.ws.send(json.dumps({"type": "resync"})))


@dataclass(frozen=True, slots=True)
class Known:
    """What the rules say of a position: its FEN, its legal moves' notations (sorted), and the moves by
    notation."""

    fen: str
    notations: list[str]
    named: dict[str, Move]


class GameSession:
    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.sent: dict[int, float] = {}  # ply -> when its move was sent
        self.progress = time.monotonic()
        self.closing = False
        self.wake = asyncio.Event()  # set when a player is done, the run stops, or the game may stall
        self._known: dict[Position, Known] = {}

    def known(self, position: Position) -> Known:
        """The rules' answers for a position, worked out once for both players of the game (a pure
        function of the position: each player's own game still decides which position it is in)."""
        found = self._known.get(position)
        if found is None:
            moves = position.legal_moves()
            texts = [m.notation(position.variant) for m in moves]
            named = dict(zip(texts, moves, strict=True))
            found = self._known[position] = Known(position.fen(), sorted(texts), named)
        return found
