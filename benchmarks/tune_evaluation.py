"""Tune an evaluation's weights from engine self-play, reproducibly (issues 3 and 15).

    python benchmarks/tune_evaluation.py [--family giveaway|russian] [--games 400] [--nodes 1000]
        [--check-pairs 50] [--seed 2026] [--jobs 2] [--write]

A family is the variants that share one weights file (`shashki.engine.evaluation`): `giveaway` (played in
Russian giveaway, its file serves every giveaway variant) and `russian` (Russian and Brazilian).

1. Data: `--games` self-play games of the engine with the family's hand-set weights, each from its own
   random opening of 6 plies (seeded), every move searched to `--nodes` nodes, so a run is the same
   every time. Every quiet position (no capture to make: the ones the evaluation scores) is kept with
   the game's result for the side to move (1, 1/2, 0).
2. Fit ("Texel" tuning): the weights that best predict those results through a logistic curve,
   sigmoid(evaluation / K): first K is fitted to the hand-set weights, then all the weights (the
   features only tuned weights use too) by gradient descent on the mean squared error; for the
   ordinary families they are then scaled so that a man is worth 100 (scores stay in hundredths of a
   man), and rounded.
3. Gain: the tuned weights play the hand-set ones over `--check-pairs` fresh openings (another seed),
   each with both colours, at the same nodes per move; the script prints the score.

Games are played by `--jobs` processes (the results do not depend on it). With `--write` the weights, the
data size and the measured gain go to the family's file, shipped with the package as the default.
"""

from __future__ import annotations

import argparse
import json
import math
import operator
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shashki.engine import Engine, Limit  # noqa: E402
from shashki.engine.evaluation import (  # noqa: E402
    FEATURES,
    RUSSIAN_WEIGHTS_FILE,
    WEIGHTS_FILE,
    DraughtsWeights,
    Evaluator,
    GiveawayWeights,
    Weights,
)
from shashki.rules import Game, get_variant  # noqa: E402

VARIANT = "russian-giveaway"  # the giveaway family's variant (the level ladder plays it too)
MAX_PLIES = 160  # a game not over by then counts as a draw


@dataclass(frozen=True)
class Family:
    variant: str  # the variant its games are played in
    kind: type[DraughtsWeights] | type[GiveawayWeights]
    path: Path  # where --write puts the weights
    features: tuple[str, ...]  # the weights fitted (the others keep their hand-set values)
    # Scale the fitted weights so that a man is worth 100: the unit the engine's scores are read in
    # (the analysis's marks, the puzzles' "two men ahead"). Giveaway's weights are used as fitted.
    per_man: bool


FAMILIES = {
    # The giveaway file was fitted on the first seven features (before the others existed).
    "giveaway": Family(VARIANT, GiveawayWeights, WEIGHTS_FILE, FEATURES[:7], False),
    "russian": Family("russian", DraughtsWeights, RUSSIAN_WEIGHTS_FILE, FEATURES, True),
}


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


def play_game(variant: str, white: Weights, black: Weights, opening: list[str], nodes: int) -> Game:
    game = Game.replay(opening, variant)
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


def _weights(family: str, values: dict[str, int]) -> Weights:
    """Weights sent to a worker process as a dict (the compiled dataclasses do not pickle)."""
    return FAMILIES[family].kind(**values)


def _pair(task: tuple[str, dict[str, int], dict[str, int], list[str], int]) -> float:
    """a's points in the two games of one opening (a with White, then with Black)."""
    family, a_values, b_values, opening, nodes = task
    variant = FAMILIES[family].variant
    a, b = _weights(family, a_values), _weights(family, b_values)
    return white_score(play_game(variant, a, b, opening, nodes)) + 1 - white_score(
        play_game(variant, b, a, opening, nodes)
    )


def match(family: str, a: Weights, b: Weights, lines: list[list[str]], nodes: int,
          jobs: int = 1) -> tuple[float, int]:
    """a's score over every opening played with both colours, and the number of games."""
    tasks = [(family, asdict(a), asdict(b), opening, nodes) for opening in lines]
    with ProcessPoolExecutor(jobs) as pool:
        points = sum(pool.map(_pair, tasks))
    return points / (2 * len(lines)), 2 * len(lines)


def _game_data(task: tuple[str, list[str], int]) -> tuple[list[list[int]], list[float], int]:
    """One self-play game of the family's hand-set weights: its quiet positions' differences (side to
    move minus opponent) of the features fitted, and the game's result for the side to move; and the
    game's length."""
    name, opening, nodes = task
    family = FAMILIES[name]
    variant, weights, names = family.variant, family.kind(), family.features
    chosen = [FEATURES.index(name) for name in names]
    evaluator = Evaluator(get_variant(variant), weights)
    game = play_game(variant, weights, weights, opening, nodes)
    result = white_score(game)
    xs: list[list[int]] = []
    ys: list[float] = []
    for pos in game.positions[len(opening):]:
        moves = pos.legal_moves()
        if not moves or moves[0].capture_mask:
            continue
        a = evaluator.features(pos, pos.white_to_move)
        b = evaluator.features(pos, not pos.white_to_move)
        xs.append([a[i] - b[i] for i in chosen])
        ys.append(result if pos.white_to_move else 1 - result)
    return xs, ys, game.ply


