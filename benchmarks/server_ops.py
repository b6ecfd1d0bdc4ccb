"""Server CPU per operation, one operation at a time: Shashki against the bare baseline (issue 11).

    python benchmarks/server_ops.py [--games 60] [--sockets 300] [--variant russian-giveaway]

`benchmarks/load.py` measures the whole mix under load; this script takes it apart, to show where a
move's CPU goes. Each app (the bare baseline of benchmarks/loadgen/baseline.py, then Shashki on SQLite
with events in process) runs in a process of its own on a free loopback port; one client in this process
does one thing at a time and the server's CPU time (psutil: user + system) is read around each kind of
operation:

- **a game's start**: a challenge and its acceptance over HTTP (`--games` of them, one after the other);
- **a game socket**: `/ws/games/{id}` opened, its first state read, closed (`--sockets` times);
- **a move**: sent on the mover's socket, its ack and the new state (or patch) received on both sockets,
  one move at a time over whole games of random legal moves (`--games` games; the baseline's games last
  as many moves as Shashki's, its players knowing the end from their own rules game).

Printed: the CPU milliseconds each operation costs the server in each app and their ratio, and the moves
a game lasted, so that a game's start and sockets can be counted per move as `load.py`'s mix has them.
One operation at a time is not load: no two moves share a COMMIT (storage/group.py) or a turn of the
event loop, so a move costs more here than in `load.py`'s runs. The CPU clock ticks every 10 ms: each
figure is the sum over many operations divided by their number.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loadgen.servers import SERVER_ENV, ServerProcess  # noqa: E402


class Measured:
    """The server's CPU seconds spent in each kind of operation."""

    def __init__(self, server: ServerProcess) -> None:
        import psutil

        assert server.process is not None
        self.process = psutil.Process(server.process.pid)
        self.seconds: dict[str, float] = {}
        self.counts: dict[str, int] = {}
        self.run: list[tuple[float, float]] = []  # (user, system) seconds when the run began and ended

    def reset(self) -> None:
        """Forget what the warm-up spent: the measured run begins."""
        self.seconds.clear()
        self.counts.clear()
        self.run = [self._times()]

    def finish(self) -> None:
        self.run.append(self._times())

    def _times(self) -> tuple[float, float]:
        times = self.process.cpu_times()
        return times.user, times.system

    def system_share(self) -> float:
        """The kernel's part of the server's CPU over the measured run (its sockets' reads and writes)."""
        (user0, system0), (user1, system1) = self.run
        spent = (user1 - user0) + (system1 - system0)
        return (system1 - system0) / spent if spent > 0 else 0.0

    def cpu(self) -> float:
        times = self.process.cpu_times()
        return times.user + times.system

    def add(self, kind: str, seconds: float, count: int) -> None:
        self.seconds[kind] = self.seconds.get(kind, 0.0) + seconds
        self.counts[kind] = self.counts.get(kind, 0) + count

    def ms(self, kind: str) -> float:
        return 1000 * self.seconds.get(kind, 0.0) / max(1, self.counts.get(kind, 0))


