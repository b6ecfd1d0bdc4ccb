"""The block-compressed table file: a table beyond the shipped ones on disk, read a block at a time.

`<variant>-<k>.shtb` in the tables directory (`tablebase.data_dir()`) holds the k-piece table's positions
with White to move only (the full table's even entries, `2h` for the h-th): a position with Black to move
has the same entry as its mirror image (colours exchanged, the board turned half round), which is how
the builder fills it and how `tbprobe.BlockTable` reads it. Those entries are cut into blocks of
`1 << shift` bytes, each compressed on its own (zlib or raw LZMA2), so that a probe decompresses one
block. The file, little-endian:

    header   magic "SHASHKTB", version (u16), codec (u8: 1 zlib, 2 LZMA2), layout (u8: 1, White to move
             only), pieces (u8), a pad byte, the variant key (24 bytes, NUL-padded), shift (u32), entries
             (u64: of the half table), blocks (u32), CRC-32 of the header before it and of the index
    index    blocks + 1 offsets (u64: where each block starts, the last one the file's size), then the
             CRC-32 of each compressed block (u32)
    blocks   the compressed blocks, in order

A file that is not one, of another variant or size, truncated or corrupt raises `TableFileError` saying
to build the table again; a block is checked (CRC and length) when it is decompressed. `write` makes
the file from the builder's half table or from a whole one (a raw `.bin` of the old format, memory-
mapped), compressing blocks on several threads.
"""

from __future__ import annotations

import lzma
import mmap
import os
import random
import struct
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from shashki.engine.tbprobe import CODEC_DEFLATE, CODEC_LZMA, BlockTable, TableFileError

__all__ = ["BlockTable", "TableFileError", "write", "open_table", "convert", "SUFFIX"]

SUFFIX = ".shtb"
MAGIC = b"SHASHKTB"
VERSION = 1
LAYOUT_WHITE_TO_MOVE = 1
HEADER = struct.Struct("<8sHBBBx24sIQI")  # then the CRC-32 (u32)
CRC = struct.Struct("<I")
CODECS = {"zlib": CODEC_DEFLATE, "lzma": CODEC_LZMA}
DEFAULT_CODEC = "zlib"
DEFAULT_SHIFT = 11  # 2 KB blocks (benchmarks/tablebase_probe.py)
DEFAULT_CACHE = 32 << 20  # bytes of decompressed blocks kept per table


def hint(variant_key: str, k: int) -> str:
    """What to do about a bad file: build it again."""
    option = "" if variant_key == "russian-giveaway" else f" --variant {variant_key}"
    return f"build it again with `shashki tablebase build --pieces {k}{option} --rebuild`"


def pack_block(codec: int, data: bytes, shift: int) -> bytes:
    """A block compressed: raw deflate (its CRC is in the index) or raw LZMA2 (a dictionary the block's
    size: `tbprobe.BlockTable.block` decompresses with the same)."""
    if codec == CODEC_DEFLATE:
        deflate = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
        return deflate.compress(data) + deflate.flush()
    lzma2 = {"id": lzma.FILTER_LZMA2, "preset": 6, "dict_size": max(4096, 1 << shift)}
    return lzma.compress(data, format=lzma.FORMAT_RAW, filters=[lzma2])


def write(path: Path, table: Any, variant_key: str, k: int, codec: str = DEFAULT_CODEC,
          shift: int = DEFAULT_SHIFT, progress: Callable[[int, int], None] | None = None,
          whole: bool = True) -> int:
    """Write the k-piece table as a block-compressed file at `path` (through a temporary file, replaced
    at the end); its size in bytes. `table` (bytes, bytearray or mmap): with `whole`, every entry (both
    sides to move, as a raw table), else the half table (White to move, as `tbbuild.Builder.build(...,
    whole=False)` makes it). `progress(done, total)` counts blocks."""
    step = 2 if whole else 1
    if len(table) % step:
        raise ValueError("a whole table has an even number of entries (both sides to move)")
    code = CODECS[codec]
    entries = len(table) // step
    size = 1 << shift
    blocks = (entries + size - 1) // size
    key = variant_key.encode()
    if len(key) > 24:
        raise ValueError(f"variant key too long: {variant_key!r}")
    head = HEADER.pack(MAGIC, VERSION, code, LAYOUT_WHITE_TO_MOVE, k, key, shift, entries, blocks)
    start = HEADER.size + CRC.size + 8 * (blocks + 1) + 4 * blocks
    offsets = [start]
    crcs: list[int] = []

    def block(b: int) -> bytes:  # the b-th block compressed (zlib and lzma let go of the GIL: threads)
        part = table[step * (b << shift):step * min(entries, (b + 1) << shift):step]
        return pack_block(code, bytes(part), shift)

    tmp = path.with_name(path.name + ".tmp")
    batch = 64
    with tmp.open("wb") as out, ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
        out.seek(start)
        for first in range(0, blocks, batch):
            for data in pool.map(block, range(first, min(blocks, first + batch))):
                out.write(data)
                offsets.append(offsets[-1] + len(data))
                crcs.append(zlib.crc32(data))
            if progress is not None:
                progress(min(blocks, first + batch), blocks)
        index = struct.pack(f"<{blocks + 1}Q{blocks}I", *offsets, *crcs)
        out.seek(0)
        out.write(head + CRC.pack(zlib.crc32(index, zlib.crc32(head))) + index)
    tmp.replace(path)
    return offsets[-1]


