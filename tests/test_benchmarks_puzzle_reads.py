"""benchmarks/puzzle_reads.py on a tiny configuration: the table comes out with every column measured
(the instrument must not rot). Sizes, not speeds: a timed assertion would be a flaky test."""

from __future__ import annotations

from benchmark_scripts import run_script


def test_the_draw_and_the_themes_page_are_timed_beside_their_references_at_each_size():
    completed = run_script("puzzle_reads", "--sizes", "200,600", "--repeat", "3", timeout=120)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    out = completed.stdout
    for size in ("200", "600"):
        line = next(line for line in out.splitlines() if line.startswith(f"│ {size:>7} "))
        cells = [cell.strip().replace(",", "") for cell in line.split("│")[2:8]]
        assert len(cells) == 6 and all(float(cell) > 0 for cell in cells), line
    assert "from 200 to 600 puzzles: the next" in out
