"""shashki against the strong engines of issue 15: Scan 2.0 in international draughts, KestoG in Russian.

    python benchmarks/engine_opponents.py --opponent scan [--source DIR] [--openings 9] [--time 0.2]
        [--odds 1,4]
    python benchmarks/engine_opponents.py --opponent kestog [--source DIR] ...
    python benchmarks/engine_opponents.py --opponent scan --positions 1 [--source DIR]

The opponent is built from its public source into `benchmarks/.opponents/` (ignored by git; nothing of
it is ever committed): `--source` is a clone of its repository (a work tree or a bare git directory);
without it the repository is cloned from GitHub.

- **Scan 2.0** (Fabien Letouzey, GPL; `rhalbersma/scan` at commit 57082ee, with its evaluation, book
  and 2-4 piece bitbases, as its own scan.ini sets them) is built with `g++ -O2 -DNDEBUG -std=c++14
  -fno-rtti -mpopcnt -pthread` and driven through its Hub protocol (version 1: `pos`, `time`, `go`).
- **KestoG 1.1** (Kestutis Gasaitis; the Linux port `maksimKorzh/KestoG`) has no protocol, only
  CheckerBoard's `getmove` call: `benchmarks/opponents/kestog_driver.c` (ours) wraps it in a loop that
  reads a board and writes the board after the engine's move; the move is the legal move that gives it.

shashki runs as its Hub engine (`python -m shashki.engine.hub`, the full engine at the time given).
Openings: `--openings` distinct random openings of two plies (a move each, fixed seed), each played with
both colours. The referee is shashki's rules (`Game`, with the variant's draw rules): a move that is not
legal loses the game for the side that sent it, and is printed. Games not over after `--max-plies`
plies are draws. Time odds: at odds k shashki gets k times the opponent's time a move. Both engines think
one at a time, so a busy machine slows both alike. The mean time each actually took a move is printed
(a forced move takes next to nothing), and is what a comparison must use.

`--positions S` plays no games: each engine thinks S seconds in each of the variant's fixed positions
(benchmarks/engine_speed.py's, a fresh game each time, one engine at a time), and the depth each
reached, its nodes a second and the time it took are printed side by side.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from engine_ab import openings  # noqa: E402
from engine_builds import HubEngine, LineEngine  # noqa: E402
from engine_speed import POSITIONS_BY_VARIANT  # noqa: E402

from shashki.engine.hub import hub_move, parse_hub_move  # noqa: E402
from shashki.engine.hub_notation import hub_position  # noqa: E402
from shashki.rules import Game, get_variant  # noqa: E402
from shashki.rules.position import Move, Position  # noqa: E402
from shashki.rules.variant import Color  # noqa: E402

BUILD = HERE / ".opponents"


@dataclass(frozen=True)
class Opponent:
    name: str
    variant: str
    repository: str
    commit: str | None  # None: the repository's newest commit


OPPONENTS = {
    "scan": Opponent("Scan 2.0", "international", "https://github.com/rhalbersma/scan", "57082ee"),
    "kestog": Opponent("KestoG 1.1", "russian", "https://github.com/maksimKorzh/KestoG", None),
}


def run(command: list[str], cwd: Path | None = None) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"error: {' '.join(command)} failed:\n{done.stderr[-2000:]}")


def source_tree(key: str, source: Path | None) -> Path:
    """The opponent's source at its commit, exported under benchmarks/.opponents/<key>/src."""
    opponent = OPPONENTS[key]
    folder = BUILD / key
    tree = folder / "src-tree"
    if tree.exists():
        return tree
    folder.mkdir(parents=True, exist_ok=True)
    if source is None:
        source = folder / "clone"
        if not source.exists():
            print(f"cloning {opponent.repository} into {source}", flush=True)
            run(["git", "clone", "--quiet", opponent.repository, str(source)])
    git_dir = source / ".git" if (source / ".git").exists() else source
    tree.mkdir()
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir}", "archive", opponent.commit or "HEAD"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def build(key: str, source: Path | None) -> Path:
    """The opponent's executable, built once (its folder also holds what it reads at run time)."""
    tree = source_tree(key, source)
    if key == "scan":
        exe = tree / "scan-bin"
        if not exe.exists():
            print("building Scan 2.0 (g++ -O2)", flush=True)
            sources = sorted(str(p) for p in (tree / "src").glob("*.cpp"))
            flags = ["-O2", "-DNDEBUG", "-std=c++14", "-fno-rtti", "-mpopcnt", "-pthread"]
            run(["g++", *flags, "-o", str(exe), *sources])
        return exe
    exe = tree / "kestog-driver"
    if not exe.exists():
        print("building KestoG with its driver (gcc -O3)", flush=True)
        shutil.copy(HERE / "opponents" / "kestog_driver.c", tree / "kestog_driver.c")
        run(["gcc", "-O3", "-w", "-o", str(exe), "kestog_driver.c", "-lm"], cwd=tree)
    return exe


