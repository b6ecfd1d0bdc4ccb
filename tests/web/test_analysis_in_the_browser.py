"""The analysis board in a real browser, without an account: a position set up with the palette and
analysed (lines and the best move's arrow), moves played into a variation that is promoted, the shared
address opening the same tree, and a PDN of two games imported and the second opened."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx

from .helpers import PHONE, click_square


def tree_moves(page, selector: str = "#analysis-tree > .tree-move") -> list[str]:
    return [m.get_attribute("data-move") for m in page.locator(selector).all()]


def play(page, move: str) -> None:
    """Enter a move on the board square by square and wait until the tree shows it as the current move."""
    for square in move.replace(":", "-").split("-"):
        click_square(page, square)
    page.wait_for_selector(f'.tree-move.current[data-move="{move}"]')


def test_edit_a_position_with_the_palette_and_analyse_it(pages, artifacts):
    page = pages("/analysis")
    page.wait_for_selector("#analysis svg.board [data-piece]")
    page.click("#edit-position")
    page.click("#editor-clear")
    assert page.locator("svg.board [data-piece]").count() == 0
    page.click('[data-tool="white-king"]')
    click_square(page, "g1")
    page.click('[data-tool="black-king"]')
    click_square(page, "e5")
    assert page.locator("#editor-fen").input_value() == "W:WKg1:BKe5"
    page.click("#editor-done")
    # The server took the position: its FEN, its legal moves on the board, the endgame tables' verdict.
    page.wait_for_selector("#editor", state="hidden")
    assert page.locator("#analysis-fen").input_value() == "W:WK32:BK15"
    page.wait_for_selector('#analysis-info[data-tablebase="win"]')
    assert "White wins in 1" in page.locator("#analysis-info").inner_text()
    page.wait_for_selector("svg.board .piece.movable")
    page.click("#engine-toggle")
    page.wait_for_selector('#engine-lines-list li.engine-line[data-move="g1-d4"]')
    lines = page.locator("#engine-lines-list li.engine-line")
    assert lines.first.get_attribute("data-move") == "g1-d4"
    assert "White wins in 1" in lines.first.inner_text()
    assert lines.count() == 3  # multi-PV: three of White's seven moves
    arrow = page.locator("svg.board .layer-arrows polyline.arrow")
    arrow.wait_for()
    assert arrow.count() == 1
    page.screenshot(path=str(artifacts / "analysis-edited.png"))


def test_an_impossible_position_is_refused_with_the_reason(pages):
    page = pages("/analysis")
    page.wait_for_selector("#analysis svg.board [data-piece]")
    page.click("#edit-position")
    page.click("#editor-clear")
    page.click('[data-tool="white-man"]')
    click_square(page, "b8")  # White's promotion row: a man cannot stand there
    page.click("#editor-done")
    page.wait_for_selector("#editor-error")
    assert "promotion row" in page.locator("#editor-error").inner_text()


def test_play_a_variation_promote_it_and_open_the_shared_address(pages, artifacts):
    page = pages("/analysis?variant=russian", viewport=PHONE)
    page.wait_for_selector("#analysis svg.board .piece.movable")
    play(page, "c3-d4")
    play(page, "f6-e5")
    page.click("#nav-prev")
    page.wait_for_selector('.tree-move.current[data-move="c3-d4"]')
    play(page, "f6-g5")
    assert tree_moves(page) == ["c3-d4", "f6-e5"]
    assert tree_moves(page, ".tree-variation .tree-move") == ["f6-g5"]
    play(page, "g3-h4")
    page.click("#promote")
    page.wait_for_selector('#analysis-tree > .tree-move[data-move="f6-g5"]')
    assert tree_moves(page) == ["c3-d4", "f6-g5", "g3-h4"]
    assert tree_moves(page, ".tree-variation .tree-move") == ["f6-e5"]
    assert page.locator(".tree-move.current").get_attribute("data-move") == "g3-h4"
    # The board fits a phone's screen.
    width = page.locator("svg.board").bounding_box()["width"]
    assert 200 < width <= PHONE["width"]
    page.screenshot(path=str(artifacts / "analysis-phone.png"))

    shared = page.url
    other = pages(shared[shared.index("/analysis"):])
    other.wait_for_selector('.tree-move.current[data-move="g3-h4"]')
    assert tree_moves(other) == ["c3-d4", "f6-g5", "g3-h4"]
    assert tree_moves(other, ".tree-variation .tree-move") == ["f6-e5"]
    assert other.locator("#analysis-fen").input_value() == page.locator("#analysis-fen").input_value()

    # Deleting the variation leaves the main line alone.
    page.click('.tree-variation .tree-move[data-move="f6-e5"]')
    page.wait_for_selector('.tree-move.current[data-move="f6-e5"]')
    page.click("#delete")
    page.wait_for_selector(".tree-variation", state="detached")
    assert tree_moves(page) == ["c3-d4", "f6-g5", "g3-h4"]


TWO_GAMES = """[Event "First"]
[White "Anna"]
[Black "Boris"]
[GameType "25"]
1. c3-d4 {the centre} f6-e5 (1... f6-g5 2. g3-h4) 2. d4:f6 g7:e5 1-0

