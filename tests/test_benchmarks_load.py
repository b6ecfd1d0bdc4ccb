"""benchmarks/load.py, the load benchmark of issue 11, on a tiny configuration: so that the instrument the
server's speed is judged by cannot silently rot (a protocol change that breaks its players, a check that no
longer runs)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from benchmark_scripts import BENCHMARKS, load_script

SCRIPT = BENCHMARKS / "load.py"


def load_module():
    return load_script("load")


def run_load(tmp_path: Path, *arguments: str, timeout: float = 150) -> dict:
    out = tmp_path / "load.json"
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), *arguments, "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return json.loads(out.read_text())


def test_both_apps_play_legal_acknowledged_moves_and_whole_games_without_error(tmp_path):
    # No think time: games end within the window, so the pairs also start new games.
    report = run_load(tmp_path, "--games", "4", "--duration", "3", "--think", "0", "--no-restart-check")
    results = {r["kind"]: r for r in report["results"]}
    assert set(results) == {"baseline", "shashki"}
    for result in results.values():
        assert result["errors"] == {}, result["errors"]
        assert result["server_log_problems"] == 0
        assert result["moves_acked"] > 0
        assert result["ack_ms"]["count"] >= result["moves_sent"] - 8  # at most one move in flight per player
        assert result["delivery_ms"]["count"] > 0
        assert result["games_finished"] > 0
        assert result["games_started_total"] > 4  # the first four games and some started after an end
        assert result["server_cpu_cores"] > 0 and result["server_peak_rss_mb"] > 0
    # Every state Shashki sent was compared with the players' own rules games (position, legal moves, end).
    assert results["shashki"]["states_checked"] >= results["shashki"]["moves_acked"]


def test_rated_games_with_clocks_start_and_end_without_error(tmp_path):
    """`--rated --clock`: every end of these games moves both players' ratings."""
    report = run_load(
        tmp_path, "--target", "shashki", "--games", "3", "--duration", "3", "--think", "0",
        "--clock", "3+2", "--rated", "--no-restart-check",
    )  # fmt: skip
    (result,) = report["results"]
    assert report["options"]["rated"] is True
    assert result["errors"] == {} and result["server_log_problems"] == 0
    assert result["games_finished"] > 0 and result["games_started_total"] > 3


def test_rated_games_need_a_clock():
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--rated"], capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 2 and "--rated needs --clock" in completed.stderr


@pytest.mark.slow
def test_human_paced_games_on_shashki_keep_acks_quick(tmp_path):
    # Setting up the games (accounts, tokens, challenges) takes most of the time on a loaded machine.
    report = run_load(
        tmp_path, "--target", "shashki", "--games", "20", "--duration", "15", "--think", "1-3", timeout=400
    )
    (result,) = report["results"]
    assert result["errors"] == {}
    assert result["moves_acked"] > 50
    assert result["ack_ms"]["p99"] < 1000
    assert result["restart_seconds"] < 30


def seat_of_a_fresh_game(module):
    options = SimpleNamespace(variant="russian-giveaway", think=(0.0, 0.0), setup_concurrency=1)
    run = module.LoadRun(options, ["http://127.0.0.1:1"], checks=True)
    run.stopping = True  # check the states only: no move is sent
    session = module.GameSession("g1")
    return run, module.Seat(run, session, module.Account("a", "t", 0), "black")


def test_the_players_count_a_state_that_disagrees_with_the_rules():
    module = load_module()

    async def scenario():
        from shashki.rules import Game

        run, seat = seat_of_a_fresh_game(module)
        game = Game("russian-giveaway")
        game.play("c3-d4")
        legal = [{"move": m.notation(game.variant)} for m in game.legal_moves()]
        good = {
            "ply": 1,
            "moves": ["c3-d4"],
            "status": "started",
            "fen": game.position.fen(),
            "legal_moves": legal,
        }
        seat.on_state(good, 0.0)
        assert run.stats.errors == {} and run.stats.states_checked == 1
        run2, seat2 = seat_of_a_fresh_game(module)
        seat2.on_state({**good, "legal_moves": legal[1:]}, 0.0)
        assert run2.stats.errors == {"the server's legal moves differ from the rules": 1}
        run3, seat3 = seat_of_a_fresh_game(module)
        seat3.on_state({**good, "status": "finished"}, 0.0)
        assert run3.stats.errors == {"the end of the game differs from the rules": 1}
        run4, seat4 = seat_of_a_fresh_game(module)
        seat4.on_state({**good, "moves": ["c3-b4"]}, 0.0)
        assert run4.stats.errors == {"the server's position differs from the rules": 1}
        run5, seat5 = seat_of_a_fresh_game(module)
        seat5.on_state({**good, "moves": ["c3-d5"]}, 0.0)
        (error,) = run5.stats.errors
        assert error.startswith("server sent a move the rules refuse")

    asyncio.run(scenario())