@dataclass(frozen=True)
class Search:
    """What an engine's last completed iteration reported: its depth, the nodes searched in all and
    the seconds it had searched by then (0: not reported)."""

    depth: int
    nodes: int
    seconds: float = 0.0


class Scan(LineEngine):
    """Scan 2.0 through Hub protocol 1, asked for a move in a position (it reads its files from cwd)."""

    def __init__(self, exe: Path) -> None:
        super().__init__([str(exe), "hub"], exe.parent)
        self.last = Search(0, 0)
        self.send("hub")
        self.wait_for("wait")
        self.send("init")
        self.wait_for("ready")

    def seen(self, line: str) -> None:
        if line.startswith("info "):  # info <depth> <mean ply> <score> <nodes> <time> <Mnps> <pv>
            fields = line.split()
            self.last = Search(int(fields[1]), int(fields[4]), float(fields[5]))

    def new_game(self) -> None:
        self.send("new")

    def best(self, game: Game, seconds: float) -> Move:
        position = hub_position(game.position)
        self.send("pos " + position[0].lower() + position[1:])
        self.send(f"time {round(seconds * 1000)}")
        self.send("go")
        text = self.wait_for("move").split()[1]
        return parse_hub_move(game.position, text)

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=30)


def kestog_board(pos: Position) -> list[int]:
    """CheckerBoard's board[x][y] (x-major), as KestoG reads it: x = 7 - file (a = 0), y = 8 - rank
    (our row, counted from Black's side); 1 white, 2 black, 4 man, 8 king."""
    board = pos.variant.board
    cells = [0] * 64
    for bit, row in board.rows.items():
        piece = pos.piece_at(bit)
        if piece is not None:
            color, king = piece
            cells[(7 - board.cols[bit]) * 8 + row] = (1 if color is Color.WHITE else 2) | (8 if king else 4)
    return cells


class KestoG(LineEngine):
    """KestoG through benchmarks/opponents/kestog_driver.c: a board in, the board after its move out."""

    def __init__(self, exe: Path) -> None:
        super().__init__([str(exe)], exe.parent)
        self.last = Search(0, 0)

    def seen(self, line: str) -> None:
        found = re.search(r"\[depth (\d+)\].*\[time ([\d.]+)\].*\[nodes (\d+)\]", line)
        if found:  # [thinking] [depth 13] [move 22-18] [time 0.12] [eval -2] [nodes 496103] ...
            self.last = Search(int(found[1]), int(found[3]), float(found[2]))

    def new_game(self) -> None:
        pass

    def best(self, game: Game, seconds: float) -> Move:
        color = 1 if game.position.white_to_move else 2
        cells = kestog_board(game.position)
        self.send(f"go {color} {round(seconds * 1000)} {' '.join(map(str, cells))}")
        after = [int(t) for t in self.wait_for("board").split()[1:]]
        for move in game.legal_moves():
            if kestog_board(game.position.play(move)) == after:
                return move
        raise ValueError("KestoG's board after its move is no legal move's")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


class Shashki(HubEngine):
    """This checkout's Hub engine (benchmarks/engine_builds.py), keeping its last `info` line."""

    last = Search(0, 0)
    score = ""  # its last `info` line's score, as it prints it

    def seen(self, line: str) -> None:
        if line.startswith("info "):
            depth, nodes = re.search(r"depth=(\d+)", line), re.search(r"nodes=(\d+)", line)
            took, score = re.search(r"time=([\d.]+)", line), re.search(r"score=(\S+)", line)
            if depth and nodes:
                self.last = Search(int(depth[1]), int(nodes[1]), float(took[1]) if took else 0.0)
            if score:
                self.score = score[1]

    def think(self, pos: Position, seconds: float) -> str:
        """Its move in `pos`, a new game, after up to `seconds` of thought (Hub notation)."""
        self.send("new-game")
        self.send(f"pos pos={hub_position(pos)}")
        self.send(f"level move-time={seconds}")
        self.send("go think")
        return self.wait_for("done").split("move=", 1)[1].split()[0]


