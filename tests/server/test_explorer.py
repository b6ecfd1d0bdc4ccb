"""The opening explorer (issue 14, point 4): finished games counted as they end, once each, by position
(transpositions meet), with their results and players' ratings; asked over HTTP by FEN and moves."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import httpx
from game_lines import GIVEAWAY_WIN_FOR_WHITE

from shashki.rules import Color, Game
from shashki.server.explorer.service import DEPTH, ExplorerService, FinishedGame, variant_key
from shashki.server.storage import Database

from .helpers import eventually


def finished(game_id: str, moves: list[str], winner: Color | None, ratings=None) -> FinishedGame:
    game = Game("russian_giveaway")
    for text in moves:
        game.play(text)
    return FinishedGame(
        game_id, variant_key(game.positions[0]), list(game.positions), game.notations(), winner, ratings
    )


def run(tmp_path, scenario):
    async def main():
        db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
        try:
            return await scenario(ExplorerService(db))
        finally:
            await db.close()

    return asyncio.run(main())


def test_each_game_is_counted_once_with_its_result_and_the_players_ratings(tmp_path):
    async def scenario(explorer):
        assert await explorer.add(finished("g1", ["c3-d4", "f6-e5"], Color.WHITE, (1600, 1400)))
        assert await explorer.add(finished("g2", ["c3-d4", "f6-g5"], None))
        assert not await explorer.add(finished("g1", ["c3-d4", "f6-e5"], Color.WHITE, (1600, 1400)))
        return await explorer.moves(Game("russian_giveaway").position)

    answer = run(tmp_path, scenario)
    assert answer["games"] == 2
    assert answer["moves"] == [
        {"move": "c3-d4", "games": 2, "white": 1, "draws": 1, "black": 0, "average_rating": 1500}
    ]


def test_transpositions_reach_one_position_and_only_the_opening_is_counted(tmp_path):
    one = ["c3-d4", "h6-g5", "g3-h4", "b6-a5"]
    other = ["g3-h4", "b6-a5", "c3-d4", "h6-g5"]  # the same four moves in another order

    async def scenario(explorer):
        games = [finished("a", [*one, "d4-c5"], Color.BLACK), finished("b", [*other, "a3-b4"], None)]
        await explorer.add_many(games)
        game = Game("russian_giveaway")
        for text in one:
            game.play(text)
        return await explorer.moves(game.position)

    answer = run(tmp_path, scenario)
    assert {m["move"]: (m["games"], m["black"], m["draws"]) for m in answer["moves"]} == {
        "d4-c5": (1, 1, 0),
        "a3-b4": (1, 0, 1),
    }
    assert DEPTH < 60  # the explorer is an opening book, not a copy of every game


def ended(game_id: str, moves: list[str], winner: Color | None) -> SimpleNamespace:
    """What the games store's listener is told of a game that has just finished (its copy in memory)."""
    rules = Game("russian_giveaway")
    for text in moves:
        rules.play(text)
    record = SimpleNamespace(
        id=game_id, status=SimpleNamespace(value="finished"), initial_fen=None, computer_level=None,
        white_id=1, black_id=2, rated=False, white_rating=None, black_rating=None, winner=winner,
    )
    return SimpleNamespace(record=record, is_live=False, rules=rules, notations=rules.notations())


def test_games_that_finish_together_are_written_in_one_transaction_each_counted_once(tmp_path):
    async def scenario(explorer):
        batches = []  # the games of each transaction
        add_many, add = explorer.add_many, explorer.add

        async def counted_many(games):
            batches.append(len(games))
            return await add_many(games)

        async def counted_one(game):
            batches.append(1)
            return await add(game)

        explorer.add_many, explorer.add = counted_many, counted_one
        explorer(ended("g1", ["c3-d4", "f6-e5"], Color.WHITE))  # the first starts a transaction...
        await asyncio.sleep(0)
        for n in range(2, 6):  # ... the others finish while it is written, and wait for the next one
            explorer(ended(f"g{n}", ["c3-d4", "f6-g5"], None))
        explorer(ended("g2", ["c3-d4", "f6-g5"], None))  # told again (a rematch offer is a commit too)
        await explorer.close()
        explorer(ended("g1", ["c3-d4", "f6-e5"], Color.WHITE))  # and again once written
        await explorer.close()
        return batches, await explorer.moves(Game("russian_giveaway").position)

    batches, answer = run(tmp_path, scenario)
    assert batches == [1, 5, 1]  # three transactions for seven calls
    assert answer["games"] == 5 and answer["moves"][0]["white"] == 1 and answer["moves"][0]["draws"] == 4


def test_a_finished_game_between_players_appears_in_the_explorer_over_http(server, players):
    url = f"{server.url}/api/explorer"

    def first_moves(**params) -> dict[str, int]:
        answer = httpx.get(url, params={"variant": "russian-giveaway", **params}).json()
        return {m["move"]: m["white"] for m in answer["moves"]}

    before = first_moves(moves=GIVEAWAY_WIN_FOR_WHITE[0])
    white, black = players(), players()
    gid = white.challenge(black, variant="russian-giveaway")["id"]
    for ply, move in enumerate(GIVEAWAY_WIN_FOR_WHITE):
        mover = white if ply % 2 == 0 else black
        assert mover.post(f"/api/games/{gid}/move", {"move": move, "ply": ply}).status_code == 200
    second = GIVEAWAY_WIN_FOR_WHITE[1]
    after = eventually(
        lambda: first_moves(moves=GIVEAWAY_WIN_FOR_WHITE[0]),
        lambda m: m.get(second, 0) > before.get(second, 0),
    )
    assert after[second] == before.get(second, 0) + 1  # White won the game


def test_the_explorer_refuses_a_bad_position_or_move_saying_which(server):
    url = f"{server.url}/api/explorer"
    wrong = httpx.get(url, params={"variant": "russian-giveaway", "moves": "c3-d4 f6-e5 a1-b2"})
    assert wrong.status_code == 400
    assert "Move 3 (a1-b2)" in wrong.json()["error"]["message"]
    assert httpx.get(url, params={"fen": "W:Wzz"}).status_code == 400
    assert httpx.get(url, params={"variant": "no-such-game"}).status_code == 400


def test_the_engine_book_answers_its_moves_for_the_start_and_nothing_out_of_it(server):
    url = f"{server.url}/api/explorer/book"
    start = httpx.get(url, params={"variant": "russian-giveaway"}).json()
    assert start["book"] is True and start["moves"]
    legal = {m.notation(Game("russian-giveaway").variant) for m in Game("russian-giveaway").legal_moves()}
    assert {m["move"] for m in start["moves"]} <= legal
    assert abs(sum(m["share"] for m in start["moves"]) - 100) <= len(start["moves"])  # rounded percents
    first = start["moves"][0]
    assert first["path"][0] == first["move"][:2] and first["score"]["kind"] in ("pieces", "win")
    after = httpx.get(url, params={"variant": "russian-giveaway", "moves": first["move"]}).json()
    assert after["fen"] != start["fen"] and after["moves"]  # the book goes on after its own move
    lonely = httpx.get(url, params={"variant": "russian-giveaway", "fen": "W:WK32:BK15"}).json()
    assert lonely["moves"] == []
    no_book = httpx.get(url, params={"variant": "russian-giveaway", "double_diagonal": "true"}).json()
    assert (no_book["book"], no_book["moves"]) == (False, [])
    wrong = httpx.get(url, params={"variant": "russian", "moves": "a1-b2"})
    assert wrong.status_code == 400 and "Move 1 (a1-b2)" in wrong.json()["error"]["message"]
