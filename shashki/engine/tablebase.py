"""Endgame tables for Russian giveaway and Russian: the exact result and distance of every position with
few pieces.

Retrograde analysis (`build`, compiled: `shashki.engine.tbbuild`): every position with k pieces (men and
kings, either colour, either side to move) is listed; positions where the side to move has no move are won
for it in giveaway, lost in Russian (RULES.md §3). From there results run backwards, nearest first: a
position with a move to a position lost for the opponent is won (in one ply more than the nearest such), a
position all of whose moves reach positions won for the opponent is lost (in one ply more than the
farthest). Captures lead to tables with fewer pieces, built first. What is never decided is a draw:
neither side can force the end, the game goes round (threefold repetition). In Russian the result is the
theoretical one: FMJD-64's draws by count (7.2.4-7.2.8) are not in the tables, and the search believes a
Russian table result only within them (`shashki.engine.counts`).

Each table is a byte per position (win/draw/loss and the distance in plies), indexed by the occupied
squares (combinatorial number system), the kind of piece on each (white/black man/king) and the side to
move:

    0   no such position (a man on its own promotion row)
    1   draw
    2d+2  won for the side to move in d plies    2d+3  lost for the side to move in d plies

The tables up to 4 pieces ship with the package, lzma-compressed (`shashki/engine/tables/<variant>-k.bin`:
2.6 MB for the 18.4 million entries of 4 pieces of Russian giveaway, 84 KB for 3; Russian 2.4 MB and 54
KB; `shashki tablebase build --variant russian --pieces 4 --rebuild` makes them again), and are held in
memory whole. `shashki tablebase build --pieces 5` builds the 5-piece table (412 million entries: 412 MB
as a byte array) into the tables directory (`$SHASHKI_TABLEBASE_DIR`, else `$SHASHKI_DATA/tablebases`,
else `./data/tablebases`) block-compressed (`shashki.engine.tbfile`, `<variant>-5.shtb`): the positions
with White to move only (Black to move has its mirror image's entry), in 2 KB blocks each deflated on its
own: 54.5 MB for Russian giveaway, 65.2 MB for Russian. `Tablebase.default()` loads the shipped tables
plus any larger table found there: a compressed one memory-mapped (shared between processes), a probe
decompressing one block unless the table's cache of recent blocks holds it (32 MB,
`$SHASHKI_TABLEBASE_CACHE_MB`); a raw `<variant>-5.bin` of the old format memory-mapped as it is
(`shashki tablebase compress` converts it). Sizes and probe speeds, raw against compressed:
`python benchmarks/tablebase_probe.py` (README, "Endgame tables").

>>> table = Tablebase.load_or_build(2)
>>> from shashki.rules import Position
>>> table.probe(Position.from_fen("W:WKg1:BKe5", "russian-giveaway"))
(1, 2)
"""

from __future__ import annotations

import lzma
import mmap
import os
from collections.abc import Callable
from math import comb
from pathlib import Path

from shashki.engine import tbfile
from shashki.engine.tbbuild import Builder, Geometry
from shashki.engine.tbfile import TableFileError
from shashki.engine.tbprobe import BlockTable, Probe
from shashki.rules.position import Position
from shashki.rules.variant import Variant, get_variant

VARIANT_KEY = "russian-giveaway"  # the default
VARIANT_KEYS = ("russian-giveaway", "russian")  # the variants with tables
INVALID, DRAW_CODE = 0, 1
WIN_RESULT, DRAW_RESULT, LOSS_RESULT = 1, 0, -1
KINDS = 4  # 0 white man, 1 white king, 2 black man, 3 black king


Table = bytes | bytearray | mmap.mmap | BlockTable  # a k-piece table: whole, or block-compressed

SHIPPED_DIR = Path(__file__).with_name("tables")
SHIPPED_PIECES = 4


def data_dir() -> Path:
    """Where built tables are written and looked for: $SHASHKI_TABLEBASE_DIR, else the data directory's."""
    explicit = os.environ.get("SHASHKI_TABLEBASE_DIR")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("SHASHKI_DATA") or "data") / "tablebases"


