"""The puzzle trainer over HTTP, as the trainer's pages use it: a puzzle near the player's rating, its
moves judged through the rules, the attempt recorded and (a member's first) rated, the history, the
player's rating, the themes; visitors solve unrated; a line off the solution is refused."""

from __future__ import annotations

import asyncio

import httpx
from game_lines import GIVEAWAY_WIN_FOR_WHITE

from shashki.rules import Position
from shashki.server.games.queries import GameQueries
from shashki.server.puzzles.cli import human_puzzles
from shashki.server.puzzles.generate import Budget
from shashki.server.puzzles.starter import read_puzzles, starter_files
from shashki.server.storage import Database

VARIANT = "russian-giveaway"
SOLUTIONS = {p["id"]: p for path in starter_files() for p in read_puzzles(path)}


def a_wrong_move(puzzle: dict) -> str:
    start = Position.from_fen(puzzle["fen"], puzzle["variant"])
    right = start.parse_move(SOLUTIONS[puzzle["id"]]["solution"][0])
    return next(m["move"] for m in puzzle["position"]["legal_moves"] if start.parse_move(m["move"]) != right)


def solve(http: httpx.Client, puzzle_id: str) -> list[dict]:
    """Play the whole solution, the server's replies included; every answer."""
    solution = SOLUTIONS[puzzle_id]["solution"]
    answers = []
    for n in range(1, len(solution) + 1, 2):
        r = http.post(f"/api/puzzles/{puzzle_id}/move", json={"line": solution[:n]})
        assert r.status_code == 200, r.text
        answers.append(r.json())
        if n + 1 < len(solution):
            assert answers[-1]["reply"] == solution[n]
    return answers


def test_a_puzzle_shows_its_start_and_never_its_solution(players):
    member = players()
    r = member.http.get("/api/puzzles/next", params={"variant": VARIANT, "theme": "any"})
    assert r.status_code == 200, r.text
    puzzle = r.json()["puzzle"]
    assert set(puzzle) == {"id", "variant", "fen", "solver", "rating", "plays", "themes", "source",
                           "position", "length", "verified"}
    assert puzzle["variant"] == VARIANT and puzzle["verified"] in ("search", "tablebase")
    assert puzzle["position"]["fen"] == puzzle["fen"]
    assert puzzle["position"]["side_to_move"] == puzzle["solver"]
    assert puzzle["length"] == (len(SOLUTIONS[puzzle["id"]]["solution"]) + 1) // 2
    assert member.http.get(f"/api/puzzles/{puzzle['id']}").json()["puzzle"]["fen"] == puzzle["fen"]


def test_a_wrong_move_ends_the_first_attempt_rated_and_a_replay_is_solved_unrated(players):
    member = players()
    puzzle = member.http.get("/api/puzzles/next", params={"variant": VARIANT}).json()["puzzle"]
    wrong = a_wrong_move(puzzle)
    r = member.post(f"/api/puzzles/{puzzle['id']}/move", {"line": [wrong]})
    assert r.status_code == 200, r.text
    answer = r.json()
    assert answer["result"] == "wrong" and answer["reply"] is None
    start = Position.from_fen(puzzle["fen"], VARIANT)
    assert start.parse_move(answer["expected"]) == start.parse_move(SOLUTIONS[puzzle["id"]]["solution"][0])
    rating = answer["rating"]
    assert rating["before"] == 1500 and rating["after"] < 1500 and rating["delta"] == rating["after"] - 1500
    assert answer["puzzle_rating"] > puzzle["rating"]  # Glicko-2 moved both sides
    me = member.http.get("/api/puzzles/me", params={"variant": VARIANT}).json()
    assert me["rating"] == rating["after"] and me["attempts"] == 1 and me["solved"] == 0 and me["rd"] < 350

    answers = solve(member.http, puzzle["id"])
    assert answers[-1]["result"] == "solved" and answers[-1]["rating"] is None
    assert all(a["result"] == "correct" and a["reply"] for a in answers[:-1])
    assert member.http.get("/api/puzzles/me", params={"variant": VARIANT}).json()["rating"] == rating["after"]

    history = member.http.get("/api/puzzles/history").json()
    assert [(a["puzzle"], a["solved"], a["delta"]) for a in history["attempts"]] == [
        (puzzle["id"], True, 0), (puzzle["id"], False, rating["delta"])]
    assert history["next_page"] is None and history["attempts"][0]["themes"] == puzzle["themes"]
    # The puzzle is not offered again to this player.
    for _ in range(5):
        again = member.http.get("/api/puzzles/next", params={"variant": VARIANT}).json()["puzzle"]
        assert again["id"] != puzzle["id"]


