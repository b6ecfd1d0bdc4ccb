"""Premoves in a real browser, against a second player scripted over the game's WebSocket.

A premove is entered while the opponent thinks (clicks on the board, as a move is) and goes out the moment
the opponent's move arrives — if it is legal then: the page matches it against the legal moves of the new
state, and the server still judges the move it is sent. An illegal premove is dropped with a word of why.
Conditional premoves ("if they play X, I reply Y") fire when X is played and are dropped otherwise.
"""

from __future__ import annotations

import time

import httpx
from server.helpers import Player

from .helpers import click_square, wait_for_ply, wait_for_turn


def start_game(server, fen: str | None = None) -> tuple[Player, Player, str]:
    """A game of Russian giveaway between two new players, the first with White."""
    white, black = Player(server), Player(server)
    terms = {"username": black.name, "color": "white", "variant": "russian-giveaway"}
    if fen:
        terms["fen"] = fen
    r = white.post("/api/challenges", terms)
    assert r.status_code == 201, r.text
    r = black.post(f"/api/challenges/{r.json()['challenge']['id']}/accept")
    assert r.status_code == 200, r.text
    return white, black, r.json()["game"]["id"]


def state(server, gid: str) -> dict:
    return httpx.get(f"{server.url}/api/games/{gid}").json()["game"]


def test_a_premove_is_sent_the_moment_the_opponents_move_arrives(pages, server, artifacts):
    white, black, gid = start_game(server)
    page = pages(f"/game/{gid}", player=white)
    opponent = black.socket(gid)
    wait_for_turn(page)
    click_square(page, "c3")
    click_square(page, "d4")
    opponent.wait_state(lambda g: g["ply"] == 1)

    # Black to move: White's clicks make a premove, shown on the board, and nothing is sent yet.
    click_square(page, "g3")
    click_square(page, "h4")
    assert page.locator("svg.board .mark.premove").count() == 2
    assert page.locator("svg.board .arrow.premove").count() == 1
    assert "g3-h4" in page.locator("#premove-hint").inner_text()
    page.screenshot(path=str(artifacts / "premove.png"))
    time.sleep(0.3)
    assert state(server, gid)["ply"] == 1

    # Black moves: White's premove is played at once, by the page alone.
    assert opponent.move("h6-g5", ply=1)["type"] == "ack"
    after = opponent.wait_state(lambda g: g["ply"] == 3, timeout=5)
    assert after["moves"][2] == "g3-h4"
    wait_for_ply(page, 3)
    assert page.locator("svg.board .mark.premove").count() == 0
    opponent.close()
    white.close()
    black.close()


def test_a_multi_capture_premove_is_entered_square_by_square(pages, server):
    # Black to move; whatever Black plays but f4-e3/f4-g3, White then has one capture: c1:e3:g5.
    white, black, gid = start_game(server, "B:Wc1:Bd2,f4,h8")
    page = pages(f"/game/{gid}", player=white)
    opponent = black.socket(gid)
    page.wait_for_selector('.game-page[data-color="white"]')
    for square in ("c1", "e3", "g5"):
        click_square(page, square)
    assert page.locator("svg.board .mark.premove").count() == 3
    assert opponent.move("h8-g7", ply=0)["type"] == "ack"
    after = opponent.wait_state(lambda g: g["ply"] == 2, timeout=5)
    assert after["moves"] == ["h8-g7", "c1:e3:g5"]
    opponent.close()
    white.close()
    black.close()


def test_an_illegal_premove_is_cancelled_and_escape_or_a_right_click_drops_one(pages, server):
    white, black, gid = start_game(server)
    page = pages(f"/game/{gid}", player=white)
    opponent = black.socket(gid)
    wait_for_turn(page)
    click_square(page, "c3")
    click_square(page, "d4")
    opponent.wait_state(lambda g: g["ply"] == 1)

    # Dropped before the opponent moves: by a right click, then by Escape.
    click_square(page, "g3")
    click_square(page, "h4")
    assert page.locator("svg.board .mark.premove").count() == 2
    page.click('svg.board [data-square="e5"]', button="right")
    assert page.locator("svg.board .mark.premove").count() == 0
    click_square(page, "g3")
    click_square(page, "h4")
    assert page.locator("svg.board .mark.premove").count() == 2
    page.keyboard.press("Escape")
    assert page.locator("svg.board .mark.premove").count() == 0

    # f6-e5 makes a capture compulsory for White (d4:f6): the premove g3-h4 is not legal then.
    click_square(page, "g3")
    click_square(page, "h4")
    assert opponent.move("f6-e5", ply=1)["type"] == "ack"
    page.wait_for_selector("#premove-hint:has-text('cancelled')")
    assert "g3-h4" in page.locator("#premove-hint").inner_text()
    assert page.locator("svg.board .mark.premove").count() == 0
    # Nothing was sent: White is to move, with the capture marked as compulsory.
    page.wait_for_selector('svg.board .piece.must-capture[data-piece="d4"]')
    time.sleep(0.5)
    assert state(server, gid)["ply"] == 2
    opponent.close()
    white.close()
    black.close()


def add_pair(page, theirs: str, mine: str) -> None:
    page.fill("#cond-theirs", theirs)
    page.fill("#cond-mine", mine)
    page.click("#cond-add")


