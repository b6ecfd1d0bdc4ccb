"""Takebacks on the game page (games/takeback.py): the player who has moved asks, the opponent is shown
the request with Accept and Decline, and both pages go back to the position before the move."""

from __future__ import annotations

from playwright.sync_api import expect
from server.helpers import Player, eventually

from .helpers import plies_shown, wait_for_ply


def test_a_takeback_is_asked_for_agreed_and_declined_on_the_game_pages(pages, server):
    white, black = Player(server), Player(server)
    game = white.challenge(black, variant="russian-giveaway")
    gid = game["id"]
    white_page = pages(f"/game/{gid}", player=white)
    black_page = pages(f"/game/{gid}", player=black)
    expect(white_page.locator(".game-page[data-color='white']")).to_be_visible()
    expect(black_page.locator(".game-page[data-color='black']")).to_be_visible()
    expect(white_page.locator("#takeback")).to_have_count(0)  # nothing to take back yet
    socket = white.socket(gid)
    try:
        assert socket.move("c3-d4", ply=0)["type"] == "ack"
    finally:
        socket.close()
    for page in (white_page, black_page):
        wait_for_ply(page, 1)
    expect(black_page.locator("#takeback")).to_have_count(0)  # Black has not moved

    # Asked and agreed: both pages are back at the start, White to move again.
    white_page.click("#takeback")
    expect(white_page.locator("#cancel-takeback")).to_be_visible()
    expect(black_page.locator("#draw-offer")).to_contain_text("asks to take their last move back")
    black_page.click("#accept-takeback")
    for page in (white_page, black_page):
        expect(page.locator("#moves li.ply")).to_have_count(0)
        expect(page.locator("#draw-offer")).to_be_hidden()
    assert plies_shown(white_page) == 0
    expect(white_page.locator("svg.board .piece.movable").first).to_be_visible()

    # Asked and declined: the move stands, and White asks again only after the next move.
    socket = white.socket(gid)
    try:
        assert socket.move("a3-b4", ply=0)["type"] == "ack"
    finally:
        socket.close()
    wait_for_ply(black_page, 1)
    white_page.click("#takeback")
    black_page.click("#decline-takeback")
    expect(white_page.locator("#draw-offer")).to_be_hidden()
    expect(white_page.locator("#takeback")).to_have_count(0)
    expect(black_page.locator("#moves li.ply")).to_have_count(1)
    socket = black.socket(gid)
    try:
        assert socket.move("f6-g5", ply=1)["type"] == "ack"
    finally:
        socket.close()
    expect(white_page.locator("#takeback")).to_be_visible()
    white.close()
    black.close()


def test_a_double_click_on_takeback_against_the_computer_takes_back_one_move(pages, server):
    """The button is disabled once clicked, until the next state: a double click asks once, and the
    computer (which agrees at once) takes back the player's last move only, not the one before too."""
    player = Player(server)
    r = player.post("/api/computer-games", {"level": 1, "color": "white", "variant": "russian-giveaway"})
    assert r.status_code == 201, r.text
    gid = r.json()["game"]["id"]

    def game():
        return player.http.get(f"/api/games/{gid}").json()["game"]

    for ply in (0, 2, 4):  # three moves of the player, each answered by the computer
        state = eventually(game, lambda g, ply=ply: g["ply"] == ply and g["side_to_move"] == "white")
        assert state["ply"] == ply, state
        move = {"move": state["legal_moves"][0]["move"], "ply": ply}
        assert player.post(f"/api/games/{gid}/move", move).status_code == 200
    assert eventually(game, lambda g: g["ply"] == 6)["ply"] == 6
    page = pages(f"/game/{gid}", player=player)
    wait_for_ply(page, 6)
    page.dblclick("#takeback")
    expect(page.locator("#moves li.ply")).to_have_count(4)
    page.wait_for_timeout(1000)  # a second request would be answered by now
    assert game()["ply"] == 4
    expect(page.locator("#moves li.ply")).to_have_count(4)
    expect(page.locator("#takeback")).to_be_enabled()  # drawn anew for the new state
    player.close()


def pieces_shown(page) -> list[str]:
    return sorted(
        f"{p.get_attribute('data-piece')}:{p.get_attribute('data-color')}:{p.get_attribute('data-king')}"
        for p in page.locator("svg.board [data-piece]").all()
    )


def test_positions_fetched_while_a_takeback_lands_are_not_kept(pages, server):
    """Stepping back fetches the game's positions; a takeback (and a new line) that comes while the answer
    is on its way makes that answer stale: it is dropped and asked again, and no position of the line taken
    back is ever shown."""
    white, black = Player(server), Player(server)
    gid = white.challenge(black)["id"]

    def game():
        return white.http.get(f"/api/games/{gid}").json()["game"]

    taken_back = None
    for ply in range(5):
        state = game()
        taken_back = state["legal_moves"][0]["move"]
        mover = white if ply % 2 == 0 else black
        assert mover.post(f"/api/games/{gid}/move", {"move": taken_back, "ply": ply}).status_code == 200
    assert white.post(f"/api/games/{gid}/takeback/offer").status_code == 200
    page = pages(f"/game/{gid}", player=white)
    expect(page.locator("#moves li.ply")).to_have_count(5)
    expect(page.locator("#cancel-takeback")).to_be_visible()
    held = []

    def hold(route):
        answer = route.fetch()  # the positions of the five plies
        if not held:
            held.append(True)
            assert black.post(f"/api/games/{gid}/takeback/accept").status_code == 200
            page.wait_for_timeout(1000)  # the takeback's state reaches the page before the answer
        route.fulfill(response=answer)

    page.route("**/api/games/*/positions", hold)
    page.keyboard.press("ArrowLeft")  # a step back: the page asks for the positions
    expect(page.locator("#moves li.ply")).to_have_count(4)
    assert held
    page.wait_for_timeout(1000)
    # The game goes on along another line.
    state = game()
    other = next(m["move"] for m in state["legal_moves"] if m["move"] != taken_back)
    assert white.post(f"/api/games/{gid}/move", {"move": other, "ply": 4}).status_code == 200
    reply = game()["legal_moves"][0]["move"]
    assert black.post(f"/api/games/{gid}/move", {"move": reply, "ply": 5}).status_code == 200
    expect(page.locator("#moves li.ply")).to_have_count(6)
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")  # the position after White's new fifth ply
    expect(page.locator("#moves li.ply.current")).to_have_attribute("data-ply", "5")
    page.wait_for_timeout(500)
    fresh = pages(f"/game/{gid}")
    expect(fresh.locator("#moves li.ply")).to_have_count(6)
    fresh.keyboard.press("End")
    fresh.keyboard.press("ArrowLeft")
    expect(fresh.locator("#moves li.ply.current")).to_have_attribute("data-ply", "5")
    fresh.wait_for_timeout(500)
    shown = pieces_shown(page)
    assert shown and shown == pieces_shown(fresh)
    white.close()
    black.close()
