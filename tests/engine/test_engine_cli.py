"""The engine's commands of `shashki`: analyse, play, hub, tablebase build."""

from __future__ import annotations

from typer.testing import CliRunner

from shashki.cli import app, main

runner = CliRunner()


def test_analyse_prints_one_line_per_iteration_with_the_pv_in_notation():
    result = runner.invoke(app, ["analyse", "--variant", "russian", "--depth", "3"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("depth  1") and "nps" in lines[0] and "nodes" in lines[0]
    assert "-" in lines[-1].split("pv ")[1]  # c3-d4 style notation


def test_analyse_with_lines_prints_the_best_moves_each_with_its_line_best_first():
    result = runner.invoke(app, ["analyse", "--variant", "russian", "--depth", "4", "--lines", "3"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line[:3] for line in lines] == [" 1.", " 2.", " 3."]
    firsts = [line.split("pv ")[1].split()[0] for line in lines]
    assert len(set(firsts)) == 3 and all("-" in move for move in firsts)
    assert all("depth  4" in line for line in lines)


def test_analyse_reports_a_forced_win_in_giveaway():
    result = runner.invoke(app, ["analyse", "--fen", "W:WKg1:BKe5", "--depth", "3"])
    assert result.exit_code == 0, result.output
    assert "win in 2" in result.output and "pv g1-d4 e5:c3" in result.output


def test_analyse_refuses_a_bad_fen_and_both_limits_in_one_line(capsys):
    assert main(["analyse", "--fen", "X:nonsense"]) == 2
    assert capsys.readouterr().err.startswith("error: bad FEN 'X:nonsense'")
    assert main(["analyse", "--depth", "2", "--time", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: give --depth or --time") and err.count("\n") == 1


def test_play_refuses_an_illegal_move_with_the_reason_and_ends_with_the_result():
    # White to move in a giveaway ending; the engine (Black) must capture after g1-d4 and White wins.
    result = runner.invoke(app, ["play", "--fen", "W:WKg1:BKe5", "--level", "1"], input="e5-d4\ng1-d4\n")
    assert result.exit_code == 0, result.output
    assert "The piece on e5 is not yours" in result.output
    assert "Game over: 1-0 (no-legal-move)" in result.output


def test_hub_command_speaks_the_protocol():
    result = runner.invoke(app, ["hub"], input="hub\ninit\nquit\n")
    assert result.exit_code == 0
    assert result.output.splitlines()[-1] == "ready"


def test_tablebase_build_writes_the_tables_to_the_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("SHASHKI_DATA", str(tmp_path))
    result = runner.invoke(app, ["tablebase", "build", "--pieces", "2", "--rebuild"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "tablebases" / "russian-giveaway-2.bin").stat().st_size == 15872
    assert "16,128 entries" in result.output


def test_tablebase_build_into_a_directory_it_cannot_write_says_so_before_building(tmp_path, monkeypatch):
    from shashki.engine import tablebase

    (tmp_path / "file").write_text("not a directory")
    monkeypatch.setenv("SHASHKI_TABLEBASE_DIR", str(tmp_path / "file" / "tables"))

    def build_table(*args, **kwargs):
        raise AssertionError("a table was built that could not be written")

    monkeypatch.setattr(tablebase, "_build_table", build_table)
    result = runner.invoke(app, ["tablebase", "build", "--pieces", "2", "--rebuild"])
    assert result.exit_code != 0
    message = str(result.exception) + result.output
    assert "cannot write the tables into" in message and "SHASHKI_TABLEBASE_DIR" in message


def test_tablebase_build_makes_the_russian_tables_and_refuses_a_variant_without_any(tmp_path, monkeypatch):
    monkeypatch.setenv("SHASHKI_DATA", str(tmp_path))
    result = runner.invoke(app, ["tablebase", "build", "--variant", "russian", "--pieces", "2", "--rebuild"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "tablebases" / "russian-2.bin").stat().st_size == 15872
    assert "russian tables" in result.output
    refused = runner.invoke(app, ["tablebase", "build", "--variant", "international", "--pieces", "2"])
    assert refused.exit_code != 0 and "not international" in str(refused.exception)
