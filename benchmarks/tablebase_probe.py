"""The 5-piece endgame table probed raw (a byte per position, memory-mapped) and block-compressed, same run.

    python benchmarks/tablebase_probe.py [--variant KEY] [--raw FILE] [--compressed FILE ...]
        [--probes 200000] [--games 8] [--depth 12] [--rounds 3] [--cache-mb 32] [--wdl]

The compressed table is `<variant>-5.shtb` in the tables directory ($SHASHKI_TABLEBASE_DIR: what
`shashki tablebase build --pieces 5` writes), the raw one `<variant>-5.bin` there (the old format; kept by
`shashki tablebase compress --keep`). Without a raw file one is made from the compressed table in a
temporary directory (a minute or two). `--compressed` may name several files (other codecs or block
sizes, written with `tablebase.compress(..., codec=, shift=)` or `tbfile.write`), each measured against
the raw one.

Prints the sizes on disk (with `--wdl`, also what the win/draw/loss alone would take, compressed the same
way), then the speeds, the rounds interleaved and the best of each kept (the machine's load varies):

- random probes: `--probes` positions of the table drawn at random (both sides to move), looked up by the
  compiled probe (`Tablebase.prober.code`, what the search calls): probes a second, raw and compressed,
  and their ratio. Nearly every probe of the compressed table decompresses a block: the worst case.
- search: the positions of `--games` games the engine plays against itself from random positions of 8
  or 9 pieces (mostly men, seeded) until 5 pieces are left, each searched again in the order played to
  `--depth` by a fresh `Searcher` with the tables up to 5 pieces, raw or compressed: the same nodes (the
  same table entries), nodes a second and their ratio, and the blocks decompressed per 1,000 nodes.
  "cold": one table through the round, opened at its start (a process's first moves); "warm": the same
  searches again with its cache as the first pass left it (an engine process that has played a while).
"""

from __future__ import annotations

import argparse
import mmap
import random
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shashki.engine import Engine, Limit, tbfile  # noqa: E402
from shashki.engine.search import Searcher  # noqa: E402
from shashki.engine.tablebase import (  # noqa: E402
    Table,
    Tablebase,
    _Indexer,
    data_dir,
    default_tablebase,
    geometry,
)
from shashki.engine.tbbuild import Builder  # noqa: E402
from shashki.engine.tbprobe import BlockTable  # noqa: E402
from shashki.rules import Game, Position, get_variant  # noqa: E402


def raw_from(compressed: BlockTable, variant_key: str, k: int, directory: Path) -> Path:
    """A raw table file (both sides to move) made from a compressed one."""
    half = b"".join(compressed.block(b) for b in range(compressed.blocks))
    variant = get_variant(variant_key)
    path = directory / f"{variant_key}-{k}.bin"
    path.write_bytes(Builder(geometry(variant), k, variant.giveaway, []).expand(half))
    return path


def wdl_size(table: BlockTable) -> int:
    """Bytes the table's win/draw/loss alone (no distance) would take, compressed as the table is."""
    wdl = bytes([0, 1] + [2 + (code & 1) for code in range(2, 256)])  # 0 none, 1 draw, 2 won, 3 lost
    shift = table.shift
    return sum(len(tbfile.pack_block(table.codec, table.block(b).translate(wdl), shift))
               for b in range(table.blocks))


def pieces(pos: Position) -> int:
    return (pos.white | pos.black).bit_count()


