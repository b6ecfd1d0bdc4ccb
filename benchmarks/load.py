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

The players run in this script's own process (the default, `--clients 1`), or in `--clients N` spawned
processes that share the games and move through the phases above together (benchmarks/loadgen/clients.py):
one process's event loop, busy with thousands of sockets, adds its own lag to every latency it measures.
On a machine with few cores the load generator's processes take the server's CPU instead; `--pin` keeps
them apart (the servers on the upper half of the cores, the load generator, spawned even with one
process, on the lower half, as if the players were elsewhere).

The baseline (`--serve-baseline`, started by this script) is the least a durable game server must do per
move: a FastAPI + uvicorn app that, for each move, runs one SQLite INSERT and commit (WAL, synchronous=NORMAL,
as Shashki's SQLite), sends an ack to the mover and a ~2 KB JSON state to the opponent. It speaks the subset
of Shashki's protocol the load generator uses (accounts, tokens, challenges, game sockets) and checks no
rules: its players know the end of a game from their own rules game.

PostgreSQL + Redis: `--database-url` and `--redis-url` (e.g. from `scripts/test-services.sh start`, whose
PostgreSQL runs with fsync=off: say so next to figures). A fresh database is created on that server for each
run and dropped afterwards. `--processes 1,2` runs Shashki once with one process and once with two on
different ports sharing the database and Redis, each pair's two players on different processes. On a
machine with fewer cores than the servers, PostgreSQL, Redis and the load generator need, the processes
only take CPU from each other: `--cpu-quota C` holds each server process (the baseline's too) to C cores'
worth of CPU time in a cgroup of its own, as if each ran on a machine of its own, so that whether capacity
grows with processes can be seen here. Each Shashki line also prints the capacity model checked against
the run: N processes × C cores (one without a quota) / the CPU ms a move cost = the most they can carry.

After each Shashki run the server is started once more on the data the run left (games cut off mid-play
included) and the time to answer /health is compared with the fresh start (the goal that start-up does not
grow with the history). The goals of issue 11 are printed next to the figures with whether each is met.
Runs only against 127.0.0.1, and stops by itself (`--duration`, `--ramp-timeout`, `--drain`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # the parts: benchmarks/loadgen

from loadgen.baseline import serve_baseline  # noqa: E402
from loadgen.clients import ClientFailed, Clients, shares  # noqa: E402
from loadgen.driver import LoadRun  # noqa: E402
from loadgen.players import Account, GameSession, Seat, Stats  # noqa: E402
from loadgen.report import Progress, capacity_model, goals, report  # noqa: E402
from loadgen.servers import (  # noqa: E402
    SERVER_ENV,
    CpuGroup,
    ServerProcess,
    cpu_cgroup_root,
    database_with_name,
    free_port,
    on_cpus,
    postgres_admin,
    server_log_problems,
    split_cpus,
)

# What tests/test_benchmarks_load.py reads from the script.
__all__ = [
    "Account", "ClientFailed", "Clients", "CpuGroup", "GameSession", "LoadRun", "Seat", "Stats",
    "capacity_model", "cpu_cgroup_root", "free_port", "goals", "main", "on_cpus", "shares", "split_cpus",
]  # fmt: skip


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
            servers = [
                ServerProcess(command, env, workdir / "baseline.log", options.server_cpus, options.cpu_quota)
            ]
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
                ServerProcess(
                    command, env, workdir / f"server{i}.log", options.server_cpus, options.cpu_quota
                )
                for i in range(target.processes)
            ]
        for server in servers:  # one at a time: the first runs the migrations
            await asyncio.to_thread(server.start)
        result["start_seconds"] = round(max(s.start_seconds for s in servers), 2)
        with Progress(console, target.label) as progress:
            clients = Clients(
                options, [s.url for s in servers], target.kind == "shashki", options.clients, progress
            )
            result.update(await clients.run(servers))
        if options.cpu_quota:
            result["cpu_quota"] = options.cpu_quota
            result["server_throttled_seconds"] = round(sum(s.throttled_seconds() for s in servers), 2)
        for server in servers:
            server.stop()
        result["server_log_problems"] = sum(server_log_problems(s.log) for s in servers)
        if target.kind == "shashki" and options.restart_check:
            again = ServerProcess(command, env, workdir / "restart.log", options.server_cpus)
            await asyncio.to_thread(again.start)
            again.stop()
            result["restart_seconds"] = round(again.start_seconds, 2)
        if (result.get("server_log_problems") or result.get("errors")) and not options.keep:
            # What went wrong stays readable after the data directory is removed (a client's error, a 503
            # among them, has its cause in the server's log as a warning).
            logs = Path(tempfile.mkdtemp(prefix=f"shashki-load-logs-{target.kind}-"))
            for server in servers:
                shutil.copy(server.log, logs / server.log.name)
            result["logs"] = str(logs)
    finally:
        for server in servers:
            server.stop()
        if database and options.keep:
            result["database"] = database
        elif database:
            with contextlib.suppress(Exception):
                await postgres_admin(
                    options.database_url, f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'
                )
        if not options.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            result["workdir"] = str(workdir)
    return result


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
    parser.add_argument(
        "--clients", type=int, default=1, help="load generator processes sharing the games; default 1"
    )
    parser.add_argument(
        "--pin", action="store_true",
        help="servers on the upper half of the cores, the load generator on the lower half",
    )  # fmt: skip
    parser.add_argument(
        "--cpu-quota", type=float, default=None, metavar="CORES",
        help="each server process (the baseline's too) held to CORES cores' worth of CPU time in a cgroup of "
        "its own, as if on a machine of its own (needs a writable CPU cgroup: root)",
    )  # fmt: skip
    parser.add_argument("--setup-concurrency", type=int, default=16, help="HTTP requests in flight in setup")
    parser.add_argument("--ramp-timeout", type=float, default=180, help="longest wait for every first game")
    parser.add_argument("--drain", type=float, default=5, help="seconds to wait for the last acks")
    parser.add_argument("--stall-seconds", type=float, default=30, help="a game silent this long has stalled")
    parser.add_argument(
        "--no-compression", action="store_true", help="no permessage-deflate (browsers use it)"
    )
    parser.add_argument("--no-restart-check", dest="restart_check", action="store_false")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary data directories, logs, PostgreSQL databases"
    )
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
    if options.clients < 1:
        parser.error("--clients must be at least 1")
    if options.cpu_quota is not None and options.cpu_quota <= 0:
        parser.error("--cpu-quota must be more than 0 cores")
    options.server_cpus, options.client_cpus = split_cpus() if options.pin else (None, None)
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
        "clients": options.clients,
        "cpu_quota": options.cpu_quota,
        "pinned": {"servers": sorted(options.server_cpus), "clients": sorted(options.client_cpus)}
        if options.pin
        else None,
        "database": "postgresql" if options.database_url else "sqlite",
        "redis": bool(options.redis_url),
        "cpu_count": os.cpu_count(),
    }


if __name__ == "__main__":
    sys.exit(main())