def open_table(path: Path, variant_key: str, k: int, entries: int, cache: int = DEFAULT_CACHE) -> BlockTable:
    """The table in the file, memory-mapped, keeping up to `cache` bytes of decompressed blocks;
    TableFileError (saying to build it again) if the file is not that table or is damaged. `entries`:
    the full table's size."""
    again = hint(variant_key, k)
    with path.open("rb") as file:
        head = file.read(HEADER.size + CRC.size)
        if len(head) < HEADER.size + CRC.size or not head.startswith(MAGIC):
            raise TableFileError(f"{path} is not a shashki endgame table file; {again}")
        magic, version, codec, layout, pieces, key, shift, half, blocks = HEADER.unpack_from(head)
        if version != VERSION or layout != LAYOUT_WHITE_TO_MOVE:
            raise TableFileError(f"{path}: a table file of another version ({version}) of shashki; {again}")
        index = file.read(12 * blocks + 8)
        size = os.fstat(file.fileno()).st_size
        if len(index) < 12 * blocks + 8:
            raise TableFileError(f"{path} is truncated ({size:,} bytes, its index cut off); {again}")
        if zlib.crc32(index, zlib.crc32(head[:HEADER.size])) != CRC.unpack_from(head, HEADER.size)[0]:
            raise TableFileError(f"{path}: its header or index is corrupt (CRC); {again}")
        found = key.rstrip(b"\0").decode(errors="replace")
        if found != variant_key or pieces != k or 2 * half != entries:
            raise TableFileError(f"{path} holds the {pieces}-piece table of {found} ({2 * half:,} entries), "
                                 f"not the {k}-piece table of {variant_key} ({entries:,}); {again}")
        expected = (half + (1 << shift) - 1) >> shift
        if codec not in CODECS.values() or not 8 <= shift <= 24 or blocks != expected:
            raise TableFileError(f"{path}: codec {codec}, {blocks} blocks of 2**{shift} entries; {again}")
        offsets = struct.unpack_from(f"<{blocks + 1}Q", index)
        if offsets[-1] != size:
            what = "truncated" if size < offsets[-1] else "longer than its index says"
            raise TableFileError(f"{path} is {what} ({size:,} bytes, not {offsets[-1]:,}); {again}")
        if offsets[0] != HEADER.size + CRC.size + len(index) or any(
                b < a for a, b in zip(offsets, offsets[1:], strict=False)):
            raise TableFileError(f"{path}: its index is corrupt; {again}")
        data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)  # valid once the file is closed
    return BlockTable(data, HEADER.size + CRC.size, blocks, k, shift, half, codec, max(1, cache >> shift),
                      str(path), again)


def convert(raw: Any, path: Path, variant_key: str, k: int, codec: str = DEFAULT_CODEC,
            shift: int = DEFAULT_SHIFT, compressing: Callable[[int, int], None] | None = None,
            checking: Callable[[int, int], None] | None = None) -> int:
    """Write the raw k-piece table `raw` (every entry: a `.bin` of the old format, memory-mapped) as a
    block-compressed file at `path` and check it: every block read back and compared, and 2,000 positions
    with Black to move against their mirror images (the file keeps White to move only: a raw table the
    builder did not make would lose its own entries). Its size in bytes; TableFileError (the file
    removed) if the check fails."""
    written = write(path, raw, variant_key, k, codec, shift, compressing)
    try:
        table = open_table(path, variant_key, k, len(raw), cache=1 << shift)
        half = len(raw) // 2
        for b in range(table.blocks):
            if table.block(b) != raw[2 * (b << shift):2 * min(half, (b + 1) << shift):2]:
                raise TableFileError(f"{path}: block {b} reads back wrong (the disk?)")
            if checking is not None and (b % 256 == 0 or b == table.blocks - 1):
                checking(b + 1, table.blocks)
        rng = random.Random(k)
        for _ in range(2000):
            index = 2 * rng.randrange(half) + 1
            if table.get(index) != raw[index]:
                raise TableFileError(f"the raw table's entry {index} (Black to move) is not its mirror "
                                     f"image's: not a table shashki built; {hint(variant_key, k)}")
    except BaseException:
        path.unlink()
        raise
    return written
