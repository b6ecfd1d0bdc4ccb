"""Endgame tables for Russian giveaway: the exact result and distance of every position with few pieces.

Retrograde analysis (`build`): every position with k pieces (men and kings, either colour, either side to
move) is listed; positions where the side to move has no move are won for it (RULES.md §3). From there
results run backwards, nearest first: a position with a move to a position lost for the opponent is won
(in one ply more than the nearest such), a position all of whose moves reach positions won for the
opponent is lost (in one ply more than the farthest). Captures lead to tables with fewer pieces, built
first. What is never decided is a draw: neither side can force the end, the game goes round (threefold
repetition).

Each table is a byte per position, indexed by the occupied squares (combinatorial number system), the
kind of piece on each (white/black man/king) and the side to move:

    0   no such position (a man on its own promotion row)
    1   draw
    2d+2  won for the side to move in d plies    2d+3  lost for the side to move in d plies

Tables are written to `<data directory>/tablebases/russian-giveaway-<k>.bin` (the data directory is
`$SHASHKI_DATA`, else `./data`) by `shashki tablebase build --pieces N`. The tables up to 3 pieces ship
with the package, lzma-compressed (`shashki/engine/tables/`, 84 KB for the 635,000 positions of 3
pieces); `Tablebase.default()` loads those, plus any larger table found in the data directory.

>>> table = Tablebase.load_or_build(2)
>>> from shashki.rules import Position
>>> table.probe(Position.from_fen("W:WKg1:BKe5", "russian-giveaway"))
(1, 2)
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable
from math import comb
from pathlib import Path

from shashki.rules.position import Position
from shashki.rules.variant import Variant, get_variant

VARIANT_KEY = "russian-giveaway"
INVALID, DRAW_CODE = 0, 1
WIN_RESULT, DRAW_RESULT, LOSS_RESULT = 1, 0, -1
KINDS = 4  # 0 white man, 1 white king, 2 black man, 3 black king


SHIPPED_DIR = Path(__file__).with_name("tables")
SHIPPED_PIECES = 3


def data_dir() -> Path:
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

    def __init__(self, tables: list[bytes | bytearray], variant: Variant | None = None) -> None:
        self.variant = variant or get_variant(VARIANT_KEY)
        self.tables = tables  # tables[k] for k pieces (tables[0] unused)
        self.pieces = len(tables) - 1
        self.indexers = [_Indexer(self.variant, k) for k in range(len(tables))]

    def code(self, pos: Position) -> int | None:
        k = (pos.white | pos.black).bit_count()
        if k == 0 or k > self.pieces:
            return None
        return self.tables[k][self.indexers[k].index(pos)]

    def probe(self, pos: Position) -> tuple[int, int] | None:
        """(1 won / 0 draw / -1 lost for the side to move, plies to the end), or None if not covered."""
        code = self.code(pos)
        if code is None or code == INVALID:
            return None
        return _decode(code)

    # Building -------------------------------------------------------------------------------

    @classmethod
    def build(cls, pieces: int, progress: Callable[[int, int, int], None] | None = None,
              directory: Path | None = None, reuse: bool = True) -> Tablebase:
        """Build and write the tables up to `pieces`; with `reuse`, tables already written (or shipped)
        are loaded instead of built again."""
        variant = get_variant(VARIANT_KEY)
        directory = directory or data_dir()
        tables: list[bytes | bytearray] = [b""]
        for k in range(1, pieces + 1):
            path = directory / f"{VARIANT_KEY}-{k}.bin"
            known = _read(k, variant, directory) if reuse else None
            if known is not None:
                tables.append(known)
                continue
            table = _build_table(cls(tables, variant), k, progress)
            directory.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(table)
            tmp.replace(path)
            tables.append(table)
        return cls(tables, variant)

    @classmethod
    def load_or_build(cls, pieces: int = 3, directory: Path | None = None) -> Tablebase:
        """The tables up to `pieces`: shipped, found in the data directory, or built now."""
        variant = get_variant(VARIANT_KEY)
        tables: list[bytes | bytearray] = [b""]
        for k in range(1, pieces + 1):
            table = _read(k, variant, directory)
            if table is None:
                return cls.build(pieces, directory=directory)
            tables.append(table)
        return cls(tables, variant)

    @classmethod
    def default(cls) -> Tablebase:
        """The shipped tables and every larger one already built in the data directory (never builds)."""
        variant = get_variant(VARIANT_KEY)
        tables: list[bytes | bytearray] = [b""]
        k = 1
        while True:
            table = _read(k, variant, None)
            if table is None:
                break
            tables.append(table)
            k += 1
        return cls(tables, variant)


def _read(k: int, variant: Variant, directory: Path | None) -> bytes | None:
    size = _Indexer(variant, k).size
    path = (directory or data_dir()) / f"{VARIANT_KEY}-{k}.bin"
    if path.exists() and path.stat().st_size == size:
        return path.read_bytes()
    shipped = SHIPPED_DIR / f"{VARIANT_KEY}-{k}.bin"
    if shipped.exists():
        import lzma

        data = lzma.decompress(shipped.read_bytes())
        if len(data) == size:
            return data
    return None


_DEFAULT: Tablebase | None = None


def default_tablebase() -> Tablebase:
    """`Tablebase.default()`, loaded once per process."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Tablebase.default()
    return _DEFAULT


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