def test_a_wrong_move_inside_a_longer_line_is_judged_wrong_not_refused(players):
    """A line is judged at the solver's first move that is not the solution's, whatever follows it: a
    refusal there would tell the solution with no wrong move counted (found by an audit: every move of a
    puzzle found by refused lines, then a rated solve)."""
    member = players()
    puzzle = next(p for p in SOLUTIONS.values() if p["variant"] == VARIANT and len(p["solution"]) >= 3)
    shown = member.http.get(f"/api/puzzles/{puzzle['id']}").json()["puzzle"]
    r = member.post(f"/api/puzzles/{puzzle['id']}/move", {"line": [a_wrong_move(shown), "zz", "zz"]})
    assert r.status_code == 200, r.text
    answer = r.json()
    assert answer["result"] == "wrong" and answer["rating"]["delta"] < 0
    start = Position.from_fen(shown["fen"], VARIANT)
    assert start.parse_move(answer["expected"]) == start.parse_move(puzzle["solution"][0])
    assert solve(member.http, puzzle["id"])[-1]["rating"] is None  # the rated attempt was the wrong one
    history = member.http.get("/api/puzzles/history").json()["attempts"]
    assert [(a["puzzle"], a["solved"]) for a in history] == [(puzzle["id"], True), (puzzle["id"], False)]


def test_the_solution_after_an_attempt_changes_nothing_and_before_one_gives_the_puzzle_up(players):
    member = players()
    tried = member.http.get("/api/puzzles/next", params={"variant": VARIANT}).json()["puzzle"]
    assert member.post(f"/api/puzzles/{tried['id']}/move", {"line": [a_wrong_move(tried)]}).status_code == 200
    after = member.post(f"/api/puzzles/{tried['id']}/solution", {})
    assert after.status_code == 200, after.text
    assert after.json() == {"solution": SOLUTIONS[tried["id"]]["solution"], "rating": None}
    me = member.http.get("/api/puzzles/me", params={"variant": VARIANT}).json()
    assert me["attempts"] == 1

    # Asked first, the answer costs the puzzle: a failed rated attempt, and no rated solve after it.
    untried = member.http.get("/api/puzzles/next", params={"variant": VARIANT}).json()["puzzle"]
    given_up = member.post(f"/api/puzzles/{untried['id']}/solution", {}).json()
    assert given_up["solution"] == SOLUTIONS[untried["id"]]["solution"] and given_up["rating"]["delta"] < 0
    assert solve(member.http, untried["id"])[-1]["rating"] is None
    history = member.http.get("/api/puzzles/history").json()["attempts"]
    assert [(a["puzzle"], a["solved"]) for a in history[:2]] == [(untried["id"], s) for s in (True, False)]
    assert member.post("/api/puzzles/nonexistent/solution", {}).status_code == 404


def test_solving_first_time_raises_the_rating(players):
    member = players()
    puzzle = member.http.get("/api/puzzles/next", params={"variant": "russian"}).json()["puzzle"]
    answers = solve(member.http, puzzle["id"])
    assert answers[-1]["result"] == "solved" and answers[-1]["rating"]["delta"] > 0
    assert answers[-1]["puzzle_rating"] < puzzle["rating"]


def test_a_token_records_attempts_only_with_the_puzzle_write_scope(players, server):
    """An attempt changes the account's puzzle rating: a read-only token may not make one (found by an
    audit), a token with puzzle:write may (lichess's scope)."""
    member = players()
    puzzle = member.http.get("/api/puzzles/next", params={"variant": VARIANT}).json()["puzzle"]
    reader = {"Authorization": f"Bearer {member.token('read')}"}
    for path, body in ((f"/api/puzzles/{puzzle['id']}/move", {"line": [a_wrong_move(puzzle)]}),
                       (f"/api/puzzles/{puzzle['id']}/solution", {})):
        r = httpx.post(server.url + path, json=body, headers=reader)
        assert (r.status_code, r.json()["error"]["code"]) == (403, "missing_scope"), r.text
    assert member.http.get("/api/puzzles/me", params={"variant": VARIANT}).json()["attempts"] == 0
    writer = {"Authorization": f"Bearer {member.token('puzzle:write')}"}
    r = httpx.post(f"{server.url}/api/puzzles/{puzzle['id']}/move", json={"line": [a_wrong_move(puzzle)]},
                   headers=writer)
    assert r.status_code == 200 and r.json()["rating"]["delta"] < 0, r.text
    assert member.http.get("/api/puzzles/me", params={"variant": VARIANT}).json()["attempts"] == 1


