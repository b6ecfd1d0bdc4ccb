"""Perft and move-listing speed: shashki against py-draughts 1.10.1 (issue 2, "Speed").

    python benchmarks/perft.py [--depth 8] [--no-pydraughts]

Runs Russian perft from the start position without bulk counting (every move is played down to the
leaves) in both libraries, checks the leaf counts against the reference numbers of RULES.md §6 and
against each other, and times listing the legal moves of three positions. Prints a table, then one
line per figure with the ratio shashki/py-draughts (above 1 = shashki faster).

py-draughts also imports as `draughts`, so it lives in its own virtual environment
(benchmarks/.venv-pydraughts, created and filled by this script on the first run) and its half runs
in a subprocess with that environment's Python: this same file with `--worker`, which imports
nothing from shashki.

py-draughts merges capture routes with the same origin, destination and captured set (its
`legal_moves` docstring), so its perft count is the "distinct" one (929,899 at depth 8); shashki is
timed both ways, with every route counted (`all_paths=True`, 929,905) and with routes merged.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
import timeit
from pathlib import Path

PYDRAUGHTS_VERSION = "1.10.1"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_VENV = HERE / ".venv-pydraughts"

# The positions whose legal moves are listed (FEN with algebraic squares; both libraries read it).
POSITIONS = (
    ("start", "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8"),
    # 8 men and 2 flying kings a side, no capture: 20 quiet moves, 12 of them by kings.
    ("middle game, quiet", "W:Wa1,c1,e1,f2,h2,a3,c3,b4,Kc5,Kg5:Bb8,f8,h8,a7,c7,g7,b6,a5,Ke5,Kg1"),
    # 8 men and 2 kings a side, 13 captures by men and kings (multi-jumps, a promotion mid-capture).
    ("middle game, captures", "W:Wa1,c1,g1,f2,h2,b4,f4,h4,Kc3,Kb6:Bd8,a7,c7,e7,h6,c5,e5,g5,Ka5,Ke3"),
)

# Russian perft from the start position (RULES.md §6; rhalbersma/dctl).
REFERENCE_ALL_PATHS = (7, 49, 302, 1469, 7482, 37986, 190146, 929905, 4570667)
REFERENCE_DISTINCT = (7, 49, 302, 1469, 7482, 37986, 190146, 929899, 4570586, 22444032, 110917189)


# ------------------------------------------------------------------------------------------------
# Measuring (shared by both halves)


def time_per_call(fn) -> float:
    """Seconds per call of fn(): the best of 5 runs of a number of calls lasting >= 0.2 s."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=5, number=number)) / number


def timed(fn, *args) -> tuple[int, float]:
    start = time.perf_counter()
    nodes = fn(*args)
    return nodes, time.perf_counter() - start


# ------------------------------------------------------------------------------------------------
# The py-draughts half (runs in its own virtual environment; never imports shashki)


def pydraughts_perft(board, depth: int) -> int:
    """Leaves at depth, every move pushed and popped (the library has no perft for 8x8 boards)."""
    moves = board.legal_moves
    if depth == 1:
        for move in moves:
            board.push(move)
            board.pop()
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += pydraughts_perft(board, depth - 1)
        board.pop()
    return total


def worker(depth: int) -> None:
    """Print one JSON object with py-draughts' figures on standard output."""
    import draughts

    names = draughts.RussianBoard.SQUARE_NAMES
    board = draughts.RussianBoard()
    nodes, seconds = timed(pydraughts_perft, board, depth)
    listing = {}
    for label, fen in POSITIONS:
        board = draughts.RussianBoard.from_fen(fen)
        moves = board.legal_moves
        paths = sorted(":".join(names[sq] for sq in m.square_list) for m in moves)
        listing[label] = {"paths": paths, "seconds": time_per_call(lambda b=board: b.legal_moves)}
    result = {"version": draughts.__version__, "nodes": nodes, "seconds": seconds, "listing": listing}
    print(json.dumps(result))


# ------------------------------------------------------------------------------------------------
# Setting up py-draughts' environment


class SetupError(Exception):
    pass


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _run(cmd: list[str], what: str, timeout: float = 600) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SetupError(f"could not {what}: {exc}") from exc


def _tail(proc: subprocess.CompletedProcess, lines: int = 15) -> str:
    text = (proc.stderr or "") + (proc.stdout or "")
    kept = [line for line in text.strip().splitlines() if not line.startswith("WARNING: Location")]
    return "\n".join("    " + line for line in kept[-lines:])


