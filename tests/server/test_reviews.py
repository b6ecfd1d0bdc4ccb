"""Computer analysis of finished games (issue 14, point 2): the judging of moves on its own, then the
whole flow over HTTP — asked once, progress, evaluations, marks, accuracy, shown to everyone, refused for
games in play, limited per account, and resumed after a restart."""

from __future__ import annotations

import httpx
import pytest
from game_lines import GIVEAWAY_WIN_FOR_WHITE

from shashki.rules.pdn import read_games
from shashki.server.reviews.judge import CAP, chance, judge, move_accuracy, white_score

from .helpers import Player, Server, eventually


def test_winning_chances_are_symmetric_and_bounded():
    assert chance(0) == pytest.approx(50)
    assert chance(300) + chance(-300) == pytest.approx(100)
    assert 99 < chance(10**6) <= 100 and 0 <= chance(-(10**6)) < 1
    assert white_score(29_990, white_to_move=False) == -CAP  # Black to move wins: capped, White's view


def test_a_move_that_throws_the_game_away_is_a_blunder_and_costs_accuracy():
    moves = ["a", "b", "c", "d"]
    # White keeps +0.2; Black answers well; White's third move drops to -5.0; Black's last is best.
    evals = [20, 20, 20, -500, -500]
    best = ["a", "b", "x", "d"]
    judged, accuracy = judge(moves, evals, best, white_first=True)
    assert [j.mark for j in judged] == [None, None, "blunder", None]
    assert judged[2].best == "x" and judged[0].best is None
    assert accuracy["black"] == pytest.approx(move_accuracy(0), abs=0.1) and accuracy["white"] < 80


def play_through(white: Player, black: Player, moves: list[str]) -> str:
    gid = white.challenge(black, variant="russian-giveaway")["id"]
    for ply, move in enumerate(moves):
        mover = white if ply % 2 == 0 else black
        assert mover.post(f"/api/games/{gid}/move", {"move": move, "ply": ply}).status_code == 200
    return gid


def test_a_finished_game_is_analysed_once_and_shown_to_everyone(server, players):
    white, black = players(), players()
    gid = play_through(white, black, GIVEAWAY_WIN_FOR_WHITE)
    first = white.post(f"/api/games/{gid}/analysis")
    assert first.status_code == 202, first.text
    assert first.json()["analysis"]["status"] in ("queued", "running", "done")
    again = black.post(f"/api/games/{gid}/analysis")  # the same review, not a second one
    assert again.status_code == 202
    url = f"{server.url}/api/games/{gid}/analysis"
    done = eventually(lambda: httpx.get(url).json()["analysis"], lambda a: a["status"] == "done", timeout=60)
    plies = len(GIVEAWAY_WIN_FOR_WHITE)
    assert done["progress"] == {"done": plies, "total": plies}
    assert len(done["evals"]) == plies + 1 and len(done["moves"]) == plies
    assert done["evals"][-1] == CAP  # White, left without a move, has won the giveaway game
    assert [m["move"] for m in done["moves"]] == GIVEAWAY_WIN_FOR_WHITE
    assert {m["mark"] for m in done["moves"]} <= {None, "inaccuracy", "mistake", "blunder"}
    assert all(0 <= done["accuracy"][side] <= 100 for side in ("white", "black"))
    # The game's PDN carries the analysis as comments, and still reads back to the same game.
    text = httpx.get(f"{server.url}/api/games/{gid}/pdn").text
    assert text.count("[%eval ") == plies
    (game,) = read_games(text)
    assert game.replay().notations() == GIVEAWAY_WIN_FOR_WHITE


def test_a_game_in_play_is_not_analysed_and_asking_needs_an_account(server, players):
    white, black = players(), players()
    gid = white.challenge(black)["id"]
    refused = white.post(f"/api/games/{gid}/analysis")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "game_in_progress"
    assert httpx.post(f"{server.url}/api/games/{gid}/analysis").status_code in (401, 403)
    assert httpx.get(f"{server.url}/api/games/{gid}/analysis").json()["analysis"]["status"] == "none"


@pytest.mark.slow
def test_analyses_are_limited_per_account_and_resume_after_a_restart(tmp_path):
    server = Server(
        tmp_path, {"SHASHKI_REVIEW_SECONDS_PER_MOVE": "0.4", "SHASHKI_LIMIT_REVIEWS": "2/3600"}
    ).start()
    try:
        white, black = Player(server), Player(server)
        games = [play_through(white, black, GIVEAWAY_WIN_FOR_WHITE) for _ in range(3)]
        assert white.post(f"/api/games/{games[0]}/analysis").status_code == 202
        assert white.post(f"/api/games/{games[1]}/analysis").status_code == 202
        limited = white.post(f"/api/games/{games[2]}/analysis")
        assert limited.status_code == 429 and "Retry-After" in limited.headers
        url = f"/api/games/{games[0]}/analysis"
        progress = lambda: white.http.get(url).json()["analysis"]["progress"]["done"]  # noqa: E731
        eventually(progress, lambda done: done > 0, timeout=30)
        server.kill()  # mid-analysis
        server.start()
        done = eventually(
            lambda: white.http.get(url).json()["analysis"], lambda a: a["status"] == "done", timeout=90
        )
        assert len(done["moves"]) == len(GIVEAWAY_WIN_FOR_WHITE)
    finally:
        server.stop()
