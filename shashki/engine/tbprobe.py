"""Probing the endgame tables at a search node: the index of a position, compiled with mypyc.

The search looks every position with few pieces up in the tables (`alphabeta.Core.search`); computing
the index in uncompiled Python cost about 7 µs a probe, twenty times a node's move generation. This is
the same index as `tablebase._Indexer.index` (combinatorial rank of the occupied squares, the kind of
piece on each, the side to move), over the move generator's bitboards, with no allocation.

A table is either the whole byte array (bytes, bytearray or mmap: the tables up to 4 pieces, held in
memory) or a `BlockTable`, read from a block-compressed file (`shashki.engine.tbfile`: the 5-piece
tables): the positions with White to move only, cut into blocks compressed one by one. A position with
Black to move is looked up as its mirror image (colours exchanged, the board turned half round: the
rules are symmetric, the builder fills the table so); a probe decompresses one block and keeps the last
few in a small cache. A block found damaged (its CRC-32 or its length wrong) is logged once, with the
command that builds the table again, and its positions count as not covered: the search, the analysis
board and the puzzles' judge go on without them instead of failing (`Probe.code`); `BlockTable.get` and
`block` still raise, for the tools that read a whole file.
"""

from __future__ import annotations

import logging
import lzma
import threading
import zlib
from math import comb
from typing import Any, Final

log = logging.getLogger("shashki.engine.tablebase")

KINDS: Final = 4
CODEC_DEFLATE: Final = 1  # zlib's raw deflate (each block has its CRC-32 in the index)
CODEC_LZMA: Final = 2


class TableFileError(ValueError):
    """A table file that cannot be read (not a table, truncated, corrupt): the message says what to do."""


class BlockTable:
    """A k-piece table read from a block-compressed file: `block(b)` is the b-th block of the half table
    (White to move: entry h is the full table's entry 2h), `half(h)` its entry, `get(index)` the full
    table's entry of an index (Black to move through the mirror image), `len()` the full table's size."""

    def __init__(self, data: Any, index: int, blocks: int, k: int, shift: int, entries: int, codec: int,
                 capacity: int, name: str, hint: str) -> None:
        self.data = data  # the file (an mmap: shared between processes, read as probed)
        self.index = index  # where the index starts in data: blocks + 1 offsets (u64), then CRC-32s (u32)
        self.blocks = blocks
        self.k = k
        self.shift = shift  # a block is 1 << shift entries (the last one may be shorter)
        self.mask = (1 << shift) - 1
        self.entries = entries  # of the half table
        self.codec = codec
        self.capacity = max(1, capacity)  # blocks kept decompressed (least recently used dropped)
        self.name = name
        self.hint = hint  # what to do when the file turns out corrupt
        self.last: tuple[int, bytes] = (-1, b"")  # the last probe's block and its bytes (one value: a
        # thread reads both together, without the lock)
        self.cache: dict[int, bytes] = {}  # block -> its bytes, least recently used first
        self.lock = threading.Lock()  # the server probes from threads: one cache update at a time
        self.misses = 0  # blocks decompressed
        self.damaged: dict[int, str] = {}  # block -> why it cannot be read (logged once)
        self.pow4: list[int] = [KINDS**i for i in range(k + 1)]
        self.comb: list[int] = [comb(s, i) for s in range(33) for i in range(8)]  # [s * 8 + i]

    def __len__(self) -> int:
        return 2 * self.entries

    def __getitem__(self, index: int) -> int:
        return self.get(index)

    def half(self, h: int) -> int:
        """The entry of the half table's h-th position (White to move)."""
        block = h >> self.shift
        last = self.last
        if last[0] != block:
            with self.lock:
                last = (block, self.cached(block))
                self.last = last
        value: int = last[1][h & self.mask]
        return value

    def cached(self, block: int) -> bytes:
        """The block's bytes, from the cache or decompressed now (the caller holds the lock)."""
        cache = self.cache
        data = cache.pop(block, None)
        if data is None:
            why = self.damaged.get(block)
            if why is not None:
                raise TableFileError(why)
            try:
                data = self.block(block)
            except TableFileError as error:
                self.damaged[block] = str(error)
                log.error("%s (until then, its positions are searched as if there were no table)", error)
                raise
            self.misses += 1
            if len(cache) >= self.capacity:
                del cache[next(iter(cache))]
        cache[block] = data  # the most recently used, last
        return data

    def block(self, block: int) -> bytes:
        """The block decompressed; TableFileError if it does not decompress to its length."""
        if block < 0 or block >= self.blocks:
            raise IndexError("table index out of range")
        data = self.data
        at = self.index + 8 * block
        start = int.from_bytes(data[at:at + 8], "little")
        end = int.from_bytes(data[at + 8:at + 16], "little")
        at = self.index + 8 * (self.blocks + 1) + 4 * block
        length = min(self.mask + 1, self.entries - (block << self.shift))
        raw: bytes = data[start:end]
        if zlib.crc32(raw) != int.from_bytes(data[at:at + 4], "little"):
            raise TableFileError(f"{self.name}: block {block} is corrupt (CRC); {self.hint}")
        try:
            if self.codec == CODEC_DEFLATE:
                out: bytes = zlib.decompress(raw, -15)
            else:
                lzma2 = {"id": lzma.FILTER_LZMA2, "dict_size": max(4096, self.mask + 1)}
                out = lzma.decompress(raw, format=lzma.FORMAT_RAW, filters=[lzma2])
        except (zlib.error, lzma.LZMAError) as error:
            raise TableFileError(f"{self.name}: block {block} is corrupt ({error}); {self.hint}") from None
        if len(out) != length:
            raise TableFileError(f"{self.name}: block {block} decompresses to {len(out)} bytes, not "
                                 f"{length}; {self.hint}")
        return out

    def get(self, index: int) -> int:
        """The full table's entry of an index (`tablebase._Indexer.index`)."""
        if index < 0 or index >= 2 * self.entries:
            raise IndexError("table index out of range")
        if index & 1 == 0:
            return self.half(index >> 1)
        # Black to move: the position's mirror image, unranked and ranked again.
        k = self.k
        index >>= 1
        rank = index // self.pow4[k]
        kinds = index - rank * self.pow4[k]
        mirrored_rank = 0
        mirrored_kinds = 0
        for i in range(k, 0, -1):  # the highest square first: it is the lowest of the mirror image
            sq = i - 1
            while self.comb[(sq + 1) * 8 + i] <= rank:
                sq += 1
            rank -= self.comb[sq * 8 + i]
            kind = (kinds >> (2 * (k - i))) & 3  # the square's piece (the highest square's is last)
            mirrored_rank += self.comb[(31 - sq) * 8 + k - i + 1]
            mirrored_kinds = mirrored_kinds * KINDS + (kind ^ 2)  # the other colour, king or man alike
        return self.half(mirrored_rank * self.pow4[k] + mirrored_kinds)


