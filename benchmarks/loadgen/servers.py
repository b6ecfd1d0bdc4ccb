"""The processes under test: a server (Shashki or the baseline) on a free loopback port, measured with
psutil; and a fresh PostgreSQL database per run."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import time
from pathlib import Path

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """One server on a free loopback port, its output in `log`, measured with psutil."""

    def __init__(
        self, command: list[str], env: dict[str, str], log: Path, cpus: set[int] | None = None
    ) -> None:
        self.command = command
        self.env = env
        self.log = log
        self.cpus = cpus  # the cores it may run on (`--pin`); None: any
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
        with open(self.log, "a") as log, on_cpus(self.cpus):
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


def split_cpus() -> tuple[set[int], set[int]]:
    """`--pin`: the cores of this machine in two halves, the upper for the servers under test and the
    lower for the load generator (as if the players were on other machines: neither takes the other's
    CPU). Needs at least two cores."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise SystemExit("--pin needs at least two cores")
    half = len(cpus) // 2
    return set(cpus[half:]), set(cpus[:half])


@contextlib.contextmanager
def on_cpus(cpus: set[int] | None):
    """The calling thread on `cpus` for the block: a process it starts inherits them, with every thread
    that process makes (only this thread's cores change, not its process's other threads')."""
    if cpus is None:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


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
