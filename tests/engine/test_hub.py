"""The Hub protocol front end: lines read as the protocol says, variants by the names clients send, an
unknown variant refused, and real games with pydraughts' `HubEngine` in every variant both play.

pydraughts numbers the squares of a hub position as RULES.md §1 does (its internal numbering). Its
`Board` (pydraughts 0.6) sends the moves in each variant's own numbering (Russian and Brazilian count
from a1, English swaps colours), which `move-numbering=pydraughts` reads; lidraughts-bot (pydraughts
0.5, its `Game`) sends them in the position's numbering, the default.
"""

from __future__ import annotations

import io
import stat
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from shashki.engine import hub_search
from shashki.engine.hub import HubSession, hub_move, hub_variant, parse_arguments, parse_hub_move, run
from shashki.rules import VARIANTS, Position, UnknownVariant, get_variant


def session_lines(*lines: str) -> tuple[HubSession, list[str]]:
    out: list[str] = []
    session = HubSession(out.append)
    for line in lines:
        session.handle(line)
    session.wait()
    return session, out


def test_arguments_are_read_as_the_protocol_says():
    assert parse_arguments('name=variant value="russian giveaway (poddavki)"') == {
        "name": "variant",
        "value": "russian giveaway (poddavki)",
    }
    assert parse_arguments('pos=We moves="" start') == {"pos": "We", "moves": "", "start": ""}
    # Without the leniency an unquoted value ends at the space; the next words are flags.
    assert parse_arguments("name=variant value=russian giveaway") == {
        "name": "variant", "value": "russian", "giveaway": ""
    }
    assert parse_arguments("name=variant value=russian giveaway", value_runs_on=True) == {
        "name": "variant", "value": "russian giveaway"
    }


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ('set-param name=variant value="russian giveaway (poddavki)"', "russian-giveaway"),
        # pydraughts' setoption does not quote: the words after the value are the rest of it.
        ("set-param name=variant value=russian giveaway (poddavki)", "russian-giveaway"),
        ("set-param name=variant value=Russian Giveaway (Poddavki)", "russian-giveaway"),
        ("set-param name=variant value=russian", "russian"),
        ("set-param name=variant value=poddavki", "russian-giveaway"),
        ("set-param name=variant value=english draughts (checkers)", "english"),
        ("set-param name=variant value=american", "english"),
        ("set-param name=variant value=normal", "international"),
        ("set-param name=variant value=standard", "international"),
        ("set-param name=variant value=losing", "international-giveaway"),
        ("set-param name=variant value=antidraughts", "international-giveaway"),
        ("set-param name=variant value=brazilian", "brazilian"),
        ("set-param name=variant value=italian draughts", "italian"),
    ],
)
def test_set_param_variant_accepts_our_keys_names_and_the_names_clients_send(line, key):
    session, out = session_lines(line)
    assert out == []
    assert session.variant is not None and session.variant.key == key


@pytest.mark.parametrize("name", ["frisian", "frysk!", "bt", "killer", "russian draughts x", ""])
def test_an_unknown_variant_is_an_error_and_no_game_is_played(name):
    _, out = session_lines(f'set-param name=variant value="{name}"', "pos", "level depth=2", "go think")
    assert out[0].startswith("error") and "unknown variant" in out[0]
    assert out[1].startswith("error")  # pos: no variant
    # go: no move, never a default game's; pydraughts' null move, which it reads (a bare `done` it cannot)
    assert out[2].startswith("error") and out[3] == "done move=0-0"


def test_a_refused_pos_is_not_searched_from_the_previous_position():
    _, out = session_lines('pos moves="22-18 11-15"', 'pos moves="22-15"', "level depth=2", "go")
    assert out[0].startswith("error")  # 22-15 (c3 to e5) is no move of the start position
    assert out[1].startswith("error") and out[2] == "done move=0-0"


