"""Fit pattern weights over board regions from self-play, reproducibly (issue 15 point 3).

    python benchmarks/tune_patterns.py [--family giveaway|russian|international] [--games 2000] [--nodes 1000]
        [--epochs 12] [--l2 5[,L2...]] [--check-pairs 100] [--check-time S] [--seed 2026] [--jobs 2]
        [--data FILE] [--write] [--check-shipped VARIANT [--before FILE]]

The patterns are `shashki.engine.patterns`: every configuration of men in a region of a band of two rows
(3^8: the whole band on 8x8, four squares of each row's five on 10x10) has a weight, White's read from
White's side and Black's from the other end of the same table.

1. Data: `--games` self-play games of the family's shipped weights (its file, with its patterns), from
   seeded random openings of 6 plies, every move searched to `--nodes` nodes (as
   benchmarks/tune_evaluation.py plays them). Every quiet position is kept with its features, the
   pattern weights it reads and the game's result for the side to move. A tenth of the games (every
   tenth) is held out to measure the fit on positions it did not see.
2. Fit: sigmoid(evaluation / K) against the results (K fitted to the shipped weights, as in
   tune_evaluation.py), the pattern weights from the shipped ones (zero without) and, in giveaway, the
   family's weights from the shipped ones (ordinary draughts keeps them: its scores are read in
   hundredths of a man), by minibatch gradient descent (Adam, updating only the pattern weights a batch
   reads) with an L2 penalty on the pattern weights (`--l2`, several tried: the best on the held-out
   games is kept; most configurations are rare); rounded to integers.
3. Gain: the fitted weights with their patterns play the shipped ones over `--check-pairs` fresh openings
   (another seed), each with both colours, at `--nodes` a move and, with `--check-time S`, again at S
   seconds a move (equal time: what the patterns cost in speed counts there); and the search's speed
   with and without the patterns on the same positions.

With `--write` the weights and the patterns go to the family's file (`shashki/engine/<family>_weights.json`,
the patterns under "patterns" with how they were fitted): write only patterns that beat the shipped
weights.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tune_evaluation import (  # noqa: E402
    FAMILIES,
    family_openings,
    feature_row,
    match,
    openings,
    play_game,
    white_score,
)

from shashki.engine import Engine, Limit  # noqa: E402
from shashki.engine.evaluation import (  # noqa: E402
    Evaluator,
    Weights,
    family_file,
    family_of,
    shipped_weights,
)
from shashki.engine.patterns import pattern_size, region_count, window  # noqa: E402
from shashki.rules import Position, get_variant  # noqa: E402

# One row of data: the features (side to move minus opponent), the pattern weights read for White as
# (index, sign), +1 when White is to move (else -1), and the result for the side to move.
Row = tuple[list[int], list[tuple[int, int]], int, float]


def _game_rows(task: tuple[str, str, dict, list[str], int]) -> tuple[list[Row], int]:
    name, variant_key, values, opening, nodes = task
    family = FAMILIES[name]
    variant = get_variant(variant_key)
    weights = family.kind(**values)
    game = play_game(variant_key, weights, weights, opening, nodes, family.max_plies)
    # An evaluator with patterns of zero weight: only their indices are read.
    reader = Evaluator(variant, replace(weights, patterns=(0,) * pattern_size(variant)))
    result = white_score(game)
    rows: list[Row] = []
    for pos in game.positions[len(opening):]:
        moves = pos.legal_moves()
        if not moves or moves[0].capture_mask:
            continue
        rows.append(row_of(reader, pos, family.features, result))
    return rows, game.ply


def row_of(reader: Evaluator, pos: Position, names: tuple[str, ...], white_result: float) -> Row:
    """A quiet position's row (`reader` has patterns, of any weights: their indices are read)."""
    white = pos.white_to_move
    return (feature_row(reader, pos, names), reader.pattern_terms(pos), 1 if white else -1,
            white_result if white else 1 - white_result)


