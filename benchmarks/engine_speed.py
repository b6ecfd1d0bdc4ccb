"""Engine speed: nodes per second of shashki's search, compiled and not, and of py-draughts' engine.

    python benchmarks/engine_speed.py [--depth 8] [--repeat 3] [--no-pure] [--no-pydraughts]
                                      [--baseline FOLDER] [--cpu] [--variant russian|international]

Three searchers take the same Russian positions (or international ones, `--variant international`,
without py-draughts) to the same fixed depth from an empty transposition table,
in one run, each in its own process, the runs interleaved and repeated (`--repeat`; medians reported, since
the figures vary with whatever else the machine is doing):

- shashki as installed: the search's inner loop, the evaluation and the move generator compiled with
  mypyc (setup.py), or not when the build could not compile them (the table says which);
- shashki's pure-Python build of the same source: the package copied without its compiled modules into a
  temporary folder (what runs where there is no C compiler, or with SHASHKI_PURE_PYTHON=1) — the speed
  before the search was compiled;
- optionally (`--baseline`), another build of shashki: an earlier commit checked out and built in place
  (`git worktree add /tmp/base <commit> && cd /tmp/base && python setup.py build_ext --inplace`), with a
  column of its nodes/s and the ratio per position, and whether it visited the same nodes and chose the
  same moves (it must, when the change measured is a pure speed change);
- py-draughts 1.10.1's strongest engine for Russian, `SimpleEngine` (negamax, alpha-beta, TT,
  quiescence, PVS/LMR); its `TurboEngine` plays International only.

`--cpu` times each search by its process's CPU time instead of the wall clock: on a machine busy with
other jobs, the figures then vary much less from run to run (py-draughts' engine is timed the same way).

Each reports the nodes it visited (its own count: both libraries count every position entered by the
search, quiescence/capture extension included) and the time. py-draughts lives in its own virtual
environment, set up by benchmarks/perft.py's helpers, and its half runs in a subprocess (this file with
`--worker`, importing nothing from shashki).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from perft import (  # noqa: E402  (benchmarks/perft.py: py-draughts' environment)
    DEFAULT_VENV,
    ROOT,
    SetupError,
    _run,
    _tail,
    ensure_pydraughts,
    machine,
)

# The positions searched, per variant. Russian: FEN with algebraic squares (both libraries read it).
# International: the start, and positions of a game shashki played against itself at 3,000 nodes a
# move after four random plies (seed 5): after 10 and 30 plies, and the first with a king.
POSITIONS_BY_VARIANT = {
    "russian": (
        ("start", "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8"),
        ("opening", "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,f4:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,g5"),
        ("middle game", "W:Wa1,c1,e1,f2,h2,a3,c3,e3,b4,g3:Bb8,d8,f8,a7,c7,e7,b6,f6,h6,e5"),
        ("kings", "W:Wa1,c1,e1,f2,h2,a3,c3,b4,Kc5,Kg5:Bb8,f8,h8,a7,c7,g7,b6,a5,Ke5,Kg1"),
    ),
    "international": (
        ("start", "W:W31-50:B1-20"),
        ("opening", "W:W29-38,40-44,46-50:B1-5,7-16,18-21,26"),
        ("middle game", "W:W25,31,33,34,36,37,39-41,43,46-50:B1-5,7,8,10,12,14-17,20,26"),
        ("kings", "B:WK2,25,35,46,47:B1,5,26,36,43"),
    ),
}
POSITIONS = POSITIONS_BY_VARIANT["russian"]  # py-draughts' half: its SimpleEngine plays Russian


# ------------------------------------------------------------------------------------------------
# The py-draughts half


def clock(cpu: bool) -> Callable[[], float]:
    return time.process_time if cpu else time.perf_counter


def worker(depth: int, cpu: bool = False) -> None:
    import draughts
    from draughts import SimpleEngine

    results = {}
    for label, fen in POSITIONS:
        board = draughts.RussianBoard.from_fen(fen)
        engine = SimpleEngine(depth_limit=depth)
        now = clock(cpu)
        start = now()
        move = engine.get_best_move(board)
        seconds = now() - start
        names = draughts.RussianBoard.SQUARE_NAMES
        results[label] = {
            "nodes": engine.nodes,
            "seconds": seconds,
            "move": ":".join(names[sq] for sq in move.square_list),
        }
    print(json.dumps({"version": draughts.__version__, "results": results}))


def run_pydraughts(python: Path, depth: int, cpu: bool = False) -> dict:
    proc = _run([str(python), str(Path(__file__).resolve()), "--worker", "--depth", str(depth)]
                + (["--cpu"] if cpu else []), "run py-draughts' engine", timeout=3600)
    if proc.returncode != 0:
        raise SetupError(f"the py-draughts half failed (exit {proc.returncode}):\n{_tail(proc, 25)}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------------------------------------
# The shashki half


def shashki_worker(depth: int, cpu: bool = False, variant_name: str = "russian") -> None:
    """Search every position of a variant with the shashki found on sys.path; print the results as
    JSON. A search of depth 1 first loads what the engine loads once (its endgame tables, its weights),
    so that no position's figure includes it."""
    from shashki.engine import Limit, Searcher
    from shashki.rules import Position, get_variant

    try:
        from shashki.engine import alphabeta as hot  # the search's compiled inner loop
    except ImportError:  # a baseline from before it existed: the move generator alone was compiled
        from shashki.rules import position as hot

    variant = get_variant(variant_name)
    positions = POSITIONS_BY_VARIANT[variant_name]
    list(Searcher().iterate(Position.from_fen(positions[0][1], variant), Limit(depth=1)))
    results = {}
    for label, fen in positions:
        pos = Position.from_fen(fen, variant)
        searcher = Searcher()
        now = clock(cpu)
        start = now()
        lines = list(searcher.iterate(pos, Limit(depth=depth)))
        seconds = now() - start
        results[label] = {"nodes": searcher.nodes, "seconds": seconds,
                          "move": lines[-1].move.notation(variant), "score": lines[-1].score}
    compiled = not hot.__file__.endswith(".py")
    print(json.dumps({"compiled": compiled, "source": str(Path(hot.__file__).parents[2]),
                      "results": results}))