def test_a_conditional_premove_fires_on_its_move_and_the_others_are_dropped(pages, server, artifacts):
    white, black, gid = start_game(server)
    page = pages(f"/game/{gid}", player=white)
    opponent = black.socket(gid)
    wait_for_turn(page)
    click_square(page, "c3")
    click_square(page, "d4")
    opponent.wait_state(lambda g: g["ply"] == 1)

    page.click("#conditional summary")
    page.screenshot(path=str(artifacts / "conditional-premoves.png"))
    # The condition must be a move the opponent can make now.
    add_pair(page, "a1-b2", "g3-h4")
    page.wait_for_selector("#cond-error:not([hidden])")
    assert page.locator("#cond-list li").count() == 0
    add_pair(page, "h6-g5", "g3-h4")
    add_pair(page, "f6-e5", "d4:f6")
    assert page.locator("#cond-list li").count() == 2

    # Black plays the first condition: its reply is played at once; the other pair is used up.
    assert opponent.move("h6-g5", ply=1)["type"] == "ack"
    after = opponent.wait_state(lambda g: g["ply"] == 3, timeout=5)
    assert after["moves"][2] == "g3-h4"
    page.wait_for_selector("#premove-hint:has-text('g3-h4')")
    assert page.locator("#cond-list li").count() == 0

    # A pair whose condition does not happen is dropped, and nothing is played.
    wait_for_ply(page, 3)
    add_pair(page, "b6-a5", "a3-b4")
    assert page.locator("#cond-list li").count() == 1
    assert opponent.move("g7-h6", ply=3)["type"] == "ack"
    page.wait_for_selector("#premove-hint:has-text('dropped')")
    assert page.locator("#cond-list li").count() == 0
    wait_for_turn(page)
    time.sleep(0.5)
    assert state(server, gid)["ply"] == 4
    opponent.close()
    white.close()
    black.close()


def test_a_move_typed_on_the_opponents_turn_is_the_premove(pages, server):
    white, black, gid = start_game(server)
    page = pages(f"/game/{gid}", player=white)
    opponent = black.socket(gid)
    wait_for_turn(page)
    page.fill("#move-text", "c3-d4")
    page.press("#move-text", "Enter")
    opponent.wait_state(lambda g: g["ply"] == 1)
    page.fill("#move-text", "g3-h4")
    page.press("#move-text", "Enter")
    assert page.locator("svg.board .mark.premove").count() == 2
    assert page.locator("#move-text").input_value() == ""
    assert opponent.move("h6-g5", ply=1)["type"] == "ack"
    after = opponent.wait_state(lambda g: g["ply"] == 3, timeout=5)
    assert after["moves"][2] == "g3-h4"
    opponent.close()
    white.close()
    black.close()


def test_a_premove_is_entered_with_the_keyboard_right_after_the_players_move(pages, server):
    white, black, gid = start_game(server)
    page = pages(f"/game/{gid}", player=white)
    opponent = black.socket(gid)
    wait_for_turn(page)
    # The focus starts on a1 (bottom left); c3 is two up and two right, d4 one further each way.
    page.locator('svg.board [tabindex="0"]').focus()
    for key in ["ArrowUp", "ArrowUp", "ArrowRight", "ArrowRight", "Enter", "ArrowUp", "ArrowRight", "Enter"]:
        page.keyboard.press(key)
    # At once, before the server's answer is awaited: g3 (three right, one down) to h4.
    for key in [
        "ArrowRight",
        "ArrowRight",
        "ArrowRight",
        "ArrowDown",
        "Enter",
        "ArrowUp",
        "ArrowRight",
        "Enter",
    ]:
        page.keyboard.press(key)
    page.wait_for_selector("#premove-hint:has-text('g3-h4')")
    assert opponent.wait_state(lambda g: g["ply"] == 1)["moves"] == ["c3-d4"]
    assert opponent.move("h6-g5", ply=1)["type"] == "ack"
    after = opponent.wait_state(lambda g: g["ply"] == 3, timeout=5)
    assert after["moves"][2] == "g3-h4"
    opponent.close()
    white.close()
    black.close()


def test_a_premove_is_entered_by_dragging_the_piece(pages, server):
    white, black, gid = start_game(server)
    page = pages(f"/game/{gid}", player=white)
    opponent = black.socket(gid)
    wait_for_turn(page)
    click_square(page, "c3")
    click_square(page, "d4")
    opponent.wait_state(lambda g: g["ply"] == 1)
    wait_for_ply(page, 1)

    def centre(square: str) -> tuple[float, float]:
        box = page.locator(f'svg.board [data-square="{square}"]').bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    page.mouse.move(*centre("g3"))
    page.mouse.down()
    page.mouse.move(*centre("h4"), steps=8)
    assert page.locator("svg.board .piece.dragged").count() == 1
    page.mouse.up()
    assert page.locator("svg.board .mark.premove").count() == 2
    assert opponent.move("h6-g5", ply=1)["type"] == "ack"
    after = opponent.wait_state(lambda g: g["ply"] == 3, timeout=5)
    assert after["moves"][2] == "g3-h4"
    opponent.close()
    white.close()
    black.close()
