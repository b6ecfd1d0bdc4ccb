"""Fit the international evaluation to Scan 2.0's searched scores, reproducibly (issue 15 point 3).

    python benchmarks/tune_from_scan.py [--source DIR] [--games 3000] [--nodes 2000] [--depth 12]
        [--patterns] [--l2 5[,L2...]] [--epochs 8] [--k 200] [--check-pairs 50] [--check-time S]
        [--seed 7] [--jobs 2] [--data FILE] [--write]

benchmarks/tune_evaluation.py and tune_patterns.py fit the weights to the results of our own self-play:
a game's result says little about any one of its positions, and our own games only teach what our own
search already plays. Here every position is scored by a far stronger judge instead: Scan 2.0 (Fabien
Letouzey, GPL; `rhalbersma/scan` at 57082ee, built from source into the ignored `benchmarks/.opponents/`
as benchmarks/engine_opponents.py builds it; nothing of it is committed), searching it to a fixed depth.
Only Scan's scores are used, as targets; none of its code or data (its evaluation file, book, bitbases).

1. Positions: `--games` self-play games of the shipped international weights from seeded random
   openings of 6 plies, every move searched to `--nodes` nodes; every other quiet position (no capture
   for the side to move) is kept.
2. Scores: Scan searches each position to `--depth` plies through its Hub protocol (`pos`, `depth`,
   `analyse`; a 2^18-entry table cleared before each position, no book: the same score for the same
   position whatever came before), in `--jobs` processes. Its score is for the side to move, in
   hundredths of a man.
3. Fit: sigmoid(evaluation / K) against sigmoid(Scan's score / K) (K = `--k`; scores beyond 15 men cut
   there), by the minibatch gradient descent of tune_patterns.py, every weight of the family's features
   (tune_evaluation.py's) and, with `--patterns`, the pattern weights over board regions
   (shashki/engine/patterns.py) with an L2 penalty (several `--l2` tried, the best on the held-out games
   kept: every tenth game is held out); then scaled so that a man is worth 100 and rounded.
4. Gain: the fitted weights play the shipped ones over `--check-pairs` fresh openings with both colours at
   `--nodes` a move and, with `--check-time S`, at S seconds a move (equal time).

`--data FILE` keeps the positions and their scores (playing and scoring them again only when the
arguments that made them change). With `--write` the fitted weights (and patterns) go to
`shashki/engine/international_weights.json` with how they were fitted: write only weights that beat the
shipped ones at equal time (and measure them against Scan with engine_opponents.py).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, replace
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_builds import LineEngine  # noqa: E402
from engine_opponents import build  # noqa: E402
from tune_evaluation import FAMILIES, family_openings, feature_row, match, play_game  # noqa: E402
from tune_patterns import Row, error, fit, sigmoid  # noqa: E402

from shashki.engine.evaluation import Evaluator, Weights, family_file, shipped_weights  # noqa: E402
from shashki.engine.hub_notation import hub_position  # noqa: E402
from shashki.engine.patterns import pattern_size, region_count, window  # noqa: E402
from shashki.rules import Game, get_variant  # noqa: E402

VARIANT = "international"
CUT = 1500  # Scan's scores beyond this many hundredths of a man are cut there (its won positions)


def _game_positions(task: tuple[dict, list[str], int]) -> list[str]:
    """The FENs of every other quiet position of one self-play game."""
    values, opening, nodes = task
    weights = FAMILIES[VARIANT].kind(**values)
    game = play_game(VARIANT, weights, weights, opening, nodes, FAMILIES[VARIANT].max_plies)
    found = []
    for i, pos in enumerate(game.positions[len(opening):]):
        moves = pos.legal_moves()
        if i % 2 == 0 and moves and not moves[0].capture_mask:
            found.append(pos.fen())
    return found


def positions(base: Weights, games: int, nodes: int, seed: int, jobs: int) -> list[list[str]]:
    tasks = [(asdict(base), opening, nodes) for _variant, opening in family_openings(VARIANT, seed, games, 6)]
    found: list[list[str]] = []
    with ProcessPoolExecutor(jobs) as pool:
        for i, fens in enumerate(pool.map(_game_positions, tasks, chunksize=4)):
            found.append(fens)
            if (i + 1) % 500 == 0:
                print(f"  {i + 1} games, {sum(map(len, found))} positions", flush=True)
    return found


class ScanScorer(LineEngine):
    """Scan 2.0 through the Hub protocol, scoring positions by a search of a fixed depth."""

    def __init__(self, exe: Path) -> None:
        super().__init__([str(exe), "hub"], exe.parent)
        self.infos: list[str] = []
        self.send("hub")
        self.wait_for("wait")
        self.send("set tt-size 18")  # a small table: cleared before each position, cheaply
        self.send("set book false")
        self.send("init")
        self.wait_for("ready")

    def seen(self, line: str) -> None:
        if line.startswith("info "):  # info <depth> <mean ply> <score> <nodes> <time> <Mnps> <pv>
            self.infos.append(line)

    def score(self, fen: str, depth: int) -> int | None:
        """Scan's score of the position for the side to move (None: it printed none; it prints from
        depth 12 on)."""
        hub = hub_position(Game(VARIANT, fen).position)
        self.infos = []
        self.send("new")
        self.send("pos " + hub[0].lower() + hub[1:])
        self.send(f"depth {depth}")  # after `pos`, which resets the search's limits
        self.send("analyse")
        self.wait_for("move")
        return int(self.infos[-1].split()[3]) if self.infos else None


_scorer: ScanScorer | None = None


def _start_scorer(exe: Path) -> None:
    global _scorer
    _scorer = ScanScorer(exe)


def _score(task: tuple[str, int]) -> int | None:
    assert _scorer is not None
    return _scorer.score(*task)


def scores(exe: Path, fens: list[str], depth: int, jobs: int) -> list[int | None]:
    found: list[int | None] = []
    began = time.perf_counter()
    with Pool(jobs, initializer=_start_scorer, initargs=(exe,)) as pool:
        for i, score in enumerate(pool.imap(_score, [(fen, depth) for fen in fens], chunksize=16)):
            found.append(score)
            if (i + 1) % 10000 == 0:
                rate = (i + 1) / (time.perf_counter() - began)
                print(f"  {i + 1} of {len(fens)} scored, {rate:.0f} a second", flush=True)
    return found


def data(args: argparse.Namespace, base: Weights) -> tuple[list[list[str]], list[int | None]]:
    """The games' positions and Scan's scores, from `--data` when it holds these arguments' own."""
    key = (args.games, args.nodes, args.seed, args.depth, asdict(base))
    if args.data is not None and args.data.exists():
        with args.data.open("rb") as file:
            kept = pickle.load(file)
        if kept["key"] == key:
            print(f"data: read from {args.data}", flush=True)
            return kept["games"], kept["scores"]
        print(f"data: {args.data} holds other positions; making them again", flush=True)
    exe = build("scan", args.source.resolve() if args.source else None)
    print(f"positions: {args.games} self-play games, {args.nodes} nodes a move, seed {args.seed}", flush=True)
    games = positions(base, args.games, args.nodes, args.seed, args.jobs)
    fens = [fen for game in games for fen in game]
    print(f"scores: Scan 2.0 to depth {args.depth}, {len(fens)} positions, {args.jobs} processes", flush=True)
    found = scores(exe, fens, args.depth, args.jobs)
    if args.data is not None:
        with args.data.open("wb") as file:
            pickle.dump({"key": key, "games": games, "scores": found}, file, protocol=pickle.HIGHEST_PROTOCOL)
    return games, found