def collect(name: str, base: Weights, games: int, nodes: int, seed: int, jobs: int) -> list[list[Row]]:
    """The quiet positions of each self-play game, game by game."""
    values = asdict(base)
    lines = family_openings(name, seed, games, 6)
    tasks = [(name, variant, values, opening, nodes) for variant, opening in lines]
    found: list[list[Row]] = []
    with ProcessPoolExecutor(jobs) as pool:
        for i, (rows, _plies) in enumerate(pool.map(_game_rows, tasks)):
            found.append(rows)
            if (i + 1) % 100 == 0:
                print(f"  {i + 1} games, {sum(map(len, found))} positions", flush=True)
    return found


def cached(path: Path | None, key: tuple, make: Callable[[], list[list[Row]]]) -> list[list[Row]]:
    """`make()`, or what an earlier run with the same `key` kept in `path`."""
    if path is not None and path.exists():
        with path.open("rb") as file:
            kept_key, games = pickle.load(file)
        if kept_key == key:
            print(f"data: read from {path}", flush=True)
            return games
        print(f"data: {path} holds other games; playing them again", flush=True)
    games = make()
    if path is not None:
        with path.open("wb") as file:
            pickle.dump((key, games), file, protocol=pickle.HIGHEST_PROTOCOL)
    return games


def sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-max(-500.0, min(500.0, x))))


def evaluation(dense: list[float], patterns: list[float], row: Row) -> float:
    features, terms, side, _ = row
    pattern = sum(patterns[i] * sign for i, sign in terms)
    return sum(w * x for w, x in zip(dense, features, strict=True)) + side * pattern


def error(dense: list[float], patterns: list[float], rows: list[Row], k: float) -> float:
    total = sum((row[3] - sigmoid(evaluation(dense, patterns, row) / k)) ** 2 for row in rows)
    return total / max(1, len(rows))


def fit(rows: list[Row], dense: list[float], size: int, k: float, epochs: int, l2: float, seed: int,
        batch: int = 256, fit_dense: bool = True,
        patterns: list[float] | None = None) -> tuple[list[float], list[float]]:
    """Minibatch Adam on the mean squared error plus `l2` times the mean squared pattern weight read,
    from the pattern weights given (else zero); the family's weights are held as they are unless
    `fit_dense`."""
    w = list(dense)
    p = list(patterns) if patterns is not None else [0.0] * size
    mw, vw = [0.0] * len(w), [0.0] * len(w)
    mp, vp = [0.0] * size, [0.0] * size
    tp = [0] * size  # Adam's step count per pattern weight (updated only when read: lazy)
    lr_dense, lr_pattern, b1, b2 = 1.0, 2.0, 0.9, 0.999
    order = list(range(len(rows)))
    rng = random.Random(seed)
    t = 0
    decay = 2 * l2 / (k * k)  # the penalty's gradient per weight read, l2 * (p / K)^2 a read
    for _ in range(epochs):
        rng.shuffle(order)
        for start in range(0, len(order), batch):
            chosen = order[start:start + batch]
            gw = [0.0] * len(w)
            gp: dict[int, float] = {}
            for r in chosen:
                row = rows[r]
                features, terms, side, y = row
                q = sigmoid(evaluation(w, p, row) / k)
                g = -2 * (y - q) * q * (1 - q) / k
                for j, x in enumerate(features):
                    gw[j] += g * x
                gs = g * side
                for i, sign in terms:
                    gp[i] = gp.get(i, 0.0) + gs * sign + decay * p[i]
            n = len(chosen)
            t += 1
            for j in range(len(w) if fit_dense else 0):
                gj = gw[j] / n
                mw[j] = b1 * mw[j] + (1 - b1) * gj
                vw[j] = b2 * vw[j] + (1 - b2) * gj * gj
                w[j] -= lr_dense * (mw[j] / (1 - b1**t)) / (math.sqrt(vw[j] / (1 - b2**t)) + 1e-12)
            for i, gi in gp.items():
                gi /= n
                tp[i] += 1
                mp[i] = b1 * mp[i] + (1 - b1) * gi
                vp[i] = b2 * vp[i] + (1 - b2) * gi * gi
                step = (mp[i] / (1 - b1 ** tp[i])) / (math.sqrt(vp[i] / (1 - b2 ** tp[i])) + 1e-12)
                p[i] -= lr_pattern * step
    return w, p


