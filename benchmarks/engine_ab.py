"""A search option on against off: does it make the engine stronger at the same work? (issue 15)

    python benchmarks/engine_ab.py --option aspiration [--variants russian,russian-giveaway]
        [--games 40] [--nodes 4000 | --depth 6 | --time S] [--both probcut=off,late_reductions]

The engine with `Searcher(<option>=True)` plays the same engine with `<option>=False` over `--games`
games per variant: random openings of 4 plies (fixed seed), each played with both colours. Both sides
get the same budget a move: `--nodes` (equal work: the fair test of a change that searches fewer or more
nodes for a depth), `--depth` (the fixed-depth comparison) or `--time` (equal time: what the option
costs in speed counts too; the machine's other load makes it noisier). Games not over after 160 plies
are draws. Prints each variant's score for the option and its two-standard-error margin, and the nodes
each side searched in all (a faster-to-depth option shows as fewer nodes at fixed depth). `--both`
sets other options alike on both sides (NAME on, NAME=off); the rest keep their defaults.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from tune_evaluation import openings as random_openings  # noqa: E402

from shashki.engine import Engine, Limit, Searcher  # noqa: E402
from shashki.rules import Game  # noqa: E402

MAX_PLIES = 160
SEED = 15


def openings(variant_key: str, count: int, seed: int = SEED, plies: int = 4) -> list[list[str]]:
    """`count` distinct random openings of `plies` moves (tune_evaluation's generator)."""
    return random_openings(seed, count, plies, variant_key)


def engine(option: str, on: bool, both: dict[str, bool] | None = None) -> Engine:
    """An engine with `option` on or off, and the other options as `both` sets them (else defaults)."""
    e = Engine()
    e.searcher = Searcher(**(both or {}), **{option: on})
    return e


def play_game(variant: str, opening: list[str], on_white: bool, option: str, limit: Limit,
              nodes: dict[bool, int], both: dict[str, bool] | None = None) -> float:
    """The score of the side with the option on."""
    game = Game.replay(opening, variant)
    engines = {on_white: engine(option, True, both), not on_white: engine(option, False, both)}
    while not game.is_over and game.ply < MAX_PLIES:
        white = game.position.white_to_move
        result = engines[white].play(game, limit)
        nodes[white == on_white] += result.nodes
        game.play(result.move)
    if game.outcome is None or game.outcome.winner is None:
        return 0.5
    white_won = game.outcome.winner.value == "white"
    return 1.0 if white_won == on_white else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A search option on against off, same budget a move.")
    parser.add_argument("--option", required=True, help="a boolean field of Searcher, e.g. aspiration")
    parser.add_argument("--variants", default="russian,russian-giveaway")
    parser.add_argument("--both", default="", metavar="NAMES",
                        help="other boolean options of Searcher, the same for both sides: NAME (on) or "
                        "NAME=off, comma-separated (unnamed ones keep their defaults)")
    parser.add_argument("--games", type=int, default=40, help="games per variant (even; default 40)")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--nodes", type=int, help="nodes a move (default 4000)")
    budget.add_argument("--depth", type=int, help="fixed depth a move")
    budget.add_argument("--time", type=float, metavar="S",
                        help="S seconds a move (equal time: an option's cost in speed counts; one game at a "
                        "time, so both sides share the machine alike)")
    args = parser.parse_args(argv)
    items = (item.partition("=") for item in args.both.split(",") if item)
    both = {name: value != "off" for name, _, value in items}
    for name in (args.option, *both):
        if not isinstance(getattr(Searcher(), name, None), bool):
            parser.error(f"Searcher has no boolean option {name!r}")
    if args.depth:
        limit, budget_text = Limit(depth=args.depth), f"depth {args.depth}"
    elif args.time:
        limit, budget_text = Limit(time=args.time), f"{args.time:g} s"
    else:
        limit = Limit(nodes=args.nodes or 4000)
        budget_text = f"{limit.nodes} nodes"
    settings = ", ".join(f"{name} {'on' if on else 'off'}" for name, on in both.items())
    with_both = f" (both with {settings})" if both else ""
    print(f"{args.option} on against off{with_both}, {args.games} games per variant, {budget_text} a move")
    for variant in args.variants.split(","):
        start = time.perf_counter()
        points = 0.0
        scores: list[float] = []
        nodes = {True: 0, False: 0}
        for opening in openings(variant, args.games // 2):
            for on_white in (True, False):
                s = play_game(variant, opening, on_white, args.option, limit, nodes, both)
                scores.append(s)
                points += s
        n = len(scores)
        mean = points / n
        margin = 2 * math.sqrt(sum((s - mean) ** 2 for s in scores) / max(1, n - 1) / n)
        wins, draws = scores.count(1.0), scores.count(0.5)
        print(f"{variant}: +{wins} ={draws} -{n - wins - draws} of {n}, score {mean:.1%} ± {margin:.1%}; "
              f"nodes on {nodes[True]:,}, off {nodes[False]:,} ({time.perf_counter() - start:.0f} s)",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