class Probe:
    """`code(white, black, kings, white_to_move)`: the table byte of a position, or -1 if no table
    covers its number of pieces (or its entry is in a damaged block)."""

    def __init__(self, tables: list[Any], squares: list[int]) -> None:
        self.tables = tables  # tables[k]: bytes, bytearray or mmap of the k-piece table, or a BlockTable
        self.blocked: list[BlockTable | None] = [t if isinstance(t, BlockTable) else None for t in tables]
        self.pieces = len(tables) - 1
        self.square: list[int] = [-1] * 37  # [bit % 37]: the square index (number - 1) of that bit
        for bit, square in enumerate(squares):  # squares[bit]: the square index of a bitboard bit, or -1
            if square >= 0:
                self.square[(1 << bit) % 37] = square  # powers of two below 2**36 differ modulo 37
        self.comb: list[int] = [comb(s, i) for s in range(33) for i in range(8)]  # [s * 8 + i]
        self.pow4: list[int] = [KINDS**i for i in range(9)]

    def code(self, white: int, black: int, kings: int, white_to_move: bool) -> int:
        occ = white | black
        rank = 0
        kinds = 0
        i = 0
        while occ:
            low = occ & -occ
            occ ^= low
            i += 1
            if i > self.pieces:
                return -1
            rank += self.comb[self.square[low % 37] * 8 + i]
            kind = (0 if white & low else 2) + (1 if kings & low else 0)
            kinds = kinds * KINDS + kind
        if i == 0:
            return -1
        blocked = self.blocked[i]
        if blocked is not None:
            try:
                if white_to_move:
                    return blocked.half(rank * self.pow4[i] + kinds)
                return self.mirrored(blocked, white, black, kings, i)
            except TableFileError:  # a damaged block (logged once): not covered, as without the table
                return -1
        index = ((rank * self.pow4[i] + kinds) << 1) + (0 if white_to_move else 1)
        value: int = self.tables[i][index]
        return value

    def mirrored(self, table: BlockTable, white: int, black: int, kings: int, k: int) -> int:
        """A position with Black to move, in a half table: its mirror image's entry (square s becomes
        31 - s, the lowest square the highest, and each piece changes colour)."""
        occ = white | black
        rank = 0
        kinds = 0
        j = 0
        while occ:
            low = occ & -occ
            occ ^= low
            rank += self.comb[(31 - self.square[low % 37]) * 8 + k - j]
            kind = (2 if white & low else 0) + (1 if kings & low else 0)
            kinds += kind * self.pow4[j]
            j += 1
        return table.half(rank * self.pow4[k] + kinds)