def collect(name: str, games: int, nodes: int, seed: int,
            jobs: int) -> tuple[list[list[int]], list[float], int]:
    """The quiet positions of `games` self-play games of the hand-set weights, with their results."""
    xs: list[list[int]] = []
    ys: list[float] = []
    plies = 0
    variant = FAMILIES[name].variant
    tasks = [(name, opening, nodes) for opening in openings(seed, games, plies=6, variant_key=variant)]
    with ProcessPoolExecutor(jobs) as pool:
        for i, (x, y, n) in enumerate(pool.map(_game_data, tasks)):
            xs += x
            ys += y
            plies += n
            if (i + 1) % 50 == 0:
                print(f"  {i + 1} games, {len(xs)} positions", flush=True)
    return xs, ys, plies


def error(weights: list[float], xs: list[list[int]], ys: list[float], k: float) -> float:
    total = 0.0
    for x, y in zip(xs, ys, strict=True):
        s = sum(map(operator.mul, weights, x))
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
            s = sum(map(operator.mul, w, x)) / k
            p = 1 / (1 + math.exp(-max(-500.0, min(500.0, s))))
            g = -2 * (y - p) * p * (1 - p) / k
            grad = list(map(lambda acc, f, g=g: acc + g * f, grad, x))
        for j in range(len(w)):
            gj = grad[j] / n
            m[j] = b1 * m[j] + (1 - b1) * gj
            v[j] = b2 * v[j] + (1 - b2) * gj * gj
            w[j] -= lr * (m[j] / (1 - b1**t)) / (math.sqrt(v[j] / (1 - b2**t)) + 1e-12)
    return w


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", choices=sorted(FAMILIES), default="giveaway")
    parser.add_argument("--games", type=int, default=400, help="self-play games for the data (default 400)")
    parser.add_argument("--nodes", type=int, default=1000, help="nodes searched per move (default 1000)")
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--check-pairs", type=int, default=50, help="opening pairs of the final match")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes playing games")
    parser.add_argument("--write", action="store_true", help="write the family's weights file")
    args = parser.parse_args(argv)
    family = FAMILIES[args.family]
    names = family.features
    hand_set = family.kind()

    start = time.perf_counter()
    print(f"{args.family} ({family.variant}) self-play: {args.games} games, {args.nodes} nodes per move, "
          f"seed {args.seed}", flush=True)
    xs, ys, plies = collect(args.family, args.games, args.nodes, args.seed, args.jobs)
    defaults = [float(getattr(hand_set, name)) for name in names]
    k = min((10.0 * 1.25**i for i in range(30)), key=lambda kk: error(defaults, xs, ys, kk))
    before = error(defaults, xs, ys, k)
    fitted = fit(xs, ys, defaults, k, args.epochs)
    scale = 1.0
    if family.per_man:
        scale = 100 / fitted[names.index("man")]
        print(f"fitted: {dict(zip(names, (round(w, 1) for w in fitted), strict=True))}; scaled by "
              f"{scale:.4f} so that a man is 100")
    tuned = replace(hand_set, **{name: round(w * scale) for name, w in zip(names, fitted, strict=True)})
    # The tuned weights on their own scale: sigmoid(score / K) is the same curve when both are scaled.
    after = error([float(getattr(tuned, name)) for name in names], xs, ys, k * scale)
    print(f"data: {args.games} games, {plies} plies, {len(xs)} quiet positions; K = {k:.0f}")
    print(f"mean squared error: hand-set {before:.5f}, tuned {after:.5f}")
    print(f"hand-set: {asdict(hand_set)}")
    print(f"tuned:    {asdict(tuned)}", flush=True)
    check = openings(args.seed + 1, args.check_pairs, variant_key=family.variant)
    score, games = match(args.family, tuned, hand_set, check, args.nodes, args.jobs)
    seconds = time.perf_counter() - start
    print(f"gain: tuned vs hand-set, {games} games on fresh openings (seed {args.seed + 1}), "
          f"{args.nodes} nodes a move: {score:.1%}; {seconds:.0f} s in all")
    if args.write:
        data = {
            "weights": asdict(tuned),
            "tuning": {
                "script": f"benchmarks/tune_evaluation.py --family {args.family}",
                "method": "logistic fit of self-play results (Texel)",
                "variant": family.variant,
                "seed": args.seed,
                "nodes_per_move": args.nodes,
                "games": args.games,
                "epochs": args.epochs,
                "plies": plies,
                "positions": len(xs),
                "k": k,
                "mse_defaults": round(before, 6),
                "mse_tuned": round(after, 6),
                "check_games": games,
                "check_score_vs_defaults": round(score, 4),
            },
        }
        family.path.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {family.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
