"""The puzzle trainer in a real browser (issue 14, "solve a puzzle"): a visitor and a logged-in player find
the right moves on the board while the server plays the replies, a wrong move shows the right one, the
daily puzzle on the home page leads to its puzzle, and the history lists the attempts.

The right line is the server's own: read from its database in the test process, never from the page
(which is not given it)."""

from __future__ import annotations

import json
import re
import sqlite3
import time

import httpx
import pytest
from server.helpers import Player

from .helpers import PHONE, assert_accessible, click_square, squares_of

VARIANT = "russian-giveaway"


@pytest.fixture(scope="module", autouse=True)
def puzzles_served(server):
    """The server loads its starter set in the background when it starts: wait until it has puzzles of the
    variant."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        themes = httpx.get(f"{server.url}/api/puzzles/themes", params={"variant": VARIANT}).json()
        if any(v["key"] == VARIANT and v["count"] > 0 for v in themes["variants"]):
            return
        time.sleep(0.5)
    raise AssertionError(f"the server has no {VARIANT} puzzles two minutes after starting")


def solution_of(server, puzzle_id) -> list[str]:
    """The puzzle's solution as the server stores it: the solver's moves and the replies, in order."""
    with sqlite3.connect(server.data / "shashki.sqlite3") as db:
        (text,) = db.execute("SELECT solution FROM puzzles WHERE id = ?", (puzzle_id,)).fetchone()
    return json.loads(text) if text.lstrip().startswith("[") else text.split()


def puzzle_shown(page) -> str:
    """The id of the puzzle on the trainer's board, once the player may move on it."""
    board = ".board-wrap[data-puzzle]"
    page.wait_for_selector(f"{board} .piece.movable, {board} .piece.must-capture")
    return page.locator(".board-wrap[data-puzzle]").get_attribute("data-puzzle")


def enter(page, move: str) -> None:
    """Enter a move square by square on the board, as a player clicks (a capture through each landing)."""
    for square in squares_of(move):
        click_square(page, square)


def solve(page, solution: list[str]) -> None:
    """Play the solver's moves of `solution`, waiting for the server's reply after each one but the last."""
    for i in range(0, len(solution), 2):
        enter(page, solution[i])
        if i + 1 < len(solution):
            # The reply is played back on the board, and the solver has the move again.
            page.wait_for_selector(f'#puzzle-status[data-state="turn"][data-ply="{i + 2}"]')
    page.wait_for_selector('#puzzle-status[data-state="solved"]')


def test_a_visitor_solves_the_puzzle_the_trainer_gives_unrated(pages, server, artifacts):
    page = pages("/puzzles")
    puzzle_id = puzzle_shown(page)
    page.wait_for_url(re.compile(rf"/puzzles/{puzzle_id}$"))
    puzzle = httpx.get(f"{server.url}/api/puzzles/{puzzle_id}").json()["puzzle"]
    assert puzzle["variant"] == VARIANT  # poddavki first
    assert page.locator("svg.board").get_attribute("data-variant") == VARIANT
    solver = "White" if puzzle["solver"] == "white" else "Black"
    assert f"find the best move for {solver}" in page.locator("#puzzle-status").inner_text()
    # Themes come after the attempt, not before.
    assert page.locator("#puzzle-result").is_hidden()
    solve(page, solution_of(server, puzzle_id))
    result = page.locator("#puzzle-result")
    assert result.get_attribute("data-result") == "solved"
    assert page.locator("#puzzle-unrated").is_visible()  # a visitor solves unrated
    assert re.fullmatch(r"Puzzle rating: \d+", page.locator("#puzzle-rating").inner_text())
    assert page.locator("#puzzle-themes .theme").count() == len(puzzle["themes"])
    page.screenshot(path=str(artifacts / "puzzle-solved-visitor.png"))


def test_a_player_solves_a_puzzle_sees_the_rating_change_and_finds_it_in_history(pages, server, artifacts):
    player = Player(server)
    page = pages("/puzzles", player=player)
    page.wait_for_selector("#puzzle-mine[data-rating]")
    before = int(page.locator("#puzzle-mine").get_attribute("data-rating"))
    puzzle_id = puzzle_shown(page)
    solution = solution_of(server, puzzle_id)
    solve(page, solution)
    delta = page.locator("#puzzle-delta")
    assert int(delta.get_attribute("data-delta")) > 0
    assert re.search(r"\(\+\d+\)", delta.inner_text())
    after = int(page.locator("#puzzle-mine").get_attribute("data-rating"))
    assert after > before > 0
    assert page.locator("#puzzle-rating").is_visible()
    page.screenshot(path=str(artifacts / "puzzle-solved-player.png"))
    assert_accessible(page, "a solved puzzle")

    # The solution and the analysis board from the same position.
    page.click("#puzzle-view-solution")
    page.wait_for_selector("#puzzle-solution li.ply.current")
    assert [m.get_attribute("data-move") for m in page.locator("#puzzle-solution li.ply").all()] == solution
    analyse = page.locator("#puzzle-analyse").get_attribute("href")
    assert analyse.startswith("/analysis?") and "fen=" in analyse

    page.click("#puzzle-history-link")
    page.wait_for_selector(f'#puzzle-attempts li.puzzle-attempt.solved[data-puzzle="{puzzle_id}"]')
    row = page.locator(f'#puzzle-attempts li[data-puzzle="{puzzle_id}"]')
    assert "+" in row.locator(".delta").inner_text()
    page.screenshot(path=str(artifacts / "puzzle-history.png"))
    row.locator("a").click()
    page.wait_for_url(re.compile(rf"/puzzles/{puzzle_id}$"))
    assert puzzle_shown(page) == puzzle_id
    player.close()


