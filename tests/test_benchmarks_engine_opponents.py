"""benchmarks/engine_opponents.py's fixed-position mode: shashki's Hub engine thinks in a given position,
and the table of both engines' depths and speeds."""

from __future__ import annotations

from benchmark_scripts import load_script

from shashki.engine.hub import parse_hub_move
from shashki.rules import Position, get_variant

opponents = load_script("engine_opponents")


def test_shashki_thinks_in_a_fixed_position_and_reports_its_search():
    variant = get_variant("international")
    label, fen = opponents.POSITIONS_BY_VARIANT["international"][2]
    pos = Position.from_fen(fen, variant)
    engine = opponents.Shashki(None, "international")
    try:
        move = parse_hub_move(pos, engine.think(pos, 0.05))
    finally:
        engine.close()
    assert move in pos.legal_moves()
    assert engine.last.depth >= 1 and engine.last.nodes > 0 and engine.last.seconds >= 0
    float(engine.score)  # its own score, as `--record` writes it beside each of its moves


def test_the_table_gives_each_engine_its_depths_and_speed_by_its_own_count():
    Search = opponents.Search
    rows = [
        ("start", {"shashki": (Search(10, 1_000_000, 0.5), 1.0), "Scan 2.0": (Search(0, 0), 0.05)}),
        ("kings", {"shashki": (Search(14, 500_000, 0.5), 1.0),
                   "Scan 2.0": (Search(22, 2_000_000, 0.5), 0.6)}),
    ]
    lines = opponents.positions_table(rows)
    assert "shashki depth" in lines[0] and "Scan 2.0 depth" in lines[0]
    assert lines[1].split() == ["start", "10", "2,000,000", "1.00", "book", "-", "0.05"]
    assert lines[-1] == ("all positions: shashki mean depth 12.0, 1,500,000 nodes/s (2 searched); "
                         "Scan 2.0 mean depth 22.0, 4,000,000 nodes/s (1 searched)")
