"""Computer analysis of finished games (issue 14, point 2): the judging of moves on its own, then the
whole flow over HTTP — asked once, progress, evaluations, marks, accuracy, shown to everyone, refused for
games in play, limited per account, and resumed after a restart; then the claims (issue 11, point 3):
services standing for processes that share one database, on SQLite and PostgreSQL — each review run by
one of them, a dead one's review taken up by another, a stalled one's late writes refused."""

from __future__ import annotations

import asyncio
import secrets
import time
from datetime import timedelta

import httpx
import pytest
from game_lines import GIVEAWAY_WIN_FOR_WHITE

from shashki.engine.search import Limit, Line
from shashki.rules import Color, Game
from shashki.rules.pdn import read_games
from shashki.server.games.models import GameRecord, GameStatus
from shashki.server.reviews import ReviewService
from shashki.server.reviews.judge import CAP, chance, judge, move_accuracy, white_score
from shashki.server.reviews.models import GameReview
from shashki.server.reviews.service import evaluate_game
from shashki.server.storage import Database
from shashki.server.storage.base import utcnow

from .helpers import Player, Server, database_url, eventually


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


def test_a_forced_move_is_not_judged_whatever_the_two_searches_around_it_say():
    moves = ["a", "b", "c", "d"]
    # Black's two moves were the only legal ones: the searches before and after them differ by noise,
    # which would make the first an inaccuracy and the second a mistake.
    evals = [20, 20, 150, 150, 500]
    best = ["a", None, "c", None]
    judged, accuracy = judge(moves, evals, best, white_first=True, forced={1, 3})
    assert [(j.loss, j.mark) for j in judged] == [(0.0, None)] * 4
    assert [j.eval for j in judged] == evals[1:]  # the evaluations stay as searched
    assert accuracy["black"] == pytest.approx(move_accuracy(0), abs=0.1)


class SideToMoveEngine:
    """Every search a man and a half too hopeful for the side to move: each move seems to lose it 27
    points of winning chance, a mistake, whatever it was."""

    async def analyse(self, game: Game, limit: Limit) -> list[Line]:
        return [Line(depth=1, score=150, pv=(game.legal_moves()[0],), nodes=1, seconds=0.0)]

    async def close(self) -> None:
        pass


def test_the_only_legal_move_of_a_played_game_is_forced_and_costs_neither_a_mark_nor_accuracy():
    # Black's single captures in the game (plies 3, 5, 11, 13, 17, 21) were each the only legal move.
    full = Game.replay(GIVEAWAY_WIN_FOR_WHITE, "russian-giveaway")
    forced = {3, 5, 11, 13, 17, 21}
    review = asyncio.run(evaluate_game(SideToMoveEngine(), full, 0.01))
    moves = review["moves"]
    # The plies where the game's move was the engine's own pick (the first legal move): not judged either.
    replay, chosen = Game("russian-giveaway"), set()
    for ply, move in enumerate(GIVEAWAY_WIN_FOR_WHITE):
        if replay.legal_moves()[0].notation(replay.variant) == move:
            chosen.add(ply)
        replay.play(move)
    assert chosen - forced and (set(range(len(moves))) - chosen - forced)  # the test sees both kinds
    assert [m["ply"] for m in moves if m["mark"] is None] == sorted(forced | chosen)
    assert all(m["loss"] == 0 and m["best"] is None for m in moves if m["ply"] in forced)
    assert [m["eval"] for m in moves] == review["evals"][1:]  # evaluated all the same
    black = [
        move_accuracy(0 if m["ply"] in forced | chosen else m["loss"]) for m in moves if m["ply"] % 2
    ]
    assert review["accuracy"]["black"] == pytest.approx(sum(black) / len(black), abs=0.1)


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


# -- one process per review, whatever the number of processes --------------------------------------------

# The game ends with White to move and no move left: the engine looks at every position but that last one.
LOOKS_PER_REVIEW = len(GIVEAWAY_WIN_FOR_WHITE)


class FinishedGames:
    """The games the reviews read: each id a finished giveaway game White won."""

    async def stored(self, game_id: str) -> GameRecord:
        return GameRecord(
            id=game_id, variant="russian-giveaway", double_diagonal=False, status=GameStatus.FINISHED,
            winner=Color.WHITE, reason="no-legal-move",
        )  # fmt: skip

    async def moves_of(self, game_ids: list[str]) -> dict[str, list[str]]:
        return {game_id: list(GIVEAWAY_WIN_FOR_WHITE) for game_id in game_ids}


