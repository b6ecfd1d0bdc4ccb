"""benchmarks/engine_ab.py, a search option on against off at the same budget a move (issue 15)."""

from __future__ import annotations

import pytest
from benchmark_scripts import load_script

from shashki.engine import Limit

ab = load_script("engine_ab")


@pytest.mark.parametrize(
    ("arguments", "limit", "budget"),
    [
        (["--nodes", "300"], Limit(nodes=300), "300 nodes a move"),
        (["--depth", "3"], Limit(depth=3), "depth 3 a move"),
        (["--time", "0.02"], Limit(time=0.02), "0.02 s a move"),
        ([], Limit(nodes=4000), "4000 nodes a move"),
    ],
)
def test_both_sides_get_the_budget_asked_for(monkeypatch, capsys, arguments, limit, budget):
    seen: list[tuple] = []

    def play(variant, opening, on_white, option, given, nodes, both):
        seen.append((variant, on_white, option, given, both))
        return 1.0 if on_white else 0.5

    monkeypatch.setattr(ab, "play_game", play)
    assert ab.main(["--option", "aspiration", "--variants", "russian", "--games", "4", *arguments]) == 0
    out = capsys.readouterr().out
    assert f"aspiration on against off, 4 games per variant, {budget}" in out
    assert [s[1] for s in seen] == [True, False, True, False]  # each opening with both colours
    assert all(s[0] == "russian" and s[2] == "aspiration" and s[3] == limit for s in seen)
    assert "russian: +2 =2 -0 of 4, score 75.0%" in out
    assert all(s[4] == {} for s in seen)  # the other options at their defaults


def test_other_options_are_set_alike_on_both_sides(monkeypatch, capsys):
    seen: list[dict] = []

    def play(variant, opening, on_white, option, given, nodes, both):
        seen.append(both)
        return 0.5

    monkeypatch.setattr(ab, "play_game", play)
    arguments = ["--option", "late_reductions", "--both", "probcut=off,aspiration", "--games", "2"]
    assert ab.main([*arguments, "--variants", "international"]) == 0
    out = capsys.readouterr().out
    assert "late_reductions on against off (both with probcut off, aspiration on), 2 games" in out
    assert seen == [{"probcut": False, "aspiration": True}] * 2
    on, off = ab.engine("late_reductions", True, seen[0]), ab.engine("late_reductions", False, seen[0])
    assert (on.searcher.late_reductions, off.searcher.late_reductions) == (True, False)
    assert not on.searcher.probcut and not off.searcher.probcut


def test_a_game_at_equal_time_is_played_to_its_end_or_the_ply_limit():
    nodes = {True: 0, False: 0}
    score = ab.play_game("russian", ["c3-d4", "f6-g5"], True, "aspiration", Limit(time=0.005), nodes)
    assert score in (0.0, 0.5, 1.0)
    assert nodes[True] > 0 and nodes[False] > 0


@pytest.mark.parametrize("arguments", [["--option", "no_such_option"],
                                       ["--option", "probcut", "--both", "no_such_option=off"]])
def test_an_unknown_option_is_refused(capsys, arguments):
    with pytest.raises(SystemExit):
        ab.main(arguments)
    assert "Searcher has no boolean option 'no_such_option'" in capsys.readouterr().err
