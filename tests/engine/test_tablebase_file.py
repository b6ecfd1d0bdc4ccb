"""The block-compressed table file (shashki.engine.tbfile): the same bytes as the raw table at every index,
the same probes through the Tablebase API, a clear error (saying to build it again) for a damaged file,
and the conversion of a raw table of the old format (`shashki tablebase compress`)."""

from __future__ import annotations

import random
import re

import pytest
from typer.testing import CliRunner

from shashki.cli import app
from shashki.clitools import CliError
from shashki.engine import tablebase, tbfile
from shashki.engine.tablebase import (
    Tablebase,
    TableFileError,
    _Indexer,
    compress,
    default_tablebase,
    geometry,
)
from shashki.engine.tbbuild import Builder
from shashki.engine.tbprobe import BlockTable
from shashki.rules import Position, get_variant

KEYS = ("russian-giveaway", "russian")


def written(tmp_path, key: str, k: int, shift: int = 8, codec: str = "zlib", cache: int = 4096) -> BlockTable:
    path = tmp_path / f"{key}-{k}{tbfile.SUFFIX}"
    tbfile.write(path, default_tablebase(key).tables[k], key, k, codec=codec, shift=shift)
    return tbfile.open_table(path, key, k, _Indexer(get_variant(key), k).size, cache=cache)


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("codec", ["zlib", "lzma"])
def test_every_entry_of_the_three_piece_table_reads_back_as_the_raw_byte(tmp_path, key, codec):
    raw = default_tablebase(key).tables[3]
    table = written(tmp_path, key, 3, codec=codec)
    assert len(table) == len(raw) and table.blocks > 1000  # blocks of 256 entries: many blocks, many misses
    assert bytes(table.get(i) for i in range(len(raw))) == raw  # Black to move: through the mirror image
    assert len(table.cache) <= table.capacity == 16
    with pytest.raises(IndexError):
        table.get(len(raw))