class Client:
    """Two accounts on one app, and the operations measured."""

    def __init__(self, server: ServerProcess, kind: str, variant: str) -> None:
        import httpx

        self.server = server
        self.kind = kind
        self.variant = variant
        self.http = httpx.Client(base_url=server.url, timeout=30)
        self.ws_url = server.url.replace("http://", "ws://")
        self.measured = Measured(server)
        self.plies: list[int] = []

    def account(self, name: str) -> dict[str, str]:
        credentials = {"username": name, "password": f"pw-{name}-long-enough"}
        answer = self.http.post("/api/auth/register", json=credentials)
        answer.raise_for_status()
        answer = self.http.post("/api/auth/login", json=credentials)
        answer.raise_for_status()
        session = {
            "Cookie": answer.headers["set-cookie"].split(";")[0],
            "X-CSRF-Token": answer.json()["csrf_token"],
        }
        answer = self.http.post(
            "/api/account/tokens", json={"description": "ops", "scopes": ["board:play"]}, headers=session
        )
        answer.raise_for_status()
        return {"Authorization": "Bearer " + answer.json()["token"]}

    def start(self, white: dict[str, str], black: dict[str, str], black_name: str) -> str:
        """A game by challenge and acceptance."""
        terms = {"username": black_name, "color": "white", "variant": self.variant}
        answer = self.http.post("/api/challenges", json=terms, headers=white)
        answer.raise_for_status()
        number = answer.json()["challenge"]["id"]
        answer = self.http.post(f"/api/challenges/{number}/accept", headers=black)
        answer.raise_for_status()
        return answer.json()["game"]["id"]

    def starts(self, white: dict[str, str], black: dict[str, str], black_name: str, times: int) -> list[str]:
        """`times` games started one after the other (measured together: the CPU clock's tick is 10 ms)."""
        began = self.measured.cpu()
        game_ids = [self.start(white, black, black_name) for _ in range(times)]
        self.measured.add("start", self.measured.cpu() - began, times)
        return game_ids

    async def socket(self, game_id: str, headers: dict[str, str]):
        from websockets.asyncio.client import connect

        ws = await connect(
            f"{self.ws_url}/ws/games/{game_id}",
            additional_headers=headers,
            ping_interval=None,
            max_size=2**22,
        )
        while True:
            message = json.loads(await ws.recv())
            if message.get("type") == "state":
                return ws, message

    async def open_and_close(self, game_id: str, headers: dict, opponent: dict, times: int) -> None:
        """The game socket opened, its state read, closed (measured), while the opponent's stays open (the
        baseline forgets a game when its last socket closes), read in the background."""
        held, _state = await self.socket(game_id, opponent)

        async def drain() -> None:
            async for _message in held:
                pass

        reader = asyncio.create_task(drain())
        began = self.measured.cpu()
        for _ in range(times):
            ws, _state = await self.socket(game_id, headers)
            await ws.close()
        await asyncio.sleep(0.2)  # the server's side of the last close
        self.measured.add("socket", self.measured.cpu() - began, times)
        await held.close()
        await reader

    async def game(self, game_id: str, white: dict[str, str], black: dict[str, str], rng) -> None:
        """A whole game of random legal moves, one at a time (each move measured)."""
        from shashki.rules import Game

        sockets = {
            "white": (await self.socket(game_id, white))[0],
            "black": (await self.socket(game_id, black))[0],
        }
        await asyncio.sleep(0.1)
        for ws in sockets.values():  # what the opening sent besides the state (presence)
            while True:
                try:
                    await asyncio.wait_for(ws.recv(), 0.02)
                except TimeoutError:
                    break
        rules = Game(self.variant)
        spent = 0.0
        while not rules.is_over:
            mover = rules.position.side_to_move.value
            move = rng.choice(rules.legal_moves())
            notation = move.notation(rules.variant)
            began = self.measured.cpu()
            await sockets[mover].send(
                json.dumps({"type": "move", "move": notation, "ply": rules.ply, "id": rules.ply})
            )
            await self._until(sockets[mover], ("ack",) if self.kind == "baseline" else ("ack", "changed"))
            other = sockets["black" if mover == "white" else "white"]
            await self._until(other, ("changed",))
            spent += self.measured.cpu() - began
            rules.play(move)
        self.measured.add("move", spent, rules.ply)
        self.plies.append(rules.ply)
        for ws in sockets.values():
            await ws.close()

    async def _until(self, ws, wanted: tuple[str, ...]) -> None:
        """Read until each kind wanted has come: `ack`, and `changed` (a state or a patch)."""
        missing = set(wanted)
        while missing:
            message = json.loads(await ws.recv())
            kind = message.get("type")
            if kind == "error":
                raise RuntimeError(f"{self.kind}: {message}")
            missing.discard("changed" if kind in ("state", "patch") else kind)


