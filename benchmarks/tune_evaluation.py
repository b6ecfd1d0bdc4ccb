"""Tune an evaluation's weights from engine self-play, reproducibly (issues 3 and 15).

    python benchmarks/tune_evaluation.py [--family giveaway|international-giveaway|russian|international|
        english] [--games 400] [--nodes 1000] [--check-pairs 50] [--seed 2026] [--jobs 2] [--write]

A family is the variants that share one weights file (`shashki.engine.weights.FAMILIES`): `giveaway`
(the 8x8 giveaway variants, played in Russian giveaway), `international-giveaway`, `russian` (Russian,
Brazilian and Pool, played in Russian), `international`, and `english` (English and Italian, played in
both in turn; their one-square kings are fitted as `short_king`).

1. Data: `--games` self-play games of the engine with the family's hand-set weights (see `--start`), each
   from its own
   random opening of 6 plies (seeded) in one of the family's played variants, every move searched to
   `--nodes` nodes, so a run is the same every time. Every quiet position (no capture to make: the ones
   the evaluation scores) is kept with the game's result for the side to move (1, 1/2, 0).
2. Fit ("Texel" tuning): the weights that best predict those results through a logistic curve,
   sigmoid(evaluation / K): first K is fitted to the hand-set weights (or `--start FAMILY`: that
   family's file, which then also plays the data's games and the check match), then all the weights (the
   features only tuned weights use too) by gradient descent on the mean squared error; for the
   ordinary families they are then scaled so that a man is worth 100 (scores stay in hundredths of a
   man), and rounded.
3. Gain: the tuned weights play the hand-set ones over `--check-pairs` fresh openings (another seed),
   each with both colours, at the same nodes per move; the script prints the score.

Games are played by `--jobs` processes (the results do not depend on it). With `--write` the weights, the
data size and the measured gain go to the family's file, shipped with the package as the default: write
only weights that beat the hand-set ones (a family without a file plays with those).

`--check-shipped VARIANT` only plays step 3 in that variant: the weights shipped for it (its family's
file) against the hand-set ones (or `--against FAMILY`: that family's file), over `--check-pairs`
openings at `--nodes` a move (how a variant is seen to belong to a family it was not fitted in, or a
family's own file to beat what the variant played with before).

`--check-shipped VARIANT --try NAME=VALUE,...` plays the shipped weights with those values changed against
the shipped weights as they are (at `--nodes` a move, or `--seconds` a move: equal time); with `--write`
the changed weights go to the family's file, the change and both measurements recorded under "adjusted"
beside the fit's "tuning" (a fit from weak self-play can misjudge a weight that decides few of its games,
such as a king's in international). Run it once at equal nodes and once at equal time before writing.
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
    DraughtsWeights,
    Evaluator,
    GiveawayWeights,
    Weights,
    family_file,
    family_of,
    shipped_weights,
)
from shashki.rules import Game, Position, get_variant  # noqa: E402

VARIANT = "russian-giveaway"  # the giveaway family's variant (the level ladder plays it too)
MAX_PLIES = 160  # a game not over by then counts as a draw


@dataclass(frozen=True)
class Family:
    variants: tuple[str, ...]  # the variants its games are played in, in turn
    kind: type[DraughtsWeights] | type[GiveawayWeights]
    features: tuple[str, ...]  # the weights fitted (the others keep their hand-set values)
    # Scale the fitted weights so that a man is worth 100: the unit the engine's scores are read in
    # (the analysis's marks, the puzzles' "two men ahead"). Giveaway's weights are used as fitted.
    per_man: bool
    max_plies: int = MAX_PLIES  # a game not over by then counts as a draw


FAMILIES = {
    # The giveaway file was fitted on the first seven features (before the others existed).
    "giveaway": Family((VARIANT,), GiveawayWeights, FEATURES[:7], False),
    "english-giveaway": Family(("english-giveaway", "italian-giveaway"), GiveawayWeights, FEATURES[:7],
                               False),
    "international-giveaway": Family(("international-giveaway",), GiveawayWeights, FEATURES, False, 200),
    "russian": Family(("russian",), DraughtsWeights, FEATURES, True),
    "international": Family(("international",), DraughtsWeights, FEATURES, True, 200),
    "english": Family(("english", "italian"), DraughtsWeights, (*FEATURES, "short_king"), True),
}


def feature_row(evaluator: Evaluator, pos: Position, names: tuple[str, ...]) -> list[int]:
    """The features `names` of a position, side to move minus opponent; the kings of a variant whose
    kings move one square count as `short_king` (the weight the evaluator gives them), not `king`."""
    a = evaluator.features(pos, pos.white_to_move)
    b = evaluator.features(pos, not pos.white_to_move)
    diff = {name: x - y for name, x, y in zip(FEATURES, a, b, strict=True)}
    if isinstance(evaluator.weights, DraughtsWeights) and not evaluator.variant.flying_kings:
        diff["short_king"], diff["king"] = diff["king"], 0
    return [diff.get(name, 0) for name in names]


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


def play_game(variant: str, white: Weights, black: Weights, opening: list[str], nodes: int,
              max_plies: int = MAX_PLIES, seconds: float | None = None) -> Game:
    """A game of two weights from an opening, each move searched to `nodes` nodes (or for `seconds`)."""
    game = Game.replay(opening, variant)
    engines = {True: Engine(weights=white), False: Engine(weights=black)}
    limit = Limit(time=seconds) if seconds else Limit(nodes=nodes)
    while not game.is_over and game.ply < max_plies:
        game.play(engines[game.position.white_to_move].play(game, limit).move)
    return game


def white_score(game: Game) -> float:
    outcome = game.outcome
    if outcome is None or outcome.winner is None:
        return 0.5
    return 1.0 if outcome.winner.value == "white" else 0.0


def plain(weights: Weights) -> dict[str, int]:
    """The named weights, without the pattern weights (benchmarks/tune_patterns.py fits those)."""
    return {name: value for name, value in asdict(weights).items() if name != "patterns"}


def _weights(family: str, values: dict[str, int]) -> Weights:
    """Weights rebuilt in a worker process from the dict they were sent as."""
    return FAMILIES[family].kind(**values)


def _pair(task: tuple[str, str, dict[str, int], dict[str, int], list[str], int, float | None]) -> float:
    """a's points in the two games of one opening (a with White, then with Black)."""
    family, variant, a_values, b_values, opening, nodes, seconds = task
    plies = FAMILIES[family].max_plies
    a, b = _weights(family, a_values), _weights(family, b_values)
    return white_score(play_game(variant, a, b, opening, nodes, plies, seconds)) + 1 - white_score(
        play_game(variant, b, a, opening, nodes, plies, seconds)
    )