def test_the_four_piece_table_reads_back_as_the_raw_bytes(tmp_path):
    raw = default_tablebase().tables[4]
    table = written(tmp_path, "russian-giveaway", 4, shift=11)
    assert b"".join(table.block(b) for b in range(table.blocks)) == raw[0::2]  # White to move: stored
    rng = random.Random(4)
    for index in (2 * rng.randrange(len(raw) // 2) + 1 for _ in range(20_000)):
        assert table[index] == raw[index], index  # Black to move: its mirror image's entry


@pytest.mark.parametrize("key", KEYS)
def test_probes_through_the_tablebase_agree_with_the_raw_tables(tmp_path, key):
    shipped = default_tablebase(key)
    variant = get_variant(key)
    compressed = Tablebase([*shipped.tables[:3], written(tmp_path, key, 3), shipped.tables[4]], variant)
    for k in (3, 4):
        indexer = _Indexer(variant, k)
        rng = random.Random(k)
        for _ in range(3000):
            pos = indexer.position(rng.randrange(indexer.size))
            if pos is not None:
                assert compressed.probe(pos) == shipped.probe(pos), pos.fen()
                assert compressed.code(pos) == shipped.code(pos) != 0
    crowded = Position.from_fen("W:W21,22,23,24,25:B5,6,7", key)
    assert compressed.code(crowded) is None


def test_the_builder_makes_the_half_table_and_expands_it_to_the_raw_one():
    shipped = default_tablebase()
    variant = get_variant("russian-giveaway")
    builder = Builder(geometry(variant), 3, True, [bytes(t) for t in shipped.tables[:3]])
    half = builder.build(None, whole=False)
    assert half == shipped.tables[3][0::2]
    assert builder.expand(half) == shipped.tables[3]


def test_tables_beyond_the_shipped_ones_are_built_compressed_and_found_again(tmp_path, monkeypatch):
    monkeypatch.setattr(tablebase, "SHIPPED_PIECES", 2)  # the 3-piece table stands for the 5-piece one
    stages: set[str] = set()
    built = Tablebase.build(3, directory=tmp_path, reuse=False, progress=lambda s, d, t: stages.add(s))
    assert stages == {"1 piece: building", "2 pieces: building", "3 pieces: building",
                      "3 pieces: compressing"}
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "russian-giveaway-1.bin", "russian-giveaway-2.bin", "russian-giveaway-3.shtb"]
    assert isinstance(built.tables[3], BlockTable)
    loaded = Tablebase.load_or_build(3, directory=tmp_path)
    assert isinstance(loaded.tables[3], BlockTable)
    shipped = default_tablebase()
    for fen in ("W:W21:B5,K32", "B:W21:B5,K32", "B:WK1:B12,8"):
        pos = Position.from_fen(fen, "russian-giveaway")
        assert loaded.probe(pos) == built.probe(pos) == shipped.probe(pos)


def raw_table(tmp_path, key: str = "russian-giveaway", k: int = 3, data: bytes | None = None):
    path = tmp_path / f"{key}-{k}.bin"
    path.write_bytes(default_tablebase(key).tables[k] if data is None else data)
    return path


def test_a_raw_table_of_the_old_format_is_read_still_and_converted_without_building(tmp_path, monkeypatch):
    monkeypatch.setattr(tablebase, "SHIPPED_PIECES", 2)
    raw = raw_table(tmp_path)
    variant = get_variant("russian-giveaway")
    old = tablebase._read(3, variant, tmp_path)
    assert old is not None and not isinstance(old, BlockTable)  # memory-mapped, as before
    sizes = compress(3, directory=tmp_path, keep=True, shift=10)
    assert sizes == (raw.stat().st_size, (tmp_path / "russian-giveaway-3.shtb").stat().st_size)
    assert raw.exists()
    assert isinstance(tablebase._read(3, variant, tmp_path), BlockTable)  # the compressed one first
    stages: set[str] = set()
    Tablebase.build(3, directory=tmp_path, progress=lambda s, d, t: stages.add(s))
    assert not stages and raw.exists()  # both there: the compressed one is used, the raw one left alone
    # Alone, the raw table is converted by the build (and removed) instead of built again.
    (tmp_path / "russian-giveaway-3.shtb").unlink()
    Tablebase.build(3, directory=tmp_path, progress=lambda s, d, t: stages.add(s))
    assert "3 pieces: building" not in stages and "3 pieces: compressing" in stages and not raw.exists()
    assert isinstance(tablebase._read(3, variant, tmp_path), BlockTable)


def test_a_raw_table_that_the_builder_did_not_make_is_refused(tmp_path):
    shipped = bytearray(default_tablebase().tables[3])
    shipped[1::2] = bytes(len(shipped) // 2)  # Black to move: not the mirror images' entries
    raw_table(tmp_path, data=bytes(shipped))
    with pytest.raises(TableFileError, match="mirror image"):
        compress(3, directory=tmp_path)
    assert not (tmp_path / "russian-giveaway-3.shtb").exists()
    raw_table(tmp_path, data=b"\2" * 1000)
    with pytest.raises(TableFileError, match="shashki tablebase build --pieces 3 --rebuild"):
        compress(3, directory=tmp_path)


def test_the_compress_command_converts_the_raw_table(tmp_path, monkeypatch):
    monkeypatch.setenv("SHASHKI_TABLEBASE_DIR", str(tmp_path))
    result = CliRunner().invoke(app, ["tablebase", "compress", "--pieces", "3", "--variant", "russian"])
    assert isinstance(result.exception, CliError) and "no raw 3-piece table" in str(result.exception)
    raw_table(tmp_path, "russian")
    result = CliRunner().invoke(app, ["tablebase", "compress", "--pieces", "3", "--variant", "russian"])
    assert result.exit_code == 0, result.output
    assert "MB raw ->" in result.output and "compressed" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["russian-3.shtb"]


def damaged(tmp_path, change) -> tuple[BlockTable | None, str]:
    """A 3-piece table file changed by `change(bytearray) -> bytes`; opened and read through, or the error."""
    table = written(tmp_path, "russian-giveaway", 3)
    path = tmp_path / "russian-giveaway-3.shtb"
    path.write_bytes(change(bytearray(path.read_bytes())))
    try:
        table = tbfile.open_table(path, "russian-giveaway", 3, len(table))
        for b in range(table.blocks):
            table.block(b)
    except TableFileError as error:
        return None, str(error)
    return table, ""


def flip(at: int):
    def change(data: bytearray) -> bytes:
        data[at] ^= 0x55
        return bytes(data)
    return change


@pytest.mark.parametrize(("change", "says"), [
    (lambda data: bytes(data[: len(data) - 100]), "is truncated"),
    (lambda data: bytes(data[:200]), "is truncated"),
    (lambda data: bytes(data[:20]), "not a shashki endgame table file"),
    (lambda data: b"PK\3\4" + bytes(data[4:]), "not a shashki endgame table file"),
    (flip(50), r"header or index is corrupt \(CRC\)"),  # the header
    (flip(1000), r"header or index is corrupt \(CRC\)"),  # the index
    (flip(-100), r"block \d+ is corrupt \(CRC\)"),  # a block
    (lambda data: bytes(data) + b"\0", "longer than its index says"),
])
def test_a_damaged_file_says_to_build_the_table_again(tmp_path, change, says):
    table, error = damaged(tmp_path, change)
    assert table is None and re.search(says, error), error
    assert "build it again with `shashki tablebase build --pieces 3 --rebuild`" in error


def test_a_file_of_another_table_is_refused_at_load(tmp_path, monkeypatch):
    russian = tmp_path / "russian-3.shtb"
    tbfile.write(russian, default_tablebase("russian").tables[3], "russian", 3)
    russian.rename(tmp_path / "russian-giveaway-3.shtb")
    monkeypatch.setenv("SHASHKI_TABLEBASE_DIR", str(tmp_path))
    with pytest.raises(TableFileError, match="holds the 3-piece table of russian .*--pieces 3 --rebuild"):
        Tablebase.default()


@pytest.mark.slow
def test_the_four_piece_table_built_compressed_is_the_shipped_one(tmp_path, monkeypatch):
    monkeypatch.setattr(tablebase, "SHIPPED_PIECES", 3)  # the 4-piece table stands for the 5-piece one
    built = Tablebase.build(4, directory=tmp_path, reuse=False)
    table = built.tables[4]
    assert isinstance(table, BlockTable)
    raw = default_tablebase().tables[4]
    assert b"".join(table.block(b) for b in range(table.blocks)) == raw[0::2]
    assert tbfile.open_table(tmp_path / "russian-giveaway-4.shtb", "russian-giveaway", 4, len(raw))


def test_a_damaged_block_met_in_play_is_logged_once_and_its_positions_go_uncovered(tmp_path, caplog):
    """A block whose bytes went bad after the file was opened (a disk error, an overwritten file): the
    probes in it answer "not covered" and the search plays on; every other block still answers."""
    from shashki.engine.search import Limit, Searcher

    key, k = "russian-giveaway", 3
    raw = default_tablebase(key).tables[k]
    path = tmp_path / f"{key}-{k}{tbfile.SUFFIX}"
    tbfile.write(path, raw, key, k, shift=8)
    table = tbfile.open_table(path, key, k, len(raw))  # checked, and mapped: it reads the file as it is
    bad = table.blocks // 2
    at = table.index + 8 * bad
    start = int.from_bytes(table.data[at:at + 8], "little")
    with open(path, "r+b") as file:  # the file changed under the open table
        file.seek(start)
        byte = file.read(1)[0]
        file.seek(start)
        file.write(bytes([byte ^ 0x55]))
    shipped = default_tablebase(key)
    tables = Tablebase([*shipped.tables[:k], table], shipped.variant)
    indexer = _Indexer(shipped.variant, k)
    inside = [p for h in range(bad << 8, (bad + 1) << 8) if (p := indexer.position(2 * h)) is not None]
    outside = [p for h in range(0, 256) if (p := indexer.position(2 * h)) is not None]
    assert inside and outside
    with caplog.at_level("ERROR", logger="shashki.engine.tablebase"):
        assert all(tables.probe(p) is None for p in inside)
    assert [r.getMessage() for r in caplog.records].count(caplog.records[0].getMessage()) == 1
    assert f"block {bad} is corrupt (CRC)" in caplog.records[0].getMessage()
    assert "--pieces 3 --rebuild" in caplog.records[0].getMessage()
    for p in outside:
        assert tables.probe(p) == shipped.probe(p)
    with pytest.raises(TableFileError, match=f"block {bad} is corrupt"):
        table.get(2 * (bad << 8))  # reading the file itself still says what is wrong
    playable = next(p for p in inside if p.legal_moves())
    line = list(Searcher(tablebase=tables).iterate(playable, Limit(depth=6)))[-1]
    assert line.move in playable.legal_moves()
