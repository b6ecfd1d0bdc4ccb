"""The load generator's processes (`--clients N`), driven in step.

One Python process with thousands of sockets is itself a busy event loop: at 2,000 human-paced games its
own lag reached a p99 of ~80 ms, and every latency it measured included it. The games are therefore
shared among `N` processes (spawned, each with its own event loop and its own `LoadRun`), which this
module starts and moves through the phases together over pipes: every process makes its accounts; then
all start their games at once (the ramp); when all have begun (or `--ramp-timeout` passed) the window is
opened for every process with the same bounds on `time.monotonic()`, which on Linux is one clock for the
whole machine; at its end each process stops its players, waits for their last acks and sends its
figures (`Stats`), which are added together here. The server's CPU and memory are measured from here.
With one process (the default) and no `--pin`, the players go through the same phases in the script's
own process, as they did before there was a choice.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import random
import threading
import time
import traceback
import uuid
from dataclasses import dataclass

from loadgen.driver import LoadRun
from loadgen.players import Stats, percentile, summary

PROGRESS_EVERY = 0.5  # seconds between a process's reports of its progress
SLOW_ACK_MS = 100.0


def shares(games: int, count: int) -> list[int]:
    """`games` split over at most `count` processes as evenly as can be, none empty."""
    count = max(1, min(count, games))
    return [games // count + (1 if i < games % count else 0) for i in range(count)]


@dataclass
class Snapshot:
    """What a load generator process reports while it runs (for the live status line)."""

    accounts: int = 0
    moves: int = 0
    games: int = 0
    errors: int = 0
    ack_p99: float | None = None

    @classmethod
    def of(cls, run: LoadRun) -> Snapshot:
        stats = run.stats
        recent = percentile(stats.ack_ms[-1000:], 99)
        errors = sum(stats.errors.values())
        return cls(run.accounts_done, stats.moves_total, stats.games_started_total, errors, recent)


class ClientFailed(RuntimeError):
    pass


class Channel:
    """The messages of one end of a pipe, read by a thread of its own (the pipe stays blocking: an event
    loop's reader would make it non-blocking, and a long message would then be cut): `expect(kind)` waits
    for the next message of that kind; progress reports on the way are kept in `snapshot`."""

    def __init__(self, conn) -> None:
        self.conn = conn
        self.queue: asyncio.Queue = asyncio.Queue()
        self.snapshot = Snapshot()
        self.loop = asyncio.get_running_loop()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while True:
                message = self.conn.recv()
                self.loop.call_soon_threadsafe(self._arrived, message)
        except (EOFError, OSError):
            gone = ("gone", "the load generator process ended without its figures")
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting
                self.loop.call_soon_threadsafe(self._arrived, gone)

    def _arrived(self, message: tuple) -> None:
        if message[0] == "progress":
            self.snapshot = message[1]
        else:
            self.queue.put_nowait(message)

    async def expect(self, kind: str) -> tuple:
        while True:
            message = await self.queue.get()
            if message[0] == kind:
                return message
            if message[0] in ("failed", "gone", "stop"):
                raise ClientFailed(message[1])

    def send(self, *message) -> None:
        self.conn.send(message)


# ------------------------------------------------------------------------------------------------------
# One load generator process


def client_process(conn, options, urls: list[str], checks: bool, index: int, games: int, tag: str) -> None:
    """The body of one load generator process (started by `Clients`)."""
    try:
        if options.client_cpus:  # `--pin`: before any thread of this process is made
            os.sched_setaffinity(0, options.client_cpus)
        with contextlib.suppress(ImportError):  # the load generator's loop as fast as the server's
            import uvloop

            uvloop.install()
        if options.seed is not None:
            random.seed(options.seed * 1009 + index)
        asyncio.run(_client(conn, options, urls, checks, games, tag))
    except BaseException:
        with contextlib.suppress(OSError):
            conn.send(("failed", traceback.format_exc()))
    finally:
        conn.close()


async def cpu_over(start: float, end: float) -> float:
    """This process's CPU seconds from now to `end` (on `time.monotonic()`)."""
    import psutil

    me = psutil.Process()
    before = sum(me.cpu_times()[:2])
    await asyncio.sleep(max(0.0, end - time.monotonic()))
    return sum(me.cpu_times()[:2]) - before


async def _client(conn, options, urls: list[str], checks: bool, games: int, tag: str) -> None:
    channel = Channel(conn)
    last = 0.0

    def progress(run: LoadRun) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= PROGRESS_EVERY:
            last = now
            conn.send(("progress", Snapshot.of(run)))

    async def started() -> None:
        await run.all_started.wait()
        channel.send("started")

    run = LoadRun(options, urls, checks, progress, games=games, tag=tag)
    try:
        await run.setup()
        channel.send("accounts", len(run.accounts))
        await channel.expect("go")
        run.start_games()
        run.background.append(asyncio.create_task(started()))
        _, start, end = await channel.expect("window")
        cpu = asyncio.create_task(cpu_over(start, end))
        await run.play(start, end)
        channel.send("result", run.stats, await cpu)
    finally:
        await run.finish()


# ------------------------------------------------------------------------------------------------------
# The processes together


class Clients:
    """`count` load generator processes sharing `options.games` against the servers at `urls`. With one
    (and no `--pin`) the players run in this process, as they always did: no pipe, no second process."""

    def __init__(self, options, urls: list[str], checks: bool, count: int, progress=None) -> None:
        self.options = options
        self.urls = urls
        self.checks = checks
        self.sizes = shares(options.games, count)
        self.progress = progress
        self.phase = "starting the load generator"
        self.channels: list[Channel] = []
        self.processes: list = []
        self.here: LoadRun | None = None  # the players, when they run in this process
        self._window: list[asyncio.Task] = []

    async def run(self, servers) -> dict:
        tag = uuid.uuid4().hex[:5]
        if len(self.sizes) == 1 and not self.options.client_cpus:
            self.here = LoadRun(self.options, self.urls, self.checks, games=self.sizes[0], tag=tag)
            try:
                return await self.watched(servers)
            finally:
                for task in self._window:
                    task.cancel()
                await self.here.finish()
        context = multiprocessing.get_context("spawn")  # no copy of this process's loop or threads
        for index, games in enumerate(self.sizes):
            mine, theirs = context.Pipe()
            process = context.Process(
                target=client_process,
                args=(theirs, self.options, self.urls, self.checks, index, games, f"{tag}{index}x"),
                daemon=True,
            )
            process.start()
            theirs.close()
            self.processes.append(process)
            self.channels.append(Channel(mine))
        try:
            return await self.watched(servers)
        except ClientFailed as failure:
            for process in self.processes:
                await asyncio.to_thread(process.join, 5)
            codes = [process.exitcode for process in self.processes]
            raise ClientFailed(f"{failure} (exit codes {codes})") from None
        finally:
            for channel in self.channels:  # a process still waiting for a phase ends now
                with contextlib.suppress(OSError):
                    channel.send("stop", "the run was stopped")
            for process in self.processes:
                await asyncio.to_thread(process.join, 30)
                if process.is_alive():
                    process.kill()
            for channel in self.channels:
                channel.conn.close()

    async def watched(self, servers) -> dict:
        """`drive` with the progress ticker and the servers' sampler running beside it."""
        ticker = asyncio.create_task(self.tick())
        sampler = asyncio.create_task(self.sample(servers))
        try:
            return await self.drive(servers)
        finally:
            ticker.cancel()
            sampler.cancel()

    async def drive(self, servers) -> dict:
        options = self.options
        began = time.monotonic()
        self.phase = "accounts"
        players = await self.accounts()
        setup_seconds = time.monotonic() - began
        if players < 2:
            return {"error": "no accounts could be created"}
        self.phase = "starting games"
        ramp_began = time.monotonic()
        all_started = True
        try:
            await asyncio.wait_for(self.started(), options.ramp_timeout)
        except TimeoutError:
            all_started = False
        ramp_seconds = time.monotonic() - ramp_began
        start = time.monotonic()
        end = start + options.duration
        cpu_server = sum(s.cpu_seconds() for s in servers)
        self.open_window(start, end)
        while time.monotonic() < end:
            self.phase = f"measuring {time.monotonic() - start:4.0f}/{options.duration:g} s"
            await asyncio.sleep(min(0.5, max(0.0, end - time.monotonic())))
        cpu_server = sum(s.cpu_seconds() for s in servers) - cpu_server
        self.phase = "draining"
        results = await asyncio.wait_for(self.results(), options.drain + 120)
        stats = Stats.combined([message[1] for message in results])
        cpu_clients = [message[2] for message in results]
        window = end - start
        return {
            "games": options.games,
            "players": players,
            "client_processes": len(self.sizes),
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
            "client_cpu_cores": round(sum(cpu_clients) / window, 2),
            "client_cpu_busiest": round(max(cpu_clients) / window, 2),
            "client_lag_ms": summary(stats.client_lag_ms),
        }

    # -- the phases, in this process or over the pipes ----------------------------------------------------

    async def accounts(self) -> int:
        if self.here is not None:
            await self.here.setup()
            return len(self.here.accounts)
        return sum(message[1] for message in await self.gather("accounts"))

    async def started(self) -> None:
        if self.here is not None:
            self.here.start_games()
            await self.here.all_started.wait()
            return
        self.send_all("go")
        await self.gather("started")

    def open_window(self, start: float, end: float) -> None:
        if self.here is not None:
            self._window = [
                asyncio.create_task(self.here.play(start, end)),
                asyncio.create_task(cpu_over(start, end)),
            ]
            return
        self.send_all("window", start, end)

    async def results(self) -> list[tuple]:
        """("result", the figures, the CPU seconds in the window) of each load generator process."""
        if self.here is not None:
            await self._window[0]
            return [("result", self.here.stats, await self._window[1])]
        return await self.gather("result")

    async def gather(self, kind: str) -> list[tuple]:
        return list(await asyncio.gather(*(channel.expect(kind) for channel in self.channels)))

    def send_all(self, *message) -> None:
        for channel in self.channels:
            channel.send(*message)

    async def tick(self) -> None:
        while True:
            if self.progress is not None:
                here = [Snapshot.of(self.here)] if self.here is not None else []
                snapshots = here + [channel.snapshot for channel in self.channels]
                phase = self.phase
                if phase == "accounts":
                    phase = f"accounts {sum(s.accounts for s in snapshots)}/{2 * self.options.games}"
                self.progress(phase, snapshots)
            await asyncio.sleep(0.25)

    async def sample(self, servers) -> None:
        while True:
            for server in servers:
                server.sample_memory()
            await asyncio.sleep(0.5)