def rows(games: list[list[str]], found: list[int | None], base: Weights, with_patterns: bool,
         k: float) -> list[list[Row]]:
    """Each game's rows: a position's features and pattern weights read, its target Scan's score."""
    variant = get_variant(VARIANT)
    reader = Evaluator(variant, replace(base, patterns=(0,) * pattern_size(variant)))
    names = FAMILIES[VARIANT].features
    scored = iter(found)
    result: list[list[Row]] = []
    for game in games:
        made: list[Row] = []
        for fen in game:
            score = next(scored)
            if score is None:
                continue
            pos = Game(variant, fen).position
            terms = reader.pattern_terms(pos) if with_patterns else []
            target = sigmoid(max(-CUT, min(CUT, score)) / k)
            made.append((feature_row(reader, pos, names), terms, 1 if pos.white_to_move else -1, target))
        result.append(made)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, help="a clone of rhalbersma/scan (else cloned)")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--depth", type=int, default=12, help="Scan's depth a position (12 or more)")
    parser.add_argument("--patterns", action="store_true", help="fit pattern weights too")
    parser.add_argument("--l2", default="5", help="penalty on the pattern weights, or several: 2,5,10")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--k", type=float, default=200.0, help="the sigmoid's scale, hundredths of a man")
    parser.add_argument("--check-pairs", type=int, default=50)
    parser.add_argument("--check-time", type=float, default=0.0, metavar="S")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--data", type=Path, metavar="FILE", help="keep the positions and scores here")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    if args.depth < 12:
        parser.error("Scan 2.0 prints its score only from depth 12 on: give --depth 12 or more")
    began = time.perf_counter()
    variant = get_variant(VARIANT)
    base = shipped_weights(variant)
    games, found = data(args, base)
    by_game = rows(games, found, base, args.patterns, args.k)
    train = [row for i, game in enumerate(by_game) if i % 10 != 9 for row in game]
    held = [row for i, game in enumerate(by_game) if i % 10 == 9 for row in game]
    names = FAMILIES[VARIANT].features
    dense = [float(getattr(base, name)) for name in names]
    size = pattern_size(variant) if args.patterns else 0
    zero = [0.0] * size
    shipped = (error(dense, zero, train, args.k), error(dense, zero, held, args.k))
    print(f"data: {len(train)} positions to fit, {len(held)} held out; mean squared error of the shipped "
          f"weights {shipped[0]:.5f} / {shipped[1]:.5f} (held out)", flush=True)
    fits = {}
    for l2 in (float(x) for x in args.l2.split(",")):
        w, p = fit(train, dense, size, args.k, args.epochs, l2, args.seed, fit_dense=True, patterns=zero)
        fits[l2] = (w, p, error(w, p, held, args.k))
        print(f"  l2 {l2:g}: mean squared error {error(w, p, train, args.k):.5f} / {fits[l2][2]:.5f} "
              f"(held out)", flush=True)
    l2 = min(fits, key=lambda x: fits[x][2])
    w, p, held_error = fits[l2]
    scale = 100 / w[0]  # a man is worth 100
    tuned = replace(base, **{name: round(x * scale) for name, x in zip(names, w, strict=True)},
                    patterns=tuple(round(x * scale) for x in p))
    print(f"weights: {dict((name, getattr(tuned, name)) for name in names)}; pattern weights not zero: "
          f"{sum(1 for x in tuned.patterns if x)} of {size}", flush=True)
    check = family_openings(VARIANT, args.seed + 1, args.check_pairs, 4)
    score, played = match(VARIANT, tuned, base, check, args.nodes, args.jobs)
    print(f"gain: against the shipped weights, {played} games on fresh openings (seed {args.seed + 1}), "
          f"{args.nodes} nodes a move: {score:.1%}", flush=True)
    timed = None
    if args.check_time:
        timed, _played = match(VARIANT, tuned, base, check, args.nodes, args.jobs, args.check_time)
        print(f"gain at equal time: {played} games, {args.check_time:g} s a move: {timed:.1%}", flush=True)
    print(f"{time.perf_counter() - began:.0f} s in all")
    if args.write:
        defaults, _played = match(VARIANT, replace(tuned, patterns=()), FAMILIES[VARIANT].kind(), check,
                                  args.nodes, args.jobs)
        print(f"the fitted weights (without patterns) against the hand-set ones: {defaults:.1%}", flush=True)
        checks = (played, score, timed, defaults)
        write(args, tuned, len(train), len(held), shipped[1], held_error, l2, checks)
    return 0