class CountingEngine:
    """Counts the positions it is asked about; `gate`, when given, holds each answer until it is set."""

    def __init__(self, gate: asyncio.Event | None = None) -> None:
        self.looks = 0
        self.gate = gate

    async def analyse(self, position_or_game, limit: Limit) -> list[Line]:
        self.looks += 1
        if self.gate is not None:
            await self.gate.wait()
        await asyncio.sleep(0.001)  # the other process's turn, as a real engine's wait gives it
        return [Line(depth=1, score=0, pv=(), nodes=1, seconds=0.0)]

    async def close(self) -> None:
        pass


async def _process(url: str, engine: CountingEngine, **options) -> ReviewService:
    """A server process's review service: its own connections to the shared database."""
    db = await Database(url).open()
    return ReviewService(db, FinishedGames(), engine, seconds_per_move=0.01, **options)


async def _queue(service: ReviewService, game_ids: list[str], **columns) -> None:
    async with service.db.session() as s:
        for game_id in game_ids:
            row = {"status": "queued", "requested_at": utcnow()} | columns
            s.add(GameReview(game_id=game_id, **row))
        await s.commit()


async def _done(service: ReviewService, game_id: str, timeout: float = 20) -> dict:
    ends = time.monotonic() + timeout
    while (state := await service.state(game_id))["status"] != "done" and time.monotonic() < ends:
        await asyncio.sleep(0.02)
    return state


async def _close(*services: ReviewService) -> None:
    for service in services:
        await service.close()
        await service.db.close()


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_two_processes_resuming_at_the_same_start_run_each_queued_review_once(database, tmp_path):
    url = database_url(database, tmp_path)
    game_ids = ["r" + secrets.token_hex(5) for _ in range(6)]  # a shared PostgreSQL holds other reviews

    async def scenario() -> tuple[int, int, list[dict]]:
        a_engine, b_engine = CountingEngine(), CountingEngine()
        a = await _process(url, a_engine, shared=True)
        b = await _process(url, b_engine, shared=True)
        await _queue(a, game_ids)
        await asyncio.gather(a.resume(), b.resume())
        states = [await _done(a, game_id) for game_id in game_ids]
        await asyncio.sleep(0.2)  # a second run, were there one, would have looked again by now
        await _close(a, b)
        return a_engine.looks, b_engine.looks, states

    a_looks, b_looks, states = asyncio.run(scenario())
    assert [state["status"] for state in states] == ["done"] * len(game_ids)
    assert all(state["progress"]["done"] == LOOKS_PER_REVIEW for state in states)
    assert a_looks + b_looks == len(game_ids) * LOOKS_PER_REVIEW, (a_looks, b_looks)


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_a_review_whose_process_died_is_completed_by_a_live_process_without_a_restart(database, tmp_path):
    url = database_url(database, tmp_path)
    game_id = "r" + secrets.token_hex(5)

    async def scenario() -> tuple[int, int, dict, float]:
        engine = CountingEngine()
        live = await _process(url, engine, shared=True, claim_seconds=0.6)
        # A process that died mid-review: its claim runs a little longer, and nobody renews it.
        gone = {"status": "running", "owner": "gone", "claimed_until": utcnow() + timedelta(seconds=0.3)}
        await _queue(live, [game_id], **gone)
        started_at_once = await live.resume()  # held by another process at start: left alone
        live.start()
        began = time.monotonic()
        state = await _done(live, game_id, timeout=10)
        took = time.monotonic() - began
        await _close(live)
        return started_at_once, engine.looks, state, took

    started_at_once, looks, state, took = asyncio.run(scenario())
    assert started_at_once == 0
    assert state["status"] == "done" and state["progress"]["done"] == LOOKS_PER_REVIEW
    assert looks == LOOKS_PER_REVIEW
    assert took < 3, took  # the claim lapses after 0.3 s; a sweep comes every 0.2 s


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_a_stalled_process_that_lost_its_review_cannot_write_over_the_one_that_took_it(database, tmp_path):
    url = database_url(database, tmp_path)
    game_id = "r" + secrets.token_hex(5)

    async def scenario() -> tuple[dict, dict, int, bool]:
        gate = asyncio.Event()
        stalled_engine = CountingEngine(gate)
        # Its loop never runs (no start()): it holds the review and stops renewing, as a process stalled.
        stalled = await _process(url, stalled_engine, shared=True, claim_seconds=0.3)
        await _queue(stalled, [game_id])
        await stalled.resume()
        while stalled_engine.looks == 0:
            await asyncio.sleep(0.01)
        other = await _process(url, CountingEngine(), shared=True, claim_seconds=0.3)
        other.start()
        done = await _done(other, game_id, timeout=10)
        gate.set()  # the stalled process wakes: its next write finds the review another's
        while stalled._running:
            await asyncio.sleep(0.01)
        after = await other.state(game_id)
        await _close(stalled, other)
        return done, after, stalled_engine.looks, stalled._running == {}

    done, after, stalled_looks, ended = asyncio.run(scenario())
    assert done["status"] == "done"
    assert after == done  # nothing written over the finished review
    assert ended and stalled_looks < LOOKS_PER_REVIEW  # it stopped at its first refused write


