"""benchmarks/player_reads.py on a tiny configuration: the table comes out with every column measured
(the instrument must not rot; it also checks the counts kept against the counts made, at each size).
Sizes, not speeds: a timed assertion would be a flaky test."""

from __future__ import annotations

from benchmark_scripts import run_script


def test_the_profile_reads_are_timed_beside_their_references_at_each_size():
    completed = run_script("player_reads", "--sizes", "100,400", "--repeat", "3", timeout=120)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    out = completed.stdout
    for size in ("100", "400"):
        line = next(line for line in out.splitlines() if line.startswith(f"│ {size:>5} "))
        cells = [cell.strip().replace(",", "") for cell in line.split("│")[2:6]]
        assert len(cells) == 4 and all(float(cell) > 0 for cell in cells), line
    assert "from 100 to 400 games: the counts" in out