def test_hub_variant_refuses_what_we_do_not_play():
    assert hub_variant("Brazilian draughts").key == "brazilian"
    with pytest.raises(UnknownVariant):
        hub_variant("frisian")


@pytest.mark.parametrize("key", ["russian", "brazilian", "english", "italian", "international"])
def test_pydraughts_move_numbering_round_trips(key):
    variant = VARIANTS[key]
    pos = Position.from_fen("W:WKb2:Bb4,c3,b6,e7", variant) if key == "russian" else Position.start(variant)
    for move in pos.legal_moves():
        assert parse_hub_move(pos, hub_move(move, variant, "pydraughts"), "pydraughts") is move


def test_pydraughts_numbers_russian_moves_from_a1():
    variant = get_variant("russian")
    pos = Position.start(variant)
    c3_d4 = pos.parse_move("c3-d4")
    assert hub_move(c3_d4, variant) == "22-18"  # RULES.md §1: c3 = 22, d4 = 18
    assert hub_move(c3_d4, variant, "pydraughts") == "10-14"  # Russian numbering: c3 = 10, d4 = 14


@pytest.mark.parametrize(
    ("key", "fen"),
    [  # found by an audit: the longer capture was refused, its ends those of a one-piece capture's route
        ("russian-giveaway", "W:WKa3:Be7,e5,Ke3,b2"),  # a3:f8 beside a3:c1:f4:d6:f8
        ("pool", "W:WK22:B11,K19,26,K27"),
        ("english", "W:WK11:BK6,7,8,K14,15"),
    ],
)
def test_every_capture_reads_back_from_its_hub_form_even_one_ending_where_a_shorter_route_runs(key, fen):
    variant = get_variant(key)
    pos = Position.from_fen(fen, variant)
    one_jump = {(m.path[0], m.path[-1]) for m in pos.capture_routes() if len(m.path) == 2}
    longer = [m for m in pos.legal_moves() if len(m.path) > 2 and (m.path[0], m.path[-1]) in one_jump]
    assert longer  # the case: a longer capture ending where a one-jump capture's whole route does
    for move in pos.legal_moves():
        for numbering in ("hub", "pydraughts"):
            assert parse_hub_move(pos, hub_move(move, variant, numbering), numbering).key == move.key


def test_every_legal_move_of_random_games_reads_back_from_its_hub_form():
    import random

    chance = random.Random(7)
    for key in VARIANTS:
        variant = VARIANTS[key]
        for _ in range(6):
            pos = Position.start(variant)
            for _ply in range(120):
                legal = pos.legal_moves()
                if not legal:
                    break
                for move in legal:
                    assert parse_hub_move(pos, hub_move(move, variant)).key == move.key, (key, pos.fen())
                pos = pos.play(chance.choice(legal))


def test_a_hub_capture_names_what_it_takes_and_the_resolver_checks_it():
    variant = get_variant("russian")
    pos = Position.from_fen("W:WKb2:Bb4,c3,b6,e7", variant)  # RULES.md §7, Turkish strike
    assert parse_hub_move(pos, "25x5x9x22").notation(variant) == "b2:d4:a7"
    with pytest.raises(ValueError, match="takes other pieces"):
        parse_hub_move(pos, "25x5x9x7")


# ------------------------------------------------------------------------------------------------
# pydraughts' HubEngine, a real client