[Event "Second"]
[White "Vera"]
[Black "Gleb"]
[Variant "russian-giveaway"]
[FEN "W:WKg1:BKe5"]
{A won ending} 1. g1-d4 (1. g1-f2 e5-d4) e5:c3 1-0

[Event "Broken"]
[GameType "25"]
1. c3-d4 f6-e5
2. d4-c5 *
"""


def test_import_a_pdn_with_two_games_and_open_the_second(pages, artifacts):
    page = pages("/analysis")
    page.wait_for_selector("#analysis svg.board [data-piece]")
    page.fill("#pdn-text", TWO_GAMES)
    page.click("#pdn-import-button")
    page.wait_for_selector("#pdn-games li.pdn-game.bad")
    assert page.locator("#pdn-games li.pdn-game:not(.bad)").count() == 2
    error = page.locator("#pdn-games li.pdn-game.bad").inner_text()
    assert "game 3" in error and "line 17" in error and "d4-c5" in error
    page.locator('#pdn-games li.pdn-game[data-game="2"] button').click()
    page.wait_for_selector('#analysis-tree .tree-move[data-move="g1-f2"]')
    assert page.locator("#analysis-fen").input_value() == "W:WK32:BK15"
    assert tree_moves(page) == ["g1-d4", "e5:c3"]
    assert tree_moves(page, ".tree-variation .tree-move") == ["g1-f2", "e5-d4"]
    assert "A won ending" in page.locator("#analysis-tree").inner_text()
    page.locator('#analysis-tree .tree-move[data-move="e5:c3"]').click()
    page.wait_for_selector("#analysis-info:has-text('Game over: 1-0')")
    page.screenshot(path=str(artifacts / "analysis-pdn.png"))


MARKED = '[Variant "russian"]\n1. c3-d4 (1. c3-b4! {alt}) f6-e5?! *'


def moves_and_notes(node: dict) -> dict:
    """What a PDN says of a tree's moves: each move, its marks and comments, its continuations in order."""
    return {
        "move": node["move"],
        "marks": node["marks"],
        "comment": node["comment"],
        "before": node["before"],
        "children": [moves_and_notes(child) for child in node["children"]],
    }


def test_the_marks_of_a_variations_first_move_are_kept_in_the_shared_address(pages, server):
    from server.helpers import tree_of

    # The address's movetext once wrote a variation's first move without its "!": lost on the way back.
    page = pages("/analysis")
    page.wait_for_selector("#analysis svg.board [data-piece]")
    page.fill("#pdn-text", MARKED)
    page.click("#pdn-import-button")
    page.locator('#pdn-games li.pdn-game[data-game="1"] button').click()
    page.wait_for_selector('.tree-variation .tree-move[data-move="c3-b4"]')
    movetext = parse_qs(urlsplit(page.url).query)["pdn"][0]
    assert "c3-b4!" in movetext and "f6-e5?!" in movetext

    # Import, the address's movetext, import again: the same tree.
    def tree(pdn: str) -> dict:
        answer = httpx.post(f"{server.url}/api/analysis/pdn", json={"pdn": pdn})
        return moves_and_notes(tree_of(answer.json()["games"][0]["nodes"]))

    assert tree(f'[Variant "russian"]\n{movetext} *') == tree(MARKED)
    # And the shared address draws the variation's move with its mark.
    shared = pages(page.url[page.url.index("/analysis"):])
    variation = shared.locator('.tree-variation .tree-move[data-move="c3-b4"]')
    assert variation.inner_text().endswith("c3-b4!")


def test_a_finished_game_opens_on_the_analysis_board(pages, server):
    from server.helpers import Player

    white, black = Player(server), Player(server)
    game = white.challenge(black, variant="russian")
    for ply, (player, move) in enumerate([(white, "c3-d4"), (black, "f6-e5"), (white, "d4:f6")]):
        assert player.post(f"/api/games/{game['id']}/move", {"move": move, "ply": ply}).status_code == 200
    assert black.post(f"/api/games/{game['id']}/resign").status_code == 200
    page = pages(f"/game/{game['id']}")
    page.click("#analyse")
    page.wait_for_selector('.tree-move.current[data-move="d4:f6"]')
    assert tree_moves(page) == ["c3-d4", "f6-e5", "d4:f6"]
    page.wait_for_selector("svg.board .piece.must-capture")  # Black must take back: the board plays on
    white.close()
    black.close()
