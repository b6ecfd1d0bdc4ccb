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
        self,
        command: list[str],
        env: dict[str, str],
        log: Path,
        cpus: set[int] | None = None,
        quota: float | None = None,
    ) -> None:
        self.command = command
        self.env = env
        self.log = log
        self.cpus = cpus  # the cores it may run on (`--pin`); None: any
        self.quota = quota  # the cores' worth of CPU time it may use (`--cpu-quota`); None: no limit
        self.group: CpuGroup | None = None
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
        if self.quota is not None:  # before it answers: every thread and child it makes inherits it
            self.group = CpuGroup(self.quota, f"shashki-load-{os.getpid()}-{self.port}")
            self.group.add(self.process.pid)
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
        if self.group is not None:
            self.group.remove()
            self.group = None

    def throttled_seconds(self) -> float:
        """The time its CPU group held it back for having used its quota (0 without `--cpu-quota`)."""
        return self.group.throttled_seconds() if self.group else 0.0


class CpuGroup:
    """`--cpu-quota C`: a server process, its threads and children in a CPU cgroup of their own that may
    use C cores' worth of CPU time (the kernel's CFS bandwidth control: C × 100 ms in every 100 ms), as if
    each server process ran on a machine of its own with C cores. On a machine with fewer cores than the
    servers, the load generator and the databases need, it is how to see whether capacity grows with
    processes: each process is held to the same share, so more processes can only carry more by using more
    of the machine, not by taking the load generator's or each other's cores. cgroup v2 (`cpu.max`) or v1
    (`cpu.cfs_quota_us`); needs the right to make a cgroup (root in a container, or a delegated subtree)."""

    PERIOD_US = 100_000

    def __init__(self, cores: float, name: str) -> None:
        if cores <= 0:
            raise ValueError("a CPU quota must be more than 0 cores")
        self.parent, self.version = cpu_cgroup_root()
        self.path = self.parent / name
        quota = max(1000, round(cores * self.PERIOD_US))
        try:
            self.path.mkdir()
            if self.version == 2:
                (self.path / "cpu.max").write_text(f"{quota} {self.PERIOD_US}")
            else:
                (self.path / "cpu.cfs_period_us").write_text(str(self.PERIOD_US))
                (self.path / "cpu.cfs_quota_us").write_text(str(quota))
        except OSError as error:
            self.remove()
            raise SystemExit(f"--cpu-quota: cannot set a CPU cgroup up in {self.parent}: {error}") from error

    def add(self, pid: int) -> None:
        (self.path / "cgroup.procs").write_text(str(pid))

    def throttled_seconds(self) -> float:
        try:
            stat = dict(line.split() for line in (self.path / "cpu.stat").read_text().splitlines())
        except (OSError, ValueError):
            return 0.0
        if "throttled_usec" in stat:  # v2
            return int(stat["throttled_usec"]) / 1e6
        return int(stat.get("throttled_time", 0)) / 1e9  # v1: nanoseconds

    def remove(self) -> None:
        """The group goes once its processes have ended (a group still holding one cannot be removed)."""
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.1)


def cpu_cgroup_root() -> tuple[Path, int]:
    """Where this process may make a CPU cgroup, and the cgroup version there: a v2 hierarchy with the cpu
    controller (this process's own group in it, whose children get the controller), else v1's cpu
    hierarchy. A clear error when there is none to write to."""
    v2 = Path("/sys/fs/cgroup")
    if "cpu" in read(v2 / "cgroup.controllers").split():
        own = next(
            (line[3:] for line in read(Path("/proc/self/cgroup")).splitlines() if line.startswith("0::")),
            "/",
        )
        here = v2 / own.strip("/")
        if "cpu" not in read(here / "cgroup.subtree_control").split():
            with contextlib.suppress(OSError):
                (here / "cgroup.subtree_control").write_text("+cpu")
        if "cpu" in read(here / "cgroup.subtree_control").split() and os.access(here, os.W_OK):
            return here, 2
    for name in ("cpu", "cpu,cpuacct"):
        v1 = Path("/sys/fs/cgroup") / name
        if (v1 / "cpu.cfs_quota_us").exists() and os.access(v1, os.W_OK):
            return v1, 1
    raise SystemExit(
        "--cpu-quota needs a CPU cgroup this process may write to (cgroup v2 with the cpu controller, or "
        "v1's cpu hierarchy; as root, or in a delegated subtree): none found under /sys/fs/cgroup"
    )


def read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


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