def fixed_positions(key: str, exe: Path, seconds: float) -> list[tuple[str, dict[str, tuple[Search, float]]]]:
    """Per fixed position of the opponent's variant: each engine's last completed iteration (depth,
    nodes) and the seconds it took, thinking `seconds` from a new game."""
    opponent = OPPONENTS[key]
    variant = get_variant(opponent.variant)
    rows = []
    for label, fen in POSITIONS_BY_VARIANT[opponent.variant]:
        pos = Position.from_fen(fen, variant)
        ours = Shashki(None, opponent.variant)
        theirs: Scan | KestoG = Scan(exe) if key == "scan" else KestoG(exe)
        try:
            start = time.perf_counter()
            ours.think(pos, seconds)
            mine = (ours.last, time.perf_counter() - start)
            theirs.new_game()
            start = time.perf_counter()
            theirs.best(Game(variant, pos), seconds)
            other = (theirs.last, time.perf_counter() - start)
        finally:
            ours.close()
            theirs.close()
        rows.append((label, {"shashki": mine, opponent.name: other}))
    return rows


def positions_table(rows: list[tuple[str, dict[str, tuple[Search, float]]]]) -> list[str]:
    """`fixed_positions`' figures as lines: per engine and position the depth of its last completed
    iteration, its nodes a second by its own count and clock at that iteration, and the seconds it took
    to move; then each engine's mean depth and nodes a second over the positions it searched (a move
    from its opening book, with no search reported, is marked and left out)."""
    names = list(rows[0][1])
    head = "".join(f" {name + ' depth':>18} {'nodes/s':>11} {'s':>5}" for name in names)
    lines = [f"{'position':<12}{head}"]
    for label, figures in rows:
        line = f"{label:<12}"
        for name in names:
            search, took = figures[name]
            if search.depth == 0:
                line += f" {'book':>18} {'-':>11} {took:>5.2f}"
            else:
                line += f" {search.depth:>18} {search.nodes / max(search.seconds, 1e-3):>11,.0f} {took:>5.2f}"
        lines.append(line)
    summary = []
    for name in names:
        searches = [figures[name][0] for _, figures in rows if figures[name][0].depth > 0]
        depth = sum(search.depth for search in searches) / max(1, len(searches))
        seconds = sum(search.seconds for search in searches)
        speed = sum(search.nodes for search in searches) / max(seconds, 1e-3)
        summary.append(f"{name} mean depth {depth:.1f}, {speed:,.0f} nodes/s ({len(searches)} searched)")
    lines.append("all positions: " + "; ".join(summary))
    return lines


@dataclass
class Tally:
    scores: list[float]
    seconds: dict[str, list[float]]
    searches: dict[str, list[Search]]
    illegal: list[str]
    adjudicated: int = 0

    def line(self) -> str:
        n = len(self.scores)
        mean = sum(self.scores) / n
        margin = 2 * math.sqrt(sum((s - mean) ** 2 for s in self.scores) / max(1, n - 1) / n)
        wins, draws = self.scores.count(1.0), self.scores.count(0.5)
        each = []
        for who, times in self.seconds.items():
            searches = self.searches[who]
            depth = sum(s.depth for s in searches) / max(1, len(searches))
            speed = sum(s.nodes for s in searches) / max(1e-9, sum(times))
            each.append(f"{who} {sum(times) / max(1, len(times)):.3f} s a move, mean depth {depth:.1f}, "
                        f"{speed:,.0f} nodes/s")
        return (f"+{wins} ={draws} -{n - wins - draws} of {n}, shashki scores {mean:.1%} ± {margin:.1%}; "
                f"{'; '.join(each)}; {self.adjudicated} drawn at the ply limit")


