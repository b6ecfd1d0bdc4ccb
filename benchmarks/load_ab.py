"""This build of the server against another under the same load at the same time (issue 11): what a change
to the per-move path is worth, on a machine whose speed drifts.

    python benchmarks/load_ab.py --baseline FOLDER [--rounds 5] [--games 20] [--think 0-0] [--duration 20]
        [--json out.json]

FOLDER is another checkout of the repository (for instance `git worktree add FOLDER <commit>`) with its
compiled modules (`python setup.py build_ext --inplace` there; or the `.so` files of this tree copied in,
when the compiled sources, setup.py's `COMPILED`, are the same in both: this script says whether they are).

Each round runs `benchmarks/load.py --target shashki --no-restart-check` twice at once, the same load
generator (this tree's) against a server started in this tree and one started in FOLDER, and reads each
server's CPU a move, moves a second and memory from their reports. Run one after the other, the same build
on the 2-core VM drifted from 0.69 to 0.50 CPU ms a move within four minutes; loaded at once, both builds
see the same machine, so the ratio of their CPU a move, round by round, is the figure (each round's
reference is the other build). Prints every round, the mean of each, and the mean ratio with two standard
errors. Measured with this tree as its own baseline (2026-12-06, five rounds): 0.989, each round's ratio
spread by 0.043, so five rounds tell a change of about 4% from the drift, ten about 3%.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LOAD = HERE / "load.py"


def compiled_sources(tree: Path) -> list[str]:
    """The modules setup.py compiles with mypyc, as listed in `tree`'s setup.py."""
    text = (tree / "setup.py").read_text()
    start = text.index("COMPILED = [")
    listing = text[start : text.index("]", start)]
    return [line.strip().strip('",') for line in listing.splitlines()[1:] if line.strip().startswith('"')]


def same_compiled_sources(one: Path, other: Path) -> bool:
    """Whether both trees compile the same modules from the same sources (then one's `.so` files serve
    the other)."""
    names = compiled_sources(one)
    if names != compiled_sources(other):
        return False
    return all((other / n).exists() and filecmp.cmp(one / n, other / n, shallow=False) for n in names)


