"""benchmarks/notifications.py on a tiny configuration: the table comes out with every column measured
(the instrument must not rot). Sizes, not speeds: a timed assertion would be a flaky test."""

from __future__ import annotations

from benchmark_scripts import run_script


def test_the_count_and_the_list_are_timed_beside_their_references_at_each_size():
    completed = run_script("notifications", "--sizes", "10,150", "--repeat", "5", timeout=120)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    out = completed.stdout
    for size in ("10", "150"):
        line = next(line for line in out.splitlines() if line.startswith(f"│ {size:>6} "))
        cells = [cell.strip().replace(",", "") for cell in line.split("│")[2:6]]
        assert all(float(cell) > 0 for cell in cells), line
    assert "from 10 to 150 unread: the count" in out