def test_a_wrong_move_shows_the_right_one_and_retry_starts_again(pages, server, artifacts):
    # A puzzle with more than one legal move at the start, so that a wrong one can be played.
    for _ in range(30):
        query = {"variant": VARIANT, "theme": "any"}
        puzzle = httpx.get(f"{server.url}/api/puzzles/next", params=query).json()["puzzle"]
        if len(puzzle["position"]["legal_moves"]) > 1:
            break
    solution = solution_of(server, puzzle["id"])
    wrong = next(m["move"] for m in puzzle["position"]["legal_moves"] if m["move"] != solution[0])
    page = pages(f"/puzzles/{puzzle['id']}", viewport=PHONE)
    assert puzzle_shown(page) == str(puzzle["id"])
    enter(page, wrong)
    page.wait_for_selector('#puzzle-status[data-state="wrong"]')
    status = page.locator("#puzzle-status").inner_text()
    assert wrong in status and solution[0] in status
    # The right move on the board: a green arrow along its squares, its squares marked.
    assert page.locator("svg.board polyline.arrow.green").count() == 1
    assert page.locator("svg.board rect.mark.expected").count() == len(squares_of(solution[0]))
    assert page.locator("#puzzle-result").get_attribute("data-result") == "wrong"
    width = page.locator("svg.board").bounding_box()["width"]
    assert 200 < width <= PHONE["width"]
    page.screenshot(path=str(artifacts / "puzzle-wrong-phone.png"))

    # The solution from there, as far as the server gives it without recording another attempt.
    page.click("#puzzle-view-solution")
    page.wait_for_selector("#puzzle-solution li.ply.current")
    shown = [m.get_attribute("data-move") for m in page.locator("#puzzle-solution li.ply").all()]
    assert shown[0] == solution[0] and shown == solution[: len(shown)]

    page.click("#puzzle-retry")
    page.wait_for_selector('#puzzle-status[data-state="turn"][data-ply="0"]')
    assert "not rated" in page.locator("#puzzle-about").inner_text()
    solve(page, solution)


def test_the_daily_puzzle_on_the_home_page_leads_to_the_puzzle(pages, server):
    daily = httpx.get(f"{server.url}/api/puzzles/daily", params={"variant": VARIANT}).json()["puzzle"]
    page = pages("/")
    link = page.locator("#daily-puzzle-link")
    link.wait_for()
    assert link.locator("svg.board.mini").count() == 1
    link.click()
    page.wait_for_url(re.compile(rf"/puzzles/{daily['id']}$"))
    assert puzzle_shown(page) == str(daily["id"])
    assert page.locator("#nav a.active").get_attribute("href") == "/puzzles"


def test_the_trainer_after_a_wrong_move_is_all_in_russian(pages, server):
    from .test_translations import SHOWN_TEXT, english_fragments

    puzzle = httpx.get(f"{server.url}/api/puzzles/daily", params={"variant": VARIANT}).json()["puzzle"]
    solution = solution_of(server, puzzle["id"])
    wrong = [m["move"] for m in puzzle["position"]["legal_moves"] if m["move"] != solution[0]]
    page = pages(f"/puzzles/{puzzle['id']}", language="ru")
    puzzle_shown(page)
    if wrong:
        enter(page, wrong[0])
        page.wait_for_selector('#puzzle-status[data-state="wrong"]')
    else:  # a forced first move: the attempt ends solved instead
        solve(page, solution)
    page.click("#puzzle-view-solution")
    page.wait_for_selector("#puzzle-solution li.ply.current")
    text = page.evaluate(SHOWN_TEXT)
    english = [f"{key}: {fragment!r}" for key, fragment in english_fragments("ru")
               if re.search(rf"(?<![\w]){re.escape(fragment)}(?![\w])", text)]
    assert not english, "\n".join(english)
    assert "Задача не решена" in text or "Задача решена" in text  # the result card, in Russian
