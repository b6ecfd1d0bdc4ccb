"""benchmarks/engine_endgames.py: won poddavki endings converted against a table-perfect defender."""

from __future__ import annotations

from benchmark_scripts import load_script

endgames = load_script("engine_endgames")


def test_with_its_own_table_the_engine_converts_each_ending_in_exactly_the_tables_distance(capsys):
    assert endgames.main(["--pieces", "3", "--count", "4", "--depth", "4", "--own-table", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "russian-giveaway, 3 pieces (seed 1, depth 4, tables up to 3 pieces): converted 4/4" in out
    assert "4 in exactly the table's distance, 0.0 plies over it" in out


def test_a_piece_count_without_a_table_is_skipped_with_how_to_build_it(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SHASHKI_TABLEBASE_DIR", str(tmp_path))
    assert endgames.main(["--pieces", "5", "--count", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "5 pieces: no table (build it: shashki tablebase build --pieces 5); skipped" in out