def write(args: argparse.Namespace, tuned: Weights, fitted: int, held: int, shipped_error: float,
          held_error: float, l2: float, checks: tuple[int, float, float | None, float]) -> None:
    """The fitted weights into the international family's file, with how they were fitted and checked
    (the shape tests/engine/test_evaluation.py reads: "tuning", and "patterns" with their "fitting")."""
    played, score, timed, defaults = checks
    variant = get_variant(VARIANT)
    path = family_file("international")
    kept = json.loads(path.read_text())
    kept["weights"] = {name: getattr(tuned, name) for name in kept["weights"]}
    kept["tuning"] = {
        "script": "benchmarks/tune_from_scan.py" + (" --patterns" if args.patterns else ""),
        "method": f"fitted to Scan 2.0's scores (rhalbersma/scan 57082ee, depth {args.depth}) alone",
        "variants": [VARIANT], "seed": args.seed, "nodes_per_move": args.nodes, "games": args.games,
        "epochs": args.epochs, "positions": fitted, "held_out": held, "k": args.k,
        "mse_held_out_shipped": round(shipped_error, 6), "mse_held_out_fitted": round(held_error, 6),
        "check_games": played, "check_score_vs_defaults": round(defaults, 4),
    }
    kept.pop("adjusted", None)  # the hand adjustments were of the weights this fit replaces
    kept.pop("patterns", None)
    if args.patterns:
        kept["patterns"] = {
            "regions": f"{region_count(variant)} regions of {2 * window(variant)} squares in bands of two "
                       "rows (shashki/engine/patterns.py)",
            "fitting": {
                "script": "benchmarks/tune_from_scan.py --patterns", "l2": l2,
                "mse_held_out_shipped": round(shipped_error, 6), "mse_held_out_fitted": round(held_error, 6),
                "check_games": played, "check_score_vs_shipped": round(score, 4),
                "check_seconds_a_move": args.check_time or None,
                "check_score_vs_shipped_at_equal_time": None if timed is None else round(timed, 4),
            },
            "values": list(tuned.patterns),
        }
    path.write_text(json.dumps(kept, indent=1) + "\n")
    print(f"wrote {path}")

if __name__ == "__main__":
    sys.exit(main())
