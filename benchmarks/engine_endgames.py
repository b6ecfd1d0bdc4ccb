"""Poddavki endings: won 4- (and 5-) piece positions converted by shashki against a table-perfect defender.

    python benchmarks/engine_endgames.py [--pieces 4,5] [--count 40] [--depth 8] [--margin 6] [--seed 1]
    python benchmarks/engine_endgames.py --variant russian --pieces 4 [--own-table]

For each piece count, `--count` positions are drawn at random (fixed seed) among those the endgame table
says the side to move wins in at least `--min-plies` plies. shashki plays the winning side; the defender
plays the table's best defence (a draw or win if there were one, else the longest loss), so the table's
distance is the fewest plies any winner could need. shashki searches to `--depth` with the tables of
fewer pieces only (with the table of the ending itself it plays the table's moves and is perfect by
construction; `--own-table` measures that too). A position is converted when shashki wins within the
table's distance plus `--margin` plies; repetition (a draw) or a longer game is not converted.

Prints, per position: its FEN, the table's distance, the plies shashki used; then the count converted.
First it times a table probe (what the search does at every node with few pieces): the compiled probe
(`shashki.engine.tbprobe`) against the Python index it replaced (`tablebase._Indexer.index`), same run.
The 5-piece table must have been built (`shashki tablebase build --pieces 5`, found in
$SHASHKI_TABLEBASE_DIR); without it 5 pieces are skipped with a note.

`--variant russian`: ordinary Russian draughts, played through the rules with FMJD-64's count rules
(7.2.4-7.2.8): the table's win is theoretical, and a count may turn it into a draw, whoever plays it
(for instance two kings and a man against a king on the long diagonal, not won in 5 moves). The line
counts the positions converted, and the games the counts drew (`drawn by count`).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shashki.engine import Engine, Limit  # noqa: E402
from shashki.engine.search import Searcher  # noqa: E402
from shashki.engine.tablebase import Tablebase, _Indexer, default_tablebase  # noqa: E402
from shashki.rules import Game, Move, Position, get_variant  # noqa: E402

VARIANT = get_variant("russian-giveaway")  # --variant sets it


def won_positions(table: Tablebase, pieces: int, count: int, min_plies: int, seed: int) -> list[Position]:
    """Random positions of `pieces` pieces won for the side to move in at least `min_plies` plies."""
    indexer = _Indexer(VARIANT, pieces)
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        pos = indexer.position(rng.randrange(indexer.size))
        if pos is None:
            continue
        probe = table.probe(pos)
        if probe is not None and probe[0] == 1 and probe[1] >= min_plies:
            found.append(pos)
    return found


def defence(table: Tablebase, pos: Position) -> Move:
    """The table's best move for the side to move: a win (nearest), a draw, else the longest loss."""
    def value(move: Move) -> tuple[int, int]:
        probe = table.probe(pos.play(move))
        assert probe is not None
        result, plies = probe  # the opponent's result after the move
        return -result, (-plies if result == -1 else plies)
    return max(pos.legal_moves(), key=value)


COUNT_DRAWS: list[str] = []  # the games a count rule drew (Russian)


def convert(pos: Position, table: Tablebase, engine: Engine, depth: int, cap: int) -> int | None:
    """The plies shashki needs to win from pos against the table's defence, or None (not won in `cap`)."""
    game = Game(VARIANT, pos)
    winner = pos.side_to_move
    while not game.is_over and game.ply < cap:
        if game.position.side_to_move is winner:
            move = engine.play(game, Limit(depth=depth)).move
        else:
            move = defence(table, game.position)
        assert move is not None
        game.play(move)
    if game.outcome is not None and game.outcome.winner is winner:
        return game.ply
    if game.outcome is not None and game.outcome.reason not in ("threefold-repetition", "no-legal-move"):
        COUNT_DRAWS.append(game.outcome.reason)
    return None


def probe_speed(table: Tablebase, pieces: int, count: int = 20_000, rounds: int = 5) -> None:
    """Microseconds per probe: compiled, and the uncompiled index it replaced, on the same positions;
    the two interleaved over `rounds` rounds and the fastest round of each kept (the machine's load
    varies from moment to moment)."""
    indexer = _Indexer(VARIANT, pieces)
    positions = [p for p in (indexer.position(i) for i in range(0, indexer.size, indexer.size // count)) if p]
    fast = slow = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        compiled = [table.code(p) for p in positions]
        fast = min(fast, time.perf_counter() - start)
        start = time.perf_counter()
        reference = [table.tables[pieces][indexer.index(p)] for p in positions]
        slow = min(slow, time.perf_counter() - start)
        assert compiled == reference
    n = len(positions)
    print(f"probe, {pieces} pieces, {n:,} positions, best of {rounds}: compiled {1e6 * fast / n:.2f} µs, "
          f"Python index {1e6 * slow / n:.2f} µs ({slow / fast:.1f}×)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Won poddavki endings converted against perfect defence.")
    parser.add_argument("--pieces", default="4,5", help="piece counts (default 4,5)")
    parser.add_argument("--count", type=int, default=40, help="positions per piece count (default 40)")
    parser.add_argument("--min-plies", type=int, default=9, help="the shortest win sampled (default 9)")
    parser.add_argument("--depth", type=int, default=8, help="shashki's search depth a move (default 8)")
    parser.add_argument("--margin", type=int, default=6, help="plies allowed beyond the table's distance")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--own-table", action="store_true",
                        help="shashki also probes the table of the ending's own size")
    parser.add_argument("--quiet", action="store_true", help="only the summary lines")
    parser.add_argument("--variant", default="russian-giveaway", choices=["russian-giveaway", "russian"])
    args = parser.parse_args(argv)
    global VARIANT
    VARIANT = get_variant(args.variant)
    table = default_tablebase(VARIANT.key)
    probe_speed(table, min(table.pieces, 4))
    failed = False
    for pieces in (int(x) for x in args.pieces.split(",")):
        if table.pieces < pieces:
            print(f"{pieces} pieces: no table (build it: shashki tablebase build --pieces {pieces}); skipped")
            continue
        known = pieces if args.own_table else pieces - 1
        engine = Engine()
        engine.searcher = Searcher(tablebase=Tablebase(list(table.tables[:known + 1]), VARIANT))
        start = time.perf_counter()
        converted = exact = 0
        COUNT_DRAWS.clear()
        excess: list[int] = []
        positions = won_positions(table, pieces, args.count, args.min_plies, args.seed)
        for pos in positions:
            probe = table.probe(pos)
            assert probe is not None
            distance = probe[1]
            plies = convert(pos, table, engine, args.depth, distance + args.margin)
            if plies is not None:
                converted += 1
                exact += plies == distance
                excess.append(plies - distance)
            if not args.quiet:
                used = "not won" if plies is None else f"{plies:3d}"
                print(f"  {pos.fen():34s} table {distance:3d}  shashki {used}")
        mean = sum(excess) / len(excess) if excess else 0.0
        drawn = f", drawn by count {len(COUNT_DRAWS)} ({', '.join(sorted(set(COUNT_DRAWS)))})" \
            if VARIANT.key == "russian" else ""
        print(f"{VARIANT.key}, {pieces} pieces (seed {args.seed}, depth {args.depth}, tables up to {known} "
              f"pieces): converted {converted}/{len(positions)} within the table's distance + {args.margin} "
              f"plies, {exact} in exactly the table's distance, {mean:.1f} plies over it on average{drawn} "
              f"({time.perf_counter() - start:.0f} s)")
        failed |= converted < len(positions)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
