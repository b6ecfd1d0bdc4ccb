"""The transposition table: buckets, replacement by depth and age, growth, and what an entry keeps."""

from __future__ import annotations

from shashki.engine.transposition import (
    BUCKET,
    EXACT,
    LOWER,
    TranspositionTable,
    entry_depth,
    entry_move_index,
    entry_score,
)


def same_bucket_keys(table: TranspositionTable, count: int) -> list[int]:
    """Distinct hashes that all go to the bucket of hash 0 (they differ above the bucket mask)."""
    return [(i + 1) * (table.mask + BUCKET) for i in range(count)]


def test_an_entry_keeps_depth_score_flag_and_best_move():
    table = TranspositionTable()
    table.store(12345, 7, LOWER, -29_990, 3, True, False)
    entry = table.probe(12345)
    assert entry_depth(entry) == 7 and entry_score(entry) == -29_990
    assert entry & 3 == LOWER and entry_move_index(entry) == 3
    assert table.move_index(12345) == 3
    assert table.probe(54321) == -1 and table.move_index(54321) == -1


def test_a_full_bucket_gives_up_its_shallowest_entry():
    table = TranspositionTable(max_entries=1 << 14)
    keys = same_bucket_keys(table, BUCKET + 1)
    depths = [5, 2, 9, 4]
    for key, depth in zip(keys, depths, strict=False):
        table.store(key, depth, EXACT, 0, 0, False, False)
    table.store(keys[-1], 6, EXACT, 0, 0, False, False)
    assert table.probe(keys[1]) == -1  # depth 2, the shallowest, was replaced
    assert all(table.probe(k) >= 0 for k in (keys[0], keys[2], keys[3], keys[4]))


def test_entries_of_earlier_searches_are_replaced_first():
    table = TranspositionTable(max_entries=1 << 14)
    keys = same_bucket_keys(table, BUCKET + 1)
    table.store(keys[0], 12, EXACT, 0, 0, False, False)  # deep, but from a search long ago
    for _ in range(3):
        table.new_search()
    for key in keys[1:BUCKET]:
        table.store(key, 3, EXACT, 0, 0, False, False)
    table.store(keys[-1], 3, EXACT, 0, 0, False, False)
    assert table.probe(keys[0]) == -1
    assert all(table.probe(k) >= 0 for k in keys[1:])


def test_the_table_grows_instead_of_losing_entries_and_clear_forgets_them():
    table = TranspositionTable(max_entries=1 << 20)
    start = table.capacity
    keys = [k * 7919 + 1 for k in range(3 * start)]
    for key in keys:
        table.store(key, 4, EXACT, 1, 0, False, False)
    assert table.capacity > start
    assert len(table) == len(keys) and all(table.probe(k) >= 0 for k in keys)
    table.clear()
    assert len(table) == 0 and all(table.probe(k) == -1 for k in keys[:1000])


def test_the_table_never_grows_beyond_its_maximum():
    table = TranspositionTable(max_entries=1 << 10)
    for key in range(1, 50_000):
        table.store(key * 104_729, 4, EXACT, 0, 0, False, False)
    assert table.capacity == 1 << 10 and len(table) <= 1 << 10