def family_openings(family: str, seed: int, count: int, plies: int) -> list[tuple[str, list[str]]]:
    """`count` openings spread over the family's variants in turn, each variant's drawn from `seed`."""
    variants = FAMILIES[family].variants
    lines = {v: openings(seed, -(-count // len(variants)), plies, v) for v in variants}
    return [(variants[i % len(variants)], lines[variants[i % len(variants)]][i // len(variants)])
            for i in range(count)]


def match(family: str, a: Weights, b: Weights, lines: list[tuple[str, list[str]]], nodes: int,
          jobs: int = 1, seconds: float | None = None) -> tuple[float, int]:
    """a's score over every (variant, opening) played with both colours, and the number of games; each
    move searched to `nodes` nodes, or for `seconds` when given."""
    tasks = [(family, variant, asdict(a), asdict(b), opening, nodes, seconds) for variant, opening in lines]
    with ProcessPoolExecutor(jobs) as pool:
        points = sum(pool.map(_pair, tasks))
    return points / (2 * len(lines)), 2 * len(lines)


def _game_data(
    task: tuple[str, str, dict[str, int], list[str], int],
) -> tuple[list[list[int]], list[float], int]:
    """One self-play game of the starting weights: its quiet positions' differences (side to move minus
    opponent) of the features fitted, and the game's result for the side to move; and its length."""
    name, variant, values, opening, nodes = task
    family = FAMILIES[name]
    weights = _weights(name, values)
    evaluator = Evaluator(get_variant(variant), weights)
    game = play_game(variant, weights, weights, opening, nodes, family.max_plies)
    result = white_score(game)
    xs: list[list[int]] = []
    ys: list[float] = []
    for pos in game.positions[len(opening):]:
        moves = pos.legal_moves()
        if not moves or moves[0].capture_mask:
            continue
        xs.append(feature_row(evaluator, pos, family.features))
        ys.append(result if pos.white_to_move else 1 - result)
    return xs, ys, game.ply


def collect(name: str, start: Weights, games: int, nodes: int, seed: int,
            jobs: int) -> tuple[list[list[int]], list[float], int]:
    """The quiet positions of `games` self-play games of the `start` weights, with their results."""
    xs: list[list[int]] = []
    ys: list[float] = []
    plies = 0
    values = asdict(start)
    tasks = [(name, variant, values, opening, nodes)
             for variant, opening in family_openings(name, seed, games, 6)]
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


def file_weights(name: str, kind: type[DraughtsWeights] | type[GiveawayWeights]) -> Weights | None:
    """The weights in a family's file, if it has one of weights of `kind`."""
    if FAMILIES[name].kind is not kind or not family_file(name).exists():
        return None
    return kind.from_dict(json.loads(family_file(name).read_text())["weights"])


def parse_changes(text: str, kind: type[DraughtsWeights] | type[GiveawayWeights]) -> dict[str, int]:
    """`--try`'s NAME=VALUE,... as the weights' fields and their new values."""
    names = {f for f in asdict(kind()) if f != "patterns"}
    changes: dict[str, int] = {}
    for item in text.split(","):
        name, _, value = item.partition("=")
        if name.strip() not in names or not value.strip().lstrip("-").isdigit():
            known = ", ".join(sorted(names))
            raise SystemExit(f"error: --try wants NAME=INTEGER,... with NAME one of {known}; got {item!r}")
        changes[name.strip()] = int(value)
    return changes


def check_shipped(key: str, against: str | None, pairs: int, nodes: int, seed: int, jobs: int,
                  changes: str | None = None, seconds: float | None = None, write: bool = False) -> int:
    """The weights shipped for a variant against the hand-set ones, or against another family's file; with
    `changes`, the shipped weights so changed against the shipped ones."""
    variant = get_variant(key)
    name = family_of(variant)
    if name is None or not family_file(name).exists():
        print(f"error: {variant.key}'s family has no weights file of its own: nothing to check")
        return 2
    if changes is not None:
        return try_changes(variant.key, name, parse_changes(changes, FAMILIES[name].kind), pairs, nodes, seed,
                           jobs, seconds, write)
    other: Weights = FAMILIES[name].kind()
    other_name = "the hand-set ones"
    budget = f"{seconds} s a move" if seconds else f"{nodes} nodes a move"
    if against is not None:
        found = file_weights(against, FAMILIES[name].kind)
        if found is None:
            print(f"error: the {against} family has no weights of the same kind to play against")
            return 2
        other, other_name = found, f"the {against} family's ({family_file(against).name})"
    lines = [(variant.key, opening) for opening in openings(seed, pairs, variant_key=variant.key)]
    score, games = match(name, shipped_weights(variant), other, lines, nodes, jobs, seconds)
    print(f"{variant.key}: the {name} family's weights ({family_file(name).name}) against {other_name}, "
          f"{games} games on openings of seed {seed}, {budget}: {score:.1%}")
    return 0


def try_changes(key: str, name: str, changes: dict[str, int], pairs: int, nodes: int, seed: int, jobs: int,
                seconds: float | None, write: bool) -> int:
    """The family's shipped weights with `changes` against them as shipped; `write` keeps the changed ones."""
    shipped = shipped_weights(get_variant(key))
    changed = replace(shipped, **changes)
    lines = [(key, opening) for opening in openings(seed, pairs, variant_key=key)]
    start = time.perf_counter()
    score, games = match(name, changed, shipped, lines, nodes, jobs, seconds)
    budget = f"{seconds} s a move" if seconds else f"{nodes} nodes a move"
    was = {k: getattr(shipped, k) for k in changes}
    print(f"{key}: {changes} (shipped: {was}) against the shipped weights, {games} games on openings of "
          f"seed {seed}, {budget}: {score:.1%} ({time.perf_counter() - start:.0f} s)")
    if write:
        path = family_file(name)
        data = json.loads(path.read_text())
        data["weights"].update(changes)
        data.setdefault("adjusted", []).append({
            "script": f"benchmarks/tune_evaluation.py --check-shipped {key} --try "
                      + ",".join(f"{k}={v}" for k, v in changes.items()),
            "from": was, "to": changes, "variant": key, "seed": seed, "games": games,
            "nodes_per_move": None if seconds else nodes, "seconds_per_move": seconds,
            "score_vs_shipped": round(score, 4),
        })
        path.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {path}")
    return 0


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
    parser.add_argument("--check-shipped", metavar="VARIANT",
                        help="only play the weights shipped for VARIANT against the hand-set ones")
    parser.add_argument("--against", choices=sorted(FAMILIES),
                        help="with --check-shipped: against this family's weights file instead")
    parser.add_argument("--try", dest="changes", metavar="NAME=VALUE,...",
                        help="with --check-shipped: these weights changed against the shipped ones")
    parser.add_argument("--seconds", type=float, help="with --check-shipped: seconds a move (equal time) "
                        "instead of --nodes")
    parser.add_argument("--start", choices=sorted(FAMILIES),
                        help="start from this family's weights file instead of the hand-set weights")
    args = parser.parse_args(argv)
    if args.check_shipped:
        return check_shipped(args.check_shipped, args.against, args.check_pairs, args.nodes, args.seed + 1,
                             args.jobs, args.changes, args.seconds, args.write)
    family = FAMILIES[args.family]
    names = family.features
    # The weights the data's games are played with, the fit starts from and the check match plays.
    base: Weights = family.kind()
    origin = "hand-set"
    if args.start is not None:
        found = file_weights(args.start, family.kind)
        if found is None:
            print(f"error: the {args.start} family has no weights of the same kind to start from")
            return 2
        base, origin = found, family_file(args.start).name

    start = time.perf_counter()
    print(f"{args.family} ({', '.join(family.variants)}) self-play of the {origin} weights: {args.games} "
          f"games, {args.nodes} nodes per move, seed {args.seed}", flush=True)
    xs, ys, plies = collect(args.family, base, args.games, args.nodes, args.seed, args.jobs)
    defaults = [float(getattr(base, name)) for name in names]
    k = min((10.0 * 1.25**i for i in range(30)), key=lambda kk: error(defaults, xs, ys, kk))
    before = error(defaults, xs, ys, k)
    fitted = fit(xs, ys, defaults, k, args.epochs)
    scale = 1.0
    if family.per_man:
        scale = 100 / fitted[names.index("man")]
        print(f"fitted: {dict(zip(names, (round(w, 1) for w in fitted), strict=True))}; scaled by "
              f"{scale:.4f} so that a man is 100")
    tuned = replace(base, **{name: round(w * scale) for name, w in zip(names, fitted, strict=True)})
    # The tuned weights on their own scale: sigmoid(score / K) is the same curve when both are scaled.
    after = error([float(getattr(tuned, name)) for name in names], xs, ys, k * scale)
    print(f"data: {args.games} games, {plies} plies, {len(xs)} quiet positions; K = {k:.0f}")
    print(f"mean squared error: {origin} {before:.5f}, tuned {after:.5f}")
    print(f"{origin}: {plain(base)}")
    print(f"tuned:    {plain(tuned)}", flush=True)
    check = family_openings(args.family, args.seed + 1, args.check_pairs, 4)
    score, games = match(args.family, tuned, base, check, args.nodes, args.jobs)
    seconds = time.perf_counter() - start
    print(f"gain: tuned vs {origin}, {games} games on fresh openings (seed {args.seed + 1}), "
          f"{args.nodes} nodes a move: {score:.1%}; {seconds:.0f} s in all")
    if args.write:
        data = {
            # A file's patterns (benchmarks/tune_patterns.py) were fitted with its weights: not kept.
            "weights": plain(tuned),
            "tuning": {
                "script": f"benchmarks/tune_evaluation.py --family {args.family}",
                "method": "logistic fit of self-play results (Texel)",
                "start": origin,
                "variants": list(family.variants),
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
        family_file(args.family).write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {family_file(args.family)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