def play_game(key: str, exe: Path, opening: list[str], ours_white: bool, seconds: float, odds: float,
              max_plies: int, tally: Tally, record: Path | None = None) -> None:
    opponent = OPPONENTS[key]
    game = Game.replay(opening, opponent.variant)
    ours = Shashki(None, opponent.variant)
    theirs: Scan | KestoG = Scan(exe) if key == "scan" else KestoG(exe)
    ours.send("new-game")
    theirs.new_game()
    moves = [hub_move(move, game.variant) for move in game.moves]
    lines = []  # with `record`: each move after the opening, shashki's with its own score
    try:
        while not game.is_over and game.ply < max_plies:
            ours_to_move = game.position.white_to_move == ours_white
            start = time.perf_counter()
            if ours_to_move:
                text = ours.best(moves, seconds * odds)
                who = "shashki"
            else:
                who = opponent.name
            try:
                if ours_to_move:
                    move = parse_hub_move(game.position, text)
                else:
                    move = theirs.best(game, seconds)
            except ValueError as error:
                tally.illegal.append(f"{who} after {' '.join(game.notations())}: {error}")
                tally.scores.append(0.0 if ours_to_move else 1.0)
                return
            took = time.perf_counter() - start
            tally.seconds[who].append(took)
            search = ours.last if ours_to_move else theirs.last
            tally.searches[who].append(search)
            notation = move.notation(game.variant)
            score = f" score {ours.score}" if ours_to_move else ""
            lines.append(f"{game.ply + 1:>4} {who:<10} {notation:<14} depth {search.depth:>2}{score}")
            game.play(move)
            moves.append(hub_move(move, game.variant))
    finally:
        ours.close()
        theirs.close()
    if game.outcome is None:
        tally.adjudicated += 1
    if record is not None:
        side = "White" if ours_white else "Black"
        result = "unfinished (ply limit)" if game.outcome is None else str(game.outcome)
        head = f"shashki {side} against {OPPONENTS[key].name}, opening {' '.join(opening)}: {result}"
        with record.open("a") as out:
            out.write("\n".join([head, *lines, "", ""]))
    if game.outcome is None or game.outcome.winner is None:
        tally.scores.append(0.5)
    else:
        tally.scores.append(1.0 if (game.outcome.winner.value == "white") == ours_white else 0.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="shashki against Scan 2.0 or KestoG.")
    parser.add_argument("--opponent", choices=sorted(OPPONENTS), required=True)
    parser.add_argument("--source", type=Path, help="a clone of the opponent's repository (else cloned)")
    parser.add_argument("--openings", type=int, default=9, help="two-ply openings, each with both colours")
    parser.add_argument("--time", type=float, default=0.2, help="the opponent's seconds a move (default 0.2)")
    parser.add_argument("--odds", default="1", help="shashki's time as multiples of the opponent's: 1,4,16")
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--record", type=Path, metavar="FILE",
                        help="append each game to FILE: every move, its depth, and shashki's own score")
    parser.add_argument("--positions", type=float, metavar="S",
                        help="no games: the depth each engine reaches in S seconds in fixed positions")
    args = parser.parse_args(argv)
    opponent = OPPONENTS[args.opponent]
    exe = build(args.opponent, args.source.resolve() if args.source else None)
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    if args.positions:
        print(f"shashki and {opponent.name}, {opponent.variant}: {args.positions:g} s in each fixed position "
              "(benchmarks/engine_speed.py's), a new game each", flush=True)
        for line in positions_table(fixed_positions(args.opponent, exe, args.positions)):
            print(line, flush=True)
        return 0
    starts = openings(opponent.variant, args.openings, plies=2)
    print(f"shashki against {opponent.name}, {opponent.variant}, {len(starts)} openings x 2 colours, "
          f"{opponent.name} {args.time} s a move", flush=True)
    for odds in (float(k) for k in args.odds.split(",")):
        tally = Tally([], {"shashki": [], opponent.name: []}, {"shashki": [], opponent.name: []}, [])
        begun = time.perf_counter()
        for opening in starts:
            for ours_white in (True, False):
                play_game(args.opponent, exe, opening, ours_white, args.time, odds, args.max_plies,
                          tally, args.record)
        print(f"odds {odds:g} (shashki {args.time * odds:g} s a move): {tally.line()} "
              f"[{time.perf_counter() - begun:.0f} s]", flush=True)
        for line in tally.illegal:
            print(f"  illegal move: {line}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
