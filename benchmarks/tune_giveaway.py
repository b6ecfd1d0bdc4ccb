"""Tune the giveaway evaluation weights from engine self-play, reproducibly (issue 3).

    python benchmarks/tune_giveaway.py [--games 400] [--nodes 1000] [--check-pairs 50] [--seed 2026] [--write]

1. Data: `--games` self-play games of the engine with the default weights (`GiveawayWeights()`), each
   from its own random opening of 6 plies (seeded), every move searched to `--nodes` nodes, so a run is
   the same every time. Every quiet position (no capture to make: the ones the evaluation scores) is
   kept with the game's result for the side to move (1, 1/2, 0).
2. Fit ("Texel" tuning): the weights that best predict those results through a logistic curve,
   sigmoid(evaluation / K): first K is fitted to the default weights, then all the weights by gradient
   descent on the mean squared error, then rounded.
3. Gain: the tuned weights play the defaults over `--check-pairs` fresh openings (another seed), each
   with both colours, at the same nodes per move; the script prints the score.

With `--write` the weights, the data size and the measured gain go to shashki/engine/giveaway_weights.json
(shipped with the package, the default of the giveaway evaluation).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from dataclasses import asdict, fields
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shashki.engine import Engine, Limit  # noqa: E402
from shashki.engine.evaluation import WEIGHTS_FILE, Evaluator, GiveawayWeights  # noqa: E402
from shashki.rules import Game, get_variant  # noqa: E402

VARIANT = "russian-giveaway"
MAX_PLIES = 160  # a game not over by then counts as a draw
NAMES = [f.name for f in fields(GiveawayWeights)]


def openings(seed: int, count: int, plies: int = 4, variant_key: str = VARIANT) -> list[list[str]]:
    """`count` distinct random openings of `plies` moves from the start position (the other engine
    benchmarks draw theirs here too)."""
    rng = random.Random(seed)
    seen: set[tuple[str, ...]] = set()
    result: list[list[str]] = []
    variant = get_variant(variant_key)
    while len(result) < count:
        game = Game(variant)
        for _ in range(plies):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        key = tuple(game.notations())
        if key not in seen and not game.is_over:
            seen.add(key)
            result.append(list(key))
    return result


def play_game(white: GiveawayWeights, black: GiveawayWeights, opening: list[str], nodes: int) -> Game:
    game = Game.replay(opening, VARIANT)
    engines = {True: Engine(weights=white), False: Engine(weights=black)}
    limit = Limit(nodes=nodes)
    while not game.is_over and game.ply < MAX_PLIES:
        game.play(engines[game.position.white_to_move].play(game, limit).move)
    return game


def white_score(game: Game) -> float:
    outcome = game.outcome
    if outcome is None or outcome.winner is None:
        return 0.5
    return 1.0 if outcome.winner.value == "white" else 0.0


def match(a: GiveawayWeights, b: GiveawayWeights, lines: list[list[str]], nodes: int) -> tuple[float, int]:
    """a's score over every opening played with both colours, and the number of games."""
    points = 0.0
    for opening in lines:
        points += white_score(play_game(a, b, opening, nodes))
        points += 1 - white_score(play_game(b, a, opening, nodes))
    return points / (2 * len(lines)), 2 * len(lines)


def collect(games: int, nodes: int, seed: int) -> tuple[list[list[int]], list[float], int]:
    """Feature differences (side to move minus opponent) of quiet positions, and their results."""
    evaluator = Evaluator(get_variant(VARIANT), GiveawayWeights())
    xs: list[list[int]] = []
    ys: list[float] = []
    plies = 0
    for i, opening in enumerate(openings(seed, games, plies=6)):
        game = play_game(GiveawayWeights(), GiveawayWeights(), opening, nodes)
        result = white_score(game)
        plies += game.ply
        for pos in game.positions[len(opening):]:
            moves = pos.legal_moves()
            if not moves or moves[0].capture_mask:
                continue
            a = evaluator.features(pos, pos.white_to_move)
            b = evaluator.features(pos, not pos.white_to_move)
            xs.append([p - q for p, q in zip(a, b, strict=True)])
            ys.append(result if pos.white_to_move else 1 - result)
        if (i + 1) % 50 == 0:
            print(f"  {i + 1} games, {len(xs)} positions", flush=True)
    return xs, ys, plies


