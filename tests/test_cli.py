"""The `shashki` command: output formats, numbers, and one-line errors with exit code 2.

Most tests call `shashki.cli.main` in-process (fast); a few run the installed console script and
`python -m shashki` to prove the real entry points behave the same.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from shashki.cli import main

VENV_BIN = Path(sys.executable).parent
SHASHKI = VENV_BIN / "shashki"

TURKISH_STRIKE = "W:WKb2:Bb4,c3,b6,e7"  # RULES.md §7
# A king with 8 capture routes that make only 5 distinct moves (RULES.md §2.10).
MERGED_ROUTES = "W:WKa1:Be5,e3,b2"


def run(argv: list[str], capsys, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def run_script(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(SHASHKI), *args], input=stdin, capture_output=True, text=True, timeout=60)


def assert_one_line_error(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert "Traceback" not in err and "╭" not in err
    for word in words:
        assert word in lines[0]


# ------------------------------------------------------------------------------------------------
# perft


PERFT_LINE = re.compile(r"^(\d+) (\d+) (\d+\.\d{3})$")


def test_perft_russian_numbers_and_line_format():
    result = run_script(["perft", "4", "--variant", "russian"])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    matches = [PERFT_LINE.match(line) for line in lines]
    assert all(matches), lines
    assert [(int(m.group(1)), int(m.group(2))) for m in matches] == [(1, 7), (2, 49), (3, 302), (4, 1469)]


def test_perft_default_variant_is_russian_giveaway_with_same_numbers(capsys):
    code, out, _ = run(["perft", "3"], capsys)
    assert code == 0
    assert [line.split()[1] for line in out.splitlines()] == ["7", "49", "302"]


def test_perft_bulk_counts_the_same(capsys):
    code, out, _ = run(["perft", "4", "--variant", "english", "--bulk"], capsys)
    assert code == 0
    assert [line.split()[1] for line in out.splitlines()] == ["7", "49", "302", "1469"]


def test_perft_divide_lists_root_moves_then_depth_lines(capsys):
    code, out, _ = run(["perft", "3", "--variant", "russian", "--divide"], capsys)
    assert code == 0
    lines = out.splitlines()
    divide, depths = lines[:7], lines[7:]
    moves = dict(line.split(" ") for line in divide)
    assert set(moves) == {"a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"}
    assert sum(int(n) for n in moves.values()) == 302
    assert [PERFT_LINE.match(line).group(2) for line in depths] == ["7", "49", "302"]


def test_perft_all_paths_counts_every_capture_route(capsys):
    _, distinct, _ = run(["perft", "1", "--variant", "russian", "--fen", MERGED_ROUTES], capsys)
    argv = ["perft", "1", "--variant", "russian", "--fen", MERGED_ROUTES, "--all-paths"]
    _, all_paths, _ = run(argv, capsys)
    assert distinct.split()[:2] == ["1", "5"]
    assert all_paths.split()[:2] == ["1", "8"]


def test_perft_international_depth_2(capsys):
    code, out, _ = run(["perft", "2", "--variant", "international"], capsys)
    assert code == 0
    assert [line.split()[1] for line in out.splitlines()] == ["9", "81"]


# ------------------------------------------------------------------------------------------------
# moves


def test_moves_text_turkish_strike(capsys):
    code, out, _ = run(["moves", "--variant", "russian", "--fen", TURKISH_STRIKE], capsys)
    assert code == 0
    assert out == "b2:d4:a7\nb2:f6:d8:a5\n"


def test_moves_json_turkish_strike_exact():
    result = run_script(["moves", "--variant", "russian", "--fen", TURKISH_STRIKE, "--json"])
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        '{"move": "b2:d4:a7", "path": ["b2", "d4", "a7"], "captured": ["c3", "b6"]}\n'
        '{"move": "b2:f6:d8:a5", "path": ["b2", "f6", "d8", "a5"], "captured": ["c3", "e7", "b6"]}\n'
    )


def test_moves_start_position_default_variant(capsys):
    code, out, _ = run(["moves"], capsys)
    assert code == 0
    assert out.split() == ["a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"]


def test_moves_json_numeric_variant_squares_are_strings(capsys):
    code, out, _ = run(["moves", "--variant", "english", "--json"], capsys)
    assert code == 0
    objects = [json.loads(line) for line in out.splitlines()]
    assert len(objects) == 7
    assert objects[0] == {"move": "9-13", "path": ["9", "13"], "captured": []}
    assert all(isinstance(s, str) for o in objects for s in o["path"])


def test_moves_json_numeric_capture(capsys):
    code, out, _ = run(["moves", "--variant", "international", "--fen", "W:W32:B27,17", "--json"], capsys)
    assert code == 0
    assert json.loads(out) == {"move": "32x21x12", "path": ["32", "21", "12"], "captured": ["27", "17"]}


def test_moves_no_legal_move_prints_nothing(capsys):
    code, out, _ = run(["moves", "--variant", "russian", "--fen", "W:Wh2:Bg3,f4"], capsys)
    assert (code, out) == (0, "")


def test_moves_batch_one_line_per_input_line_with_errors(capsys, monkeypatch):
    stdin = f"{TURKISH_STRIKE}\nnot a fen\n\nW:Wh2:Bg3,f4\n"
    code, out, _ = run(["moves", "--variant", "russian", "--batch"], capsys, stdin, monkeypatch)
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 4
    assert json.loads(lines[0]) == [
        {"move": "b2:d4:a7", "path": ["b2", "d4", "a7"], "captured": ["c3", "b6"]},
        {"move": "b2:f6:d8:a5", "path": ["b2", "f6", "d8", "a5"], "captured": ["c3", "e7", "b6"]},
    ]
    assert " " not in lines[0]  # compact JSON
    assert "error" in json.loads(lines[1])
    assert "error" in json.loads(lines[2])
    assert json.loads(lines[3]) == []


def test_moves_batch_through_a_pipe_is_fast():
    fens = ["B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12", "W:W21,22:B9,10,K17"] * 1000
    fens.append("W:W99")
    result = run_script(["moves", "--batch", "--variant", "pool"], "\n".join(fens) + "\n")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(fens)
    assert len(json.loads(lines[0])) == 7
    assert json.loads(lines[-1])["error"].startswith("bad FEN")


# ------------------------------------------------------------------------------------------------
# pdn check

GOOD_AND_ILLEGAL = """\
[Event "good, ends on the board"]
[Variant "russian-giveaway"]
[FEN "W:WKg1:BKe5"]
1. g1-d4 e5:c3 1-0