class _Indexer:
    """Position <-> index of the k-piece table."""

    def __init__(self, variant: Variant, k: int) -> None:
        board = variant.board
        self.variant = variant
        self.k = k
        self.n = board.squares
        self.bits = [board.bit_of_number(i + 1) for i in range(self.n)]  # square index -> bit
        self.square = {b: i for i, b in enumerate(self.bits)}
        self.white_promo = board.white_promotion_row
        self.black_promo = board.black_promotion_row
        self.size = comb(self.n, k) * KINDS**k * 2

    def index(self, pos: Position) -> int:
        squares = []
        kinds = 0
        occupied = pos.white | pos.black
        bb = occupied
        while bb:
            low = bb & -bb
            bb ^= low
            squares.append(self.square[low.bit_length() - 1])
        squares.sort()
        rank = 0
        for i, sq in enumerate(squares):
            rank += comb(sq, i + 1)
            bit = 1 << self.bits[sq]
            kind = (0 if pos.white & bit else 2) + (1 if pos.kings & bit else 0)
            kinds = kinds * KINDS + kind
        return ((rank * KINDS**self.k) + kinds) * 2 + (0 if pos.white_to_move else 1)

    def position(self, index: int) -> Position | None:
        """The position of an index, or None for an impossible one (a man on its promotion row)."""
        index, side = divmod(index, 2)
        rank, kinds = divmod(index, KINDS**self.k)
        # Unrank the combination, largest square first.
        squares = []
        for i in range(self.k, 0, -1):
            sq = i - 1
            while comb(sq + 1, i) <= rank:
                sq += 1
            rank -= comb(sq, i)
            squares.append(sq)
        squares.reverse()
        white = black = kings = 0
        for i in range(self.k - 1, -1, -1):
            kind = kinds % KINDS
            kinds //= KINDS
            bit = 1 << self.bits[squares[i]]
            if kind < 2:
                if kind == 0 and bit & self.white_promo:
                    return None
                white |= bit
            else:
                if kind == 2 and bit & self.black_promo:
                    return None
                black |= bit
            if kind & 1:
                kings |= bit
        return Position(self.variant, white, black, kings, side == 0)


class Tablebase:
    """Tables for 1 .. `pieces` pieces; `probe(position)` -> (result, plies) or None if not covered."""

    def __init__(self, tables: list[Table], variant: Variant | None = None) -> None:
        self.variant = variant or get_variant(VARIANT_KEY)
        self.tables = tables  # tables[k] for k pieces (tables[0] unused)
        self.pieces = len(tables) - 1
        self.indexers = [_Indexer(self.variant, k) for k in range(len(tables))]
        board = self.variant.board
        squares = [-1] * (max(board.rows) + 1)
        for bit in board.rows:
            squares[bit] = board.number(bit) - 1
        self.prober = Probe(list(tables), squares)  # the same index, compiled (the search's probe)

    def code(self, pos: Position) -> int | None:
        code = self.prober.code(pos.white, pos.black, pos.kings, pos.white_to_move)
        return None if code < 0 else code

    def probe(self, pos: Position) -> tuple[int, int] | None:
        """(1 won / 0 draw / -1 lost for the side to move, plies to the end), or None if not covered."""
        code = self.code(pos)
        if code is None or code == INVALID:
            return None
        return _decode(code)

    # Building -------------------------------------------------------------------------------

    @classmethod
    def build(cls, pieces: int, progress: Callable[[str, int, int], None] | None = None,
              directory: Path | None = None, reuse: bool = True, variant_key: str = VARIANT_KEY) -> Tablebase:
        """Build and write the tables up to `pieces`; with `reuse`, tables already written (or shipped)
        are loaded instead of built again (a raw table of the old format beyond the shipped ones, with no
        compressed one beside it, is compressed instead: `compress`). OSError, before any table is
        built, when the directory cannot be written. `progress(stage, done, total)`: each table's build,
        then its compression."""
        variant = _variant(variant_key)
        directory = directory or data_dir()
        tables: list[Table] = [b""]
        checked = False
        for k in range(1, pieces + 1):
            if (reuse and k > SHIPPED_PIECES and raw_path(directory, variant, k).exists()
                    and not compressed_path(directory, variant, k).exists()):
                compress(k, variant.key, directory, progress)
            known = _read(k, variant, directory) if reuse else None
            if known is not None:
                tables.append(known)
                continue
            if not checked:  # minutes of building are not spent on a table that cannot be written
                directory.mkdir(parents=True, exist_ok=True)
                probe = directory / f".{variant.key}-{k}.probe"
                probe.write_bytes(b"")
                probe.unlink()
                checked = True
            whole = k <= SHIPPED_PIECES  # small: a raw byte array, read whole; else White to move only
            table = _build_table(cls(tables, variant), k, progress, whole)
            if whole:
                path = raw_path(directory, variant, k)
                tmp = path.with_suffix(".tmp")
                tmp.write_bytes(table)
                tmp.replace(path)
                tables.append(table)
                continue
            path = compressed_path(directory, variant, k)
            tbfile.write(path, table, variant.key, k, progress=_stage(progress, k, "compressing"),
                         whole=False)
            del table
            tables.append(tbfile.open_table(path, variant.key, k, _Indexer(variant, k).size, cache_size()))
        return cls(tables, variant)

    @classmethod
    def load_or_build(cls, pieces: int = 3, directory: Path | None = None,
                      variant_key: str = VARIANT_KEY) -> Tablebase:
        """The tables up to `pieces`: shipped, found in the data directory, or built now."""
        variant = _variant(variant_key)
        tables: list[Table] = [b""]
        for k in range(1, pieces + 1):
            table = _read(k, variant, directory)
            if table is None:
                return cls.build(pieces, directory=directory, variant_key=variant.key)
            tables.append(table)
        return cls(tables, variant)

    @classmethod
    def default(cls, variant_key: str = VARIANT_KEY) -> Tablebase:
        """The shipped tables and every larger one already built in the data directory (never builds)."""
        variant = _variant(variant_key)
        tables: list[Table] = [b""]
        k = 1
        while True:
            table = _read(k, variant, None)
            if table is None:
                break
            tables.append(table)
            k += 1
        return cls(tables, variant)