def error(weights: list[float], xs: list[list[int]], ys: list[float], k: float) -> float:
    total = 0.0
    for x, y in zip(xs, ys, strict=True):
        s = sum(w * f for w, f in zip(weights, x, strict=True))
        total += (y - 1 / (1 + math.exp(-max(-500.0, min(500.0, s / k))))) ** 2
    return total / len(xs)


def fit(xs: list[list[int]], ys: list[float], start: list[float], k: float, epochs: int) -> list[float]:
    """Gradient descent (Adam) on the mean squared error of sigmoid(w.x / k) against the results."""
    w = list(start)
    m = [0.0] * len(w)
    v = [0.0] * len(w)
    lr, b1, b2 = 1.0, 0.9, 0.999
    n = len(xs)
    for t in range(1, epochs + 1):
        grad = [0.0] * len(w)
        for x, y in zip(xs, ys, strict=True):
            s = sum(wi * f for wi, f in zip(w, x, strict=True)) / k
            p = 1 / (1 + math.exp(-max(-500.0, min(500.0, s))))
            g = -2 * (y - p) * p * (1 - p) / k
            for j, f in enumerate(x):
                grad[j] += g * f
        for j in range(len(w)):
            gj = grad[j] / n
            m[j] = b1 * m[j] + (1 - b1) * gj
            v[j] = b2 * v[j] + (1 - b2) * gj * gj
            w[j] -= lr * (m[j] / (1 - b1**t)) / (math.sqrt(v[j] / (1 - b2**t)) + 1e-12)
    return w


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="self-play games for the data (default 400)")
    parser.add_argument("--nodes", type=int, default=1000, help="nodes searched per move (default 1000)")
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--check-pairs", type=int, default=50, help="opening pairs of the final match")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--write", action="store_true", help=f"write {WEIGHTS_FILE.relative_to(ROOT)}")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    print(f"self-play: {args.games} games, {args.nodes} nodes per move, seed {args.seed}", flush=True)
    xs, ys, plies = collect(args.games, args.nodes, args.seed)
    defaults = [float(getattr(GiveawayWeights(), name)) for name in NAMES]
    k = min((10.0 * 1.25**i for i in range(30)), key=lambda kk: error(defaults, xs, ys, kk))
    before = error(defaults, xs, ys, k)
    fitted = fit(xs, ys, defaults, k, args.epochs)
    after = error(fitted, xs, ys, k)
    tuned = GiveawayWeights(**{name: round(w) for name, w in zip(NAMES, fitted, strict=True)})
    print(f"data: {args.games} games, {plies} plies, {len(xs)} quiet positions; K = {k:.0f}")
    print(f"mean squared error: defaults {before:.5f}, tuned {after:.5f}")
    print(f"defaults: {asdict(GiveawayWeights())}")
    print(f"tuned:    {asdict(tuned)}", flush=True)
    check = openings(args.seed + 1, args.check_pairs)
    score, games = match(tuned, GiveawayWeights(), check, args.nodes)
    seconds = time.perf_counter() - start
    print(f"gain: tuned vs defaults, {games} games on fresh openings (seed {args.seed + 1}), "
          f"{args.nodes} nodes a move: {score:.1%}; {seconds:.0f} s in all")
    if args.write:
        data = {
            "weights": asdict(tuned),
            "tuning": {
                "script": "benchmarks/tune_giveaway.py",
                "method": "logistic fit of self-play results (Texel)",
                "seed": args.seed,
                "nodes_per_move": args.nodes,
                "games": args.games,
                "plies": plies,
                "positions": len(xs),
                "k": k,
                "mse_defaults": round(before, 6),
                "mse_tuned": round(after, 6),
                "check_games": games,
                "check_score_vs_defaults": round(score, 4),
            },
        }
        WEIGHTS_FILE.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {WEIGHTS_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
