"""A Russian draughts match: shashki's engine against py-draughts 1.10.1's strongest engine (issue 3).

    python benchmarks/engine_match.py [--openings 20] [--time 0.2]

Both engines get the same time per move. The openings are Russian openings of 2 moves by each side (4 plies),
drawn in a fixed random order, that shashki's own search at depth 8 scores within ±0.3 men; each is
played twice, colours reversed (2 x --openings games, at least 40 by default). shashki keeps the game (its
`Game` decides the result, with the FMJD-64 draw rules) and py-draughts' `SimpleEngine` (negamax,
alpha-beta, TT, quiescence, PVS/LMR; its `TurboEngine` plays International only) answers each position in
a long-running subprocess in its own virtual environment (set up by benchmarks/perft.py's helpers).
A game not finished after --max-plies plies is adjudicated a draw. Prints every game and then
wins/draws/losses and the score (goal: above 70%).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from perft import DEFAULT_VENV, ROOT, SetupError, ensure_pydraughts, machine  # noqa: E402

# ------------------------------------------------------------------------------------------------
# The py-draughts half: one line in (FEN with algebraic squares, TAB, seconds), one path out.


def worker() -> None:
    import draughts
    from draughts import SimpleEngine

    names = draughts.RussianBoard.SQUARE_NAMES
    engines: dict[str, SimpleEngine] = {}
    for line in sys.stdin:
        fen, seconds = line.rstrip("\n").split("\t")
        engine = engines.get(seconds)
        if engine is None:
            engine = engines[seconds] = SimpleEngine(depth_limit=64, time_limit=float(seconds))
        board = draughts.RussianBoard.from_fen(fen)
        move = engine.get_best_move(board)
        print(":".join(names[sq] for sq in move.square_list), flush=True)


class PyDraughts:
    def __init__(self, python: Path) -> None:
        self.proc = subprocess.Popen(
            [str(python), str(Path(__file__).resolve()), "--worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
        )

    def best(self, fen: str, seconds: float) -> str:
        self.proc.stdin.write(f"{fen}\t{seconds}\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline().strip()
        if not reply:
            raise SetupError("py-draughts' engine stopped answering")
        return reply

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


# ------------------------------------------------------------------------------------------------
# The match


def balanced_openings(count: int, seed: int = 64) -> list[list[str]]:
    """`count` openings of 4 plies, drawn in a fixed random order from all 1,469, that shashki's search
    at depth 8 scores within ±0.3 men."""
    import random

    from shashki.engine import Limit, play
    from shashki.rules import Game

    sequences: list[list[str]] = []

    def walk(game: Game, plies: int) -> None:
        if plies == 0:
            sequences.append(game.notations())
            return
        for move in game.legal_moves():
            walk(Game.replay(game.notations() + [move.notation(game.variant)], "russian"), plies - 1)

    walk(Game("russian"), 4)
    sequences.sort()
    random.Random(seed).shuffle(sequences)
    found = []
    for moves in sequences:
        if abs(play(Game.replay(moves, "russian"), Limit(depth=8)).score) <= 30:
            found.append(moves)
            if len(found) == count:
                break
    return found


def to_move(position, path: str):
    variant = position.variant
    for move in position.legal_moves():
        if ":".join(variant.board.square_name(b) for b in move.path) == path:
            return move
    return position.parse_move(path)  # liberal: start and end of a capture, etc.


def play_game(opening: list[str], shashki_white: bool, seconds: float, max_plies: int, other: PyDraughts):
    from shashki.engine import Engine, Limit
    from shashki.rules import Game

    game = Game.replay(opening, "russian")
    engine = Engine()
    while not game.is_over and game.ply < max_plies:
        pos = game.position
        if pos.white_to_move == shashki_white:
            move = engine.play(game, Limit(time=seconds)).move
        else:
            move = to_move(pos, other.best(pos.fen(algebraic=True), seconds))
        game.play(move)
    if game.outcome is None or game.outcome.winner is None:
        reason = game.outcome.reason if game.outcome else f"adjudicated after {max_plies} plies"
        return 0.5, reason, game
    won = (game.outcome.winner.value == "white") == shashki_white
    return (1.0 if won else 0.0), game.outcome.reason, game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Russian match: shashki against py-draughts.")
    parser.add_argument("--openings", type=int, default=20, help="openings, each played twice (default 20)")
    parser.add_argument("--time", type=float, default=0.2, help="seconds per move for both (default 0.2)")
    parser.add_argument("--max-plies", type=int, default=200)
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker()
        return 0
    sys.path.insert(0, str(ROOT))
    try:
        other = PyDraughts(ensure_pydraughts(args.venv))
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"Machine: {machine()}")
    print(f"Russian, {args.time} s per move each, {args.openings} balanced openings x 2 colours")
    start = time.perf_counter()
    openings = balanced_openings(args.openings)
    wins = draws = losses = 0
    try:
        for i, opening in enumerate(openings, 1):
            for shashki_white in (True, False):
                points, reason, game = play_game(opening, shashki_white, args.time, args.max_plies, other)
                wins += points == 1.0
                draws += points == 0.5
                losses += points == 0.0
                colour = "white" if shashki_white else "black"
                verdict = {1.0: "wins", 0.5: "draws", 0.0: "loses"}[points]
                number = 2 * i - 1 + (not shashki_white)
                print(f"game {number:>3}: {' '.join(opening):<24} shashki {colour:<5} {verdict:<5} "
                      f"({reason}, {game.ply} plies)", flush=True)
    finally:
        other.close()
    games = wins + draws + losses
    score = (wins + draws / 2) / games if games else 0.0
    print()
    print(f"shashki vs py-draughts 1.10.1 SimpleEngine: {games} games, +{wins} ={draws} -{losses}, "
          f"score {score:.1%} (goal: above 70%); {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