def environment() -> dict[str, str]:
    """What load.py and its servers run with: this environment without PYTHONPATH (a server started in
    a tree imports that tree's `shashki`, first on its path as `python -m` puts it)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def package_of(tree: Path) -> Path:
    """The `shashki` package a server started in `tree` imports (as load.py starts it: `python -m`)."""
    found = subprocess.run(
        [sys.executable, "-c", "import shashki; print(shashki.__file__)"],
        cwd=tree,
        env=environment(),
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(found.stdout.strip()).resolve().parent


def start_load(tree: Path, options, out: Path) -> subprocess.Popen:
    command = [
        sys.executable,
        str(LOAD),
        "--target",
        "shashki",
        "--no-restart-check",
        "--games",
        str(options.games),
        "--think",
        options.think,  # load.py reads it (and refuses a bad one)
        "--duration",
        str(options.duration),
        "--variant",
        options.variant,
        "--json",
        str(out),
    ]
    return subprocess.Popen(
        command, cwd=tree, env=environment(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def read_result(out: Path) -> dict:
    report = json.loads(out.read_text())
    (result,) = [r for r in report["results"] if r["kind"] == "shashki"]
    if "moves_per_second" not in result:
        raise RuntimeError(f"a run failed: {result.get('error', 'no figures')}")
    if result.get("errors"):
        raise RuntimeError(f"the players met errors: {result['errors']}")
    return {
        "moves_per_second": result["moves_per_second"],
        "cpu_ms_per_move": result["server_cpu_ms_per_move"],
        "rss_mb": result.get("server_peak_rss_mb"),
    }


def summary(rounds: list[dict]) -> dict:
    """The mean of each build's figures and of the ratio of their CPU a move (this build / the baseline),
    with the ratio's standard deviation over the rounds and the standard error of its mean."""
    ratios = [r["this"]["cpu_ms_per_move"] / r["baseline"]["cpu_ms_per_move"] for r in rounds]
    out: dict = {
        build: {
            key: statistics.fmean(r[build][key] for r in rounds)
            for key in ("moves_per_second", "cpu_ms_per_move", "rss_mb")
            if all(r[build][key] is not None for r in rounds)
        }
        for build in ("this", "baseline")
    }
    out["cpu_ratio"] = statistics.fmean(ratios)
    out["cpu_ratio_sd"] = statistics.stdev(ratios) if len(ratios) > 1 else 0.0
    out["cpu_ratio_se"] = out["cpu_ratio_sd"] / len(ratios) ** 0.5
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--baseline", type=Path, required=True, help="another checkout, with its compiled modules"
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=20, help="concurrent games of each build; default 20")
    parser.add_argument("--think", default="0-0", help="seconds, LOW-HIGH, as load.py reads it; default 0-0")
    parser.add_argument("--duration", type=float, default=20, help="measured seconds a round; default 20")
    parser.add_argument("--variant", default="russian-giveaway")
    parser.add_argument("--json", type=Path, default=None, help="also write the rounds and the summary here")
    options = parser.parse_args(argv)
    baseline = options.baseline.resolve()
    if options.rounds < 1:
        parser.error("--rounds must be at least 1")
    if not (baseline / "shashki" / "server").is_dir():
        parser.error(f"{baseline} is not a checkout of this repository (no shashki/server)")
    if package_of(baseline) != baseline / "shashki" or package_of(ROOT) != ROOT / "shashki":
        parser.error("a server started in each tree must import that tree's shashki: is it a checkout?")

    from rich.console import Console
    from rich.table import Table

    console = Console(stderr=True)
    same = same_compiled_sources(ROOT, baseline)
    console.print(
        f"baseline {baseline}: compiled sources {'the same as' if same else 'different from'} this tree's"
        + ("" if same else " (build its modules there: python setup.py build_ext --inplace)")
    )
    for tree in (ROOT, baseline):
        built = [n for n in compiled_sources(tree) if list((tree / n).parent.glob(Path(n).stem + ".*.so"))]
        if len(built) < len(compiled_sources(tree)):
            console.print(f"[yellow]{tree}: {len(built)} of its compiled modules built, the rest uncompiled")
    rounds: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="shashki-load-ab-") as scratch:
        for number in range(1, options.rounds + 1):
            outs = {build: Path(scratch) / f"{build}{number}.json" for build in ("this", "baseline")}
            order = [("this", ROOT), ("baseline", baseline)]
            if number % 2 == 0:
                order.reverse()  # who starts first changes round by round
            with console.status(f"round {number} of {options.rounds}: both builds under load"):
                runs = {build: start_load(tree, options, outs[build]) for build, tree in order}
                for build, run in runs.items():
                    if run.wait() != 0 and not outs[build].exists():
                        raise SystemExit(f"load.py failed for {build}: run it alone to see why")
            rounds.append({build: read_result(outs[build]) for build in ("this", "baseline")})
            r = rounds[-1]
            console.print(
                f"round {number}: this {r['this']['cpu_ms_per_move']:.3f} ms a move, "
                f"baseline {r['baseline']['cpu_ms_per_move']:.3f}"
            )
    result = summary(rounds)
    table = Table(title=f"This build against {baseline.name}: {options.games} games each, at once")
    for column in ("round", "this moves/s", "this CPU ms/move", "baseline moves/s", "baseline CPU ms/move",
                   "CPU ratio"):  # fmt: skip
        table.add_column(column, justify="right")
    for number, r in enumerate(rounds, 1):
        this, base = r["this"], r["baseline"]
        table.add_row(
            str(number),
            f"{this['moves_per_second']:,.1f}",
            f"{this['cpu_ms_per_move']:.3f}",
            f"{base['moves_per_second']:,.1f}",
            f"{base['cpu_ms_per_move']:.3f}",
            f"{this['cpu_ms_per_move'] / base['cpu_ms_per_move']:.3f}",
        )
    this, base = result["this"], result["baseline"]
    table.add_row(
        "mean",
        f"{this['moves_per_second']:,.1f}",
        f"{this['cpu_ms_per_move']:.3f}",
        f"{base['moves_per_second']:,.1f}",
        f"{base['cpu_ms_per_move']:.3f}",
        f"{result['cpu_ratio']:.3f} ± {2 * result['cpu_ratio_se']:.3f}",
    )
    Console(width=max(Console().width, 120)).print(table)
    print(
        f"this build's CPU a move is {result['cpu_ratio']:.3f} ± {2 * result['cpu_ratio_se']:.3f} × the "
        f"baseline's (two standard errors of the mean of {len(rounds)} rounds, each round's ratio spread by "
        f"{result['cpu_ratio_sd']:.3f}; below 1: this build is cheaper)"
    )
    if options.json:
        options.json.write_text(json.dumps({"rounds": rounds, "summary": result}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