@pytest.fixture(scope="module")
def hub_command(tmp_path_factory) -> str:
    # pydraughts resolves the command's real path (a venv's python would lose its venv), so a script.
    script = tmp_path_factory.mktemp("hub") / "shashki-hub"
    root = Path(__file__).resolve().parents[2]
    script.write_text(f'#!/bin/sh\ncd "{root}"\nexec "{sys.executable}" -m shashki.engine.hub\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


# (pydraughts' board, what the client asks for, the move numbering): every variant both play, and our
# giveaway forms on the board of their base variant (the moves are the same; RULES.md §4).
PYDRAUGHTS_GAMES = [
    ("standard", "normal", "hub"),
    ("antidraughts", "losing", "hub"),
    ("russian", "russian", "pydraughts"),
    ("russian", "russian giveaway (poddavki)", "pydraughts"),
    ("brazilian", "brazilian", "pydraughts"),
    ("brazilian", "brazilian-giveaway", "pydraughts"),
    ("english", "english", "pydraughts"),
    ("english", "english-giveaway", "pydraughts"),
    ("italian", "italian", "pydraughts"),
    ("italian", "italian-giveaway", "pydraughts"),
]


@pytest.mark.parametrize(("board_variant", "hub_name", "numbering"), PYDRAUGHTS_GAMES)
def test_pydraughts_hub_engine_plays_moves_and_captures(hub_command, board_variant, hub_name, numbering):
    draughts = pytest.importorskip("draughts")
    from draughts.engine import HubEngine
    from draughts.engine import Limit as HubLimit

    engine = HubEngine([hub_command])
    try:
        engine.setoption("variant", hub_name)
        if numbering != "hub":
            engine.setoption("move-numbering", numbering)
        engine.init()
        board = draughts.Board(variant=board_variant)
        plies = captures = 0
        while not board.is_over() and plies < 80 and (captures < 2 or plies < 6):
            legal = {m.hub_move for m in board.legal_moves()}
            result = engine.play(board, HubLimit(nodes=300), ponder=False)
            assert result.move.hub_move in legal
            captures += bool(result.move.captures)
            board.push(result.move)
            plies += 1
        assert captures >= 2 or board.is_over(), (plies, captures)
        assert plies >= 6
    finally:
        engine.quit()
        engine.p.wait(timeout=10)


def test_lidraughts_bot_numbering_plays_russian_giveaway(hub_command):
    """lidraughts-bot drives pydraughts' `Game`, whose moves are numbered as the position: the default."""
    pytest.importorskip("draughts")
    from draughts.core.game import Game as PydraughtsGame
    from draughts.engine import HubEngine

    engine = HubEngine([hub_command])
    try:
        engine.setoption("variant", "russian giveaway (poddavki)")
        engine.init()
        game = PydraughtsGame("russian")
        played: list[str] = []
        captures = 0
        while not game.is_over() and len(played) < 80 and (captures < 2 or len(played) < 6):
            legal = _internal_moves(game)
            best, _ = engine.go(game.initial_hub_fen, moves=" ".join(played), nodes=300)
            assert best in legal, (best, sorted(legal))
            captures += "x" in best
            game.push(legal[best])
            played.append(best)
        assert captures >= 2 or game.is_over()
    finally:
        engine.quit()
        engine.p.wait(timeout=10)


def _internal_moves(game) -> dict[str, list[list[int]]]:
    """pydraughts' `Game` legal moves as hub moves (start, end, captured squares sorted)."""
    moves, captures = game.legal_moves()
    out = {}
    for board_move, taken in zip(moves, captures, strict=True):
        taken = sorted(c for c in taken if c is not None)
        squares = [board_move[0][0], board_move[-1][1], *taken]
        out[("x" if taken else "-").join(map(str, squares))] = board_move
    return out


# ------------------------------------------------------------------------------------------------
# What lidraughts-bot sets: its config's `hub_options`, then `variant` and `initial-time` (engine_wrapper)


@pytest.mark.parametrize("first", ["giveaway", "variant"])
def test_giveaway_plays_the_giveaway_form_of_the_variant_named_in_either_order(first):
    lines = {
        "giveaway": "set-param name=giveaway value=true",
        "variant": "set-param name=variant value=russian",
    }
    second = "variant" if first == "giveaway" else "giveaway"
    session, out = session_lines(lines[first], lines[second], "init")
    assert out == ["ready"]
    assert session.variant is not None and session.variant.key == "russian-giveaway"
    # lidraughts-bot names antidraughts "losing": already a giveaway form, it stays so.
    session.handle("set-param name=variant value=losing")
    assert session.variant.key == "international-giveaway"
    session.handle("set-param name=giveaway value=false")
    assert session.variant.key == "international-giveaway"
    session.handle("set-param name=variant value=Brazilian")
    assert session.variant.key == "brazilian"


def test_giveaway_takes_only_true_or_false():
    session, out = session_lines("set-param name=variant value=russian", "set-param name=giveaway value=yes")
    assert out == ["error message=\"giveaway is true or false, not 'yes'\""]
    assert session.variant is not None and session.variant.key == "russian"


def test_the_initial_time_lidraughts_bot_sets_is_accepted_and_must_be_a_number():
    _, out = session_lines("set-param name=initial-time value=180.0", "init")
    assert out == ["ready"]
    _, out = session_lines("set-param name=initial-time value=soon")
    assert len(out) == 1 and out[0].startswith("error")
    _, out = session_lines("set-param name=hash value=64")
    assert out == ['error message="unknown parameter hash"']


def test_hub_declares_the_parameters_lidraughts_bot_sets():
    _, out = session_lines("hub")
    names = [parse_arguments(line.partition(" ")[2])["name"] for line in out if line.startswith("param ")]
    assert {"variant", "giveaway", "initial-time"} <= set(names)


@pytest.mark.parametrize(("name", "key"), [("russian", "russian-giveaway"), ("english", "english-giveaway")])
def test_lidraughts_bot_configures_a_giveaway_bot_without_a_warning(hub_command, caplog, name, key):
    """As lidraughts-bot's HubEngine wrapper does: `configure` with the config's hub_options followed by
    `variant` and `initial-time`, then `init`; pydraughts logs any line but `ready` as a warning."""
    pytest.importorskip("draughts")
    from draughts.core.game import Game as PydraughtsGame
    from draughts.engine import HubEngine

    engine = HubEngine([hub_command])
    try:
        with caplog.at_level("WARNING", logger="pydraughts"):
            engine.configure({"giveaway": True, "variant": name, "initial-time": 60.0})
            engine.init()
        assert [r.getMessage() for r in caplog.records if r.name == "pydraughts"] == []
        game = PydraughtsGame(name)
        best, _ = engine.go(game.initial_hub_fen, nodes=200)
        assert best in _internal_moves(game)
        engine.send("hub")  # the engine now shows the variant it plays
        params = []
        while (line := engine.recv()) != "wait":
            params.append(line)
        assert f"param name=variant value={key} type=enum" in " ".join(params)
    finally:
        engine.quit()
        engine.p.wait(timeout=10)


def test_go_without_a_legal_move_answers_the_null_move_and_no_error():
    # White has no piece left: White to move has no move (the game is over); Black to move has moves.
    _, out = session_lines("set-param name=variant value=russian", "pos pos=W" + "e" * 31 + "b", "go ponder")
    assert out == ["done move=0-0"]
    _, out = session_lines("set-param name=variant value=russian", "pos pos=Bb" + "e" * 31, "go think")
    assert out[-1].startswith("done move=1-") and not any(line.startswith("error") for line in out)


def test_lidraughts_bot_pondering_the_end_of_a_game_reads_the_answer(hub_command, caplog):
    """lidraughts-bot ponders the position after its move and the reply it expects (its start_pondering),
    with pydraughts' `HubEngine.play(..., ponder=True)`; that position may be the end of the game."""
    draughts = pytest.importorskip("draughts")
    from draughts.engine import HubEngine
    from draughts.engine import Limit as HubLimit

    engine = HubEngine([hub_command])
    try:
        with caplog.at_level("WARNING", logger="pydraughts"):
            engine.configure({"giveaway": True, "variant": "standard", "initial-time": 60.0})
            engine.init()
            board = draughts.Board(variant="standard", fen="B:W28:B23")  # Black takes the last white man
            board.push(board.legal_moves()[0])
            assert board.is_over()
            result = engine.play(board, HubLimit(time=5, inc=0), ponder=True)
        assert result.move.is_null
        assert [r.getMessage() for r in caplog.records if r.name == "pydraughts"] == []
    finally:
        engine.quit()
        engine.p.wait(timeout=10)


def _wait_for(out: list[str], prefix: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if any(line.startswith(prefix) for line in out):
            return True
        time.sleep(0.01)
    return False


def test_pondering_searches_through_the_opponents_time_and_the_move_time_counts_from_ponder_hit():
    # Hub protocol 2: during `go ponder` the engine's clock is not running; `ponder-hit` starts it.
    out: list[str] = []
    session = HubSession(out.append)
    for line in ("set-param name=variant value=russian", 'pos moves="22-18"', "level move-time=0.2",
                 "go ponder"):
        session.handle(line)
    try:
        assert not _wait_for(out, "done", 1.0)  # five times the move's time, and still searching
        assert _wait_for(out, "info", 1.0)
        hit = time.monotonic()
        session.handle("ponder-hit")
        assert _wait_for(out, "done", 5.0)
        assert time.monotonic() - hit < 5.0
    finally:
        session.handle("stop")
    assert [line for line in out if line.startswith("done")] == [out[-1]]
    pos = Position.start(get_variant("russian"))
    pos = pos.play(parse_hub_move(pos, "22-18"))
    parse_hub_move(pos, out[-1].split()[1].split("=")[1])  # a legal move of the position pondered
    depths = [int(line.split()[1].split("=")[1]) for line in out if line.startswith("info")]
    assert depths == sorted(depths) and depths[-1] >= 6


def test_a_ponder_search_the_opponent_did_not_play_into_ends_at_stop():
    out: list[str] = []
    session = HubSession(out.append)
    for line in ("set-param name=variant value=international", "level time=60", "go ponder"):
        session.handle(line)
    assert not _wait_for(out, "done", 0.5)
    session.handle("stop")  # returns once the search has answered
    assert out[-1].startswith("done move=")
    session.handle("ponder-hit")  # after the search: nothing
    session.wait()
    assert sum(line.startswith("done") for line in out) == 1


def test_think_after_a_hit_on_an_earlier_ponder_search_keeps_its_own_clock():
    _, out = session_lines("set-param name=variant value=russian", "level move-time=0.1", "go ponder",
                           "ponder-hit", "go think")  # `go` stops the ponder search first
    assert [line.startswith("done") for line in out].count(True) == 2


@pytest.mark.parametrize(
    "level", ["depth=0", "nodes=0", "move-time=0", "move-time=-1", "depth=-3", "move-time=nan", "time=inf"]
)
def test_a_limit_of_zero_is_refused_not_taken_for_no_limit(level):
    session, out = session_lines("set-param name=variant value=russian", "level depth=2", f"level {level}")
    assert out and out[-1].startswith("error message=")
    assert session.limit.depth == 2  # the level before stands
    session.handle("go think")
    session.wait()
    assert out[-1].startswith("done move=") and any(line.startswith("info depth=2") for line in out)


def test_the_clock_pydraughts_sends_with_its_increment_taken_off_first_is_accepted():
    # pydraughts' HubEngine sends `time` less the increment, which may go below 0.
    session, out = session_lines("level time=-1.5 inc=2")
    assert out == [] and session.limit.remaining == pytest.approx(0.5)


def test_a_stop_just_after_go_analyze_ends_the_search():
    out: list[str] = []
    session = HubSession(out.append)
    for line in ("set-param name=variant value=international", "go analyze"):
        session.handle(line)
    stopping = threading.Thread(target=session.handle, args=("stop",), daemon=True)
    stopping.start()  # before the search has started, as often as not
    stopping.join(timeout=5)
    assert not stopping.is_alive() and out[-1].startswith("done move=")


class SearchThreadHeldUntilJoined(threading.Thread):
    """The search's thread, kept from running until the session waits for it: whatever the session
    handles before then comes between the `go` and the search's start, however the threads are scheduled."""

    held = False

    def start(self) -> None:
        self.held = True

    def join(self, timeout: float | None = None) -> None:
        if self.held:
            self.held = False
            super().start()
        super().join(timeout)


def test_a_stop_between_go_and_the_search_starting_ends_the_search(monkeypatch):
    monkeypatch.setattr(hub_search, "threading", SimpleNamespace(Thread=SearchThreadHeldUntilJoined))
    out: list[str] = []
    session = HubSession(out.append)
    for line in ("set-param name=variant value=russian", "level depth=12", "go think", "stop"):
        session.handle(line)
    # The search ran only once `stop` had been asked for: its first iteration (a move to play), and no
    # deeper than it went before it next looked at the stop; never to the level's depth.
    depths = [int(line.split()[1].removeprefix("depth=")) for line in out if line.startswith("info")]
    assert depths[0] == 1 and depths[-1] < 12
    assert out[-1].startswith("done move=")


@pytest.mark.parametrize(
    "search", [["go analyze"], ["level infinite", "go think"], ["level move-time=20", "go think"]]
)
def test_the_end_of_the_input_stops_the_search_and_quits(search):
    # Hub protocol 2: a closed standard input means the GUI has crashed; quit as directly as possible.
    stdin = io.StringIO("\n".join(["set-param name=variant value=international", *search]) + "\n")
    stdout = io.StringIO()
    thread = threading.Thread(target=run, args=(stdin, stdout), daemon=True)
    started = time.monotonic()
    thread.start()
    thread.join(timeout=10)
    assert not thread.is_alive() and time.monotonic() - started < 3.0
    assert stdout.getvalue().splitlines()[-1].startswith("done move=")


@pytest.mark.parametrize("clock", ["0", "-5"])
def test_a_clock_that_has_run_out_is_accepted_and_the_engine_moves_at_once(clock):
    session, out = session_lines("set-param name=variant value=russian", f"level time={clock}", "go think")
    assert session.limit.remaining == 0.0
    assert not any(line.startswith("error") for line in out) and out[-1].startswith("done move=")


def test_pydraughts_pondering_gets_its_move_after_ponder_hit_not_before(hub_command):
    """pydraughts' `HubEngine.play(..., ponder=True)` (what lidraughts-bot's pondering uses), then its
    `ponderhit()` once the opponent has played the move expected."""
    draughts = pytest.importorskip("draughts")
    from draughts.engine import HubEngine
    from draughts.engine import Limit as HubLimit

    engine = HubEngine([hub_command])
    try:
        engine.configure({"variant": "normal"})
        engine.init()
        board = draughts.Board(variant="standard")
        result: dict = {}

        def ponder() -> None:
            result["play"] = engine.play(board, HubLimit(movetime=0.2), True)

        thread = threading.Thread(target=ponder)
        thread.start()
        thread.join(timeout=1.0)  # five times the move's time: still pondering
        assert thread.is_alive()
        engine.ponderhit()
        thread.join(timeout=10)
        assert not thread.is_alive()
        assert result["play"].move.hub_move in {m.hub_move for m in board.legal_moves()}
    finally:
        engine.quit()
        engine.p.wait(timeout=10)


def test_init_loads_the_variants_tables_before_it_answers_ready(monkeypatch):
    """Hub protocol 2: the engine sets up its data at `init`. The tables loaded by the first search took
    its time (found by an audit: a first move asked in 0.1 s took 1.2 s, decompressing the Russian tables
    before the search's clock started)."""
    from shashki.engine import search as search_module

    loaded: list[str] = []
    monkeypatch.setattr(search_module, "default_tablebase", lambda key: loaded.append(key))
    session, out = session_lines("hub", "set-param name=variant value=russian", "init")
    assert loaded == ["russian"] and out[-1] == "ready"
    session_lines("hub", "set-param name=variant value=brazilian", "init")  # no tables: nothing to load
    assert loaded == ["russian"]
