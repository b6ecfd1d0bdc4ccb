"""The analysis board's server side, on a real server and without an account: positions with their legal
moves, the engine's multi-PV lines (polled and streamed), FEN errors, rate limits, PDN import."""

from __future__ import annotations

import json

import httpx
import pytest
from websockets.sync.client import connect

from shashki.rules import Game, get_variant

from .helpers import Player, Server, tree_of

VARIANTS = ["russian-giveaway", "russian", "international", "english"]


@pytest.fixture
def http(server):
    with httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


def _replays(variant: str, fen: str, pv: list[str]) -> bool:
    game = Game(variant, fen)
    for move in pv:
        game.play(move)
    return True


@pytest.mark.parametrize("variant", VARIANTS)
def test_position_lists_the_rules_legal_moves_without_an_account(http, variant):
    r = http.post("/api/analysis/position", json={"variant": variant})
    assert r.status_code == 200, r.text
    body = r.json()
    game = Game(variant)
    assert body["fen"] == game.position.fen()
    assert [m["move"] for m in body["legal_moves"]] == [m.notation(game.variant) for m in game.legal_moves()]
    assert set(body["legal_moves"][0]) == {"move", "path", "captures"}  # the game state's shape


def test_position_after_moves_and_an_illegal_move_named(http):
    r = http.post("/api/analysis/position", json={"variant": "russian", "moves": ["c3-d4", "f6-e5"]})
    assert r.status_code == 200
    assert r.json()["legal_moves"] == [{"move": "d4:f6", "path": ["d4", "f6"], "captures": ["e5"]}]
    r = http.post("/api/analysis/position", json={"variant": "russian", "moves": ["c3-d4", "f6-e5", "d4-c5"]})
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "illegal_move" and error["ply"] == 3 and "d4-c5" in error["message"]


@pytest.mark.parametrize(
    ("fen", "words"),
    [("W:Wz9:B1", "not a dark square"), ("X:W21:B1", "side to move"), ("W:W21,21:B1", "two pieces")],
)
def test_invalid_fen_is_a_clear_error(http, fen, words):
    r = http.post("/api/analysis/position", json={"variant": "russian", "fen": fen})
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "bad_fen" and words in error["message"]
    r = http.post("/api/analysis/lines", json={"variant": "russian", "fen": fen, "seconds": 0.5})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_fen"


@pytest.mark.parametrize("variant", VARIANTS)
def test_lines_are_legal_multi_pv(http, variant):
    r = http.post("/api/analysis/lines", json={"variant": variant, "lines": 3, "seconds": 1})
    assert r.status_code == 200, r.text
    body = r.json()
    lines = body["lines"]
    assert len(lines) == 3 and body["depth"] >= 1 and body["done"]
    legal = {m.notation(get_variant(variant)) for m in Game(variant).legal_moves()}
    assert len({line["move"] for line in lines}) == 3 and {line["move"] for line in lines} <= legal
    for line in lines:
        assert line["pv"][0] == line["move"] and line["depth"] >= 1
        assert _replays(variant, body["fen"], line["pv"])
        assert line["score"]["kind"] == "pieces"


def test_won_giveaway_position_is_a_win_with_the_tables_verdict(http):
    fen = "W:WKg1:BKe5"  # White gives its king away: g1-d4 forces e5:c3 and White has no piece (RULES.md §3)
    r = http.post("/api/analysis/lines", json={"variant": "russian-giveaway", "fen": fen, "lines": 2,
                                               "seconds": 1})
    assert r.status_code == 200, r.text
    best = r.json()["lines"][0]
    assert best["move"] == "g1-d4"
    assert best["score"] == {"kind": "win", "winner": "white", "plies": 2, "moves": 1}
    position = http.post("/api/analysis/position", json={"variant": "russian-giveaway", "fen": fen}).json()
    assert position["tablebase"] == {"result": "win", "winner": "white", "plies": 2, "moves": 1}


def test_a_budget_above_the_servers_longest_is_cut_down_to_it(http):
    # The test servers search at most 3 s (tests/server/helpers.py): 60 s asked, about 3 s given.
    r = http.post("/api/analysis/lines", json={"variant": "international", "lines": 1, "seconds": 60})
    assert r.status_code == 200, r.text
    assert r.json()["done"] and r.json()["seconds"] < 10