def installed_version(python: Path) -> str | None:
    proc = _run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('py-draughts'))"],
        "run the py-draughts environment's Python",
    )
    return proc.stdout.strip() if proc.returncode == 0 else None


def ensure_pydraughts(venv: Path) -> Path:
    """The Python of a virtual environment holding py-draughts PYDRAUGHTS_VERSION (made if missing)."""
    python = venv_python(venv)
    if not python.exists():
        print(f"creating {venv} for py-draughts {PYDRAUGHTS_VERSION} ...", file=sys.stderr)
        proc = _run([sys.executable, "-m", "venv", str(venv)], "create a virtual environment")
        if proc.returncode != 0 or not python.exists():
            raise SetupError(
                f"`{sys.executable} -m venv {venv}` failed (is the venv/ensurepip module installed?):\n"
                + _tail(proc)
            )
    if installed_version(python) != PYDRAUGHTS_VERSION:
        print(f"installing py-draughts=={PYDRAUGHTS_VERSION} into {venv} ...", file=sys.stderr)
        proc = _run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                f"py-draughts=={PYDRAUGHTS_VERSION}",
            ],
            "run pip",
        )
        if proc.returncode != 0:
            raise SetupError(
                f"pip could not install py-draughts=={PYDRAUGHTS_VERSION} into {venv} "
                f"(no network or no package index?); pip said:\n{_tail(proc)}\n"
                f"Install it by hand with `{python} -m pip install py-draughts=={PYDRAUGHTS_VERSION}`, "
                "or run with --no-pydraughts."
            )
        found = installed_version(python)
        if found != PYDRAUGHTS_VERSION:
            raise SetupError(f"after pip install, {venv} holds py-draughts {found}, not {PYDRAUGHTS_VERSION}")
    return python


def run_pydraughts(python: Path, depth: int) -> dict:
    proc = _run(
        [str(python), str(Path(__file__).resolve()), "--worker", "--depth", str(depth)],
        "run the py-draughts benchmark",
        timeout=3600,
    )
    if proc.returncode != 0:
        raise SetupError(f"the py-draughts half failed (exit {proc.returncode}):\n{_tail(proc, 25)}")
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError) as exc:
        raise SetupError(f"the py-draughts half printed no result:\n{_tail(proc, 25)}") from exc


# ------------------------------------------------------------------------------------------------
# The shashki half


def import_shashki():
    try:
        import shashki  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(ROOT))  # run from a checkout without the package installed
    from shashki.rules import Position, get_variant
    from shashki.rules.perft import perft

    return Position, get_variant, perft


def run_shashki(depth: int) -> dict:
    Position, get_variant, perft = import_shashki()
    variant = get_variant("russian")
    start = Position.start(variant)
    results = {}
    for mode, all_paths in (("all paths", True), ("distinct", False)):
        nodes, seconds = timed(lambda p=all_paths: perft(start, depth, all_paths=p))
        results[mode] = {"nodes": nodes, "seconds": seconds}
    board = variant.board
    listing = {}
    for label, fen in POSITIONS:
        pos = Position.from_fen(fen, variant)
        # generate() lists the moves afresh; legal_moves() caches them on the position. Distinct
        # routes, as py-draughts lists them (the same moves in these positions).
        moves = pos.generate(distinct=True)
        paths = sorted(":".join(board.square_name(sq) for sq in m.path) for m in moves)
        listing[label] = {"paths": paths, "seconds": time_per_call(lambda p=pos: p.generate(distinct=True))}
    results["listing"] = listing
    return results


# ------------------------------------------------------------------------------------------------
# Report


def reference(table: tuple[int, ...], depth: int) -> int | None:
    return table[depth - 1] if depth <= len(table) else None


def fmt_rate(nodes: int, seconds: float) -> str:
    return f"{nodes / seconds:,.0f}"