def raw_path(directory: Path, variant: Variant, k: int) -> Path:
    """A raw table: a byte per position (the built tables up to 4 pieces; 5, before the compressed
    format)."""
    return directory / f"{variant.key}-{k}.bin"


def compressed_path(directory: Path, variant: Variant, k: int) -> Path:
    """A block-compressed table (`shashki.engine.tbfile`): the built tables beyond the shipped ones."""
    return directory / f"{variant.key}-{k}{tbfile.SUFFIX}"


def _read(k: int, variant: Variant, directory: Path | None) -> Table | None:
    """The k-piece table: block-compressed in the directory, raw there (memory-mapped beyond 4 pieces),
    or shipped; None if there is none. TableFileError for a damaged compressed file."""
    size = _Indexer(variant, k).size
    directory = directory or data_dir()
    path = compressed_path(directory, variant, k)
    if path.exists():
        return tbfile.open_table(path, variant.key, k, size, cache_size())
    path = raw_path(directory, variant, k)
    if path.exists() and path.stat().st_size == size:
        if k <= SHIPPED_PIECES:
            return path.read_bytes()
        with path.open("rb") as file:  # the mapping stays valid once the file is closed
            return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    shipped = SHIPPED_DIR / f"{variant.key}-{k}.bin"
    if shipped.exists():
        data = lzma.decompress(shipped.read_bytes())
        if len(data) == size:
            return data
    return None


def cache_size() -> int:
    """Bytes of decompressed blocks a compressed table keeps ($SHASHKI_TABLEBASE_CACHE_MB, else 32 MB)."""
    megabytes = os.environ.get("SHASHKI_TABLEBASE_CACHE_MB")
    return int(float(megabytes) * (1 << 20)) if megabytes else tbfile.DEFAULT_CACHE