def pure_copy(folder: Path) -> Path:
    """The package's source copied into `folder` without compiled modules: its pure-Python build."""
    shutil.copytree(ROOT / "shashki", folder / "shashki",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    return folder


def run_shashki(depth: int, path: Path | None, cpu: bool = False, variant: str = "russian") -> dict:
    """The shashki half in a subprocess: the installed package, or the one under `path` when given."""
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = str(path)  # before the editable install's finder, which comes last
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--shashki-worker", "--depth",
                           str(depth), "--variant", variant] + (["--cpu"] if cpu else []),
                          capture_output=True, text=True,
                          env=env, timeout=3600, cwd=path or ROOT)
    if proc.returncode != 0:
        raise SetupError(f"the shashki half failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def median_runs(runs: list[dict]) -> dict:
    """Per position: the nodes (the same in every run), the median time, the move and score."""
    merged = {}
    for label in runs[0]["results"]:
        first = runs[0]["results"][label]
        if any(r["results"][label]["nodes"] != first["nodes"] for r in runs):
            raise SetupError(f"{label}: the node count differs between runs")
        merged[label] = dict(first, seconds=statistics.median(r["results"][label]["seconds"] for r in runs))
    return merged


def rate(result: dict) -> float:
    return result["nodes"] / result["seconds"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Engine nodes per second: shashki, compiled and pure "
                                     "Python, against py-draughts.")
    parser.add_argument("--depth", type=int, default=8, help="fixed search depth (default 8)")
    parser.add_argument("--variant", choices=sorted(POSITIONS_BY_VARIANT), default="russian",
                        help="whose positions (default russian; py-draughts' engine plays Russian only)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each searcher (medians; default 3)")
    parser.add_argument("--no-pure", action="store_true", help="skip the pure-Python build")
    parser.add_argument("--baseline", type=Path, help="a folder holding another build of the `shashki` "
                        "package (an earlier commit, built in place) to measure in the same run")
    parser.add_argument("--no-pydraughts", action="store_true")
    parser.add_argument("--cpu", action="store_true", help="time by the process's CPU time, not the wall "
                        "clock (steadier on a busy machine)")
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--shashki-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.depth, args.cpu)
        return 0
    if args.shashki_worker:
        shashki_worker(args.depth, args.cpu, args.variant)
        return 0
    failed = False
    python = None
    if not args.no_pydraughts and args.variant == "russian":
        try:
            python = ensure_pydraughts(args.venv)
        except SetupError as exc:
            print(f"error: {exc}", file=sys.stderr)
            failed = True
    runs: dict[str, list[dict]] = {"compiled": [], "pure": [], "baseline": [], "pydraughts": []}
    with tempfile.TemporaryDirectory(prefix="shashki-pure-") as tmp:
        pure = None if args.no_pure else pure_copy(Path(tmp))
        for _ in range(max(1, args.repeat)):  # interleaved: each searcher sees the same machine load
            runs["compiled"].append(run_shashki(args.depth, None, args.cpu, args.variant))
            if pure is not None:
                runs["pure"].append(run_shashki(args.depth, pure, args.cpu, args.variant))
            if args.baseline is not None:
                runs["baseline"].append(run_shashki(args.depth, args.baseline.resolve(), args.cpu,
                                                    args.variant))
            if python is not None:
                try:
                    runs["pydraughts"].append(run_pydraughts(python, args.depth, args.cpu))
                except SetupError as exc:
                    print(f"error: {exc}", file=sys.stderr)
                    failed, python = True, None
    sh = median_runs(runs["compiled"])
    py = median_runs(runs["pure"]) if runs["pure"] else None
    pd = median_runs(runs["pydraughts"]) if runs["pydraughts"] else None
    base = median_runs(runs["baseline"]) if runs["baseline"] else None
    positions = POSITIONS_BY_VARIANT[args.variant]
    if py is not None and any(py[label]["move"] != sh[label]["move"] for label, _ in positions):
        print("error: the compiled and the pure-Python builds chose different moves", file=sys.stderr)
        failed = True
    built = "compiled" if runs["compiled"][0]["compiled"] else "NOT compiled (pure Python)"
    pd_name = f"py-draughts {runs['pydraughts'][0]['version']} SimpleEngine" if pd else "py-draughts"
    print(f"Machine: {machine()}; load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{args.variant.capitalize()}, fixed depth {args.depth}, empty hash table, one search per "
          f"position, median of {len(runs['compiled'])} interleaved runs, timed by "
          f"{'CPU time' if args.cpu else 'the wall clock'}")
    print(f"shashki as installed: {built}; pure: the same source without compiled modules"
          + (f"; {pd_name}" if pd else ""))
    print()
    print(f"{'position':<12} {'move':>6} {'nodes':>9} {'s':>6} {'nodes/s':>9}   {'pure nodes/s':>12} "
          f"{'ratio':>6}   {'py-draughts nodes':>17} {'nodes/s':>9} {'ratio':>6}")
    for label, _ in positions:
        s = sh[label]
        line = (f"{label:<12} {s['move']:>6} {s['nodes']:>9,} {s['seconds']:>6.2f} {rate(s):>9,.0f}   ")
        line += f"{rate(py[label]):>12,.0f} {rate(s) / rate(py[label]):>5.1f}x   " if py else " " * 24
        if pd:
            p = pd[label]
            line += f"{p['nodes']:>17,} {rate(p):>9,.0f} {rate(s) / rate(p):>5.1f}x"
        print(line)
    print()

    def total(results: dict) -> float:
        return sum(r["nodes"] for r in results.values()) / sum(r["seconds"] for r in results.values())

    ours = total(sh)
    summary = f"all positions: shashki {ours:,.0f} nodes/s"
    if py:
        summary += f"; pure Python {total(py):,.0f} nodes/s (compiled/pure {ours / total(py):.1f}x)"
    if pd:
        theirs = total(pd)
        summary += f"; {pd_name} {theirs:,.0f} nodes/s (shashki/py-draughts {ours / theirs:.1f}x, goal 3x)"
    print(summary)
    if base:
        print()
        print(f"baseline: {runs['baseline'][0]['source']} "
              f"({'compiled' if runs['baseline'][0]['compiled'] else 'pure Python'})")
        print(f"{'position':<12} {'nodes/s':>9} {'baseline nodes':>14} {'nodes/s':>9} {'ratio':>6}  "
              "same search")
        for label, _ in positions:
            s, b = sh[label], base[label]
            same = (s["nodes"], s["move"], s.get("score")) == (b["nodes"], b["move"], b.get("score"))
            verdict = "yes" if same else f"NO: {b['move']} {b.get('score')}"
            print(f"{label:<12} {rate(s):>9,.0f} {b['nodes']:>14,} {rate(b):>9,.0f} "
                  f"{rate(s) / rate(b):>5.2f}x  {verdict}")
        print(f"all positions: shashki {ours:,.0f} nodes/s, baseline {total(base):,.0f} nodes/s, "
              f"shashki/baseline {ours / total(base):.2f}x")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