def test_lines_stream_deeper_over_the_socket(server):
    with connect(f"{server.ws_url}/ws/analysis", open_timeout=5) as ws:
        ws.send(json.dumps({"type": "analyse", "id": 7, "variant": "russian-giveaway", "lines": 2,
                            "seconds": 1.5}))
        reports = []
        while True:
            message = json.loads(ws.recv(timeout=30))
            assert message["type"] == "lines" and message["id"] == 7, message
            reports.append(message)
            if message["done"]:
                break
        depths = [m["depth"] for m in reports]
        assert depths == sorted(depths) and len(reports) >= 2
        assert all(len(m["lines"]) == 2 for m in reports)
        ws.send(json.dumps({"type": "analyse", "id": 8, "variant": "russian", "fen": "W:Wz9"}))
        error = json.loads(ws.recv(timeout=10))
        assert error["type"] == "error" and error["id"] == 8 and error["error"]["code"] == "bad_fen"


def test_searches_are_rate_limited_per_address_and_per_account(tmp_path):
    env = {"SHASHKI_LIMIT_ANALYSES": "3/600", "SHASHKI_LIMIT_ANALYSES_PER_ACCOUNT": "1/600"}
    server = Server(tmp_path / "limited", env).start()
    try:
        body = {"variant": "russian", "lines": 1, "seconds": 0.2}
        player = Player(server)
        assert player.post("/api/analysis/lines", body).status_code == 200
        r = player.post("/api/analysis/lines", body)
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"  # the account's limit
        with httpx.Client(base_url=server.url, timeout=30) as anonymous:
            assert anonymous.post("/api/analysis/lines", json=body).status_code == 200
            r = anonymous.post("/api/analysis/lines", json=body)
            assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1  # the address's limit
            # Setting up positions uses no engine time: not limited.
            assert anonymous.post("/api/analysis/position", json={"variant": "russian"}).status_code == 200
        player.close()
    finally:
        server.stop()


TWO_GAMES = """[Event "First"]
[GameType "25"]
1. c3-d4 {the centre} f6-e5 (1... f6-g5 {a flank} 2. g3-h4) 2. d4:f6 g7:e5 1-0

[Event "Second"]
[Variant "russian-giveaway"]
[FEN "W:WKg1:BKe5"]
{A won ending} 1. g1-d4 (1. g1-f2? e5-d4) e5:c3 1-0
"""


def test_pdn_import_of_two_games_keeps_variations_and_comments(http):
    r = http.post("/api/analysis/pdn", json={"pdn": TWO_GAMES})
    assert r.status_code == 200, r.text
    first, second = r.json()["games"]
    assert (first["tags"]["Event"], first["variant"], first["result"], first["error"]) == (
        "First", "russian", "1-0", None)
    root = tree_of(first["nodes"])
    (c3d4,) = root["children"]
    assert c3d4["move"] == "c3-d4" and c3d4["comment"] == "the centre"
    assert [c["move"] for c in c3d4["children"]] == ["f6-e5", "f6-g5"]
    flank = c3d4["children"][1]
    played = Game.replay(["c3-d4", "f6-g5"], "russian")
    assert flank["comment"] == "a flank" and flank["fen"] == played.position.fen()
    expected = [m.notation(played.variant) for m in played.legal_moves()]
    assert [m["move"] for m in flank["legal_moves"]] == expected
    assert second["variant"] == "russian-giveaway"
    assert second["nodes"][0]["fen"] == "W:WK32:BK15" and second["nodes"][0]["parent"] is None
    win, alternative = tree_of(second["nodes"])["children"]
    assert win["before"] == "A won ending" and alternative["marks"] == ["?"]
    end = win["children"][0]
    assert end["outcome"] == {"result": "1-0", "winner": "white", "reason": "no-legal-move"}


