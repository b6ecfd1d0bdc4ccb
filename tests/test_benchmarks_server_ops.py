"""benchmarks/server_ops.py on a tiny configuration: both apps play whole games one move at a time, open
and close sockets, and the table of each operation's CPU comes out (the instrument must not rot)."""

from __future__ import annotations

import re

import pytest
from benchmark_scripts import run_script


@pytest.mark.slow
def test_both_apps_start_games_open_sockets_and_play_whole_games_one_move_at_a_time():
    completed = run_script("server_ops", "--games", "2", "--sockets", "5", timeout=300)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    out = completed.stdout
    for row in ("a game's start (challenge + accept)", "a game socket (open, first state, close)", "a move"):
        line = next(line for line in out.splitlines() if row in line)
        shashki, bare, ratio = [cell.strip() for cell in line.split("│")[2:5]]
        # So few operations may fall within one tick of the CPU clock (10 ms): figures, not their size.
        assert float(shashki) >= 0 and float(bare) >= 0 and (ratio == "-" or float(ratio) >= 0), line
    moves = re.search(r"\(([\d.]+) moves a game\)", out)
    assert moves and float(moves.group(1)) > 10, out  # whole games were played, not cut short
    assert "2 games each, 5 sockets each" in out
    shares = re.search(r"system \(kernel\) time: (\d+)% of Shashki's CPU over the run, (\d+)%", out)
    assert shares and all(0 <= int(x) <= 100 for x in shares.groups()), out
