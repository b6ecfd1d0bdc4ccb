"""benchmarks/engine_speed.py: every variant's positions searched, the same search in every run."""

from __future__ import annotations

import pytest
from benchmark_scripts import load_script

from shashki.rules import Position, get_variant

speed = load_script("engine_speed")


@pytest.mark.parametrize("variant", sorted(speed.POSITIONS_BY_VARIANT))
def test_positions_are_playable(variant: str) -> None:
    labels = [label for label, _ in speed.POSITIONS_BY_VARIANT[variant]]
    assert len(set(labels)) == len(labels) == 4
    for _, fen in speed.POSITIONS_BY_VARIANT[variant]:
        assert Position.from_fen(fen, get_variant(variant)).legal_moves()


@pytest.mark.parametrize("variant", sorted(speed.POSITIONS_BY_VARIANT))
def test_worker_searches_each_position(variant: str) -> None:
    runs = [speed.run_shashki(3, None, cpu=True, variant=variant) for _ in range(2)]
    merged = speed.median_runs(runs)
    assert list(merged) == [label for label, _ in speed.POSITIONS_BY_VARIANT[variant]]
    for result in merged.values():
        assert result["nodes"] > 0 and result["seconds"] >= 0 and result["move"]


def test_runs_that_searched_differently_are_refused() -> None:
    run = {"results": {"start": {"nodes": 10, "seconds": 1.0, "move": "c3-d4", "score": 0}}}
    other = {"results": {"start": {"nodes": 11, "seconds": 1.0, "move": "c3-d4", "score": 0}}}
    assert speed.median_runs([run, run])["start"]["nodes"] == 10
    with pytest.raises(speed.SetupError):
        speed.median_runs([run, other])