[Event "illegal"]
[GameType "25"]
1. c3-d4 f6-e5 2. d4-c5 *

[Event "resigned"]
[GameType "25"]
[Result "0-1"]
1. c3-d4 f6-g5 0-1

[Event "unfinished"]
1. c3-d4 *
"""


def test_pdn_check_reports_each_game_and_exits_1_on_an_illegal_move(tmp_path):
    path = tmp_path / "games.pdn"
    path.write_text(GOOD_AND_ILLEGAL)
    result = run_script(["pdn", "check", str(path)])
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "1 1-0 no-legal-move"
    assert lines[1].startswith("2 illegal move 2 d4-c5: ")
    assert "capture" in lines[1].lower()
    assert lines[2] == "3 0-1 recorded"
    assert lines[3] == "4 * unfinished"
    assert len(lines) == 4


def test_pdn_check_all_good_from_stdin_exits_0(capsys, monkeypatch):
    text = '[GameType "21"]\n1. 9-13 22-18 *\n\n[Variant "english"]\n1. 11-15 *\n'
    code, out, _ = run(["pdn", "check", "-"], capsys, text, monkeypatch)
    assert code == 0
    assert out == "1 * unfinished\n2 * unfinished\n"


def test_pdn_check_unknown_game_type_is_a_game_error(capsys, monkeypatch):
    code, out, _ = run(["pdn", "check", "-"], capsys, '[GameType "24"]\n1. c3-d4 *\n', monkeypatch)
    assert code == 1
    assert out.startswith("1 error GameType '24' is not a variant we play")


def test_pdn_check_unreadable_pdn_exits_1_with_one_line(capsys, monkeypatch):
    code, out, err = run(["pdn", "check", "-"], capsys, "1. c3-d4 {never closed\n", monkeypatch)
    assert code == 1
    assert err.count("\n") == 1 and "line 1" in err


def test_pdn_check_missing_file_is_a_one_line_error(capsys, tmp_path):
    code, out, err = run(["pdn", "check", str(tmp_path / "nope.pdn")], capsys)
    assert_one_line_error(code, out, err, "cannot read")


# ------------------------------------------------------------------------------------------------
# Errors: one line on stderr, exit code 2


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["perft", "3", "--variant", "foo"], ["unknown variant 'foo'", "russian-giveaway"]),
        (["moves", "--variant", "foo"], ["unknown variant 'foo'"]),
        (["perft", "2", "--fen", "W:Wz9"], ["bad FEN"]),
        (["moves", "--fen", "X:W1"], ["bad FEN"]),
        (["perft", "x"], ["depth"]),
        (["perft", "0"], ["depth"]),
        (["perft", "-3"], ["depth"]),
        (["perft", "2.5"], ["depth"]),
        (["perft"], ["DEPTH"]),
        (["moves", "--bogus"], ["--bogus"]),
        (["nosuchcommand"], ["nosuchcommand"]),
        (["pdn", "check", "x.pdn", "--variant", "foo"], ["unknown variant"]),
    ],
)
def test_errors_are_one_line_with_exit_code_2(argv, words, capsys):
    code, out, err = run(argv, capsys)
    assert_one_line_error(code, out, err, *words)


def test_console_script_error_has_no_traceback():
    calls = (["perft", "x"], ["moves", "--variant", "foo"], ["perft", "1", "--fen", "bad"], ["moves", "-z"])
    for args in calls:
        result = run_script(args)
        assert result.returncode == 2
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("error: "), result.stderr


def test_python_dash_m_shashki():
    result = subprocess.run([sys.executable, "-m", "shashki", "moves", "--variant", "english"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert len(result.stdout.splitlines()) == 7


def test_help_lists_the_commands(capsys):
    code, out, _ = run(["--help"], capsys)
    assert code == 0
    for command in ("perft", "moves", "pdn", "demo"):
        assert command in out


def test_demo_runs(capsys):
    code, out, _ = run(["demo"], capsys)
    assert code == 0
    assert "giveaway" in out.lower()
    assert "Legal moves" in out