def test_a_visitor_solves_unrated_and_has_the_default_rating(server):
    with httpx.Client(base_url=server.url) as visitor:
        puzzle = visitor.get("/api/puzzles/next", params={"variant": VARIANT}).json()["puzzle"]
        answers = solve(visitor, puzzle["id"])
        assert answers[-1]["result"] == "solved" and all(a["rating"] is None for a in answers)
        assert visitor.get(f"/api/puzzles/{puzzle['id']}").json()["puzzle"]["plays"] == puzzle["plays"] + 1
        me = visitor.get("/api/puzzles/me").json()
        assert me == {"rating": 1500, "rd": 350, "attempts": 0, "solved": 0}
        assert visitor.get("/api/puzzles/history").status_code == 401


def test_a_capture_written_by_its_squares_is_the_same_move(server):
    puzzle = next(p for p in SOLUTIONS.values() if p["variant"] == VARIANT and ":" in p["solution"][0])
    squares = puzzle["solution"][0].split(":")
    with httpx.Client(base_url=server.url) as visitor:
        r = visitor.post(f"/api/puzzles/{puzzle['id']}/move", json={"line": [f"{squares[0]}x{squares[-1]}"]})
        assert r.status_code == 200, r.text
        assert r.json()["result"] in ("correct", "solved")


def test_a_line_off_the_solution_or_an_unknown_puzzle_is_refused(server):
    puzzle = next(p for p in SOLUTIONS.values() if p["variant"] == VARIANT and len(p["solution"]) >= 3)
    solution = puzzle["solution"]
    with httpx.Client(base_url=server.url) as visitor:
        shown = visitor.get(f"/api/puzzles/{puzzle['id']}").json()["puzzle"]
        wrong = a_wrong_move(shown)
        for line in ([], solution[:2], [solution[0], wrong, solution[2]], solution + ["a1-b2", "b2-c3"]):
            r = visitor.post(f"/api/puzzles/{puzzle['id']}/move", json={"line": line})
            assert r.status_code == 400, (line, r.text)
            assert r.json()["error"]["code"] == "bad_line"
        r = visitor.post(f"/api/puzzles/{puzzle['id']}/move", json={"line": ["a1-h8"]})
        assert r.status_code == 400 and r.json()["error"]["code"] == "illegal_move"
        assert visitor.get("/api/puzzles/nosuchpuzzle").status_code == 404
        r = visitor.post("/api/puzzles/nosuchpuzzle/move", json={"line": ["c3-d4"]})
        assert r.status_code == 404 and r.json()["error"]["code"] == "no_such_puzzle"
        assert visitor.get("/api/puzzles/next", params={"variant": "nonsense"}).status_code == 400
        assert visitor.get("/api/puzzles/next", params={"theme": "nonsense"}).status_code == 400


def test_themes_daily_and_a_theme_filter(server):
    with httpx.Client(base_url=server.url) as visitor:
        themes = visitor.get("/api/puzzles/themes", params={"variant": VARIANT}).json()
        counts = {v["key"]: v["count"] for v in themes["variants"]}
        assert counts[VARIANT] == sum(1 for p in SOLUTIONS.values() if p["variant"] == VARIANT)
        theme = themes["themes"][0]["key"]
        assert theme in ("blocking", "endgame", "giveaway-combination", "king-race", "middlegame")
        asked = {"variant": VARIANT, "theme": theme}
        puzzle = visitor.get("/api/puzzles/next", params=asked).json()["puzzle"]
        assert theme in puzzle["themes"]
        daily = visitor.get("/api/puzzles/daily", params={"variant": VARIANT}).json()
        assert daily["puzzle"]["variant"] == VARIANT and len(daily["date"]) == 10
        assert visitor.get("/api/puzzles/daily", params={"variant": VARIANT}).json() == daily


def test_the_finished_games_between_people_are_a_source_of_puzzles(server, players):
    white, black = players(), players()
    game_id = white.challenge(black, variant=VARIANT)["id"]
    for ply, move in enumerate(GIVEAWAY_WIN_FOR_WHITE):
        mover = white if ply % 2 == 0 else black
        assert mover.post(f"/api/games/{game_id}/move", {"move": move, "ply": ply}).status_code == 200
    database = f"sqlite+aiosqlite:///{(server.data / 'shashki.sqlite3').resolve()}"
    found = list(human_puzzles(database, VARIANT, Budget(screen=3, verify=5)))
    assert all(p.game is not None and p.variant == VARIANT for p in found)

    async def stored():
        db = await Database(database).open()
        try:
            return await GameQueries(db).finished_between_people(VARIANT)
        finally:
            await db.close()

    games = {g[0]: g for g in asyncio.run(stored())}
    assert games[game_id][2] == list(GIVEAWAY_WIN_FOR_WHITE)