def test_one_process_takes_back_at_once_the_reviews_its_previous_run_held(tmp_path):
    """No Redis, one process: a claim left by the server before a restart is its own, not waited for."""
    url = database_url("sqlite", tmp_path)

    async def scenario() -> tuple[int, dict]:
        engine = CountingEngine()
        server = await _process(url, engine)
        before = {"status": "running", "owner": "before", "claimed_until": utcnow() + timedelta(hours=1)}
        await _queue(server, ["g1"], **before)
        started = await server.resume()
        state = await _done(server, "g1", timeout=10)
        await _close(server)
        return started, state

    started, state = asyncio.run(scenario())
    assert started == 1 and state["status"] == "done"


def test_a_finished_review_asked_again_is_not_analysed_again_and_a_failed_one_is(tmp_path):
    url = database_url("sqlite", tmp_path)

    async def scenario() -> tuple[int, str, int]:
        engine = CountingEngine()
        server = await _process(url, engine)
        await server.request("g1", 1)
        await _done(server, "g1")
        await server.request("g1", 2)  # the same review, shown as it is
        await asyncio.sleep(0.2)
        looks_after_done = engine.looks
        await _queue(server, ["g2"], status="failed")
        await server.request("g2", 1)
        state = await _done(server, "g2")
        await _close(server)
        return looks_after_done, state["status"], engine.looks

    looks_after_done, second, looks = asyncio.run(scenario())
    assert looks_after_done == LOOKS_PER_REVIEW
    assert second == "done" and looks == 2 * LOOKS_PER_REVIEW


class WhiteWinsEngine:
    """Every search sure that White wins (+19.5), whoever is to move."""

    async def analyse(self, game: Game, limit: Limit) -> list[Line]:
        score = 1950 if game.position.white_to_move else -1950
        return [Line(depth=1, score=score, pv=(game.legal_moves()[0],), nodes=1, seconds=0.0)]

    async def close(self) -> None:
        pass


def test_a_game_drawn_by_a_rule_ends_on_its_result_and_the_move_that_drew_is_no_blunder():
    """Found by an audit: a Russian game drawn by threefold repetition was scored +19.5 at its end and
    Black's last move, which reached the draw, called a blunder."""
    full = Game("russian", "W:WKa1,e1:BKh6,d8")
    for move in ["a1-b2", "h6-g5", "b2-a1", "g5-h6"] * 2:
        full.play(move)
    assert full.outcome is not None and full.outcome.winner is None  # drawn by repetition
    review = asyncio.run(evaluate_game(WhiteWinsEngine(), full, 0.01))
    assert review["evals"][-1] == 0
    assert review["moves"][-1]["move"] == "g5-h6" and review["moves"][-1]["mark"] is None


def test_the_engines_own_choice_is_never_marked_whatever_the_next_search_says():
    moves = ["a", "b", "c"]
    evals = [0, 0, 2000, 2000]  # the search after Black's "b" sees what the one before it did not
    judged, _ = judge(moves, evals, ["a", "b", "c"], white_first=True)
    assert [(j.loss, j.mark) for j in judged] == [(0.0, None)] * 3
    judged, _ = judge(moves, evals, ["a", "x", "c"], white_first=True)  # another move was best: judged
    assert judged[1].mark == "blunder" and judged[1].best == "x"
