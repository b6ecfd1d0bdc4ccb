"""Engine speed: nodes per second of shashki's search and of py-draughts 1.10.1's engine (issue 3).

    python benchmarks/engine_speed.py [--depth 8] [--no-pydraughts]

Both engines search the same Russian positions to the same fixed depth from an empty transposition
table; each reports the nodes it visited (its own count: both count every position entered by the
search, quiescence/capture extension included) and the time. py-draughts' strongest engine for Russian
is `SimpleEngine` (negamax, alpha-beta, TT, quiescence, PVS/LMR); its `TurboEngine` plays International
only. py-draughts lives in its own virtual environment, set up by benchmarks/perft.py's helpers, and its
half runs in a subprocess (this file with `--worker`, importing nothing from shashki).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
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

# Russian positions, FEN with algebraic squares (both libraries read it).
POSITIONS = (
    ("start", "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8"),
    ("opening", "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,f4:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,g5"),
    ("middle game", "W:Wa1,c1,e1,f2,h2,a3,c3,e3,b4,g3:Bb8,d8,f8,a7,c7,e7,b6,f6,h6,e5"),
    ("kings", "W:Wa1,c1,e1,f2,h2,a3,c3,b4,Kc5,Kg5:Bb8,f8,h8,a7,c7,g7,b6,a5,Ke5,Kg1"),
)


# ------------------------------------------------------------------------------------------------
# The py-draughts half


def worker(depth: int) -> None:
    import draughts
    from draughts import SimpleEngine

    results = {}
    for label, fen in POSITIONS:
        board = draughts.RussianBoard.from_fen(fen)
        engine = SimpleEngine(depth_limit=depth)
        start = time.perf_counter()
        move = engine.get_best_move(board)
        seconds = time.perf_counter() - start
        names = draughts.RussianBoard.SQUARE_NAMES
        results[label] = {
            "nodes": engine.nodes,
            "seconds": seconds,
            "move": ":".join(names[sq] for sq in move.square_list),
        }
    print(json.dumps({"version": draughts.__version__, "results": results}))


def run_pydraughts(python: Path, depth: int) -> dict:
    proc = _run([str(python), str(Path(__file__).resolve()), "--worker", "--depth", str(depth)],
                "run py-draughts' engine", timeout=3600)
    if proc.returncode != 0:
        raise SetupError(f"the py-draughts half failed (exit {proc.returncode}):\n{_tail(proc, 25)}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------------------------------------
# The shashki half


def run_shashki(depth: int) -> dict:
    sys.path.insert(0, str(ROOT))
    from shashki.engine import Limit, Searcher
    from shashki.rules import Position, get_variant

    variant = get_variant("russian")
    results = {}
    for label, fen in POSITIONS:
        pos = Position.from_fen(fen, variant)
        searcher = Searcher()
        start = time.perf_counter()
        lines = list(searcher.iterate(pos, Limit(depth=depth)))
        seconds = time.perf_counter() - start
        results[label] = {"nodes": searcher.nodes, "seconds": seconds,
                          "move": lines[-1].move.notation(variant), "score": lines[-1].score}
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Engine nodes per second: shashki against py-draughts.")
    parser.add_argument("--depth", type=int, default=8, help="fixed search depth (default 8)")
    parser.add_argument("--no-pydraughts", action="store_true")
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.depth)
        return 0
    pd = None
    failed = False
    if not args.no_pydraughts:
        try:
            pd = run_pydraughts(ensure_pydraughts(args.venv), args.depth)
        except SetupError as exc:
            print(f"error: {exc}", file=sys.stderr)
            failed = True
    sh = run_shashki(args.depth)
    print(f"Machine: {machine()}")
    print(f"Russian, fixed depth {args.depth}, empty hash table, one search per position")
    pd_name = f"py-draughts {pd['version']} SimpleEngine" if pd else "py-draughts"
    print()
    print(f"{'position':<12} {'shashki nodes':>13} {'s':>7} {'nodes/s':>9}   "
          f"{'py-draughts nodes':>17} {'s':>7} {'nodes/s':>9}   {'ratio':>6}")
    totals = [0, 0.0, 0, 0.0]
    for label, _ in POSITIONS:
        s = sh[label]
        totals[0] += s["nodes"]
        totals[1] += s["seconds"]
        line = f"{label:<12} {s['nodes']:>13,} {s['seconds']:>7.2f} {s['nodes'] / s['seconds']:>9,.0f}   "
        if pd:
            p = pd["results"][label]
            totals[2] += p["nodes"]
            totals[3] += p["seconds"]
            ratio = (s["nodes"] / s["seconds"]) / (p["nodes"] / p["seconds"])
            rate = p["nodes"] / p["seconds"]
            line += f"{p['nodes']:>17,} {p['seconds']:>7.2f} {rate:>9,.0f}   {ratio:>5.1f}x"
        print(line)
    print()
    ours = totals[0] / totals[1]
    summary = f"all positions: shashki {ours:,.0f} nodes/s"
    if pd:
        theirs = totals[2] / totals[3]
        summary += f", {pd_name} {theirs:,.0f} nodes/s, ratio {ours / theirs:.1f}x (goal: at least 3x)"
        summary += f"; time to depth {args.depth}: shashki {totals[1]:.2f} s, py-draughts {totals[3]:.2f} s"
    print(summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
