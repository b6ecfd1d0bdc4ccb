"""Issue 14's browser test "explore an opening": finished games on the server show in the analysis
board's explorer with their counts and results, a click on a move plays it and the panel follows, the
engine's book moves show for the start position, the panel hides and shows, reads as tables, and fits
a phone."""

from __future__ import annotations

import httpx
import pytest
from server.helpers import Player, eventually

from .helpers import PHONE, assert_accessible

pytestmark = pytest.mark.slow  # plays games through the API, then a browser run

# Three short Russian games ended by resignation: from the start, c3-d4 twice (a White win, a Black win)
# and g3-h4 once (a White win).
GAMES = [
    (["c3-d4", "f6-e5", "d4:f6"], "black"),
    (["c3-d4", "f6-g5", "b2-c3"], "white"),
    (["g3-h4", "f6-g5", "h4:f6"], "black"),
]


def explorer(server, moves: str = "") -> dict:
    return httpx.get(f"{server.url}/api/explorer", params={"variant": "russian", "moves": moves}).json()


def row_of(answer: dict, move: str) -> dict:
    return next((m for m in answer["moves"] if m["move"] == move), {"games": 0})


def play_games(server) -> None:
    before = row_of(explorer(server), "c3-d4")["games"]
    white, black = Player(server), Player(server)
    for moves, resigns in GAMES:
        gid = white.challenge(black, variant="russian")["id"]
        for ply, move in enumerate(moves):
            mover = white if ply % 2 == 0 else black
            assert mover.post(f"/api/games/{gid}/move", {"move": move, "ply": ply}).status_code == 200
        loser = white if resigns == "white" else black
        assert loser.post(f"/api/games/{gid}/resign").status_code == 200
    white.close()
    black.close()
    eventually(lambda: row_of(explorer(server), "c3-d4")["games"], lambda n: n >= before + 2, timeout=10)


def shown_row(page, table: str, move: str):
    return page.locator(f'#explorer-{table} tbody tr[data-move="{move}"]')


def test_explore_an_opening_and_play_its_moves_from_the_panel(pages, server, artifacts):
    play_games(server)
    start = explorer(server)
    book = httpx.get(f"{server.url}/api/explorer/book", params={"variant": "russian"}).json()
    page = pages("/analysis?variant=russian")
    page.wait_for_selector('#explorer-games tbody tr[data-move="c3-d4"]')

    # Each move played here, with its games and results, as the server counted them.
    for move in ("c3-d4", "g3-h4"):
        expected = row_of(start, move)
        row = shown_row(page, "games", move)
        assert row.get_attribute("data-games") == str(expected["games"])
        assert (row.get_attribute("data-white"), row.get_attribute("data-black")) == (
            str(expected["white"]), str(expected["black"]))
        assert row.locator("td.num").first.inner_text() == str(expected["games"])
    c3d4 = row_of(start, "c3-d4")
    white_share = round(100 * c3d4["white"] / c3d4["games"])
    words = shown_row(page, "games", "c3-d4").locator(".visually-hidden").inner_text()
    assert f"White won {white_share}%" in words
    assert page.locator("#explorer-games caption").inner_text().endswith(f"({start['games']} games)")

    # The engine's book for the start position, best first, as the server answers it.
    book_rows = page.locator("#explorer-book tbody tr")
    assert [r.get_attribute("data-move") for r in book_rows.all()] == [m["move"] for m in book["moves"]]
    assert len(book["moves"]) >= 2
    page.screenshot(path=str(artifacts / "analysis-explorer.png"))

    # A click on a move plays it on the board; the panel then explores the new position.
    start_fen = page.locator("#analysis-fen").input_value()
    shown_row(page, "games", "c3-d4").locator("button").click()
    page.wait_for_selector('.tree-move.current[data-move="c3-d4"]')
    fen = page.locator("#analysis-fen").input_value()
    assert fen != start_fen
    page.wait_for_selector(f'#explorer-body[data-fen="{fen}"]')
    after = explorer(server, "c3-d4")
    for move in ("f6-e5", "f6-g5"):
        assert shown_row(page, "games", move).get_attribute("data-games") == str(row_of(after, move)["games"])
    shown_row(page, "games", "f6-e5").locator("button").click()
    page.wait_for_selector('.tree-move.current[data-move="f6-e5"]')
    page.wait_for_selector('#explorer-games tbody tr[data-move="d4:f6"]')
    assert [m.get_attribute("data-move") for m in page.locator("#analysis-tree > .tree-move").all()] == [
        "c3-d4", "f6-e5"]

    # A book move plays as well (the board goes back to the start first).
    page.click("#nav-first")
    page.wait_for_selector(f'#explorer-body[data-fen="{start_fen}"]')
    best = book["moves"][0]["move"]
    shown_row(page, "book", best).locator("button").click()
    page.wait_for_selector(f'.tree-move.current[data-move="{best}"]')
    assert_accessible(page, "the analysis board with its explorer")

    # Hidden and shown again; the choice is remembered by the browser.
    page.click("#explorer-toggle")
    page.wait_for_selector("#explorer-body", state="hidden")
    assert page.get_attribute("#explorer-toggle", "aria-expanded") == "false"
    page.reload()
    page.wait_for_selector("#analysis svg.board [data-piece]")
    assert page.get_attribute("#explorer-toggle", "aria-expanded") == "false"
    assert page.locator("#explorer-games").count() == 0
    page.click("#explorer-toggle")
    page.wait_for_selector("#explorer-book tbody tr")


def test_the_explorer_fits_a_phone_and_speaks_russian(pages, server):
    page = pages("/analysis?variant=russian-giveaway", viewport=PHONE, language="ru")
    page.wait_for_selector("#explorer-book tbody tr")
    assert page.locator("#explorer-title").inner_text() == "Дебютный справочник"
    box = page.locator("#explorer").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    table = page.locator("#explorer-book").bounding_box()
    assert table["width"] <= box["width"]
    assert_accessible(page, "the explorer on a phone")