def speed(variant_key: str, a: Weights, b: Weights, positions: int, nodes: int,
          seed: int) -> tuple[float, float]:
    """Nodes per second of a search of `nodes` nodes with weights a and with b, over the same positions
    of a random game each (interleaved, best of two)."""
    from shashki.rules import Game

    variant = get_variant(variant_key)
    rng = random.Random(seed)
    spots: list[Position] = []
    while len(spots) < positions:
        game = Game(variant)
        for _ in range(rng.randrange(6, 30)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over:
            spots.append(game.position)
    rates = []
    for weights in (a, b):
        best = 0.0
        for _ in range(2):
            total_nodes, seconds = 0, 0.0
            for pos in spots:
                engine = Engine(weights=weights, book="off")
                began = time.process_time()
                for _line in engine.analyse(pos, Limit(nodes=nodes)):
                    pass
                seconds += time.process_time() - began
                total_nodes += engine.searcher.nodes
            best = max(best, total_nodes / seconds)
        rates.append(best)
    return rates[0], rates[1]


def check_shipped(key: str, before: str | None, pairs: int, nodes: int, seed: int, jobs: int,
                  seconds: float | None) -> int:
    """A variant's shipped weights with their patterns against the same weights without them, or against
    the weights of an earlier file (`before`: a path)."""
    variant = get_variant(key)
    name = family_of(variant)
    shipped = shipped_weights(variant)
    if name not in FAMILIES or not shipped.patterns:
        print(f"error: {variant.key} has no shipped patterns to check")
        return 2
    other, other_name = replace(shipped, patterns=()), "the same without them"
    if before is not None:
        other = type(shipped).from_dict(json.loads(Path(before).read_text())["weights"])
        other_name = f"the weights of {before}"
    lines = [(variant.key, opening) for opening in openings(seed, pairs, variant_key=variant.key)]
    score, games = match(name, shipped, other, lines, nodes, jobs, seconds)
    at = f"{seconds:g} s" if seconds else f"{nodes} nodes"
    print(f"{variant.key}: the {name} family's weights with their patterns against {other_name}, "
          f"{games} games on openings of seed {seed}, {at} a move: {score:.1%}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", choices=["giveaway", "russian", "international"], default="giveaway")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--l2", default="5", help="penalty on the pattern weights, or several separated by "
                        "commas: each is fitted and the one best on the held-out games kept (default 5)")
    parser.add_argument("--check-pairs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--check-time", type=float, default=0.0, metavar="S",
                        help="also play the check at S seconds a move (equal time)")
    parser.add_argument("--data", type=Path, metavar="FILE",
                        help="keep the self-play positions in FILE (pickle), and read them from it when it "
                        "holds the same family, games, nodes, seed and weights: fits with other --l2 or "
                        "--epochs without playing the games again")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--check-shipped", metavar="VARIANT",
                        help="only play the weights shipped for VARIANT against them without their patterns")
    parser.add_argument("--before", metavar="FILE",
                        help="with --check-shipped: against the weights of this (earlier) weights file")
    args = parser.parse_args(argv)
    if args.check_shipped:
        return check_shipped(args.check_shipped, args.before, args.check_pairs, args.nodes, args.seed + 1,
                             args.jobs, args.check_time or None)
    family = FAMILIES[args.family]
    variant = get_variant(family.variants[0])
    # The shipped weights play the data's games and the check, with their patterns when they have some
    # (a second fit then starts from those).
    base = shipped_weights(variant)
    names = family.features
    began = time.perf_counter()
    print(f"{args.family}: self-play of the shipped weights, {args.games} games, {args.nodes} nodes a move, "
          f"seed {args.seed}", flush=True)
    games = cached(args.data, (args.family, args.games, args.nodes, args.seed, asdict(base)),
                   lambda: collect(args.family, base, args.games, args.nodes, args.seed, args.jobs))
    train = [row for i, rows in enumerate(games) if i % 10 != 9 for row in rows]
    held = [row for i, rows in enumerate(games) if i % 10 == 9 for row in rows]
    dense = [float(getattr(base, name)) for name in names]
    size = pattern_size(variant)
    start = [float(x) for x in base.patterns] if len(base.patterns) == size else [0.0] * size
    origin = "the shipped patterns" if any(start) else "zero"
    k = min((10.0 * 1.25**i for i in range(40)), key=lambda kk: error(dense, start, train, kk))
    print(f"data: {len(train)} positions to fit, {len(held)} held out; K = {k:.0f}; pattern weights "
          f"from {origin}", flush=True)
    fits = {}
    for l2 in (float(x) for x in args.l2.split(",")):
        # Ordinary draughts keeps its weights (a man is 100: scores are read in hundredths of a man).
        w, p = fit(train, dense, size, k, args.epochs, l2, args.seed, fit_dense=not family.per_man,
                   patterns=start)
        fits[l2] = (w, p, error([float(round(x)) for x in w], [float(round(x)) for x in p], held, k))
        print(f"  l2 {l2:g}: mean squared error on the held-out games {fits[l2][2]:.5f}", flush=True)
    l2 = min(fits, key=lambda x: fits[x][2])
    w, p, _ = fits[l2]
    rounded_w, rounded_p = [float(round(x)) for x in w], [float(round(x)) for x in p]
    mse = {
        "shipped": (error(dense, start, train, k), error(dense, start, held, k)),
        "fitted": (error(rounded_w, rounded_p, train, k), error(rounded_w, rounded_p, held, k)),
    }
    for label, (a, b) in mse.items():
        print(f"mean squared error, {label}: {a:.5f} on the positions fitted, {b:.5f} on the held-out games")
    used = sum(1 for x in rounded_p if x)
    print(f"pattern weights not zero: {used} of {size}; largest {max(map(abs, rounded_p)):.0f}")
    tuned = replace(base, **{name: round(x) for name, x in zip(names, w, strict=True)},
                    patterns=tuple(int(x) for x in rounded_p))
    print(f"weights: {dict(zip(names, (round(x) for x in w), strict=True))}", flush=True)
    fast, slow = speed(variant.key, replace(base, patterns=()), tuned, 12, 20000, args.seed)
    print(f"search speed: {slow:,.0f} nodes/s with the patterns, {fast:,.0f} without ({slow / fast:.2f}x)")
    check = family_openings(args.family, args.seed + 1, args.check_pairs, 4)
    score, played = match(args.family, tuned, base, check, args.nodes, args.jobs)
    print(f"gain: with the patterns against the shipped weights, {played} games on fresh openings (seed "
          f"{args.seed + 1}), {args.nodes} nodes a move: {score:.1%}", flush=True)
    timed: float | None = None
    if args.check_time:
        timed, played_timed = match(args.family, tuned, base, check, args.nodes, args.jobs, args.check_time)
        print(f"gain at equal time: {played_timed} games, {args.check_time:g} s a move: {timed:.1%}")
    print(f"{time.perf_counter() - began:.0f} s in all")
    if args.write:
        path = family_file(args.family)
        data = json.loads(path.read_text())
        data["weights"] = {name: getattr(tuned, name) for name in data["weights"]} | {
            name: getattr(tuned, name) for name in names}
        # The weights were fitted again with the patterns: the file's tuning says so.
        tuning = data.setdefault("tuning", {})
        tuning["refitted_with_patterns"] = "benchmarks/tune_patterns.py (patterns.fitting)"
        data["patterns"] = {
            "regions": f"{region_count(variant)} regions of {2 * window(variant)} squares in bands of "
                       "two rows (shashki/engine/patterns.py)",
            "fitting": {
                "script": f"benchmarks/tune_patterns.py --family {args.family}",
                "seed": args.seed, "games": args.games, "patterns_from": origin,
                "nodes_per_move": args.nodes, "epochs": args.epochs,
                "l2": l2, "positions": len(train), "held_out": len(held), "k": k,
                "mse_held_out_shipped": round(mse["shipped"][1], 6),
                "mse_held_out_fitted": round(mse["fitted"][1], 6),
                "check_games": played, "check_score_vs_shipped": round(score, 4),
                "check_seconds_a_move": args.check_time or None,
                "check_score_vs_shipped_at_equal_time": None if timed is None else round(timed, 4),
                "nodes_per_second_ratio": round(slow / fast, 3),
            },
            "values": list(tuned.patterns),
        }
        path.write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
