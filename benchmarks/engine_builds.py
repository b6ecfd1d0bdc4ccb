"""This build of shashki against another (an earlier commit) at equal time: what a change is worth in play.

    python benchmarks/engine_builds.py --baseline FOLDER [--variants russian,russian-giveaway]
        [--games 20] [--time 0.1]

FOLDER holds another build of the `shashki` package (for instance `git archive <commit> shashki | tar -x
-C FOLDER`, then its compiled modules built there with mypyc). Each build runs as a Hub engine
(`python -m shashki.engine.hub`) in its own process; this script keeps the game (shashki's `Game`, with
the variant's draw rules) and asks the side to move for a move with `level move-time=--time`. Openings:
random 4-ply openings with a fixed seed (benchmarks/engine_ab.py), each played with both colours; games
not over after 160 plies are draws. Prints each variant's score for this build with a two-standard-error
margin. Both engines think one at a time, so a busy machine slows both alike.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from engine_ab import MAX_PLIES, openings  # noqa: E402

from shashki.engine.hub import hub_move, parse_hub_move  # noqa: E402
from shashki.rules import Game  # noqa: E402


class LineEngine:
    """An engine in a subprocess that speaks in lines (the Hub protocol, or a driver's own words)."""

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait_for(self, word: str) -> str:
        """The next line that starts with `word`; every line read goes by `seen` first."""
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the engine stopped before '{word}'")
            self.seen(line)
            if line.split(" ", 1)[0].strip() == word:
                return line.strip()

    def seen(self, line: str) -> None:
        """A line the engine wrote (its search lines, say): nothing here."""


class HubEngine(LineEngine):
    """One build's Hub engine in a subprocess (the build under `folder`, or this checkout's)."""

    def __init__(self, folder: Path | None, variant: str) -> None:
        env = dict(os.environ)
        if folder is not None:
            env["PYTHONPATH"] = str(folder)
        super().__init__([sys.executable, "-m", "shashki.engine.hub"], folder or ROOT, env)
        self.send("hub")
        self.wait_for("wait")
        self.send(f"set-param name=variant value={variant}")
        self.send("init")
        self.wait_for("ready")

    def best(self, moves: list[str], seconds: float) -> str:
        self.send(f'pos start moves="{" ".join(moves)}"')
        self.send(f"level move-time={seconds}")
        self.send("go think")
        done = self.wait_for("done")
        return done.split("move=", 1)[1].split()[0]

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=30)


def play_game(variant: str, opening: list[str], ours_white: bool, baseline: Path, seconds: float) -> float:
    """The score of this checkout's build."""
    game = Game.replay(opening, variant)
    engines = {ours_white: HubEngine(None, variant), not ours_white: HubEngine(baseline, variant)}
    try:
        for e in engines.values():
            e.send("new-game")
        moves = [hub_move(move, game.variant) for move in game.moves]
        while not game.is_over and game.ply < MAX_PLIES:
            text = engines[game.position.white_to_move].best(moves, seconds)
            move = parse_hub_move(game.position, text)
            game.play(move)
            moves.append(text)
    finally:
        for e in engines.values():
            e.close()
    if game.outcome is None or game.outcome.winner is None:
        return 0.5
    return 1.0 if (game.outcome.winner.value == "white") == ours_white else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="This build against another at equal time a move.")
    parser.add_argument("--baseline", type=Path, required=True, help="folder holding the other build")
    parser.add_argument("--variants", default="russian,russian-giveaway")
    parser.add_argument("--games", type=int, default=20, help="games per variant (even; default 20)")
    parser.add_argument("--time", type=float, default=0.1, help="seconds a move (default 0.1)")
    args = parser.parse_args(argv)
    baseline = args.baseline.resolve()
    print(f"this checkout against {baseline}, {args.games} games per variant, {args.time} s a move")
    for variant in args.variants.split(","):
        start = time.perf_counter()
        scores = [play_game(variant, opening, ours_white, baseline, args.time)
                  for opening in openings(variant, args.games // 2) for ours_white in (True, False)]
        n = len(scores)
        mean = sum(scores) / n
        margin = 2 * math.sqrt(sum((s - mean) ** 2 for s in scores) / max(1, n - 1) / n)
        wins, draws = scores.count(1.0), scores.count(0.5)
        print(f"{variant}: +{wins} ={draws} -{n - wins - draws} of {n}, score {mean:.1%} ± {margin:.1%} "
              f"({time.perf_counter() - start:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