# Events of the retrograde pass, packed in one int: position index * 4 + what its child turned out to be.
_TERMINAL, _CHILD_WON, _CHILD_LOST = 0, 1, 2


def _build_table(smaller: Tablebase, k: int, progress: Callable[[int, int, int], None] | None) -> bytearray:
    """Retrograde analysis of the k-piece table, the smaller tables known.

    Memory is kept to flat arrays (the 4-piece table has 18 million entries): the quiet moves between
    positions of this table are gathered as (parent, child) pairs, then grouped by child (a counting
    sort) so that a decided position finds the positions with a move to it.
    """
    indexer = _Indexer(smaller.variant, k)
    size = indexer.size
    table = bytearray(size)
    unresolved = array("H", bytes(2 * size))  # moves not yet known to lead to a win for the opponent
    edge_parent = array("l")
    edge_child = array("l")
    # buckets[d]: events for distance d (a child decided at distance d - 1, or a terminal at 0)
    buckets: dict[int, array] = {}

    def push(d: int, event: int) -> None:
        bucket = buckets.get(d)
        if bucket is None:
            bucket = buckets[d] = array("q")
        bucket.append(event)

    for index in range(size):
        if progress and index % 65536 == 0:
            progress(k, index, size)
        pos = indexer.position(index)
        if pos is None:
            continue
        table[index] = DRAW_CODE  # until decided
        moves = pos.legal_moves()
        if not moves:
            push(0, index * 4 + _TERMINAL)  # no move: won now (RULES.md §3)
            continue
        unresolved[index] = len(moves)
        for move in moves:
            child = pos.play(move)
            if move.capture_mask:
                # Fewer pieces (never none: the capturing piece remains): the smaller table knows it.
                code = smaller.code(child)
                assert code is not None  # a smaller table covers every position with fewer pieces
                result, plies = _decode(code)
                if result != DRAW_RESULT:  # a drawn child only stops this position from being lost
                    push(plies + 1, index * 4 + (_CHILD_WON if result == WIN_RESULT else _CHILD_LOST))
            else:
                edge_parent.append(index)
                edge_child.append(indexer.index(child))
    # Group the quiet moves by child: parents[first[c]:first[c + 1]] move to c.
    first = array("l", bytes(8 * (size + 1)))
    for c in edge_child:
        first[c + 1] += 1
    for i in range(size):
        first[i + 1] += first[i]
    fill = array("l", first)
    parents = array("l", bytes(8 * len(edge_child)))
    for p, c in zip(edge_parent, edge_child, strict=True):
        parents[fill[c]] = p
        fill[c] += 1
    del edge_parent, edge_child, fill

    decided = bytearray(size)
    d = 0
    while buckets:
        for event in buckets.pop(d, ()):
            index, kind = divmod(event, 4)
            if decided[index]:
                continue
            if kind != _CHILD_WON:  # no move at all, or a move to a position lost for the opponent
                result = WIN_RESULT
            else:
                unresolved[index] -= 1
                if unresolved[index]:
                    continue
                result = LOSS_RESULT  # every move leads to a win for the opponent, the last at d - 1
            decided[index] = 1
            table[index] = _encode(result, d)
            kind = _CHILD_WON if result == WIN_RESULT else _CHILD_LOST
            for parent in parents[first[index]:first[index + 1]]:
                if not decided[parent]:
                    push(d + 1, parent * 4 + kind)
        d += 1
    if progress:
        progress(k, size, size)
    return table