def fmt_time(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} µs"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{platform.python_implementation()} {platform.python_version()}, {platform.system()} "
        f"{platform.machine()}, {cpu}, {os.cpu_count()} CPUs"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Russian perft and move-listing speed: shashki against py-draughts."
    )
    parser.add_argument("--depth", type=int, default=8, help="perft depth (default 8)")
    parser.add_argument("--no-pydraughts", action="store_true", help="time shashki only")
    parser.add_argument(
        "--venv",
        type=Path,
        default=DEFAULT_VENV,
        help=f"py-draughts' virtual environment (default {DEFAULT_VENV.relative_to(ROOT)})",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.depth < 1:
        parser.error("--depth must be at least 1")
    if args.worker:
        worker(args.depth)
        return 0

    failed = False
    pd_python = None
    if not args.no_pydraughts:
        try:
            pd_python = ensure_pydraughts(args.venv)
        except SetupError as exc:
            print(f"error: {exc}", file=sys.stderr)
            failed = True

    depth = args.depth
    print(f"Machine: {machine()}")
    print(f"Russian perft from the start position, depth {depth}, every move played (no bulk counting)")
    import shashki.rules.position as position_module

    compiled = position_module.__file__.endswith(".so")
    built = "compiled with mypyc" if compiled else "pure Python (not compiled)"
    print(f"shashki move generator: {built} ({position_module.__file__})")
    sh = run_shashki(depth)
    pd = None
    if pd_python is not None:
        try:
            pd = run_pydraughts(pd_python, depth)
        except SetupError as exc:
            print(f"error: {exc}", file=sys.stderr)
            failed = True

    pd_name = f"py-draughts {pd['version']}" if pd else "py-draughts"
    modes = ("all paths", "distinct")
    rows = [(f"shashki ({mode})", sh[mode]["nodes"], sh[mode]["seconds"]) for mode in modes]
    if pd:
        rows.append((pd_name, pd["nodes"], pd["seconds"]))
    print()
    print(f"{'library':<24} {'leaves':>12} {'seconds':>9} {'nodes/s':>11}")
    for name, nodes, seconds in rows:
        print(f"{name:<24} {nodes:>12,} {seconds:>9.3f} {fmt_rate(nodes, seconds):>11}")

    # Counts: shashki against the reference numbers, py-draughts against shashki.
    print()
    for mode, table in (("all paths", REFERENCE_ALL_PATHS), ("distinct", REFERENCE_DISTINCT)):
        ref, got = reference(table, depth), sh[mode]["nodes"]
        if ref is None:
            print(f"count, shashki {mode}: {got:,} (no reference number at depth {depth})")
        elif got == ref:
            print(f"count, shashki {mode}: {got:,} = reference")
        else:
            print(f"COUNT MISMATCH, shashki {mode}: {got:,}, reference {ref:,}")
            failed = True
    if pd:
        got = pd["nodes"]
        if got == sh["distinct"]["nodes"]:
            print(
                f"count, {pd_name}: {got:,} = shashki distinct (py-draughts merges capture routes with the "
                f"same start, end and captured set; all paths gives {sh['all paths']['nodes']:,})"
            )
        elif got == sh["all paths"]["nodes"]:
            print(f"count, {pd_name}: {got:,} = shashki all paths")
        else:
            print(
                f"COUNTS DIFFER: {pd_name} {got:,}, shashki all paths {sh['all paths']['nodes']:,}, "
                f"distinct {sh['distinct']['nodes']:,}"
            )

    print()
    print("Listing the legal moves (best of 5 timings, per call):")
    for label, fen in POSITIONS:
        print(f"  {label:<22} {fen}")
    print()
    print(f"{'position':<24} {'moves':>5} {'shashki':>12} {'py-draughts':>12} {'ratio':>7}")
    for label, _ in POSITIONS:
        s = sh["listing"][label]
        p = pd["listing"][label] if pd else None
        pd_time = fmt_time(p["seconds"]) if p else "-"
        ratio = f"{p['seconds'] / s['seconds']:.1f}x" if p else "-"
        print(f"{label:<24} {len(s['paths']):>5} {fmt_time(s['seconds']):>12} {pd_time:>12} {ratio:>7}")
        if p and p["paths"] != s["paths"]:
            only_s = sorted(set(s["paths"]) - set(p["paths"]))
            only_p = sorted(set(p["paths"]) - set(s["paths"]))
            print(f"  MOVES DIFFER: only shashki {only_s}, only py-draughts {only_p}")

    print()
    for mode in ("all paths", "distinct"):
        nodes, seconds = sh[mode]["nodes"], sh[mode]["seconds"]
        line = f"perft depth {depth} ({mode}): shashki {fmt_rate(nodes, seconds)} nodes/s"
        if pd:
            ratio = (nodes / seconds) / (pd["nodes"] / pd["seconds"])
            line += f", {pd_name} {fmt_rate(pd['nodes'], pd['seconds'])} nodes/s, ratio {ratio:.1f}x"
        print(line)
    for label, _ in POSITIONS:
        s = sh["listing"][label]["seconds"]
        line = f"legal moves, {label}: shashki {fmt_time(s)}"
        if pd:
            p = pd["listing"][label]["seconds"]
            line += f", {pd_name} {fmt_time(p)}, ratio {p / s:.1f}x"
        print(line)
    if failed:
        print("(incomplete or wrong: see the errors above)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