def test_a_long_game_imports_whole(http):
    """A game of more than 150 plies (its tree sent flat: nested, it broke the JSON encoder's depth from
    about 125 plies, found by an audit) imports with every position, in order."""
    from shashki.rules.pdn import write_game

    from .test_analysis_parts import _random_game

    games = (_random_game("english", seed, 400) for seed in range(200))
    game = next(g for g in games if len(g.notations()) > 150)
    r = http.post("/api/analysis/pdn", json={"pdn": write_game(game, {"Event": "long"})})
    assert r.status_code == 200, r.text
    (imported,) = r.json()["games"]
    nodes = imported["nodes"]
    assert [n["fen"] for n in nodes] == [p.fen() for p in game.positions]
    assert [n["parent"] for n in nodes] == [None, *range(len(nodes) - 1)]
    assert [n["move"] for n in nodes[1:]] == game.notations()


def test_pdn_import_names_the_game_line_and_move_of_an_illegal_game(http):
    text = TWO_GAMES + '\n[Event "Third"]\n[GameType "25"]\n1. c3-d4 f6-e5\n2. d4-c5 *\n'
    r = http.post("/api/analysis/pdn", json={"pdn": text})
    assert r.status_code == 200
    games = r.json()["games"]
    assert [g["error"] is None for g in games] == [True, True, False]
    error = games[2]["error"]
    line = text.splitlines().index("2. d4-c5 *") + 1
    assert (error["game"], error["line"], error["move"], error["move_number"]) == (3, line, "d4-c5", 2)
    assert "game 3" in error["message"] and f"line {line}" in error["message"] and "d4-c5" in error["message"]


def test_pdn_import_of_unreadable_text_is_an_error(http):
    r = http.post("/api/analysis/pdn", json={"pdn": "1. c3-d4 {never closed"})
    assert r.status_code == 400 and "line 1" in r.json()["error"]["message"]
    r = http.post("/api/analysis/pdn", json={"pdn": "   "})
    assert r.status_code == 400 and r.json()["error"]["code"] == "no_games"


@pytest.mark.slow
def test_generated_frames_on_the_analysis_socket_are_answered_and_it_stays_open(server):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from .test_frame_fuzz import frames, json_values

    analyse = st.fixed_dictionaries(
        {"type": st.just("analyse")},
        optional={
            "id": json_values,
            "variant": st.sampled_from(VARIANTS + ["", "frisian"]) | json_values,
            "fen": st.sampled_from(["W:WKg1:BKe5", "W:Wz9", "B:W21:B1"]) | json_values,
            "moves": st.lists(st.sampled_from(["c3-d4", "f6-e5", "22-18", "x"]), max_size=3) | json_values,
            "lines": json_values,
            "seconds": st.floats(0.01, 0.3) | json_values,
        },
    ).map(json.dumps)
    log_before = len(server.log.read_text())
    with connect(f"{server.ws_url}/ws/analysis", open_timeout=5) as ws:

        @settings(max_examples=120, suppress_health_check=list(HealthCheck), deadline=None)
        @given(frame=analyse | frames)
        def answered(frame) -> None:
            ws.send(frame)
            ws.send(json.dumps({"type": "stop"}))  # ends a search the frame started
            ws.send(json.dumps({"type": "ping", "id": "fence"}))
            while (message := json.loads(ws.recv(timeout=30))).get("id") != "fence":
                assert message.get("type") in ("error", "lines"), message
                if message["type"] == "error":
                    assert message["error"]["code"] and message["error"]["message"]
            assert message["type"] == "pong"

        answered()
    assert "Traceback" not in server.log.read_text()[log_before:]


def test_russian_endings_show_the_tables_verdict_and_whether_the_counts_may_draw_it(http):
    # Within the counts (FMJD-64 7.2.4-7.2.8, counted from this position): a plain verdict.
    within = http.post("/api/analysis/position", json={"variant": "russian", "fen": "W:WKh6,d4:BKc3,c7"})
    within = within.json()
    assert within["tablebase"] == {"result": "win", "winner": "white", "plies": 7, "moves": 4}
    # Three pieces with a man against a king: a 7.2.7 count may start on the long diagonal with 5 moves
    # to go, so a 43-ply table win is not one the rules promise (the engine does not believe it either).
    beyond = http.post("/api/analysis/position", json={"variant": "russian", "fen": "W:WKg5,Kb6,e1:BKg3"})
    beyond = beyond.json()
    assert beyond["tablebase"] == {"result": "win", "winner": "white", "plies": 43, "moves": 22,
                                   "counts": "may_draw"}