def search_positions(tablebase: Tablebase, count: int, depth: int, seed: int, k: int = 5) -> list[Position]:
    """The positions of `count` games the engine plays against itself (depth `depth`, the tables up to 5
    pieces) from random positions of 8 or 9 pieces (mostly men, at least three a side), in the order
    played: their searches reach 5 pieces through captures and probe the table there, as in a game."""
    variant = tablebase.variant
    board = variant.board
    promotion = board.white_promotion_row | board.black_promotion_row
    rng = random.Random(seed)
    found: list[Position] = []
    for _ in range(count):
        pos = None
        while pos is None or not pos.legal_moves():
            white = black = kings = 0
            for i, square in enumerate(rng.sample(sorted(board.rows), rng.choice((8, 9)))):
                bit = 1 << square
                if i < 3 or (i >= 6 and rng.random() < 0.5):
                    white |= bit
                else:
                    black |= bit
                if bit & promotion or rng.random() < 0.15:
                    kings |= bit
            pos = Position(variant, white, black, kings, rng.random() < 0.5)
        game = Game(variant, pos)
        engine = Engine()
        engine.searcher = Searcher(tablebase=tablebase)
        while not game.is_over and game.ply < 60 and pieces(game.position) > k:
            found.append(game.position)
            game.play(engine.play(game, Limit(depth=depth)).move)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Raw against block-compressed endgame table probes.")
    parser.add_argument("--variant", default="russian-giveaway", choices=["russian-giveaway", "russian"])
    parser.add_argument("--raw", type=Path, help="the raw table (default: <variant>-5.bin in the tables dir)")
    parser.add_argument("--compressed", type=Path, nargs="*",
                        help="compressed tables (default: the built one)")
    parser.add_argument("--probes", type=int, default=200_000, help="random probes a round (default 200,000)")
    parser.add_argument("--games", type=int, default=8, help="games searched (default 8)")
    parser.add_argument("--depth", type=int, default=12, help="search depth (default 12)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cache-mb", type=float, default=tbfile.DEFAULT_CACHE / (1 << 20),
                        help="decompressed blocks kept a table (default: the engine's)")
    parser.add_argument("--wdl", action="store_true", help="also the size of win/draw/loss alone")
    args = parser.parse_args(argv)
    key, k = args.variant, 5
    variant = get_variant(key)
    size = _Indexer(variant, k).size
    cache = int(args.cache_mb * (1 << 20))
    paths: list[Path] = args.compressed or [data_dir() / f"{key}-{k}{tbfile.SUFFIX}"]
    for path in paths:
        if not path.exists():
            print(f"no compressed table {path}: build it (shashki tablebase build --pieces {k})")
            return 1
    raw_path: Path = args.raw or data_dir() / f"{key}-{k}.bin"
    scratch = None
    if not raw_path.exists():
        scratch = tempfile.TemporaryDirectory()
        start = time.perf_counter()
        raw_path = raw_from(tbfile.open_table(paths[0], key, k, size), key, k, Path(scratch.name))
        print(f"raw table made from {paths[0]} in {time.perf_counter() - start:.0f} s")
    with raw_path.open("rb") as file:
        raw = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    assert len(raw) == size, raw_path
    raw_bytes = len(raw)
    print(f"{key}, {k} pieces: raw {raw_bytes / 1e6:.1f} MB ({raw_path}, CRC-32 {zlib.crc32(raw):08x})")
    for path in paths:
        table = tbfile.open_table(path, key, k, size)
        codec = {v: name for name, v in tbfile.CODECS.items()}[table.codec]
        print(f"  {path.name}: {path.stat().st_size / 1e6:.2f} MB, {codec} blocks of "
              f"{(table.mask + 1) / 1024:g} KB ({raw_bytes / path.stat().st_size:.1f}x smaller)")
        if args.wdl:
            print(f"    win/draw/loss alone, compressed the same way: {wdl_size(table) / 1e6:.2f} MB")

    indexer = _Indexer(variant, k)
    rng = random.Random(args.seed)
    probes: list[tuple[int, int, int, bool]] = []
    while len(probes) < args.probes:
        pos = indexer.position(rng.randrange(size))
        if pos is not None:
            probes.append((pos.white, pos.black, pos.kings, pos.white_to_move))
    smaller = list(default_tablebase(key).tables[:k])
    positions = search_positions(Tablebase([*smaller, raw], variant), args.games, args.depth, args.seed)

    def searches(tablebase: Tablebase) -> tuple[float, int]:
        nodes = 0
        start = time.perf_counter()
        for pos in positions:
            nodes += list(Searcher(tablebase=tablebase).iterate(pos, Limit(depth=args.depth)))[-1].nodes
        return time.perf_counter() - start, nodes

    best: dict[str, list[float]] = {}  # the fastest of the rounds (and blocks decompressed), by table

    def run(name: str, open_table: Callable[[], Table]) -> tuple[list[int], int]:
        """Random probes, then the searches cold and warm, each with a table just opened."""
        code = Tablebase([*smaller, open_table()], variant).prober.code
        start = time.perf_counter()
        codes = [code(w, b, kk, s) for w, b, kk, s in probes]
        probe_time = time.perf_counter() - start
        table: Table = open_table()
        tablebase = Tablebase([*smaller, table], variant)
        cold, nodes = searches(tablebase)
        cold_misses = table.misses if isinstance(table, BlockTable) else 0
        warm, _ = searches(tablebase)
        warm_misses = (table.misses if isinstance(table, BlockTable) else 0) - cold_misses
        times = [probe_time, cold, warm, 1000 * cold_misses / nodes, 1000 * warm_misses / nodes]
        best[name] = [min(a, b) for a, b in zip(best[name], times, strict=True)] if name in best else times
        return codes, nodes

    for _ in range(args.rounds):
        codes, nodes = run("raw", lambda: raw)
        for path in paths:
            fresh = lambda path=path: tbfile.open_table(path, key, k, size, cache)  # noqa: E731
            assert run(str(path), fresh) == (codes, nodes)  # the same entries, the same searches

    raw_probe, raw_cold, raw_warm = best["raw"][:3]
    print(f"random probes ({len(probes):,}, best of {args.rounds}): raw {len(probes) / raw_probe:,.0f}/s")
    for path in paths:
        probe = best[str(path)][0]
        print(f"  {path.name}: {len(probes) / probe:,.0f}/s, {raw_probe / probe:.3f} of raw")
    print(f"search ({len(positions)} positions of {args.games} games, depth {args.depth}, {nodes:,} nodes, "
          f"cache {args.cache_mb:g} MB, best of {args.rounds}): raw {nodes / raw_cold:,.0f} nodes/s cold, "
          f"{nodes / raw_warm:,.0f} warm")
    for path in paths:
        _, cold, warm, cold_misses, warm_misses = best[str(path)]
        print(f"  {path.name}: cold {nodes / cold:,.0f} nodes/s, {raw_cold / cold:.3f} of raw, "
              f"{cold_misses:.1f} blocks decompressed per 1,000 nodes; warm {nodes / warm:,.0f} nodes/s, "
              f"{raw_warm / warm:.3f} of raw, {warm_misses:.1f}")
    raw.close()
    if scratch is not None:
        scratch.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
