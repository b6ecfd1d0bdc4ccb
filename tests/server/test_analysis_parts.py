"""The analysis domain's parts without a server: PDN import as trees (a random game exported and imported
again), scores as players read them, positions refused with the rules' reasons."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shashki.engine.search import WIN, Line
from shashki.rules import VARIANTS, Color, Game, get_variant
from shashki.rules.pdn import write_game
from shashki.server.analysis.board import setup
from shashki.server.analysis.lines import line_json, score_json
from shashki.server.analysis.pdn_import import import_pdn
from shashki.server.errors import Invalid

from .helpers import tree_of


def _random_game(key: str, seed: int, plies: int) -> Game:
    rng = random.Random(seed)
    game = Game(get_variant(key))
    for _ in range(plies):
        moves = game.legal_moves()
        if not moves:
            break
        game.play(rng.choice(moves))
    return game


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 2**32), plies=st.integers(0, 80))
def test_an_exported_game_imports_as_the_same_positions_and_moves(key, seed, plies):
    game = _random_game(key, seed, plies)
    (imported,) = import_pdn(write_game(game, {"Event": "round trip"}))["games"]
    assert imported["error"] is None and imported["variant"] == key
    node, fens, moves = tree_of(imported["nodes"]), [], []
    while True:
        fens.append(node["fen"])
        if not node["children"]:
            break
        (node,) = node["children"]
        moves.append(node["move"])
    assert fens == [p.fen() for p in game.positions]
    assert moves == game.notations()
    expected_legal = [m.notation(game.variant) for m in game.legal_moves()]
    assert [m["move"] for m in node["legal_moves"]] == expected_legal
    assert imported["result"] == (game.outcome.result if game.outcome else "*")


def test_scores_read_as_pieces_from_whites_side_or_as_a_win():
    line = Line(depth=3, score=150, pv=(), nodes=1, seconds=0.1)
    assert score_json(line, Color.WHITE) == {"kind": "pieces", "value": 1.5}
    assert score_json(line, Color.BLACK) == {"kind": "pieces", "value": -1.5}
    won = Line(depth=5, score=WIN - 3, pv=(), nodes=1, seconds=0.1)
    assert score_json(won, Color.BLACK) == {"kind": "win", "winner": "black", "plies": 3, "moves": 2}
    lost = Line(depth=5, score=-(WIN - 4), pv=(), nodes=1, seconds=0.1)
    assert score_json(lost, Color.BLACK) == {"kind": "win", "winner": "white", "plies": 4, "moves": 2}


@pytest.mark.parametrize(
    ("variant", "fen", "code"),
    [("frisian", None, "unknown_variant"), ("russian", "W:W1:B32", "bad_fen"), ("russian", "W", "bad_fen")],
)
def test_positions_are_refused_with_a_code_and_the_rules_reason(variant, fen, code):
    with pytest.raises(Invalid) as info:
        setup(variant, fen)
    assert info.value.code == code and info.value.message


def test_a_line_stops_where_the_game_would_end():
    # Two kings: FMJD-64 7.2.8 draws the game once the stronger side has not won in 5 moves (10 plies),
    # and the search may look on past it. The line shown ends with the move that draws the game.
    game = Game("russian", "W:WKg1:BKe5")
    follow, pv = game.copy(), []
    while not follow.is_over:
        pv.append(follow.play(follow.legal_moves()[0]))
    beyond = Game("russian", follow.position)  # one more move from there, as a search would
    pv.append(beyond.legal_moves()[0])
    shown = line_json(Line(depth=len(pv), score=0, pv=tuple(pv), nodes=1, seconds=0.1), game)
    assert len(shown["pv"]) == len(pv) - 1 and game.ply == 0  # the game itself is left as it was
    assert Game.replay(shown["pv"], "russian", "W:WKg1:BKe5").outcome.reason == "small-ending"


def test_a_pdn_import_is_made_in_another_process_and_refusals_keep_their_code():
    """A long import is pure Python: made in the server's process (a thread included) it took the
    event loop's turns from every game (an audit: 0.2 s for one text, seconds for twenty). The service's
    own process spends on it a small part of what the import costs."""
    import asyncio
    import time

    import orjson

    from shashki.server.analysis import AnalysisService

    text = "\n\n".join(write_game(_random_game("russian_giveaway", seed, 70), {"Round": str(seed)})
                       for seed in range(40))
    started = time.process_time()
    direct = import_pdn(text)
    cost = time.process_time() - started

    async def imported() -> tuple[bytes, float]:
        service = AnalysisService()
        try:
            await service.import_pdn("1. 22-18 *")  # the process started and warm
            before = time.process_time()
            answer = await service.import_pdn(text)
            spent = time.process_time() - before
            with pytest.raises(Invalid) as refused:
                await service.import_pdn("[Event ")
            assert refused.value.code == "bad_pdn"
            return answer, spent
        finally:
            await service.close()

    answer, spent = asyncio.run(imported())
    assert orjson.loads(answer) == direct
    assert spent < cost / 3, (spent, cost)


def test_a_long_unknown_variant_is_not_echoed_whole():
    """Found by an audit: a 60 KB variant name came back whole in the refusal."""
    with pytest.raises(Invalid) as info:
        setup("x" * 60_000, None, [])
    assert info.value.code == "unknown_variant"
    assert len(info.value.message) < 400 and "x" * 40 + "…" in info.value.message