async def run_app(kind: str, options) -> Client:
    work = Path(tempfile.mkdtemp(prefix=f"shashki-ops-{kind}-"))
    env = {**os.environ, **SERVER_ENV, "PYTHONUNBUFFERED": "1"}
    for name in ("DATABASE_URL", "REDIS_URL", "SHASHKI_DATA"):
        env.pop(name, None)
    if kind == "baseline":
        load = str(Path(__file__).with_name("load.py"))
        command = [sys.executable, load, "--serve-baseline", "--data", str(work)]
    else:
        command = [sys.executable, "-m", "shashki.server", "--data", str(work / "data")]
    server = await asyncio.to_thread(ServerProcess(command, env, work / "server.log").start)
    try:
        client = Client(server, kind, options.variant)
        white, black = client.account("ops_white"), client.account("ops_black")
        rng = random.Random(options.seed)
        for game_id in client.starts(white, black, "ops_black", 3):  # warm-up: not counted
            await client.game(game_id, white, black, rng)
        client.measured.reset()
        client.plies.clear()
        rng = random.Random(options.seed)
        for game_id in client.starts(white, black, "ops_black", options.games):
            await client.game(game_id, white, black, rng)
        game_id = client.start(white, black, "ops_black")
        await client.open_and_close(game_id, white, black, options.sockets)
        client.measured.finish()
        return client
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60, help="games played, one move at a time")
    parser.add_argument("--sockets", type=int, default=300, help="game sockets opened and closed")
    parser.add_argument("--variant", default="russian-giveaway")
    parser.add_argument("--seed", type=int, default=2026, help="the random moves' seed (both apps)")
    options = parser.parse_args()
    from rich.console import Console
    from rich.table import Table

    console = Console()
    began = time.monotonic()
    with console.status("the bare baseline…"):
        bare = asyncio.run(run_app("baseline", options))
    with console.status("Shashki…"):
        shashki = asyncio.run(run_app("shashki", options))
    table = Table(title=f"Server CPU per operation, one at a time ({options.variant})")
    table.add_column("operation")
    table.add_column("shashki ms", justify="right")
    table.add_column("bare app ms", justify="right")
    table.add_column("× bare", justify="right")
    labels = {
        "start": "a game's start (challenge + accept)",
        "socket": "a game socket (open, first state, close)",
        "move": "a move (ack and the new state on both sockets)",
    }
    for kind, label in labels.items():
        mine, theirs = shashki.measured.ms(kind), bare.measured.ms(kind)
        table.add_row(label, f"{mine:.3f}", f"{theirs:.3f}", f"{mine / theirs:.1f}" if theirs else "-")
    plies = sum(shashki.plies) / max(1, len(shashki.plies))
    per_move = {
        app: (c.measured.ms("start") + 2 * c.measured.ms("socket")) / plies + c.measured.ms("move")
        for app, c in (("shashki", shashki), ("bare", bare))
    }
    table.add_row(
        f"a move with its game's start and two sockets ({plies:.1f} moves a game)",
        f"{per_move['shashki']:.3f}",
        f"{per_move['bare']:.3f}",
        f"{per_move['shashki'] / per_move['bare']:.1f}" if per_move["bare"] else "-",
    )
    console.print(table)
    console.print(
        f"  {len(shashki.plies)} games each, {options.sockets} sockets each;"
        f" {time.monotonic() - began:.0f} s."
        " One operation at a time: no group commit, no shared turns of the event loop (load.py has those)."
    )
    console.print(
        f"  system (kernel) time: {shashki.measured.system_share():.0%} of Shashki's CPU over the run,"
        f" {bare.measured.system_share():.0%} of the bare app's. A profiler that samples threads (py-spy)"
        " counts a thread preempted inside a write to loopback (the client woken) as running: its share of"
        " samples in the sends can be far above this."
    )


if __name__ == "__main__":
    main()