def compress(k: int, variant_key: str = VARIANT_KEY, directory: Path | None = None,
             progress: Callable[[str, int, int], None] | None = None, keep: bool = False,
             codec: str = tbfile.DEFAULT_CODEC, shift: int = tbfile.DEFAULT_SHIFT) -> tuple[int, int]:
    """Convert the raw k-piece table of the old format (`<variant>-k.bin`, a byte per position) into a
    block-compressed one, without building it again: every block read back and compared, a sample of
    the positions with Black to move checked against their mirror images (the compressed file keeps
    White to move only). The raw file is removed unless `keep`. (raw size, compressed size) in bytes;
    FileNotFoundError without a raw table, TableFileError if it is not one the builder made."""
    variant = _variant(variant_key)
    directory = directory or data_dir()
    source = raw_path(directory, variant, k)
    size = _Indexer(variant, k).size
    if source.stat().st_size != size:
        raise TableFileError(f"{source} is {source.stat().st_size:,} bytes, not the {size:,} of the "
                             f"{k}-piece table; {tbfile.hint(variant.key, k)}")
    with source.open("rb") as file:
        raw = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        written = tbfile.convert(raw, compressed_path(directory, variant, k), variant.key, k, codec, shift,
                                 _stage(progress, k, "compressing"), _stage(progress, k, "checking"))
    finally:
        raw.close()
    if not keep:
        source.unlink()
    return size, written


def _stage(progress: Callable[[str, int, int], None] | None, k: int,
           stage: str) -> Callable[[int, int], None] | None:
    if progress is None:
        return None
    label = f"{k} piece{'s' if k > 1 else ''}: {stage}"
    return lambda done, total: progress(label, done, total)


_DEFAULT: dict[str, Tablebase] = {}


def default_tablebase(variant_key: str = VARIANT_KEY) -> Tablebase:
    """`Tablebase.default(variant_key)`, loaded once per process and variant."""
    table = _DEFAULT.get(variant_key)
    if table is None:
        table = _DEFAULT[variant_key] = Tablebase.default(variant_key)
    return table


def has_tables(variant: Variant) -> bool:
    """Whether the variant (its plain rule set: not the double-diagonal option) has endgame tables."""
    return variant.key in VARIANT_KEYS and not variant.double_diagonal


def _variant(key: str) -> Variant:
    if key not in VARIANT_KEYS:
        raise ValueError(f"no endgame tables for {key!r}")
    return get_variant(key)


def _decode(code: int) -> tuple[int, int]:
    if code == DRAW_CODE:
        return DRAW_RESULT, 0
    plies, lost = divmod(code - 2, 2)
    return (LOSS_RESULT if lost else WIN_RESULT), plies


def _encode(result: int, plies: int) -> int:
    if result == DRAW_RESULT:
        return DRAW_CODE
    if plies > 126:
        raise OverflowError("distance beyond a byte")
    return 2 * plies + 2 + (1 if result == LOSS_RESULT else 0)


def geometry(variant: Variant) -> Geometry:
    """The board of the Russian family in square numbers (0..31), for the compiled builder."""
    board = variant.board
    square = {bit: board.number(bit) - 1 for bit in board.rows}
    neighbours = [-1] * (4 * board.squares)
    rays = [0] * (32 * board.squares)
    lengths = [0] * (4 * board.squares)
    white_promo = black_promo = 0
    for s in range(board.squares):
        bit = board.bit_of_number(s + 1)
        for d, ray in enumerate(board.rays[bit]):
            lengths[4 * s + d] = len(ray)
            for j, b in enumerate(ray):
                rays[(4 * s + d) * 8 + j] = square[b]
            if ray:
                neighbours[4 * s + d] = square[ray[0]]
        if (board.white_promotion_row >> bit) & 1:
            white_promo |= 1 << s
        if (board.black_promotion_row >> bit) & 1:
            black_promo |= 1 << s
    return Geometry(neighbours, rays, lengths, white_promo, black_promo)


def _build_table(smaller: Tablebase, k: int, progress: Callable[[str, int, int], None] | None,
                 whole: bool = True) -> bytearray:
    """Retrograde analysis of the k-piece table, the smaller tables known (`shashki.engine.tbbuild`):
    the whole table, or with White to move only (not `whole`)."""
    variant = smaller.variant
    tables = [t for t in smaller.tables if not isinstance(t, BlockTable)]
    if len(tables) < len(smaller.tables):
        raise ValueError("tables are built from smaller tables held whole (up to 5 pieces)")
    builder = Builder(geometry(variant), k, variant.giveaway, [bytes(t) for t in tables])
    return builder.build(_stage(progress, k, "building"), whole)
