"""Entering moves on the board, against a real server, from positions that show each rule of input.

The board only walks along the legal moves the server sent; these tests check what a player sees while
doing so (RULES.md §2): the landing rule and a king's choice of landing square, dragging a piece.
"""

from __future__ import annotations

from server.helpers import Player

from .helpers import click_square, wait_for_turn


def start_game(server, fen: str | None = None) -> tuple[Player, Player, str]:
    white, black = Player(server), Player(server)
    terms = {"username": black.name, "color": "white", "variant": "russian-giveaway"}
    if fen:
        terms["fen"] = fen
    r = white.post("/api/challenges", terms)
    assert r.status_code == 201, r.text
    r = black.post(f"/api/challenges/{r.json()['challenge']['id']}/accept")
    return white, black, r.json()["game"]["id"]


def test_a_king_must_land_where_its_capture_goes_on_and_then_chooses_its_landing_square(
    pages, server, artifacts
):
    # RULES.md §7 "king landing rule": W:WKa1:Bc3,f4 — legal moves a1:e5:g3 and a1:e5:h2 only.
    white, black, gid = start_game(server, "W:WKa1:Bc3,f4")
    page = pages(f"/game/{gid}", player=white)
    wait_for_turn(page)
    assert page.locator('svg.board .piece.must-capture[data-piece="a1"]').count() == 1
    click_square(page, "a1")
    # Behind c3 the king may only stop on e5, the one square from which the capture goes on.
    assert sorted(
        page.locator("svg.board [data-target]").evaluate_all("els => els.map(e => e.dataset.target)")
    ) == ["e5"]
    click_square(page, "e5")
    assert page.locator('svg.board .piece.ghost[data-piece="c3"]').count() == 1
    landing = page.locator("svg.board .target.landing")
    assert sorted(landing.evaluate_all("els => els.map(e => e.dataset.target)")) == ["g3", "h2"]
    assert "king lands" in page.locator("#hint").inner_text()
    page.screenshot(path=str(artifacts / "king-landing-choice.png"))
    click_square(page, "h2")
    # Black is left without a piece and to move: in giveaway that is Black's win.
    page.wait_for_selector("#result:not([hidden])")
    assert page.locator("#moves li.ply").first.inner_text().strip() == "a1:e5:h2"
    assert (
        page.locator("#result")
        .inner_text()
        .startswith("Black wins — no moves left: in giveaway the player who cannot move wins")
    )
    white.close()
    black.close()


def test_a_piece_is_moved_by_dragging_it(pages, server):
    white, black, gid = start_game(server)
    page = pages(f"/game/{gid}", player=white)
    wait_for_turn(page)

    def centre(square: str) -> tuple[float, float]:
        box = page.locator(f'svg.board [data-square="{square}"]').bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    page.mouse.move(*centre("c3"))
    page.mouse.down()
    page.mouse.move(*centre("d4"), steps=8)
    assert page.locator("svg.board .piece.dragged").count() == 1
    page.mouse.up()
    page.wait_for_selector('#moves li.ply[data-ply="1"]')
    assert page.locator("#moves li.ply").first.inner_text().strip() == "c3-d4"
    assert page.locator('svg.board [data-piece="d4"][data-color="white"]').count() == 1
    white.close()
    black.close()
